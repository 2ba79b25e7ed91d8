package nmc

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// CrankNicolson is the StepRule of the Newton–Crank–Nicolson proposal of Real sites:
// x′ ~ N(x + γA⁻¹∇f, γ(2−γ)A⁻¹), A = −∇²f, the exact autoregressive kernel of the
// fitted Gaussian. A Gaussian conditional is therefore still sampled exactly
// (acceptance 1) at every γ, while a small γ makes local moves on posteriors whose
// curvature changes quickly (near-separable logistic regression). γ = 1 is the paper's
// proposal. With Cauchy tails the scale matrix is scaled the same way.
type CrankNicolson struct {
	// Gamma is the starting (or, without Adapt, the fixed) γ in (0, 1]; 0 means 1.
	Gamma float64
	// Adapt adapts γ per Real site during warm-up (Robbins–Monro on logit γ) towards
	// TargetAccept, then freezes it for the recorded draws; γ never exceeds 1, and
	// Result.CrankNicolsonGammas holds the values each chain used.
	Adapt bool
	// TargetAccept is the acceptance rate adaptation aims at, in (0, 1); 0 means 0.5.
	TargetAccept float64
}

func (cn CrankNicolson) withDefaults() (StepRule, error) {
	if cn.Gamma == 0 {
		cn.Gamma = 1
	}
	if cn.TargetAccept == 0 {
		cn.TargetAccept = 0.5
	}
	if !(cn.Gamma > 0 && cn.Gamma <= 1) {
		return cn, fmt.Errorf("nmc: SiteSteps.Real.Step: CrankNicolson.Gamma = %g, want a value in (0, 1]", cn.Gamma)
	}
	if !(cn.TargetAccept > 0 && cn.TargetAccept < 1) {
		return cn, fmt.Errorf("nmc: SiteSteps.Real.Step: CrankNicolson.TargetAccept = %g, want a value in (0, 1)", cn.TargetAccept)
	}
	return cn, nil
}

func (cn CrankNicolson) newFractions(sites []Site) fractions {
	s := &cnStepper{rule: cn, gammas: make([]float64, len(sites)), steps: make([]int, len(sites)), real: make([]bool, len(sites))}
	for i, site := range sites {
		s.gammas[i] = cn.Gamma
		s.real[i] = site.Support == Real
	}
	return s
}

// sdScale returns √(γ(2−γ)), the standard-deviation factor of the kernel.
func (CrankNicolson) sdScale(gamma float64) float64 { return math.Sqrt(gamma * (2 - gamma)) }

// cnStepper is a CrankNicolson's state in one chain: γ and the number of adaptation
// steps per site.
type cnStepper struct {
	rule   CrankNicolson
	gammas []float64
	steps  []int
	real   []bool // per site: whether it is a Real site (the others have no γ)
}

func (s *cnStepper) gamma(_ *rand.Rand, i int) float64 { return s.gammas[i] }

// adapt moves site i's γ by a Robbins–Monro step on logit γ towards the target
// acceptance, using the acceptance probability min(1, e^logr).
func (s *cnStepper) adapt(i int, _, logr float64, _ bool) {
	if !s.rule.Adapt {
		return
	}
	a := 0.0
	if logr >= 0 {
		a = 1
	} else if !math.IsNaN(logr) {
		a = math.Exp(logr)
	}
	s.steps[i]++
	g := s.gammas[i]
	l := math.Log(g/(1-g)) + (a-s.rule.TargetAccept)*2/math.Sqrt(float64(s.steps[i])+4)
	if g >= 1 {
		l = 6 + (a-s.rule.TargetAccept)*2/math.Sqrt(float64(s.steps[i])+4)
	}
	g = 1 / (1 + math.Exp(-l))
	if l > 6 { // γ within 0.25% of 1: use the paper's exact Newton proposal
		g = 1
	}
	s.gammas[i] = max(g, 1e-4)
}

func (s *cnStepper) report(r *Result, c int) {
	if r.CrankNicolsonGammas == nil {
		r.CrankNicolsonGammas = make([][]float64, len(r.Draws.Chains))
	}
	g := make([]float64, len(s.gammas))
	for i, v := range s.gammas {
		if !s.real[i] {
			v = math.NaN()
		}
		g[i] = v
	}
	r.CrankNicolsonGammas[c] = g
}
