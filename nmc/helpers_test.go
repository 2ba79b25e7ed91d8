package nmc

import (
	"fmt"
	"math"
	"os"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/nmc-go/nmc/diagnostics"
)

// numStatChecks bounds the number of statistical checks (z-tests through zExceeds)
// made by the package's tests (267 at the last count; NMC_COUNT_CHECKS=1 go test -v
// prints it); the per-check level is Šidák-corrected so that the whole family has
// level 0.01.
const numStatChecks = 330

// statChecks counts the statistical checks made; TestMain fails the run if it
// exceeds numStatChecks, which would make the correction too weak.
var statChecks atomic.Int64

// zExceeds counts one statistical check and reports whether |z| exceeds zCrit.
func zExceeds(z float64) bool {
	statChecks.Add(1)
	return !(math.Abs(z) <= zCrit)
}

// TestMain runs the tests, then fails the run if more statistical checks were made
// than numStatChecks allows for.
func TestMain(m *testing.M) {
	code := m.Run()
	if n := statChecks.Load(); n > numStatChecks {
		fmt.Fprintf(os.Stderr, "nmc tests: %d statistical checks, more than numStatChecks = %d: raise it\n", n, numStatChecks)
		code = 1
	}
	if os.Getenv("NMC_COUNT_CHECKS") != "" {
		fmt.Fprintf(os.Stderr, "statistical checks: %d\n", statChecks.Load())
	}
	os.Exit(code)
}

// zCrit is the two-sided critical z of one check: α₁ = 1 − (1 − 0.01)^(1/numStatChecks).
var zCrit = func() float64 {
	a1 := 1 - math.Pow(1-0.01, 1.0/numStatChecks)
	return distuv.UnitNormal.Quantile(1 - a1/2)
}()

// ess returns the effective sample size of the mean of the series (the R package
// posterior's ess_basic, from package diagnostics).
func ess(t *testing.T, chains [][]float64) float64 {
	t.Helper()
	e, err := diagnostics.ESSBasic(chains)
	if err != nil || math.IsNaN(e) {
		t.Fatalf("ESS: %v, %v", e, err)
	}
	return e
}

// checkMean checks that the mean of the series (one slice per chain) matches truth
// within zCrit Monte Carlo standard errors, the MCSE from the series' sd and ESS.
func checkMean(t *testing.T, what string, series [][]float64, truth float64) {
	t.Helper()
	n, s, ss := 0, 0.0, 0.0
	for _, x := range series {
		for _, v := range x {
			s += v
			n++
		}
	}
	mean := s / float64(n)
	for _, x := range series {
		for _, v := range x {
			ss += (v - mean) * (v - mean)
		}
	}
	sd := math.Sqrt(ss / float64(n-1))
	if sd == 0 {
		statChecks.Add(1)
		t.Errorf("%s: constant series %.6g (truth %.6g)", what, mean, truth)
		return
	}
	e := ess(t, series)
	mcse := sd / math.Sqrt(e)
	z := math.Abs(mean-truth) / mcse
	t.Logf("%s: mean %.6g, want %.6g (mcse %.3g, ess %.0f, z = %.2f)", what, mean, truth, mcse, e, (mean-truth)/mcse)
	if zExceeds(z) {
		t.Errorf("%s: mean %.6g, want %.6g (mcse %.3g, ess %.0f, z = %.2f > %.2f)", what, mean, truth, mcse, e, z, zCrit)
	}
}

// mapSeries applies f to every element of the series.
func mapSeries(series [][]float64, f func(float64) float64) [][]float64 {
	out := make([][]float64, len(series))
	for c, x := range series {
		out[c] = make([]float64, len(x))
		for i, v := range x {
			out[c][i] = f(v)
		}
	}
	return out
}

// checkMoments checks the mean, the variance (as the mean of (x − mean)²) and, when
// quantiles are given, P(x ≤ q_p) = p of one scalar against the truth.
func checkMoments(t *testing.T, what string, series [][]float64, mean, sd float64, quantiles map[float64]float64) {
	t.Helper()
	checkMean(t, what+" mean", series, mean)
	checkMean(t, what+" variance", mapSeries(series, func(v float64) float64 { return (v - mean) * (v - mean) }), sd*sd)
	for p, q := range quantiles {
		checkMean(t, what+" P(x ≤ q)", mapSeries(series, func(v float64) float64 {
			if v <= q {
				return 1
			}
			return 0
		}), p)
	}
}

// column returns the draws of the named coordinate as [chain][draw].
func column(t *testing.T, r *Result, name string) [][]float64 {
	t.Helper()
	c, err := r.Draws.Param(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
