package dist

import (
	"math"
	"math/rand/v2"
)

// Flat is the improper flat law on the reals: log p(x) = 0 for every finite x (Stan's
// default for an unconstrained parameter without a prior). It has no parameters; args
// are [x]; the support is Real. A model with a Flat latent is proper only if its
// likelihood makes the posterior integrable.
//
// Rand does not draw from Flat (there is nothing to draw from): it writes a start point
// uniform on (−2, 2), Stan's rule for initial values on the unconstrained scale.
type Flat struct{}

var _ Family = Flat{}

// Name returns "Flat".
func (Flat) Name() string { return "Flat" }

// ParamNames returns no names.
func (Flat) ParamNames() []string { return []string{} }

// Layout returns (1, {}) for every k.
func (Flat) Layout(int) (int, []int) { return 1, []int{} }

// LogProb returns 0 for finite x, else −Inf.
func (Flat) LogProb(args []float64, _ int) float64 {
	needArgs("Flat", 1, args)
	if !finite(args[0]) {
		return negInf
	}
	return 0
}

// Derivs returns LogProb and writes zero derivatives.
func (Flat) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	checkDerivs("Flat", 1, len(args), grad, hess)
	if !finite(args[0]) {
		return fail(1, grad, hess)
	}
	grad[0], hess[0] = 0, 0
	return 0
}

// CheckParams requires no parameters.
func (Flat) CheckParams(params []float64, _ int) error { return checkCount("Flat", params, 0) }

// Support returns Real.
func (Flat) Support([]float64, int) (Support, float64, float64, int) {
	return Real, math.Inf(-1), math.Inf(1), 0
}

// InSupport reports whether x is finite.
func (Flat) InSupport(args []float64, _ int) bool { return len(args) > 0 && finite(args[0]) }

// Rand writes a start point uniform on (−2, 2) into dst[0] (see Flat).
func (Flat) Rand(rng *rand.Rand, _ []float64, _ int, dst []float64) {
	dst[0] = 4*rng.Float64() - 2
}

// HalfFlat is the improper flat law on (0, ∞): log p(x) = 0 for every finite x > 0
// (Stan's default for a parameter declared <lower=0> without a prior). It has no
// parameters; args are [x]; the support is Positive with lower bound 0.
//
// Rand does not draw from HalfFlat: it writes the start point exp(U), U uniform on
// (−2, 2), Stan's rule for initial values mapped through its log transform.
type HalfFlat struct{}

var _ Family = HalfFlat{}

// Name returns "HalfFlat".
func (HalfFlat) Name() string { return "HalfFlat" }

// ParamNames returns no names.
func (HalfFlat) ParamNames() []string { return []string{} }

// Layout returns (1, {}) for every k.
func (HalfFlat) Layout(int) (int, []int) { return 1, []int{} }

// LogProb returns 0 for finite x > 0, else −Inf.
func (HalfFlat) LogProb(args []float64, _ int) float64 {
	needArgs("HalfFlat", 1, args)
	if !(args[0] > 0) || math.IsInf(args[0], 1) {
		return negInf
	}
	return 0
}

// Derivs returns LogProb and writes zero derivatives.
func (HalfFlat) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	checkDerivs("HalfFlat", 1, len(args), grad, hess)
	if !(args[0] > 0) || math.IsInf(args[0], 1) {
		return fail(1, grad, hess)
	}
	grad[0], hess[0] = 0, 0
	return 0
}

// CheckParams requires no parameters.
func (HalfFlat) CheckParams(params []float64, _ int) error {
	return checkCount("HalfFlat", params, 0)
}

// Support returns Positive with lower bound 0.
func (HalfFlat) Support([]float64, int) (Support, float64, float64, int) {
	return Positive, 0, math.Inf(1), 0
}

// InSupport reports whether x is finite and > 0.
func (HalfFlat) InSupport(args []float64, _ int) bool {
	return len(args) > 0 && args[0] > 0 && !math.IsInf(args[0], 1)
}

// Rand writes the start point exp(U), U uniform on (−2, 2), into dst[0] (see HalfFlat).
func (HalfFlat) Rand(rng *rand.Rand, _ []float64, _ int, dst []float64) {
	dst[0] = math.Exp(4*rng.Float64() - 2)
}

// HalfStudentT is the half-Student-t family with nu > 0 degrees of freedom and scale
// sigma > 0, the law of |X| for X ~ StudentT(ν, 0, σ). With z = x/σ,
//
//	log p(x | ν, σ) = log 2 + log Γ((ν+1)/2) − log Γ(ν/2) − ½ log(νπ) − log σ − (ν+1)/2 · log(1 + z²/ν),  x ≥ 0.
//
// Args are [x, nu, sigma]; the support is Positive with lower bound 0.
type HalfStudentT struct{}

var _ Family = HalfStudentT{}

// Name returns "HalfStudentT".
func (HalfStudentT) Name() string { return "HalfStudentT" }

// ParamNames returns {"nu", "sigma"}.
func (HalfStudentT) ParamNames() []string { return []string{"nu", "sigma"} }

// Layout returns (1, {1, 1}) for every k.
func (HalfStudentT) Layout(int) (int, []int) { return 1, ones(2) }

func halfStudentOK(x, nu, s float64) bool {
	return x >= 0 && studentOK(x, nu, 0, s)
}

// LogProb returns the half-Student-t log density, or −Inf for invalid arguments.
func (HalfStudentT) LogProb(args []float64, _ int) float64 {
	needArgs("HalfStudentT", 3, args)
	x, nu, s := args[0], args[1], args[2]
	if !halfStudentOK(x, nu, s) {
		return negInf
	}
	return math.Ln2 + studentLogProb(x/s, nu, s)
}

// Derivs returns the half-Student-t log density and its gradient and Hessian with
// respect to (x, ν, σ): those of StudentT at μ = 0, without the μ row and column.
func (HalfStudentT) Derivs(args []float64, k int, grad, hess []float64) float64 {
	const n = 3
	checkDerivs("HalfStudentT", n, len(args), grad, hess)
	x, nu, s := args[0], args[1], args[2]
	if !halfStudentOK(x, nu, s) {
		return fail(n, grad, hess)
	}
	var a, g [4]float64
	var h [16]float64
	a[0], a[1], a[2], a[3] = x, nu, 0, s
	lp := StudentT{}.DerivsMemo(a[:], k, g[:], h[:], nil)
	idx := [3]int{0, 1, 3} // x, ν, σ in StudentT's (x, ν, μ, σ)
	for i, ii := range idx {
		grad[i] = g[ii]
		for j, jj := range idx {
			hess[i*n+j] = h[ii*4+jj]
		}
	}
	return math.Ln2 + lp
}

// CheckParams requires nu and sigma finite and > 0.
func (HalfStudentT) CheckParams(params []float64, _ int) error {
	if err := checkCount("HalfStudentT", params, 2); err != nil {
		return err
	}
	return firstErr(checkPositive("HalfStudentT", "nu", params[0]), checkPositive("HalfStudentT", "sigma", params[1]))
}

// Support returns Positive with lower bound 0.
func (HalfStudentT) Support([]float64, int) (Support, float64, float64, int) {
	return Positive, 0, math.Inf(1), 0
}

// InSupport reports whether x is finite and ≥ 0.
func (HalfStudentT) InSupport(args []float64, _ int) bool {
	return len(args) > 0 && args[0] >= 0 && !math.IsInf(args[0], 1)
}

// Rand draws |X|, X ~ StudentT(ν, 0, σ), into dst[0].
func (HalfStudentT) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (HalfStudentT{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	StudentT{}.Rand(rng, []float64{params[0], 0, params[1]}, k, dst)
	dst[0] = math.Abs(dst[0])
}
