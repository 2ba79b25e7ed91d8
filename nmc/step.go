package nmc

import (
	"fmt"
	"math/rand/v2"
)

// RealProposal configures the proposal of Real sites. Its settings are independent of
// each other: any tails, any step rule and the robust mixture combine. The zero value
// is the paper's proposal: a Gaussian centred at the full Newton step x + A⁻¹∇f with
// covariance A⁻¹, A = −∇²f (regularised by SoftAbs where it is not positive definite).
type RealProposal struct {
	// Cauchy replaces the Gaussian by the paper's alternative, a multivariate Cauchy
	// (Student-t with one degree of freedom) with the same location and scale matrix.
	Cauchy bool
	// Step is the rule for the Newton step fraction γ in x + γA⁻¹∇f: nil is the full
	// step γ = 1 of the paper; a BetaStep draws γ from a Beta distribution at every
	// step; a CrankNicolson uses the Newton–Crank–Nicolson kernel with a fixed or
	// adapted γ. A rule's adaptation, if any, runs during warm-up only, each chain on
	// its own, and is frozen for the recorded draws.
	Step StepRule
	// Robust replaces the proposal by a mixture: the fit above with weight 1, the same
	// fit 10 times wider with weight 0.1, and a random walk N(x, diag(σ²)),
	// σ_j = 0.1·(1 + |x_j|), with weight 0.01.
	Robust bool
}

// A StepRule chooses the Newton step fraction γ of the Real proposal; it is BetaStep or
// CrankNicolson (the set is closed: the methods are unexported). Pointers to them are
// accepted as well (a nil pointer is an error).
type StepRule interface {
	// withDefaults validates the rule and returns it with its defaults filled in,
	// as a value (not a pointer).
	withDefaults() (StepRule, error)
	// newFractions returns the state of the rule in one chain of a model with the
	// given sites.
	newFractions(sites []Site) fractions
	// sdScale returns the factor applied to the standard deviation of the Newton
	// component of the proposal at step fraction γ.
	sdScale(gamma float64) float64
}

// fractions is a StepRule's state in one chain: it gives the γ of each step of a
// Real site and, during warm-up, adapts to the outcome of the step. It does not
// allocate after newFractions.
type fractions interface {
	// gamma returns the step fraction of the coming step of Real site i; it may draw
	// from rng.
	gamma(rng *rand.Rand, i int) float64
	// adapt learns from a warm-up step of Real site i proposed with step fraction
	// gamma whose proposal was in the support: logr is the log Metropolis-Hastings
	// ratio and accepted whether the step was accepted. It is not called after
	// warm-up, which freezes the adapted values.
	adapt(i int, gamma, logr float64, accepted bool)
	// report stores the values used for the recorded draws of the chain with local
	// index c into r.
	report(r *Result, c int)
}

// withDefaults validates p and returns a copy with the step rule's defaults filled in.
func (p RealProposal) withDefaults() (RealProposal, error) {
	switch s := p.Step.(type) {
	case *BetaStep:
		if s == nil {
			return p, fmt.Errorf("nmc: SiteSteps.Real.Step is a nil *BetaStep")
		}
		p.Step = *s
	case *CrankNicolson:
		if s == nil {
			return p, fmt.Errorf("nmc: SiteSteps.Real.Step is a nil *CrankNicolson")
		}
		p.Step = *s
	}
	if p.Step != nil {
		s, err := p.Step.withDefaults()
		if err != nil {
			return p, err
		}
		p.Step = s
	}
	return p, nil
}

// proposerName is the name of the Real proposal in SiteStats.
func (p RealProposal) proposerName() string {
	if p.Cauchy {
		return "newton-cauchy"
	}
	return "newton-gaussian"
}
