package dist

import (
	"math"
	"math/rand/v2"

	"github.com/nmc-go/nmc/internal/special"
)

// Gamma is the gamma family with shape alpha > 0 and RATE beta > 0:
//
//	log p(x | α, β) = α log β − log Γ(α) + (α−1) log x − βx,  x > 0.
//
// Args are [x, alpha, beta]; the support is Positive with lower bound 0.
type Gamma struct{}

var _ Family = Gamma{}

// Name returns "Gamma".
func (Gamma) Name() string { return "Gamma" }

// ParamNames returns {"alpha", "beta"}.
func (Gamma) ParamNames() []string { return []string{"alpha", "beta"} }

// Layout returns (1, {1, 1}) for every k.
func (Gamma) Layout(int) (int, []int) { return 1, ones(2) }

// posOK reports whether x is finite and > 0.
func posOK(x float64) bool { return x > 0 && !math.IsInf(x, 1) }

func gammaOK(x, a, b float64) bool { return posOK(x) && posOK(a) && posOK(b) }

// LogProb returns the gamma log density, or −Inf for invalid arguments.
func (Gamma) LogProb(args []float64, _ int) float64 {
	needArgs("Gamma", 3, args)
	x, a, b := args[0], args[1], args[2]
	if !gammaOK(x, a, b) {
		return negInf
	}
	return a*math.Log(b) - lgamma(a) + (a-1)*math.Log(x) - b*x
}

// Derivs returns the gamma log density and its gradient and Hessian with respect to
// (x, α, β).
func (Gamma) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	const n = 3
	checkDerivs("Gamma", n, len(args), grad, hess)
	x, a, b := args[0], args[1], args[2]
	if !gammaOK(x, a, b) {
		return fail(n, grad, hess)
	}
	lx, lb := math.Log(x), math.Log(b)
	ix, ib := 1/x, 1/b
	grad[0] = (a-1)*ix - b
	grad[1] = lb - special.Digamma(a) + lx
	grad[2] = a*ib - x
	h := hess[:n*n]
	h[0], h[1], h[2] = -(a-1)*ix*ix, ix, -1
	h[3], h[4], h[5] = ix, -special.Trigamma(a), ib
	h[6], h[7], h[8] = -1, ib, -a*ib*ib
	return a*lb - lgamma(a) + (a-1)*lx - b*x
}

// CheckParams requires alpha and beta finite and > 0.
func (Gamma) CheckParams(params []float64, _ int) error {
	if err := checkCount("Gamma", params, 2); err != nil {
		return err
	}
	return firstErr(checkPositive("Gamma", "alpha", params[0]), checkPositive("Gamma", "beta", params[1]))
}

// Support returns Positive with lower bound 0.
func (Gamma) Support([]float64, int) (Support, float64, float64, int) {
	return Positive, 0, math.Inf(1), 0
}

// InSupport reports whether x is finite and > 0.
func (Gamma) InSupport(args []float64, _ int) bool { return len(args) > 0 && posOK(args[0]) }

// Rand draws x ~ Gamma(α, β) into dst[0] with RandGamma; it is exact for tiny α, but
// draws below the smallest positive normal float64 are raised to it.
func (Gamma) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (Gamma{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	dst[0] = RandGamma(rng, params[0], params[1])
}

// InverseGamma is the inverse-gamma family with shape alpha > 0 and SCALE beta > 0
// (1/x ~ Gamma(α, rate β)):
//
//	log p(x | α, β) = α log β − log Γ(α) − (α+1) log x − β/x,  x > 0.
//
// Args are [x, alpha, beta]; the support is Positive with lower bound 0.
type InverseGamma struct{}

var _ Family = InverseGamma{}

// Name returns "InverseGamma".
func (InverseGamma) Name() string { return "InverseGamma" }

// ParamNames returns {"alpha", "beta"}.
func (InverseGamma) ParamNames() []string { return []string{"alpha", "beta"} }

// Layout returns (1, {1, 1}) for every k.
func (InverseGamma) Layout(int) (int, []int) { return 1, ones(2) }

// LogProb returns the inverse-gamma log density, or −Inf for invalid arguments.
func (InverseGamma) LogProb(args []float64, _ int) float64 {
	needArgs("InverseGamma", 3, args)
	x, a, b := args[0], args[1], args[2]
	if !gammaOK(x, a, b) {
		return negInf
	}
	return a*math.Log(b) - lgamma(a) - (a+1)*math.Log(x) - b/x
}

// Derivs returns the inverse-gamma log density and its gradient and Hessian with
// respect to (x, α, β).
func (InverseGamma) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	const n = 3
	checkDerivs("InverseGamma", n, len(args), grad, hess)
	x, a, b := args[0], args[1], args[2]
	if !gammaOK(x, a, b) {
		return fail(n, grad, hess)
	}
	lx, lb := math.Log(x), math.Log(b)
	ix, ib := 1/x, 1/b
	ix2 := ix * ix
	grad[0] = ix * (b*ix - (a + 1))
	grad[1] = lb - special.Digamma(a) - lx
	grad[2] = a*ib - ix
	h := hess[:n*n]
	h[0], h[1], h[2] = ix2*((a+1)-2*b*ix), -ix, ix2
	h[3], h[4], h[5] = -ix, -special.Trigamma(a), ib
	h[6], h[7], h[8] = ix2, ib, -a*ib*ib
	return a*lb - lgamma(a) - (a+1)*lx - b*ix
}

// CheckParams requires alpha and beta finite and > 0.
func (InverseGamma) CheckParams(params []float64, _ int) error {
	if err := checkCount("InverseGamma", params, 2); err != nil {
		return err
	}
	return firstErr(checkPositive("InverseGamma", "alpha", params[0]),
		checkPositive("InverseGamma", "beta", params[1]))
}

// Support returns Positive with lower bound 0.
func (InverseGamma) Support([]float64, int) (Support, float64, float64, int) {
	return Positive, 0, math.Inf(1), 0
}

// InSupport reports whether x is finite and > 0.
func (InverseGamma) InSupport(args []float64, _ int) bool { return len(args) > 0 && posOK(args[0]) }

// Rand draws x = β/G, G ~ Gamma(α, 1), into dst[0]. Draws that overflow (tiny α) are
// capped at the largest finite float64.
func (InverseGamma) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (InverseGamma{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	x := math.Exp(math.Log(params[1]) - RandLogGamma(rng, params[0]))
	switch {
	case x > math.MaxFloat64:
		x = math.MaxFloat64
	case x < tinyPositive:
		x = tinyPositive
	}
	dst[0] = x
}

// Exponential is the exponential family with rate > 0:
//
//	log p(x | λ) = log λ − λx,  x ≥ 0.
//
// Args are [x, rate]; the support is Positive with lower bound 0.
type Exponential struct{}

var _ Family = Exponential{}

// Name returns "Exponential".
func (Exponential) Name() string { return "Exponential" }

// ParamNames returns {"rate"}.
func (Exponential) ParamNames() []string { return []string{"rate"} }

// Layout returns (1, {1}) for every k.
func (Exponential) Layout(int) (int, []int) { return 1, ones(1) }

// LogProb returns the exponential log density, or −Inf for invalid arguments.
func (Exponential) LogProb(args []float64, _ int) float64 {
	needArgs("Exponential", 2, args)
	x, l := args[0], args[1]
	if !halfOK(x, l) {
		return negInf
	}
	return math.Log(l) - l*x
}

// Derivs returns the exponential log density and its gradient and Hessian with
// respect to (x, λ).
func (Exponential) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	const n = 2
	checkDerivs("Exponential", n, len(args), grad, hess)
	x, l := args[0], args[1]
	if !halfOK(x, l) {
		return fail(n, grad, hess)
	}
	il := 1 / l
	grad[0], grad[1] = -l, il-x
	h := hess[:n*n]
	h[0], h[1] = 0, -1
	h[2], h[3] = -1, -il*il
	return math.Log(l) - l*x
}

// CheckParams requires rate finite and > 0.
func (Exponential) CheckParams(params []float64, _ int) error {
	if err := checkCount("Exponential", params, 1); err != nil {
		return err
	}
	return checkPositive("Exponential", "rate", params[0])
}

// Support returns Positive with lower bound 0.
func (Exponential) Support([]float64, int) (Support, float64, float64, int) {
	return Positive, 0, math.Inf(1), 0
}

// InSupport reports whether x is finite and ≥ 0.
func (Exponential) InSupport(args []float64, _ int) bool {
	return len(args) > 0 && args[0] >= 0 && !math.IsInf(args[0], 1)
}

// Rand draws x = E/λ, E ~ Exponential(1), into dst[0].
func (Exponential) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (Exponential{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	dst[0] = rng.ExpFloat64() / params[0]
}
