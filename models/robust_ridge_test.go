package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/nmc"
)

// TestRobustRidgeMixing samples a robust regression (1,000 train rows, K = 3) with
// its ridge group and without group moves, 4 × 1000 draws after the adaptive
// warm-up recording every sweep (Thin 1: the sweeps' mixing is compared), same
// seed. Both must give the same posterior means of nu and sigma
// (within 4 combined MCSE), the draws without the group must show the ridge the
// group follows (log σ regressed on log ν with slope 1/(ν̄+1), within 4 standard
// errors and 10% for the large-sample approximation), and the group must lift
// the smaller bulk ESS of nu and sigma by at least half. Measured at this seed
// (ν̄ = 7.06): ESS 499 without the group, 1996 with it; slope 0.121 ± 0.006
// against 1/(ν̄+1) = 0.124.
func TestRobustRidgeMixing(t *testing.T) {
	train, _, _, err := GenerateRobust(rand.New(rand.NewPCG(14, 7)), 2000, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Robust(train, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		nu, sigma moments
		slope, se float64
	}
	runs := map[bool]run{}
	for _, off := range []bool{false, true} {
		res := sample(t, b, &nmc.Options{Chains: 4, Draws: 1000, Warmup: nmc.AutoWarmup, Thin: 1, Seed: 5, Moves: []nmc.Move{nmc.Defaults{NoGroupMoves: off}}})
		nu, sigma := paramDraws(t, res.Draws, "nu"), paramDraws(t, res.Draws, "sigma")
		r := run{nu: estimate(t, "nu", nu), sigma: estimate(t, "sigma", sigma)}
		r.slope, r.se = logSlope(nu, sigma, min(r.nu.essBulk, r.sigma.essBulk))
		runs[off] = r
		t.Logf("group moves off %v: nu %.4g ± %.2g (ESS %.0f, R-hat %.4f), sigma %.4g ± %.2g (ESS %.0f, R-hat %.4f), slope of log sigma on log nu %.4f ± %.4f",
			off, r.nu.mean, r.nu.mcseMean, r.nu.essBulk, r.nu.rhat, r.sigma.mean, r.sigma.mcseMean, r.sigma.essBulk, r.sigma.rhat, r.slope, r.se)
	}
	on, off := runs[false], runs[true]
	for _, c := range []struct {
		name   string
		on, of moments
	}{{"nu", on.nu, off.nu}, {"sigma", on.sigma, off.sigma}} {
		checkZ(t, c.name+" mean with the ridge group", c.on.mean, c.of.mean, math.Hypot(c.on.mcseMean, c.of.mcseMean), 4)
	}
	want := 1 / (off.nu.mean + 1)
	if d := math.Abs(off.slope - want); !(d < 4*off.se+0.1*want) {
		t.Errorf("slope of log sigma on log nu %.4f ± %.4f, want 1/(nu+1) = %.4f (±10%%)", off.slope, off.se, want)
	}
	essOn, essOff := min(on.nu.essBulk, on.sigma.essBulk), min(off.nu.essBulk, off.sigma.essBulk)
	if !(essOn >= 1.5*essOff) {
		t.Errorf("smaller bulk ESS of nu and sigma %.0f with the ridge group, %.0f without: want at least 1.5 times", essOn, essOff)
	}
}

// logSlope returns the least-squares slope of log y on log x over all draws
// ([chain][draw]) and its standard error, with ess in place of the number of draws.
func logSlope(x, y [][]float64, ess float64) (slope, se float64) {
	var n, mx, my float64
	for c := range x {
		for i := range x[c] {
			mx += math.Log(x[c][i])
			my += math.Log(y[c][i])
			n++
		}
	}
	mx, my = mx/n, my/n
	var sxx, sxy, syy float64
	for c := range x {
		for i := range x[c] {
			dx, dy := math.Log(x[c][i])-mx, math.Log(y[c][i])-my
			sxx += dx * dx
			sxy += dx * dy
			syy += dy * dy
		}
	}
	slope = sxy / sxx
	resid := (syy - slope*sxy) / n
	return slope, math.Sqrt(resid / (sxx / n) / ess)
}
