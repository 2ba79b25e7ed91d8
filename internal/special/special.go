package special

import (
	"math"
	"math/rand/v2"
)

// digammaShift is the argument above which the asymptotic series of ψ and ψ₁ is used;
// below it the recurrences ψ(x) = ψ(x+1) − 1/x and ψ₁(x) = ψ₁(x+1) + 1/x² shift the
// argument up. At x ≥ 10 the first omitted term of either series is below 1e-17
// relative.
const digammaShift = 10

// Digamma returns ψ(x) = d/dx log Γ(x).
//
// Special cases: Digamma(±0) = ∓Inf, Digamma(+Inf) = +Inf, Digamma(−Inf) = NaN,
// Digamma(NaN) = NaN, and Digamma(x) = NaN at the poles x = −1, −2, ….
func Digamma(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, -1):
		return math.NaN()
	case math.IsInf(x, 1):
		return x
	case x == 0:
		return math.Copysign(math.Inf(1), -x)
	}
	if x < 0 {
		if x == math.Floor(x) {
			return math.NaN()
		}
		// Reflection (DLMF 5.5.4): ψ(1 − x) − ψ(x) = π cot(πx).
		return Digamma(1-x) - math.Pi/tanPi(x)
	}
	var acc float64
	for x < digammaShift {
		acc -= 1 / x
		x++
	}
	// Asymptotic series (DLMF 5.11.2):
	// ψ(x) ~ ln x − 1/(2x) − Σ B₂ₙ/(2n x²ⁿ)
	//      = ln x − 1/(2x) − 1/(12x²) + 1/(120x⁴) − 1/(252x⁶) + 1/(240x⁸)
	//        − 1/(132x¹⁰) + 691/(32760x¹²) − 1/(12x¹⁴).
	y := 1 / (x * x)
	series := y * (1.0/12 - y*(1.0/120-y*(1.0/252-y*(1.0/240-y*(1.0/132-y*(691.0/32760-y/12))))))
	return acc + math.Log(x) - 0.5/x - series
}

// Trigamma returns ψ₁(x) = d²/dx² log Γ(x).
//
// Special cases: Trigamma(±0) = +Inf, Trigamma(+Inf) = 0, Trigamma(−Inf) = NaN,
// Trigamma(NaN) = NaN, and Trigamma(x) = +Inf at the poles x = −1, −2, ….
func Trigamma(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, -1):
		return math.NaN()
	case math.IsInf(x, 1):
		return 0
	case x == 0:
		return math.Inf(1)
	}
	if x < 0 {
		if x == math.Floor(x) {
			return math.Inf(1)
		}
		// Reflection (DLMF 5.15.6): ψ₁(1 − x) + ψ₁(x) = π² / sin²(πx).
		s := sinPi(x)
		return -Trigamma(1-x) + math.Pi*math.Pi/(s*s)
	}
	var acc float64
	for x < digammaShift {
		acc += 1 / (x * x)
		x++
	}
	// Asymptotic series (DLMF 5.15.8):
	// ψ₁(x) ~ 1/x + 1/(2x²) + Σ B₂ₙ / x²ⁿ⁺¹
	//       = 1/x + 1/(2x²) + 1/(6x³) − 1/(30x⁵) + 1/(42x⁷) − 1/(30x⁹)
	//         + 5/(66x¹¹) − 691/(2730x¹³) + 7/(6x¹⁵).
	y := 1 / (x * x)
	series := y * (1.0/6 - y*(1.0/30-y*(1.0/42-y*(1.0/30-y*(5.0/66-y*(691.0/2730-y*7.0/6))))))
	return acc + (1+(0.5+series*x)/x)/x
}

// tanPi returns tan(πx) with the argument reduced exactly modulo 1 first, so that
// it stays accurate for large |x|.
func tanPi(x float64) float64 {
	r := x - math.Floor(x) // in [0, 1), exact
	if r > 0.5 {
		r--
	}
	return math.Tan(math.Pi * r)
}

// sinPi returns ±sin(πx), with the sign irrelevant to its callers (which square it),
// reducing the argument exactly modulo 1 first.
func sinPi(x float64) float64 {
	r := x - math.Floor(x)
	if r > 0.5 {
		r = 1 - r
	}
	return math.Sin(math.Pi * r)
}

// Log1pExp returns log(1 + eˣ), the softplus function, without overflow for large x
// and without losing the small result for very negative x.
//
// It computes max(x, 0) + log1p(e^−|x|), the form in which the Bernoulli-logit
// densities and scorers (nmc/dist, models) compute it inline together with the
// logistic function, so that every softplus of the module agrees to the bit. The two
// cut-offs only skip work: below −37 log1p(eˣ) rounds to eˣ, and above 33.3 the term
// log1p(e⁻ˣ) < 3.4e-15 is below half an ulp of x, so the result is exactly what the
// general formula gives.
//
// Special cases: Log1pExp(−Inf) = 0, Log1pExp(+Inf) = +Inf, Log1pExp(NaN) = NaN.
func Log1pExp(x float64) float64 {
	switch {
	case x <= -37:
		// log(1 + eˣ) = eˣ − e²ˣ/2 + …, and e²ˣ/2 < 2⁻¹⁰⁶ eˣ here.
		return math.Exp(x)
	case x <= 0:
		return math.Log1p(math.Exp(x))
	case x <= 33.3:
		// log(1 + eˣ) = x + log(1 + e⁻ˣ).
		return x + math.Log1p(math.Exp(-x))
	default: // x > 33.3, +Inf and NaN
		return x
	}
}

// Logistic returns the logistic sigmoid 1 / (1 + e⁻ˣ), computed without overflow:
// as 1 / (1 + e⁻ˣ) for x ≥ 0 and as eˣ / (1 + eˣ) for x < 0, so that the small
// values of σ at very negative x keep their relative accuracy.
//
// Special cases: Logistic(−Inf) = 0, Logistic(+Inf) = 1, Logistic(NaN) = NaN.
func Logistic(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// LogSumExp returns log Σᵢ exp(xᵢ), computed by shifting by the maximum m as
// m + log Σᵢ exp(xᵢ − m), so that it neither overflows nor underflows. It returns
// −Inf for an empty slice or when every element is −Inf, +Inf if any element is +Inf
// (and none is NaN), and NaN if any element is NaN. Callers that must reject
// non-finite elements check them themselves.
func LogSumExp(xs []float64) float64 {
	m := math.Inf(-1)
	for _, v := range xs {
		if math.IsNaN(v) {
			return math.NaN()
		}
		if v > m {
			m = v
		}
	}
	if math.IsInf(m, 0) {
		return m
	}
	var s float64
	for _, v := range xs {
		s += math.Exp(v - m)
	}
	return m + math.Log(s)
}

// LogGamma returns log |Γ(x)|.
func LogGamma(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		// log Γ(x) = −log x − γx + O(x²): −log x to double precision. math.Lgamma
		// takes math.Log of x, wrong for subnormals on amd64 (golang/go#56600).
		return -Log(x)
	}
	v, _ := math.Lgamma(x)
	return v
}

// Log returns math.Log(x), right for subnormal x too: Go's math.Log is not there
// on amd64 (golang/go#56600: Log(5e-324) = −709.09, not −744.44).
func Log(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p52) - 52*math.Ln2
	}
	return math.Log(x)
}

// LogBeta returns log B(a, b) = log Γ(a) + log Γ(b) − log Γ(a+b) for a, b > 0, and NaN
// otherwise.
func LogBeta(a, b float64) float64 {
	if !(a > 0 && b > 0) {
		return math.NaN()
	}
	return LogGamma(a) + LogGamma(b) - LogGamma(a+b)
}

// RandLogGamma returns the logarithm of a Gamma(shape, 1) draw by Marsaglia and
// Tsang's method; for shape < 1 it uses Gamma(shape+1)·U^(1/shape) on the log scale,
// so that tiny shapes do not underflow. It returns NaN for shape ≤ 0 or +Inf.
func RandLogGamma(rng *rand.Rand, shape float64) float64 {
	if !(shape > 0) || math.IsInf(shape, 1) {
		return math.NaN()
	}
	if shape < 1 {
		// log U = −E with E ~ Exponential(1).
		return RandLogGamma(rng, shape+1) - rng.ExpFloat64()/shape
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		z := rng.NormFloat64()
		v := 1 + c*z
		if v <= 0 {
			continue
		}
		v = v * v * v
		// Accept when log U < z²/2 + d − d·v + d·log v (log v computed once for
		// the test and the result; the exponential variate is drawn first, as
		// when it was the comparison's left operand).
		e := rng.ExpFloat64()
		lv := math.Log(v)
		if -e < 0.5*z*z+d-d*v+d*lv {
			return math.Log(d) + lv
		}
	}
}
