package dist

import (
	"math"
	"math/rand/v2"
)

// Normal is the normal family N(μ, σ²) with mean mu and standard deviation sigma > 0:
//
//	log p(x | μ, σ) = −(x−μ)²/(2σ²) − log σ − log √(2π).
//
// Args are [x, mu, sigma]; the support is Real.
type Normal struct{}

var _ Family = Normal{}

// Name returns "Normal".
func (Normal) Name() string { return "Normal" }

// ParamNames returns {"mu", "sigma"}.
func (Normal) ParamNames() []string { return []string{"mu", "sigma"} }

// Layout returns (1, {1, 1}) for every k.
func (Normal) Layout(int) (int, []int) { return 1, ones(2) }

func normalOK(x, mu, s float64) bool {
	return finite(x) && finite(mu) && s > 0 && !math.IsInf(s, 1)
}

// LogProb returns log N(x | μ, σ²), or −Inf for invalid arguments.
func (Normal) LogProb(args []float64, _ int) float64 {
	needArgs("Normal", 3, args)
	x, mu, s := args[0], args[1], args[2]
	if !normalOK(x, mu, s) {
		return negInf
	}
	z := (x - mu) / s
	return -0.5*z*z - math.Log(s) - logSqrt2Pi
}

var _ MemoDeriver = Normal{}

// Derivs returns log N(x | μ, σ²) and its gradient and Hessian with respect to
// (x, μ, σ). It does not allocate.
func (Normal) Derivs(args []float64, k int, grad, hess []float64) float64 {
	return Normal{}.DerivsMemo(args, k, grad, hess, nil)
}

// DerivsMemo equals Derivs, with log σ kept in m (MemoDeriver): the elements of a
// hierarchical prior, θⱼ ~ N(μ, τ), share σ, and the logarithm was most of the
// cost of their derivatives.
func (Normal) DerivsMemo(args []float64, _ int, grad, hess []float64, m *Memo) float64 {
	const n = 3
	checkDerivs("Normal", n, len(args), grad, hess)
	x, mu, s := args[0], args[1], args[2]
	if !normalOK(x, mu, s) {
		return fail(n, grad, hess)
	}
	var logS float64
	if m != nil && m.OK && m.Key == s {
		logS = m.Val[0]
	} else {
		logS = math.Log(s)
		if m != nil {
			*m = Memo{Key: s, Val: [4]float64{logS}, OK: true}
		}
	}
	is := 1 / s
	z := (x - mu) * is
	is2 := is * is
	grad[0] = -z * is
	grad[1] = z * is
	grad[2] = (z*z - 1) * is
	h := hess[:n*n]
	h[0], h[1], h[2] = -is2, is2, 2*z*is2
	h[3], h[4], h[5] = is2, -is2, -2*z*is2
	h[6], h[7], h[8] = 2*z*is2, -2*z*is2, (1-3*z*z)*is2
	return -0.5*z*z - logS - logSqrt2Pi
}

// DerivsRows evaluates rows whose mean μ (argument 1) varies, with derivatives in μ
// or σ (RowsDeriver): the formulas of Derivs, log σ computed once.
func (Normal) DerivsRows(x, v, args []float64, _, vary, wrt int, d1, d2 []float64, _ *Memo) (float64, bool) {
	deriv := d1 != nil && d2 != nil
	if vary != 1 || (deriv && wrt != 1 && wrt != 2) {
		return 0, false
	}
	s := args[2]
	if !(s > 0) || math.IsInf(s, 1) {
		return negInf, true
	}
	is := 1 / s
	is2 := is * is
	c := -math.Log(s) - logSqrt2Pi
	total := 0.0
	for r, xr := range x {
		mu := v[r]
		if !finite(xr) || !finite(mu) {
			return negInf, true
		}
		z := (xr - mu) * is
		total += -0.5*z*z + c
		if !deriv {
			continue
		}
		if wrt == 1 {
			d1[r], d2[r] = z*is, -is2
		} else {
			d1[r], d2[r] = (z*z-1)*is, (1-3*z*z)*is2
		}
	}
	return total, true
}

// CheckParams requires mu finite and sigma finite and > 0.
func (Normal) CheckParams(params []float64, _ int) error {
	if err := checkCount("Normal", params, 2); err != nil {
		return err
	}
	return firstErr(checkReal("Normal", "mu", params[0]), checkPositive("Normal", "sigma", params[1]))
}

// Support returns Real.
func (Normal) Support([]float64, int) (Support, float64, float64, int) {
	return Real, math.Inf(-1), math.Inf(1), 0
}

// InSupport reports whether x is finite.
func (Normal) InSupport(args []float64, _ int) bool { return len(args) > 0 && finite(args[0]) }

// Rand draws x ~ N(μ, σ²) into dst[0].
func (Normal) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (Normal{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	dst[0] = params[0] + params[1]*rng.NormFloat64()
}

// HalfNormal is the half-normal family with scale sigma > 0, the law of |X| for
// X ~ N(0, σ²):
//
//	log p(x | σ) = log 2 − x²/(2σ²) − log σ − log √(2π),  x ≥ 0.
//
// Args are [x, sigma]; the support is Positive with lower bound 0.
type HalfNormal struct{}

var _ Family = HalfNormal{}

// Name returns "HalfNormal".
func (HalfNormal) Name() string { return "HalfNormal" }

// ParamNames returns {"sigma"}.
func (HalfNormal) ParamNames() []string { return []string{"sigma"} }

// Layout returns (1, {1}) for every k.
func (HalfNormal) Layout(int) (int, []int) { return 1, ones(1) }

func halfOK(x, s float64) bool { return x >= 0 && !math.IsInf(x, 1) && s > 0 && !math.IsInf(s, 1) }

// LogProb returns the half-normal log density, or −Inf for invalid arguments.
func (HalfNormal) LogProb(args []float64, _ int) float64 {
	needArgs("HalfNormal", 2, args)
	x, s := args[0], args[1]
	if !halfOK(x, s) {
		return negInf
	}
	z := x / s
	return math.Ln2 - 0.5*z*z - math.Log(s) - logSqrt2Pi
}

// Derivs returns the half-normal log density and its gradient and Hessian with
// respect to (x, σ).
func (HalfNormal) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	const n = 2
	checkDerivs("HalfNormal", n, len(args), grad, hess)
	x, s := args[0], args[1]
	if !halfOK(x, s) {
		return fail(n, grad, hess)
	}
	is := 1 / s
	z := x * is
	is2 := is * is
	grad[0] = -z * is
	grad[1] = (z*z - 1) * is
	h := hess[:n*n]
	h[0], h[1] = -is2, 2*z*is2
	h[2], h[3] = 2*z*is2, (1-3*z*z)*is2
	return math.Ln2 - 0.5*z*z - math.Log(s) - logSqrt2Pi
}

// CheckParams requires sigma finite and > 0.
func (HalfNormal) CheckParams(params []float64, _ int) error {
	if err := checkCount("HalfNormal", params, 1); err != nil {
		return err
	}
	return checkPositive("HalfNormal", "sigma", params[0])
}

// Support returns Positive with lower bound 0.
func (HalfNormal) Support([]float64, int) (Support, float64, float64, int) {
	return Positive, 0, math.Inf(1), 0
}

// InSupport reports whether x is finite and ≥ 0.
func (HalfNormal) InSupport(args []float64, _ int) bool {
	return len(args) > 0 && args[0] >= 0 && !math.IsInf(args[0], 1)
}

// Rand draws x = σ|z|, z ~ N(0, 1), into dst[0].
func (HalfNormal) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (HalfNormal{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	dst[0] = params[0] * math.Abs(rng.NormFloat64())
}

// LogNormal is the log-normal family: log x ~ N(μ, σ²), with sigma > 0:
//
//	log p(x | μ, σ) = −(log x − μ)²/(2σ²) − log σ − log √(2π) − log x,  x > 0.
//
// Args are [x, mu, sigma]; the support is Positive with lower bound 0.
type LogNormal struct{}

var _ Family = LogNormal{}

// Name returns "LogNormal".
func (LogNormal) Name() string { return "LogNormal" }

// ParamNames returns {"mu", "sigma"}.
func (LogNormal) ParamNames() []string { return []string{"mu", "sigma"} }

// Layout returns (1, {1, 1}) for every k.
func (LogNormal) Layout(int) (int, []int) { return 1, ones(2) }

func logNormalOK(x, mu, s float64) bool {
	return x > 0 && !math.IsInf(x, 1) && finite(mu) && s > 0 && !math.IsInf(s, 1)
}

// LogProb returns the log-normal log density, or −Inf for invalid arguments.
func (LogNormal) LogProb(args []float64, _ int) float64 {
	needArgs("LogNormal", 3, args)
	x, mu, s := args[0], args[1], args[2]
	if !logNormalOK(x, mu, s) {
		return negInf
	}
	y := math.Log(x)
	z := (y - mu) / s
	return -0.5*z*z - math.Log(s) - logSqrt2Pi - y
}

// Derivs returns the log-normal log density and its gradient and Hessian with
// respect to (x, μ, σ).
func (LogNormal) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	const n = 3
	checkDerivs("LogNormal", n, len(args), grad, hess)
	x, mu, s := args[0], args[1], args[2]
	if !logNormalOK(x, mu, s) {
		return fail(n, grad, hess)
	}
	y := math.Log(x)
	is := 1 / s
	z := (y - mu) * is
	is2 := is * is
	ix := 1 / x
	grad[0] = (-z*is - 1) * ix
	grad[1] = z * is
	grad[2] = (z*z - 1) * is
	h := hess[:n*n]
	h[0] = (-is2 + z*is + 1) * ix * ix
	h[1] = is2 * ix
	h[2] = 2 * z * is2 * ix
	h[3], h[4], h[5] = h[1], -is2, -2*z*is2
	h[6], h[7], h[8] = h[2], h[5], (1-3*z*z)*is2
	return -0.5*z*z - math.Log(s) - logSqrt2Pi - y
}

// CheckParams requires mu finite and sigma finite and > 0.
func (LogNormal) CheckParams(params []float64, _ int) error {
	if err := checkCount("LogNormal", params, 2); err != nil {
		return err
	}
	return firstErr(checkReal("LogNormal", "mu", params[0]), checkPositive("LogNormal", "sigma", params[1]))
}

// Support returns Positive with lower bound 0.
func (LogNormal) Support([]float64, int) (Support, float64, float64, int) {
	return Positive, 0, math.Inf(1), 0
}

// InSupport reports whether x is finite and > 0.
func (LogNormal) InSupport(args []float64, _ int) bool {
	return len(args) > 0 && args[0] > 0 && !math.IsInf(args[0], 1)
}

// Rand draws x = exp(μ + σz), z ~ N(0, 1), into dst[0].
func (LogNormal) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (LogNormal{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	dst[0] = math.Exp(params[0] + params[1]*rng.NormFloat64())
}
