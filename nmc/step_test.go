package nmc

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// Tests of the Newton step fraction rules of Real sites (SiteSteps.Real.Step).

// TestStepFraction: γ ~ Beta(0.3, 0.3), not adapted, drawn once per step and used for
// both directions, leaves the posterior invariant (the reference redraws γ for the
// reverse density, which does not).
func TestStepFraction(t *testing.T) {
	t.Parallel()
	r := sample(t, newMVNModel(), &Options{Warmup: NoWarmup, Chains: 4, Draws: 2000, Seed: 101, Moves: withReal(RealProposal{Step: BetaStep{A: 0.3, B: 0.3}})})
	checkMoments(t, "x[0] with beta step", column(t, r, "x[0]"), 1.5, math.Sqrt(0.5), nil)
	if r.StepFractions[0] != (BetaStep{A: 0.3, B: 0.3}) {
		t.Errorf("step fraction %+v changed without Adapt", r.StepFractions[0])
	}
}

// spyProposer records the step fraction of every call of the proposer it wraps.
type spyProposer struct {
	proposer
	gammas []float64
}

func (s *spyProposer) draw(rng *rand.Rand, sl *slot, gamma float64, dst []float64) {
	s.gammas = append(s.gammas, gamma)
	s.proposer.draw(rng, sl, gamma, dst)
}

func (s *spyProposer) logq(sl *slot, gamma float64, y []float64) float64 {
	s.gammas = append(s.gammas, gamma)
	return s.proposer.logq(sl, gamma, y)
}

// TestStepFractionSameBothWays: within one step the forward draw, the forward density
// and the reverse density all use the same γ, and γ changes from step to step.
func TestStepFractionSameBothWays(t *testing.T) {
	t.Parallel()
	ch := newTestChain(t, newMVNModel(), &Options{Warmup: NoWarmup, Moves: withReal(RealProposal{Step: BetaStep{A: 2, B: 2}})})
	spy := &spyProposer{proposer: ch.sites[0].prop}
	ch.sites[0].prop = spy
	distinct := map[float64]bool{}
	for range 50 {
		spy.gammas = spy.gammas[:0]
		ch.testSweep(false, 1)
		if len(spy.gammas) != 3 { // draw, reverse logq, forward logq
			t.Fatalf("%d proposer calls in one step, want 3", len(spy.gammas))
		}
		g := spy.gammas[0]
		if spy.gammas[1] != g || spy.gammas[2] != g || !(g > 0 && g < 1) {
			t.Fatalf("step fractions %v within one step", spy.gammas)
		}
		distinct[g] = true
	}
	if len(distinct) < 45 {
		t.Errorf("%d distinct step fractions in 50 steps; want one fresh γ per step", len(distinct))
	}
}

// TestCrankNicolsonExact: the Newton–Crank–Nicolson proposal is the exact
// autoregressive kernel of a Gaussian conditional, so it accepts every step at any γ,
// moves less than the full Newton proposal for γ < 1, and keeps the posterior.
func TestCrankNicolsonExact(t *testing.T) {
	t.Parallel()
	for _, g := range []float64{0.3, 1} {
		r := sample(t, newMVNModel(), &Options{Warmup: NoWarmup, Chains: 4, Draws: 1500, Seed: 21, Moves: withReal(RealProposal{Step: CrankNicolson{Gamma: g}})})
		if a := acceptRate(t, r, "x"); a != 1 {
			t.Errorf("γ = %g: acceptance %.4f, want exactly 1", g, a)
		}
		x0 := column(t, r, "x[0]")
		checkMoments(t, "x[0]", x0, 1.5, math.Sqrt(.5), nil)
		// lag-1 autocorrelation of the AR kernel is 1 − γ on every coordinate
		num, den := 0.0, 0.0
		for _, ch := range x0 {
			for d := 1; d < len(ch); d++ {
				num += (ch[d] - 1.5) * (ch[d-1] - 1.5)
				den += (ch[d-1] - 1.5) * (ch[d-1] - 1.5)
			}
		}
		// 6000 draws: the lag-1 estimate's sd is below 0.02 for |ρ| ≤ 0.7.
		if rho := num / den; math.Abs(rho-(1-g)) > 0.08 {
			t.Errorf("γ = %g: lag-1 autocorrelation %.3f, want %.3f", g, rho, 1-g)
		}
	}
	if _, err := Sample(context.Background(), newMVNModel(), &Options{Warmup: NoWarmup, Moves: withReal(RealProposal{Step: CrankNicolson{Gamma: 1.5}})}); err == nil {
		t.Error("γ = 1.5 accepted")
	}
}

// TestCrankNicolsonGammas: Result.CrankNicolsonGammas reports, per chain and site, the
// γ used for the recorded draws: the fixed γ without Adapt, an adapted γ in (0, 1]
// with it, NaN for sites that are not Real.
func TestCrankNicolsonGammas(t *testing.T) {
	t.Parallel()
	m := kitchenSinkModel()
	sites := m.Sites()
	for _, adapt := range []bool{false, true} {
		r := sample(t, m, &Options{Chains: 3, Draws: 50, Warmup: 100, Seed: 3, Moves: withReal(RealProposal{Step: CrankNicolson{Gamma: 0.2, Adapt: adapt}})})
		if r.StepFractions != nil {
			t.Errorf("step fractions %v reported for Crank–Nicolson", r.StepFractions)
		}
		if len(r.CrankNicolsonGammas) != 3 {
			t.Fatalf("adapt %v: %d chains of γ, want 3", adapt, len(r.CrankNicolsonGammas))
		}
		for c, gs := range r.CrankNicolsonGammas {
			if len(gs) != len(sites) {
				t.Fatalf("adapt %v chain %d: %d γ, want one per site (%d)", adapt, c, len(gs), len(sites))
			}
			for i, g := range gs {
				switch {
				case sites[i].Support != Real:
					if !math.IsNaN(g) {
						t.Errorf("adapt %v chain %d: %s site %q has γ %v, want NaN", adapt, c, sites[i].Support, sites[i].Name, g)
					}
				case !adapt && g != 0.2:
					t.Errorf("chain %d site %q: γ %v changed without Adapt", c, sites[i].Name, g)
				case adapt && (g == 0.2 || !(g > 0 && g <= 1)):
					t.Errorf("chain %d site %q: adapted γ %v, want a new value in (0, 1]", c, sites[i].Name, g)
				}
			}
		}
	}
	if r := sample(t, m, &Options{Warmup: NoWarmup, Chains: 1, Draws: 5}); r.CrankNicolsonGammas != nil || r.StepFractions != nil {
		t.Errorf("full Newton step: γ %v, step fractions %v reported", r.CrankNicolsonGammas, r.StepFractions)
	}
}
