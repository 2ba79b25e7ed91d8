package nmc

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// BetaStep is the StepRule that draws the Newton step fraction γ of Real sites from
// Beta(A, B), once per Metropolis-Hastings step; the same γ is used for the forward
// density q(x′|x) and the reverse density q(x|x′), so the posterior stays invariant.
// A and B must be positive and finite. If Adapt is true, (A, B) are re-fitted during
// warm-up by the method of moments to the γ of accepted steps (of all Real sites of
// the chain, once there are 20 of them), then frozen for the recorded draws; each
// chain adapts on its own and Result.StepFractions holds the values each used.
type BetaStep struct {
	A, B  float64
	Adapt bool
}

func (b BetaStep) withDefaults() (StepRule, error) {
	if !(b.A > 0) || !(b.B > 0) || math.IsInf(b.A, 0) || math.IsInf(b.B, 0) {
		return b, fmt.Errorf("nmc: SiteSteps.Real.Step = Beta(%g, %g): both parameters must be positive and finite", b.A, b.B)
	}
	return b, nil
}

func (b BetaStep) newFractions([]Site) fractions { return &betaStepper{rule: b, a: b.A, b: b.B} }

func (BetaStep) sdScale(float64) float64 { return 1 }

// betaStepper is a BetaStep's state in one chain: the current (A, B) and the running
// moments of the accepted γ.
type betaStepper struct {
	rule        BetaStep
	a, b        float64
	n           int
	mean, sumSq float64 // running mean and sum of squared deviations (Welford)
}

func (s *betaStepper) gamma(rng *rand.Rand, _ int) float64 {
	u, _ := betaRand(rng, s.a, s.b)
	return u
}

// adapt folds an accepted γ into the running moments and re-fits (A, B) by the
// method of moments once there are enough of them.
func (s *betaStepper) adapt(_ int, g, _ float64, accepted bool) {
	if !s.rule.Adapt || !accepted {
		return
	}
	s.n++
	d := g - s.mean
	s.mean += d / float64(s.n)
	s.sumSq += d * (g - s.mean)
	if s.n < 20 {
		return
	}
	m, v := s.mean, s.sumSq/float64(s.n-1)
	if !(v > 0) || !(m > 0 && m < 1) {
		return
	}
	if n := m*(1-m)/v - 1; n > 0 && !math.IsInf(n, 0) {
		s.a, s.b = m*n, (1-m)*n
	}
}

func (s *betaStepper) report(r *Result, c int) {
	if r.StepFractions == nil {
		r.StepFractions = make([]BetaStep, len(r.Draws.Chains))
	}
	r.StepFractions[c] = BetaStep{A: s.a, B: s.b, Adapt: s.rule.Adapt}
}
