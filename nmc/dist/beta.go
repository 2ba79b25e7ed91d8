package dist

import (
	"math"
	"math/rand/v2"

	"github.com/nmc-go/nmc/internal/special"
)

// Beta is the beta family with shapes alpha > 0 and beta > 0:
//
//	log p(x | a, b) = (a−1) log x + (b−1) log(1−x) − log B(a, b),  0 < x < 1.
//
// Args are [x, alpha, beta]; the support is the Interval (0, 1).
type Beta struct{}

var _ Family = Beta{}

// Name returns "Beta".
func (Beta) Name() string { return "Beta" }

// ParamNames returns {"alpha", "beta"}.
func (Beta) ParamNames() []string { return []string{"alpha", "beta"} }

// Layout returns (1, {1, 1}) for every k.
func (Beta) Layout(int) (int, []int) { return 1, ones(2) }

func betaOK(x, a, b float64) bool { return x > 0 && x < 1 && posOK(a) && posOK(b) }

// LogProb returns the beta log density, or −Inf for invalid arguments.
func (Beta) LogProb(args []float64, _ int) float64 {
	needArgs("Beta", 3, args)
	x, a, b := args[0], args[1], args[2]
	if !betaOK(x, a, b) {
		return negInf
	}
	return (a-1)*math.Log(x) + (b-1)*math.Log1p(-x) - LogBeta(a, b)
}

// Derivs returns the beta log density and its gradient and Hessian with respect to
// (x, a, b).
func (Beta) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	const n = 3
	checkDerivs("Beta", n, len(args), grad, hess)
	x, a, b := args[0], args[1], args[2]
	if !betaOK(x, a, b) {
		return fail(n, grad, hess)
	}
	lx, l1x := math.Log(x), math.Log1p(-x)
	ix, i1x := 1/x, 1/(1-x)
	dab := special.Digamma(a + b)
	tab := special.Trigamma(a + b)
	grad[0] = (a-1)*ix - (b-1)*i1x
	grad[1] = lx - special.Digamma(a) + dab
	grad[2] = l1x - special.Digamma(b) + dab
	h := hess[:n*n]
	h[0], h[1], h[2] = -(a-1)*ix*ix-(b-1)*i1x*i1x, ix, -i1x
	h[3], h[4], h[5] = ix, tab-special.Trigamma(a), tab
	h[6], h[7], h[8] = -i1x, tab, tab-special.Trigamma(b)
	return (a-1)*lx + (b-1)*l1x - LogBeta(a, b)
}

// CheckParams requires alpha and beta finite and > 0.
func (Beta) CheckParams(params []float64, _ int) error {
	if err := checkCount("Beta", params, 2); err != nil {
		return err
	}
	return firstErr(checkPositive("Beta", "alpha", params[0]), checkPositive("Beta", "beta", params[1]))
}

// Support returns the Interval (0, 1).
func (Beta) Support([]float64, int) (Support, float64, float64, int) {
	return Interval, 0, 1, 0
}

// InSupport reports whether 0 < x < 1.
func (Beta) InSupport(args []float64, _ int) bool { return len(args) > 0 && args[0] > 0 && args[0] < 1 }

// Rand draws x ~ Beta(a, b) into dst[0] with RandBeta (exact for tiny shapes).
func (Beta) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (Beta{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	dst[0] = RandBeta(rng, params[0], params[1])
}

// Uniform is the continuous uniform family on [a, b], a < b:
//
//	log p(x | a, b) = −log(b − a),  a ≤ x ≤ b.
//
// Args are [x, a, b]; the support is the Interval (a, b).
type Uniform struct{}

var _ Family = Uniform{}

// Name returns "Uniform".
func (Uniform) Name() string { return "Uniform" }

// ParamNames returns {"a", "b"}.
func (Uniform) ParamNames() []string { return []string{"a", "b"} }

// Layout returns (1, {1, 1}) for every k.
func (Uniform) Layout(int) (int, []int) { return 1, ones(2) }

func uniformOK(x, a, b float64) bool { return finite(a) && finite(b) && a < b && x >= a && x <= b }

// LogProb returns −log(b − a) for a ≤ x ≤ b, or −Inf for invalid arguments.
func (Uniform) LogProb(args []float64, _ int) float64 {
	needArgs("Uniform", 3, args)
	x, a, b := args[0], args[1], args[2]
	if !uniformOK(x, a, b) {
		return negInf
	}
	return -math.Log(b - a)
}

// Derivs returns −log(b − a) and its gradient and Hessian with respect to (x, a, b);
// the derivatives with respect to x are 0.
func (Uniform) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	const n = 3
	checkDerivs("Uniform", n, len(args), grad, hess)
	x, a, b := args[0], args[1], args[2]
	if !uniformOK(x, a, b) {
		return fail(n, grad, hess)
	}
	iw := 1 / (b - a)
	iw2 := iw * iw
	grad[0], grad[1], grad[2] = 0, iw, -iw
	h := hess[:n*n]
	h[0], h[1], h[2] = 0, 0, 0
	h[3], h[4], h[5] = 0, iw2, -iw2
	h[6], h[7], h[8] = 0, -iw2, iw2
	return -math.Log(b - a)
}

// CheckParams requires a and b finite with a < b.
func (Uniform) CheckParams(params []float64, _ int) error {
	if err := checkCount("Uniform", params, 2); err != nil {
		return err
	}
	if err := firstErr(checkReal("Uniform", "a", params[0]), checkReal("Uniform", "b", params[1])); err != nil {
		return err
	}
	if !(params[0] < params[1]) {
		return perr("Uniform", "b", params[1], "must be > a")
	}
	return nil
}

// Support returns the Interval (a, b).
func (Uniform) Support(params []float64, _ int) (Support, float64, float64, int) {
	return Interval, params[0], params[1], 0
}

// InSupport reports whether a ≤ x ≤ b.
func (Uniform) InSupport(args []float64, _ int) bool {
	return len(args) >= 3 && uniformOK(args[0], args[1], args[2])
}

// Rand draws x = a + (b−a)U into dst[0].
func (Uniform) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (Uniform{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	a, b := params[0], params[1]
	dst[0] = a + (b-a)*rng.Float64()
}
