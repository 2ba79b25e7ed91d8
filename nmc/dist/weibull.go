package dist

import (
	"math"
	"math/rand/v2"

	"github.com/nmc-go/nmc/internal/special"
)

// Weibull is the Weibull family with shape α > 0 and scale σ > 0 (Stan's
// weibull(alpha, sigma)):
//
//	log p(y | α, σ) = log α − log σ + (α − 1)·log(y/σ) − (y/σ)^α,  y > 0.
//
// Args are [y, alpha, sigma]; the support is Positive with lower bound 0.
type Weibull struct{}

// Logistic is the logistic family with location μ and scale s > 0 (Stan's
// logistic(mu, sigma)):
//
//	log p(y | μ, s) = −z − log s − 2 log(1 + e^{−z}),  z = (y − μ)/s.
//
// Args are [y, mu, s]; the support is Real.
type Logistic struct{}

var (
	_ Family = Weibull{}
	_ Family = Logistic{}
)

// Name returns "Weibull".
func (Weibull) Name() string { return "Weibull" }

// ParamNames returns {"alpha", "sigma"}.
func (Weibull) ParamNames() []string { return []string{"alpha", "sigma"} }

// Layout returns (1, {1, 1}) for every k.
func (Weibull) Layout(int) (int, []int) { return 1, ones(2) }

// LogProb returns the Weibull log density, or −Inf for invalid arguments.
func (Weibull) LogProb(args []float64, _ int) float64 {
	needArgs("Weibull", 3, args)
	y, a, s := args[0], args[1], args[2]
	if !gammaOK(y, a, s) {
		return negInf
	}
	l := math.Log(y) - math.Log(s) // not log(y/s): y/s can be subnormal, where Go's math.Log is inexact on amd64
	return math.Log(a/s) + (a-1)*l - math.Exp(a*l)
}

// Derivs returns the Weibull log density and its gradient and Hessian in
// (y, α, σ). With L = log(y/σ) and z = (y/σ)^α:
// ∂y = (α − 1 − αz)/y, ∂α = 1/α + L(1 − z), ∂σ = α(z − 1)/σ,
// ∂²y = −(α − 1)(1 + αz)/y², ∂y∂α = (1 − z − αzL)/y, ∂y∂σ = α²z/(yσ),
// ∂²α = −1/α² − zL², ∂α∂σ = (z − 1 + αzL)/σ, ∂²σ = α(1 − (α + 1)z)/σ².
func (Weibull) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	const n = 3
	checkDerivs("Weibull", n, len(args), grad, hess)
	y, a, s := args[0], args[1], args[2]
	if !gammaOK(y, a, s) {
		return fail(n, grad, hess)
	}
	l := math.Log(y) - math.Log(s) // not log(y/s): y/s can be subnormal, where Go's math.Log is inexact on amd64
	z := math.Exp(a * l)
	grad[0] = (a - 1 - a*z) / y
	grad[1] = 1/a + l*(1-z)
	grad[2] = a * (z - 1) / s
	h := hess[:n*n]
	az := a * z // 0, not ∞·0, where z underflows at a huge shape
	h[0] = -(a - 1) * (1 + az) / y / y
	h[1] = (1 - z - az*l) / y
	h[2] = a * az / y / s
	h[4] = -1/(a*a) - z*l*l
	h[5] = (z - 1 + az*l) / s
	h[8] = a * (1 - az - z) / s / s
	h[3], h[6], h[7] = h[1], h[2], h[5]
	return math.Log(a/s) + (a-1)*l - z
}

// CheckParams requires alpha and sigma finite and > 0.
func (Weibull) CheckParams(params []float64, _ int) error {
	if err := checkCount("Weibull", params, 2); err != nil {
		return err
	}
	return firstErr(checkPositive("Weibull", "alpha", params[0]), checkPositive("Weibull", "sigma", params[1]))
}

// Support returns Positive with lower bound 0.
func (Weibull) Support([]float64, int) (Support, float64, float64, int) {
	return Positive, 0, math.Inf(1), 0
}

// InSupport reports whether y is finite and > 0.
func (Weibull) InSupport(args []float64, _ int) bool { return len(args) > 0 && posOK(args[0]) }

// Rand draws y = σ·E^{1/α}, E ~ Exponential(1), into dst[0] (raised to the
// smallest positive normal number where it underflows).
func (Weibull) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (Weibull{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	dst[0] = max(params[1]*math.Pow(rng.ExpFloat64(), 1/params[0]), tinyPositive)
}

// Name returns "Logistic".
func (Logistic) Name() string { return "Logistic" }

// ParamNames returns {"mu", "s"}.
func (Logistic) ParamNames() []string { return []string{"mu", "s"} }

// Layout returns (1, {1, 1}) for every k.
func (Logistic) Layout(int) (int, []int) { return 1, ones(2) }

func logisticOK(y, mu, s float64) bool { return finite(y) && finite(mu) && posOK(s) }

// logisticLP returns the log density at z = (y − μ)/s.
func logisticLP(z, s float64) float64 {
	return -z - math.Log(s) - 2*special.Log1pExp(-z)
}

// LogProb returns the logistic log density, or −Inf for invalid arguments.
func (Logistic) LogProb(args []float64, _ int) float64 {
	needArgs("Logistic", 3, args)
	y, mu, s := args[0], args[1], args[2]
	if !logisticOK(y, mu, s) {
		return negInf
	}
	return logisticLP((y-mu)/s, s)
}

// Derivs returns the logistic log density and its gradient and Hessian in
// (y, μ, s). With q = logistic(z), a = 1 − 2q and b = −2q(1 − q) (da/dz):
// ∂y = a/s = −∂μ, ∂s = −(1 + za)/s, ∂²y = ∂²μ = −∂y∂μ = b/s², ∂y∂s = −∂μ∂s =
// −(a + zb)/s², ∂²s = (1 + 2za + z²b)/s².
func (Logistic) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	const n = 3
	checkDerivs("Logistic", n, len(args), grad, hess)
	y, mu, s := args[0], args[1], args[2]
	if !logisticOK(y, mu, s) {
		return fail(n, grad, hess)
	}
	z := (y - mu) / s
	q, r := special.Logistic(z), special.Logistic(-z) // r = 1 − q without cancellation
	a := r - q
	b := -2 * q * r
	grad[0], grad[1], grad[2] = a/s, -a/s, -(1+z*a)/s
	// Divided by s twice, and z·(z·b), so that a tiny s or a huge z, where b
	// underflows to 0, give 0 or ±∞, not ∞·0.
	zb := z * b
	h := hess[:n*n]
	h[0], h[1], h[2] = b/s/s, -b/s/s, -(a+zb)/s/s
	h[4], h[5] = b/s/s, (a+zb)/s/s
	h[8] = (1 + 2*z*a + z*zb) / s / s
	h[3], h[6], h[7] = h[1], h[2], h[5]
	return logisticLP(z, s)
}

// CheckParams requires mu finite and s finite and > 0.
func (Logistic) CheckParams(params []float64, _ int) error {
	if err := checkCount("Logistic", params, 2); err != nil {
		return err
	}
	return firstErr(checkReal("Logistic", "mu", params[0]), checkPositive("Logistic", "s", params[1]))
}

// Support returns Real.
func (Logistic) Support([]float64, int) (Support, float64, float64, int) {
	return Real, math.Inf(-1), math.Inf(1), 0
}

// InSupport reports whether y is finite.
func (Logistic) InSupport(args []float64, _ int) bool { return len(args) > 0 && finite(args[0]) }

// Rand draws y = μ + s·log(U/(1 − U)) into dst[0].
func (Logistic) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (Logistic{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	u := rng.Float64()
	for u == 0 {
		u = rng.Float64()
	}
	dst[0] = params[0] + params[1]*(math.Log(u)-math.Log1p(-u))
}
