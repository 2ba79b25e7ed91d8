package dist

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nmc-go/nmc/internal/special"
)

// SimplexTol is the tolerance within which the elements of a probability vector (a
// Categorical parameter, a Dirichlet value) must sum to 1.
const SimplexTol = 1e-9

// tinyPositive is the smallest positive normal float64. Gamma, Beta and Dirichlet draws
// that underflow (which happens for shapes of order 1e-3 and below) are raised to it
// so that every draw stays inside the support.
const tinyPositive = 0x1p-1022

// negInf is −∞, the log density outside the support.
var negInf = math.Inf(-1)

// logSqrt2Pi is log √(2π).
const logSqrt2Pi = 0.91893853320467274178032973640561764

// finite reports whether v is neither NaN nor ±Inf.
func finite(v float64) bool { return v-v == 0 }

// isInt reports whether v is a finite integer.
func isInt(v float64) bool { return finite(v) && v == math.Trunc(v) }

// LogBeta returns log B(a, b) = log Γ(a) + log Γ(b) − log Γ(a+b) for a, b > 0, and NaN
// otherwise.
func LogBeta(a, b float64) float64 { return special.LogBeta(a, b) }

// lgamma returns log |Γ(x)|.
func lgamma(x float64) float64 { return special.LogGamma(x) }

// logChoose returns log C(n, y) for integers 0 ≤ y ≤ n.
func logChoose(n, y float64) float64 {
	return logFactorial(n) - logFactorial(y) - logFactorial(n-y)
}

// logFactorials holds lgamma(y+1) for the integers 0 ≤ y < len(logFactorials).
var logFactorials = func() (t [256]float64) {
	for y := range t {
		t[y] = lgamma(float64(y) + 1)
	}
	return t
}()

// logFactorial returns lgamma(y+1), from a table for the small integers counts
// mostly are (the log-gamma was an eighth of the CPU of a Poisson regression
// with varying intercepts), bit for bit the same.
func logFactorial(y float64) float64 {
	if y >= 0 && y < float64(len(logFactorials)) {
		if i := int(y); float64(i) == y {
			return logFactorials[i]
		}
	}
	return lgamma(y + 1)
}

// checkDerivs panics, naming the method, when grad or hess is shorter than the
// family's argument count n; these are programming errors, not data errors.
func checkDerivs(name string, n, nargs int, grad, hess []float64) {
	if nargs < n || len(grad) < n || len(hess) < n*n {
		panicLengths(name, n, nargs, len(grad), len(hess))
	}
}

//go:noinline
func panicLengths(name string, n, nargs, ngrad, nhess int) {
	panic(fmt.Sprintf("dist: %s.Derivs: args, grad, hess have lengths %d, %d, %d; want %d, %d, %d",
		name, nargs, ngrad, nhess, n, n, n*n))
}

// fail clears the first n entries of grad and n² of hess and returns −Inf: Derivs'
// answer outside the support or with invalid parameters.
func fail(n int, grad, hess []float64) float64 {
	clear(grad[:n])
	clear(hess[:n*n])
	return negInf
}

// checkCount returns an error when params does not hold want values.
func checkCount(family string, params []float64, want int) error {
	if len(params) != want {
		return fmt.Errorf("dist: %s: got %d parameter values, want %d", family, len(params), want)
	}
	return nil
}

// perr builds a *ParamError for a scalar parameter.
func perr(family, param string, v float64, reason string) *ParamError {
	return &ParamError{Family: family, Param: param, Index: -1, Value: v, Reason: reason}
}

// Parameter checks shared by the families. Each returns nil or a *ParamError.

func checkReal(family, param string, v float64) error {
	if !finite(v) {
		return perr(family, param, v, "must be finite")
	}
	return nil
}

func checkPositive(family, param string, v float64) error {
	if !(v > 0) || math.IsInf(v, 1) {
		return perr(family, param, v, "must be finite and > 0")
	}
	return nil
}

func checkProb(family, param string, v float64) error {
	if !(v >= 0 && v <= 1) {
		return perr(family, param, v, "must be in [0, 1]")
	}
	return nil
}

func checkCountParam(family, param string, v float64) error {
	if !isInt(v) || v < 0 {
		return perr(family, param, v, "must be a non-negative integer")
	}
	if v > 1<<53 { // beyond exact float64 integers; gonum's Binomial sampler hangs there
		return perr(family, param, v, "must be at most 2^53")
	}
	return nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// RandLogGamma returns the logarithm of a draw from Gamma(shape, 1). Working on the
// log scale keeps it exact for tiny shapes, whose draws underflow float64: for
// shape < 1 it uses Gamma(a) = Gamma(a+1)·U^(1/a); for shape ≥ 1 the squeeze method of
// Marsaglia and Tsang (2000). It returns NaN unless shape is finite and > 0.
func RandLogGamma(rng *rand.Rand, shape float64) float64 { return special.RandLogGamma(rng, shape) }

// RandGamma returns a draw from Gamma(shape, rate). Draws that underflow are raised
// to the smallest positive normal float64, so the result is always > 0. It returns
// NaN unless shape and rate are finite and > 0.
func RandGamma(rng *rand.Rand, shape, rate float64) float64 {
	if !(rate > 0) || math.IsInf(rate, 1) {
		return math.NaN()
	}
	x := math.Exp(RandLogGamma(rng, shape) - math.Log(rate))
	if x < tinyPositive {
		x = tinyPositive
	}
	return x
}

// RandBeta returns a draw from Beta(a, b) in the open interval (0, 1), exact for tiny
// a and b (the two Gamma draws are combined on the log scale). It returns NaN unless a
// and b are finite and > 0.
func RandBeta(rng *rand.Rand, a, b float64) float64 {
	la, lb := RandLogGamma(rng, a), RandLogGamma(rng, b)
	if math.IsNaN(la) || math.IsNaN(lb) {
		return math.NaN()
	}
	// x = Ga/(Ga+Gb) = logistic(la − lb).
	x := special.Logistic(la - lb)
	switch {
	case x < tinyPositive:
		x = tinyPositive
	case x >= 1:
		x = math.Nextafter(1, 0)
	}
	return x
}

// needArgs panics, naming the method, when args is shorter than the family's n
// arguments: a programming error, not a data error.
func needArgs(name string, n int, args []float64) {
	if len(args) < n {
		panicArgs(name, n, len(args))
	}
}

//go:noinline
func panicArgs(name string, n, got int) {
	panic(fmt.Sprintf("dist: %s: args has length %d, want %d", name, got, n))
}

// fillNaN writes NaN into dst: Rand's answer for invalid parameters.
func fillNaN(dst []float64) {
	for i := range dst {
		dst[i] = math.NaN()
	}
}

// ones returns a slice of n ones (the parameter widths of a scalar family).
func ones(n int) []int {
	w := make([]int, n)
	for i := range w {
		w[i] = 1
	}
	return w
}
