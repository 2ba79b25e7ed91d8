package models

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/nmc"
)

// quantileProbs are the probabilities at which marginals are compared.
var quantileProbs = []float64{0.05, 0.25, 0.5, 0.75, 0.95}

// quantileWithMCSE returns the p-quantile of x and its Monte Carlo standard error.
func quantileWithMCSE(t *testing.T, name string, x [][]float64, p float64) (q, se float64) {
	t.Helper()
	q, err1 := diagnostics.Quantile(x, p)
	se, err2 := diagnostics.MCSEQuantile(x, p)
	if err1 != nil || err2 != nil {
		t.Fatalf("%s q%g: %v %v", name, p, err1, err2)
	}
	return q, se
}

// TestSampleFunnel samples Neal's funnel, z ~ N(0, 3), x ~ N(0, exp(z/2)), and checks
// that z's marginal matches N(0, 3) at the 5, 25, 50, 75 and 95% quantiles:
// |q̂ − q|/MCSE_q < z with a Šidák-corrected family-wise α = 0.01 over the five
// quantiles; and that the chains agree (R-hat < 1.05, bulk ESS > 400).
func TestSampleFunnel(t *testing.T) {
	t.Parallel()
	b, err := Funnel()
	if err != nil {
		t.Fatal(err)
	}
	res := sample(t, b, &nmc.Options{Chains: 4, Draws: 5000, Warmup: 200, Seed: 11})
	zs := paramDraws(t, res.Draws, "z")
	exact := distuv.Normal{Mu: 0, Sigma: 3}
	crit := sidakZ(0.01, len(quantileProbs))
	for _, p := range quantileProbs {
		q, se := quantileWithMCSE(t, "z", zs, p)
		checkZ(t, fmt.Sprintf("funnel z q%g", p*100), q, exact.Quantile(p), se, crit)
	}
	m := estimate(t, "funnel z", zs)
	t.Logf("funnel z: mean %.3f sd %.3f rhat %.4f ess_bulk %.0f; accept z %.3f", m.mean, m.sd, m.rhat, m.essBulk, acceptRate(t, res, "z"))
	if !(m.rhat < 1.05) || !(m.essBulk > 400) {
		t.Errorf("funnel z: R-hat %.4f (want < 1.05), bulk ESS %.0f (want > 400)", m.rhat, m.essBulk)
	}
}

// acceptRate returns the acceptance rate of the named site.
func acceptRate(t *testing.T, res *nmc.Result, site string) float64 {
	t.Helper()
	r, err := res.AcceptRate(site)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSampleEightSchools samples the centred and the non-centred eight-schools model.
// The non-centred chains must converge (R-hat < 1.05 for mu, tau and every theta,
// bulk ESS > 100). The two parameterisations have the same posterior of mu and tau, so
// their 5, 25, 50, 75 and 95% quantiles must agree within the combined Monte Carlo
// error, √(MCSE_c² + MCSE_nc²), with a Šidák-corrected family-wise α = 0.01 over the ten
// comparisons. The centred model's small-tau neck (the classic divergence region)
// makes its own MCSE unreliable, so only the comparison involves it; and it mixes
// slowly there (tau bulk ESS about 100 per 10,000 draws), so it runs four times
// longer than the non-centred model.
func TestSampleEightSchools(t *testing.T) {
	t.Parallel()
	y, sigma := EightSchoolsData.Y, EightSchoolsData.Sigma
	nc, err := EightSchools(y, sigma, true)
	if err != nil {
		t.Fatal(err)
	}
	c, err := EightSchools(y, sigma, false)
	if err != nil {
		t.Fatal(err)
	}
	opts := func(seed uint64) *nmc.Options {
		return &nmc.Options{Chains: 4, Draws: 2500, Warmup: 200, Seed: seed}
	}
	rnc := sample(t, nc, opts(21))
	oc := opts(22)
	oc.Draws = 10000
	rc := sample(t, c, oc)
	for _, name := range rnc.Draws.Names {
		m := estimate(t, "non-centred "+name, paramDraws(t, rnc.Draws, name))
		if !(m.rhat < 1.05) || !(m.essBulk > 100) {
			t.Errorf("non-centred %s: R-hat %.4f (want < 1.05), bulk ESS %.0f (want > 100)", name, m.rhat, m.essBulk)
		}
	}
	crit := sidakZ(0.01, 2*len(quantileProbs))
	for _, name := range []string{"mu", "tau"} {
		xnc, xc := paramDraws(t, rnc.Draws, name), paramDraws(t, rc.Draws, name)
		mnc, mc := estimate(t, name, xnc), estimate(t, name, xc)
		t.Logf("%s: non-centred mean %.3f sd %.3f rhat %.4f ess %.0f; centred mean %.3f sd %.3f rhat %.4f ess %.0f",
			name, mnc.mean, mnc.sd, mnc.rhat, mnc.essBulk, mc.mean, mc.sd, mc.rhat, mc.essBulk)
		for _, p := range quantileProbs {
			qnc, senc := quantileWithMCSE(t, "non-centred "+name, xnc, p)
			qc, sec := quantileWithMCSE(t, "centred "+name, xc, p)
			checkZ(t, fmt.Sprintf("eight schools %s q%g centred vs non-centred", name, p*100), qc, qnc, math.Hypot(senc, sec), crit)
		}
	}
}
