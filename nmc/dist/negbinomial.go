package dist

import (
	"math"
	"math/rand/v2"

	"github.com/nmc-go/nmc/internal/special"
)

// NegBinomial2 is the negative binomial family in Stan's mean and dispersion
// (neg_binomial_2): mean μ > 0, variance μ + μ²/φ, φ > 0,
//
//	log p(y | μ, φ) = log Γ(y + φ) − log Γ(φ) − log y! + y log(μ/(μ + φ)) + φ log(φ/(μ + φ)),
//
// y ∈ {0, 1, 2, …}: the Poisson of a Gamma(φ, φ/μ) rate, the Poisson(μ) in the
// limit φ → ∞. Args are [y, mu, phi]; derivatives with respect to y are 0.
type NegBinomial2 struct{}

// NegBinomial2Log is NegBinomial2 with mean exp(eta) (Stan's neg_binomial_2_log),
// the count regression's form: args [y, eta, phi], eta real.
type NegBinomial2Log struct{}

var (
	_ Family = NegBinomial2{}
	_ Family = NegBinomial2Log{}
)

// Name returns "NegBinomial2".
func (NegBinomial2) Name() string { return "NegBinomial2" }

// Name returns "NegBinomial2Log".
func (NegBinomial2Log) Name() string { return "NegBinomial2Log" }

// ParamNames returns {"mu", "phi"}.
func (NegBinomial2) ParamNames() []string { return []string{"mu", "phi"} }

// ParamNames returns {"eta", "phi"}.
func (NegBinomial2Log) ParamNames() []string { return []string{"eta", "phi"} }

// Layout returns (1, {1, 1}) for every k.
func (NegBinomial2) Layout(int) (int, []int) { return 1, ones(2) }

// Layout returns (1, {1, 1}) for every k.
func (NegBinomial2Log) Layout(int) (int, []int) { return 1, ones(2) }

// nbSumTerms is the count below which the terms of y and φ alone are sums over
// j < y of log(1 + j/φ), 1/(φ + j) and 1/(φ + j)², exact where φ ≫ y (the
// difference log Γ(y + φ) − log Γ(φ) of two large numbers loses digits there).
const nbSumTerms = 64

// nbStirling is the dispersion from which, for y ≥ nbSumTerms, those terms come
// from Stirling's series of log Γ, ψ and ψ′ with the leading differences taken
// in closed form (below it the special functions' differences lose little).
const nbStirling = 1e4

// nbPhiTerms returns D = log Γ(y + φ) − log Γ(φ) − y·log φ − log y! and the first
// and second derivatives of log Γ(y + φ) − log Γ(φ) in φ: ψ(y + φ) − ψ(φ) and
// ψ′(y + φ) − ψ′(φ).
func nbPhiTerms(y, phi float64) (d, d1, d2 float64) {
	d = -logFactorial(y)
	switch {
	case y < nbSumTerms:
		for j := 0.0; j < y; j++ {
			d += math.Log1p(j / phi)
			d1 += 1 / (phi + j)
			d2 -= 1 / ((phi + j) * (phi + j))
		}
	case phi >= nbStirling:
		// log Γ(x) = (x − ½)log x − x + ½log 2π + 1/(12x) − 1/(360x³) + 1/(1260x⁵) − …,
		// so D + log y! = (φ + y − ½)·log(1 + y/φ) − y + the series' difference;
		// ψ(x) = log x − 1/(2x) − 1/(12x²) + 1/(120x⁴) − …, ψ′(x) = 1/x + 1/(2x²) +
		// 1/(6x³) − 1/(30x⁵) + …: at x ≥ 10⁴ the next terms are below 10⁻²⁸.
		x := phi + y
		l := math.Log1p(y / phi)
		series := func(v float64) float64 { i := 1 / v; i2 := i * i; return i * (1.0/12 - i2*(1.0/360-i2/1260)) }
		d += (x-0.5)*l - y + series(x) - series(phi)
		ix, ip := 1/x, 1/phi
		d1 = l - 0.5*(ix-ip) - (ix*ix-ip*ip)/12 + (ix*ix*ix*ix-ip*ip*ip*ip)/120
		d2 = -y/(phi*x) + 0.5*(ix*ix-ip*ip) + (ix*ix*ix-ip*ip*ip)/6 - (math.Pow(ix, 5)-math.Pow(ip, 5))/30
	default:
		d += lgamma(y+phi) - lgamma(phi) - y*math.Log(phi)
		d1 = special.Digamma(y+phi) - special.Digamma(phi)
		d2 = special.Trigamma(y+phi) - special.Trigamma(phi)
	}
	return d, d1, d2
}

// nbDerivs writes the gradient and Hessian of log p in (y, t, φ), t = μ or η,
// from those in (μ, φ): the mean's map (μ = t or μ = e^t) applied by the caller
// through dmu (∂μ/∂t) and d2mu (∂²μ/∂t²).
func nbDerivs(y, mu, phi, dmu, d2mu float64, grad, hess []float64) {
	s := mu + phi
	_, p1, p2 := nbPhiTerms(y, phi)
	gm := -(y + phi) / s // ∂μ
	hmm := (y + phi) / s / s
	if y > 0 {
		gm += y / mu
		hmm -= y / mu / mu
	}
	hmp := (y - mu) / s / s
	gp := p1 - math.Log1p(mu/phi) + (mu-y)/s
	hpp := p2 + 1/phi - 1/s + (y-mu)/s/s
	clear(grad[:3])
	clear(hess[:9])
	grad[1] = gm * dmu
	grad[2] = gp
	hess[4] = hmm*dmu*dmu + gm*d2mu
	hess[5], hess[7] = hmp*dmu, hmp*dmu
	hess[8] = hpp
}

// nbLogProb returns log p(y | μ, φ), with log μ given (the log form's η):
// D + y·(log μ − log(1 + μ/φ)) − φ·log(1 + μ/φ), D from nbPhiTerms (the terms
// y·log φ of D and −y·log(μ + φ) of the density cancel in closed form).
func nbLogProb(y, mu, logMu, phi float64) float64 {
	d, _, _ := nbPhiTerms(y, phi)
	l := math.Log1p(mu / phi)
	v := d - phi*l
	if y > 0 {
		v += y * (logMu - l)
	}
	return v
}

func nbOK(y, mu, phi float64) bool { return countValueOK(y) && posOK(mu) && posOK(phi) }

// LogProb returns the log probability, or −Inf for invalid arguments.
func (NegBinomial2) LogProb(args []float64, _ int) float64 {
	needArgs("NegBinomial2", 3, args)
	y, mu, phi := args[0], args[1], args[2]
	if !nbOK(y, mu, phi) {
		return negInf
	}
	return nbLogProb(y, mu, math.Log(mu), phi)
}

// Derivs returns the log probability and its gradient and Hessian in (y, μ, φ):
// ∂μ = y/μ − (y + φ)/(μ + φ), ∂φ = ψ(y + φ) − ψ(φ) − log(1 + μ/φ) + (μ − y)/(μ + φ),
// ∂²μ = −y/μ² + (y + φ)/(μ + φ)², ∂μ∂φ = (y − μ)/(μ + φ)²,
// ∂²φ = ψ′(y + φ) − ψ′(φ) + 1/φ − 1/(μ + φ) + (y − μ)/(μ + φ)².
func (NegBinomial2) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	const n = 3
	checkDerivs("NegBinomial2", n, len(args), grad, hess)
	y, mu, phi := args[0], args[1], args[2]
	if !nbOK(y, mu, phi) {
		return fail(n, grad, hess)
	}
	nbDerivs(y, mu, phi, 1, 0, grad, hess)
	return nbLogProb(y, mu, math.Log(mu), phi)
}

// LogProb returns the log probability, or −Inf for invalid arguments.
func (NegBinomial2Log) LogProb(args []float64, _ int) float64 {
	needArgs("NegBinomial2Log", 3, args)
	y, eta, phi := args[0], args[1], args[2]
	mu := math.Exp(eta)
	if !finite(eta) || !nbOK(y, mu, phi) {
		return negInf
	}
	return nbLogProb(y, mu, eta, phi)
}

// Derivs returns the log probability and its gradient and Hessian in (y, η, φ),
// NegBinomial2's with μ = e^η (∂μ/∂η = ∂²μ/∂η² = μ).
func (NegBinomial2Log) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	const n = 3
	checkDerivs("NegBinomial2Log", n, len(args), grad, hess)
	y, eta, phi := args[0], args[1], args[2]
	mu := math.Exp(eta)
	if !finite(eta) || !nbOK(y, mu, phi) {
		return fail(n, grad, hess)
	}
	nbDerivs(y, mu, phi, mu, mu, grad, hess)
	// The entries in η directly, with q = μ/(μ + φ) and r = φ/(μ + φ): ∂²η = −(y + φ)·q·r
	// and ∂η∂φ = q·(y − μ)/(μ + φ). The chain rule through μ takes them as
	// differences of terms of order μ²/(μ + φ)², which cancel when μ ≫ φ and whose
	// factors μ² and 1/(μ + φ)² overflow and underflow from η ≈ 355 on.
	s := mu + phi
	q, r := mu/s, phi/s
	hess[4] = -(y + phi) * q * r
	hess[5] = q * ((y - mu) / s)
	hess[7] = hess[5]
	return nbLogProb(y, mu, eta, phi)
}

// CheckParams requires mu and phi finite and > 0.
func (NegBinomial2) CheckParams(params []float64, _ int) error {
	if err := checkCount("NegBinomial2", params, 2); err != nil {
		return err
	}
	return firstErr(checkPositive("NegBinomial2", "mu", params[0]), checkPositive("NegBinomial2", "phi", params[1]))
}

// CheckParams requires eta finite with exp(eta) > 0 finite, and phi finite and > 0.
func (NegBinomial2Log) CheckParams(params []float64, _ int) error {
	if err := checkCount("NegBinomial2Log", params, 2); err != nil {
		return err
	}
	if err := checkReal("NegBinomial2Log", "eta", params[0]); err != nil {
		return err
	}
	if mu := math.Exp(params[0]); !posOK(mu) {
		return perr("NegBinomial2Log", "eta", params[0], "must have exp(eta) finite and > 0")
	}
	return checkPositive("NegBinomial2Log", "phi", params[1])
}

// Support returns Discrete with no upper bound (numValues 0).
func (NegBinomial2) Support([]float64, int) (Support, float64, float64, int) {
	return Discrete, 0, math.Inf(1), 0
}

// Support returns Discrete with no upper bound (numValues 0).
func (NegBinomial2Log) Support([]float64, int) (Support, float64, float64, int) {
	return Discrete, 0, math.Inf(1), 0
}

// InSupport reports whether y is a non-negative integer.
func (NegBinomial2) InSupport(args []float64, _ int) bool {
	return len(args) > 0 && countValueOK(args[0])
}

// InSupport reports whether y is a non-negative integer.
func (NegBinomial2Log) InSupport(args []float64, _ int) bool {
	return len(args) > 0 && countValueOK(args[0])
}

// Rand draws y ~ Poisson(λ), λ ~ Gamma(φ, φ/μ), into dst[0].
func (NegBinomial2) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (NegBinomial2{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	dst[0] = randNegBinomial2(rng, params[0], params[1])
}

// Rand draws y ~ NegBinomial2(exp(η), φ) into dst[0].
func (NegBinomial2Log) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (NegBinomial2Log{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	dst[0] = randNegBinomial2(rng, math.Exp(params[0]), params[1])
}

// randNegBinomial2 draws the Poisson of a Gamma(φ, φ/μ) rate.
func randNegBinomial2(rng *rand.Rand, mu, phi float64) float64 {
	return randPoisson(rng, RandGamma(rng, phi, phi/mu))
}
