package nmc

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// numStatChecks bounds the number of statistical checks (checkMean calls) made by the
// package's tests; the per-check level is Šidák-corrected so that the whole family has
// level 0.01.
const numStatChecks = 120

// zCrit is the two-sided critical z of one check: α₁ = 1 − (1 − 0.01)^(1/numStatChecks).
var zCrit = func() float64 {
	a1 := 1 - math.Pow(1-0.01, 1.0/numStatChecks)
	return distuv.UnitNormal.Quantile(1 - a1/2)
}()

// ess estimates the effective sample size of the mean of chains (equal lengths) by the
// multi-chain autocorrelation estimate with Geyer's initial monotone positive sequence,
// as in Stan (without splitting chains).
func ess(chains [][]float64) float64 {
	m := len(chains)
	n := len(chains[0])
	means := make([]float64, m)
	w := 0.0
	for c, x := range chains {
		s := 0.0
		for _, v := range x {
			s += v
		}
		means[c] = s / float64(n)
		ss := 0.0
		for _, v := range x {
			ss += (v - means[c]) * (v - means[c])
		}
		w += ss / float64(n-1)
	}
	w /= float64(m)
	gm, b := 0.0, 0.0
	for _, v := range means {
		gm += v
	}
	gm /= float64(m)
	if m > 1 {
		for _, v := range means {
			b += (v - gm) * (v - gm)
		}
		b /= float64(m - 1) // this is B/n
	}
	varPlus := float64(n-1)/float64(n)*w + b
	if !(varPlus > 0) {
		return float64(m * n)
	}
	rho := func(t int) float64 {
		acov := 0.0
		for c, x := range chains {
			s := 0.0
			for i := 0; i+t < n; i++ {
				s += (x[i] - means[c]) * (x[i+t] - means[c])
			}
			acov += s / float64(n)
		}
		acov /= float64(m)
		return 1 - (w-acov)/varPlus
	}
	tau := -1.0
	prev := math.Inf(1)
	for t := 0; t+1 < n; t += 2 {
		p := rho(t) + rho(t+1)
		if p <= 0 {
			break
		}
		p = math.Min(p, prev)
		prev = p
		tau += 2 * p
	}
	tau = math.Max(tau, 1/math.Log10(float64(m*n)))
	return float64(m*n) / tau
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
	e := ess(series)
	mcse := sd / math.Sqrt(e)
	if sd == 0 {
		if mean != truth {
			t.Errorf("%s: constant series %.6g, want %.6g", what, mean, truth)
		}
		return
	}
	z := math.Abs(mean-truth) / mcse
	if z > zCrit {
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
