package nmc_test

import (
	"context"
	"math"
	"testing"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc"
)

// TestFittedReplacesSiteSteps: on a near-separable logistic regression (the paper's
// generator) the fitted block of (α, β) accepts enough to replace the sites' Newton
// steps after warm-up, and the draws agree with those of a run that keeps the site
// steps: every coordinate's posterior mean within 4.5 standard errors of the
// difference (from both runs' MCSE).
func TestFittedReplacesSiteSteps(t *testing.T) {
	t.Parallel()
	d, err := models.Generate("blr", 1000, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := d.Build()
	if err != nil {
		t.Fatal(err)
	}
	run := func(keep bool) *nmc.Result {
		moves, err := nmc.DefaultMoves(b.Model, nmc.Defaults{})
		if err != nil {
			t.Fatal(err)
		}
		for _, mv := range moves {
			if f, ok := mv.(*nmc.FittedSteps); ok {
				f.KeepSiteSteps = keep
			}
		}
		o := &nmc.Options{Chains: 4, Draws: 1000, Warmup: nmc.AutoWarmup, Seed: 11, Moves: moves}
		r, err := nmc.Sample(context.Background(), b.Model, o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	replaced, kept := run(false), run(true)
	if kept.ReplacedPerChain != nil {
		t.Errorf("KeepSiteSteps: replaced %v", kept.ReplacedPerChain)
	}
	n := 0
	for _, names := range replaced.ReplacedPerChain {
		n += len(names)
	}
	if n == 0 {
		t.Fatalf("no site steps replaced (fitted %+v)", replaced.Moves)
	}
	t.Logf("replaced %v; fitted %+v", replaced.ReplacedPerChain, replaced.Moves)
	for p, name := range replaced.Draws.Names {
		a, c := replaced.Draws.Column(p), kept.Draws.Column(p)
		ma, sa := meanMCSE(t, a)
		mc, sc := meanMCSE(t, c)
		if z := (ma - mc) / math.Hypot(sa, sc); !(math.Abs(z) < 4.5) {
			t.Errorf("%s: mean %g (mcse %g) with replaced site steps, %g (mcse %g) with them, z = %.2f", name, ma, sa, mc, sc, z)
		}
	}
}

// meanMCSE returns the mean of the draws of all chains and its Monte Carlo standard
// error sd/√ESS.
func meanMCSE(t *testing.T, x [][]float64) (mean, mcse float64) {
	t.Helper()
	n, s, s2 := 0.0, 0.0, 0.0
	for _, ch := range x {
		for _, v := range ch {
			n++
			s += v
			s2 += v * v
		}
	}
	mean = s / n
	ess, err := diagnostics.ESSMean(x)
	if err != nil {
		t.Fatal(err)
	}
	return mean, math.Sqrt((s2/n - mean*mean) / ess)
}
