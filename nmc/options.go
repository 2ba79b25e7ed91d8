package nmc

import (
	"fmt"
	"math"
)

// RealKind selects the proposal family of Real sites.
type RealKind int

const (
	// NewtonGaussian is the paper's default: a Gaussian centred at the Newton step with
	// covariance (−∇²f)⁻¹.
	NewtonGaussian RealKind = iota
	// NewtonCauchy is the paper's alternative: a multivariate Cauchy (Student-t with one
	// degree of freedom) with the same location and scale matrix.
	NewtonCauchy
)

// String returns the proposer name used in Result.Sites.
func (k RealKind) String() string {
	switch k {
	case NewtonGaussian:
		return "newton-gaussian"
	case NewtonCauchy:
		return "newton-cauchy"
	}
	return fmt.Sprintf("RealKind(%d)", int(k))
}

// BetaStep draws the Newton step fraction γ of Real sites from Beta(A, B), once per
// Metropolis-Hastings step; the same γ is used for the forward density q(x′|x) and the
// reverse density q(x|x′). A and B must be positive and finite. If Adapt is true, (A, B)
// are re-fitted during warm-up by the method of moments to the γ of accepted steps, then
// frozen for the recorded draws (each chain adapts on its own; Result.StepFractions
// holds the values used).
type BetaStep struct {
	A, B  float64
	Adapt bool
}

// CrankNicolson configures the Newton–Crank–Nicolson proposal of Real sites.
type CrankNicolson struct {
	// Gamma is the starting (or, without Adapt, the fixed) γ in (0, 1]; 0 means 1.
	Gamma float64
	// Adapt adapts γ per site during warm-up (Robbins–Monro on logit γ) towards
	// TargetAccept, then freezes it for the recorded draws; γ never exceeds 1.
	Adapt bool
	// TargetAccept is the acceptance rate adaptation aims at; 0 means 0.5.
	TargetAccept float64
}

// Progress reports how far a chain has got: Done of Total sweeps (warm-up included).
type Progress struct {
	Chain, Done, Total int
}

// Options configures Sample. The zero value of every field is its documented default;
// a nil *Options means all defaults.
type Options struct {
	// Chains is the number of chains (default 4). Must not be negative.
	Chains int
	// Draws is the number of recorded draws per chain (default 1000). Must not be
	// negative.
	Draws int
	// Warmup is the number of sweeps per chain run before recording (default 0).
	// Must not be negative.
	Warmup int
	// Thin keeps every Thin-th sweep after warm-up (default 1). Must not be negative.
	Thin int
	// Seed seeds every chain: chain c uses rand.New(rand.NewPCG(Seed, c)).
	Seed uint64
	// Init, when non-nil, gives the starting states: either one state per chain or one
	// state used by every chain, each of length Dim(m.Sites()). Nil means each chain
	// draws its own start with m.Init.
	Init [][]float64
	// InitRetries is the number of m.Init attempts per chain before giving up
	// (default 100). Must not be negative.
	InitRetries int
	// InitRefine is the most sweeps of start refinement applied to each chain's start
	// (drawn by m.Init or given in Init): each continuous site whose point is
	// atypical under its own fitted proposal — log q(centre) − log q(x) above the
	// 0.9999 quantile of ½χ²_k — is moved towards the proposal's centre (the Newton
	// point, or the Gamma/Beta/Dirichlet mode) while that raises its score. Starts that
	// are already typical, such as prior draws of a model without data, are left as
	// they are. 0 means the default 50; a negative value disables refinement (and so
	// starts a chain exactly at its Init state).
	InitRefine int
	// StepFraction, when non-nil, draws the Newton step fraction γ from a Beta
	// distribution. Nil means γ = 1, the exact Newton step of the paper.
	StepFraction *BetaStep
	// CrankNicolson, when non-nil, replaces the Real proposal by the Newton–Crank–Nicolson
	// proposal x′ ~ N(x + γA⁻¹g, γ(2−γ)A⁻¹): the exact autoregressive kernel of the
	// fitted Gaussian, so a Gaussian conditional is still sampled exactly (acceptance 1)
	// at every γ, while a small γ makes local moves on posteriors whose curvature
	// changes quickly (near-separable logistic regression). γ = 1 is the paper's
	// proposal. Nil means γ = 1. It cannot be combined with StepFraction.
	CrankNicolson *CrankNicolson
	// Robust replaces the Real proposal by a mixture: the Newton fit with weight 1, the
	// same fit 10 times wider with weight 0.1, and a random walk with weight 0.01.
	Robust bool
	// RealProposal selects the proposal family of Real sites (default NewtonGaussian).
	RealProposal RealKind
	// HeldOut, when non-nil, is evaluated at every recorded draw; the pointwise
	// log-likelihoods go to Result.HeldOut.
	HeldOut HeldOut
	// Progress, when non-nil, is called from the chain goroutines (so it must be safe
	// for concurrent use) at most about every 50 ms per chain, and once per chain at
	// its end.
	Progress func(Progress)
}

// withDefaults validates o and returns a copy with the defaults filled in. dim is the
// number of coordinates of the model.
func (o *Options) withDefaults(dim int) (Options, error) {
	var e Options
	if o != nil {
		e = *o
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"Chains", e.Chains}, {"Draws", e.Draws}, {"Warmup", e.Warmup}, {"Thin", e.Thin}, {"InitRetries", e.InitRetries}} {
		if f.v < 0 {
			return e, fmt.Errorf("nmc: Options.%s = %d is negative", f.name, f.v)
		}
	}
	if e.Chains == 0 {
		e.Chains = 4
	}
	if e.Draws == 0 {
		e.Draws = 1000
	}
	if e.Thin == 0 {
		e.Thin = 1
	}
	if e.InitRetries == 0 {
		e.InitRetries = 100
	}
	if e.InitRefine == 0 {
		e.InitRefine = 50
	}
	if e.RealProposal != NewtonGaussian && e.RealProposal != NewtonCauchy {
		return e, fmt.Errorf("nmc: Options.RealProposal = %d is not NewtonGaussian or NewtonCauchy", int(e.RealProposal))
	}
	if s := e.StepFraction; s != nil {
		if !(s.A > 0) || !(s.B > 0) || math.IsInf(s.A, 0) || math.IsInf(s.B, 0) {
			return e, fmt.Errorf("nmc: Options.StepFraction = Beta(%g, %g): both parameters must be positive and finite", s.A, s.B)
		}
		c := *s
		e.StepFraction = &c
	}
	if cn := e.CrankNicolson; cn != nil {
		if e.StepFraction != nil {
			return e, fmt.Errorf("nmc: Options.CrankNicolson and Options.StepFraction cannot both be set")
		}
		c := *cn
		if c.Gamma == 0 {
			c.Gamma = 1
		}
		if c.TargetAccept == 0 {
			c.TargetAccept = 0.5
		}
		if !(c.Gamma > 0 && c.Gamma <= 1) {
			return e, fmt.Errorf("nmc: Options.CrankNicolson.Gamma = %g, want a value in (0, 1]", c.Gamma)
		}
		if !(c.TargetAccept > 0 && c.TargetAccept < 1) {
			return e, fmt.Errorf("nmc: Options.CrankNicolson.TargetAccept = %g, want a value in (0, 1)", c.TargetAccept)
		}
		e.CrankNicolson = &c
	}
	if e.Init != nil {
		if len(e.Init) != 1 && len(e.Init) != e.Chains {
			return e, fmt.Errorf("nmc: Options.Init has %d states, want 1 or %d (one per chain)", len(e.Init), e.Chains)
		}
		for c, st := range e.Init {
			if len(st) != dim {
				return e, fmt.Errorf("nmc: Options.Init[%d] has %d values, want %d", c, len(st), dim)
			}
			for j, v := range st {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return e, fmt.Errorf("nmc: Options.Init[%d][%d] = %g is not finite", c, j, v)
				}
			}
		}
	}
	return e, nil
}
