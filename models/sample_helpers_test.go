package models

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/nmc"
)

// sidakZ returns the two-sided standard-normal critical value of one check among m
// independent checks whose family-wise error rate is alpha (Šidák correction): the
// per-check level is 1 − (1 − alpha)^(1/m).
func sidakZ(alpha float64, m int) float64 {
	per := -math.Expm1(math.Log1p(-alpha) / float64(m))
	return distuv.UnitNormal.Quantile(1 - per/2)
}

// sidakLevel returns the per-check level 1 − (1 − alpha)^(1/m) of m checks with
// family-wise error rate alpha.
func sidakLevel(alpha float64, m int) float64 {
	return -math.Expm1(math.Log1p(-alpha) / float64(m))
}

// sample runs the sampler on b's model and fails the test on any error.
func sample(t *testing.T, b *Built, opts *nmc.Options) *nmc.Result {
	t.Helper()
	res, err := nmc.Sample(context.Background(), b.Model, opts)
	if err != nil {
		t.Fatalf("%s: Sample: %v", b.Name, err)
	}
	return res
}

// paramDraws returns the draws of one named quantity as [chain][draw].
func paramDraws(t *testing.T, d *draws.Draws, name string) [][]float64 {
	t.Helper()
	x, err := d.Param(name)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// moments holds a quantity's posterior mean and sd estimated from draws, with their
// Monte Carlo standard errors and the convergence diagnostics.
type moments struct {
	mean, mcseMean, sd, mcseSD, rhat, essBulk float64
}

// estimate computes the moments of x ([chain][draw]); any diagnostic error fails
// the test.
func estimate(t *testing.T, name string, x [][]float64) moments {
	t.Helper()
	var m moments
	var err [6]error
	m.mean, err[0] = diagnostics.Mean(x)
	m.mcseMean, err[1] = diagnostics.MCSEMean(x)
	m.sd, err[2] = diagnostics.SD(x)
	m.mcseSD, err[3] = diagnostics.MCSESD(x)
	m.rhat, err[4] = diagnostics.RHat(x)
	m.essBulk, err[5] = diagnostics.ESSBulk(x)
	for _, e := range err {
		if e != nil {
			t.Fatalf("%s: %v", name, e)
		}
	}
	return m
}

// checkZ reports whether |got − want|/se < z, failing the test with the numbers when
// not (a NaN or non-positive se fails too).
func checkZ(t *testing.T, what string, got, want, se, z float64) bool {
	t.Helper()
	r := math.Abs(got-want) / se
	if !(se > 0) || !(r < z) {
		t.Errorf("%s = %.6g, want %.6g: |diff|/se = %.2f with se = %.3g, limit %.2f", what, got, want, r, se, z)
		return false
	}
	return true
}
