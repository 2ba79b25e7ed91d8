package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// positive reports whether v is finite and > 0.
func positive(v float64) bool { return v > 0 && !math.IsInf(v, 1) }

// finite reports whether v is neither NaN nor ±Inf.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// checkGen validates the arguments shared by the conjugate generators.
func checkGen(model string, rng *rand.Rand, n int) error {
	if rng == nil {
		return fmt.Errorf("models: %s: nil random generator", model)
	}
	if n < 0 {
		return fmt.Errorf("models: %s: n = %d observations, want ≥ 0", model, n)
	}
	return nil
}

// GenerateNormalKnownSigma draws μ ~ N(mu0, tau0) and y_i ~ N(μ, sigma), i = 1 … n (tau0
// and sigma are standard deviations). The shared data set uses mu0 = 0, tau0 = 10,
// sigma = 2, n = 50. It returns an error for a nil rng, n < 0, a non-finite mu0 or a
// non-positive scale.
func GenerateNormalKnownSigma(rng *rand.Rand, n int, mu0, tau0, sigma float64) (y []float64, mu float64, err error) {
	if err := checkGen("normal known sigma", rng, n); err != nil {
		return nil, 0, err
	}
	if !finite(mu0) || !positive(tau0) || !positive(sigma) {
		return nil, 0, fmt.Errorf("models: normal known sigma: mu0 = %v, tau0 = %v, sigma = %v; want finite mu0 and positive scales", mu0, tau0, sigma)
	}
	mu = mu0 + tau0*rng.NormFloat64()
	y = make([]float64, n)
	for i := range y {
		y[i] = mu + sigma*rng.NormFloat64()
	}
	return y, mu, nil
}

// GenerateGammaPoisson draws λ ~ Gamma(shape a, rate b) and y_i ~ Poisson(λ),
// i = 1 … n. The shared data set uses a = 2, b = 0.5, n = 40. It returns an error for a
// nil rng, n < 0 or a non-positive a or b.
func GenerateGammaPoisson(rng *rand.Rand, n int, a, b float64) (y []int, lambda float64, err error) {
	if err := checkGen("gamma poisson", rng, n); err != nil {
		return nil, 0, err
	}
	if !positive(a) || !positive(b) {
		return nil, 0, fmt.Errorf("models: gamma poisson: a = %v, b = %v; want both positive", a, b)
	}
	lambda = distuv.Gamma{Alpha: a, Beta: b, Src: rng}.Rand()
	y = make([]int, n)
	pois := distuv.Poisson{Lambda: lambda, Src: rng}
	for i := range y {
		y[i] = int(pois.Rand())
	}
	return y, lambda, nil
}

// GenerateDirichletCategorical draws p ~ Dirichlet(alpha) and y_i ~ Categorical(p),
// i = 1 … n, with 0-based categories 0 … len(alpha)−1. The shared data set uses
// alpha = (1, 2, 3, 4), n = 100. It returns an error for a nil rng, n < 0, fewer than
// two categories or a non-positive alpha_k.
func GenerateDirichletCategorical(rng *rand.Rand, n int, alpha []float64) (y []int, p []float64, err error) {
	if err := checkGen("dirichlet categorical", rng, n); err != nil {
		return nil, nil, err
	}
	if err := checkAlpha("dirichlet categorical", alpha); err != nil {
		return nil, nil, err
	}
	p = make([]float64, len(alpha))
	drawDirichlet(rng, alpha, p)
	y = make([]int, n)
	for i := range y {
		y[i] = drawCategorical(rng, p)
	}
	return y, p, nil
}

// checkAlpha validates a Dirichlet parameter vector.
func checkAlpha(model string, alpha []float64) error {
	if len(alpha) < 2 {
		return fmt.Errorf("models: %s: %d categories, want at least 2", model, len(alpha))
	}
	for k, a := range alpha {
		if !positive(a) {
			return fmt.Errorf("models: %s: alpha[%d] = %v, want a finite value > 0", model, k, a)
		}
	}
	return nil
}

// GenerateBetaBinomial draws p ~ Beta(a, b) and s_j ~ Binomial(trials[j], p) for each
// group j. The shared data set uses a = 2, b = 3 and 10 groups of 20 trials. It
// returns an error for a nil rng, a negative trial count or a non-positive a or b.
func GenerateBetaBinomial(rng *rand.Rand, trials []int, a, b float64) (successes []int, p float64, err error) {
	if err := checkGen("beta binomial", rng, 0); err != nil {
		return nil, 0, err
	}
	if !positive(a) || !positive(b) {
		return nil, 0, fmt.Errorf("models: beta binomial: a = %v, b = %v; want both positive", a, b)
	}
	for j, t := range trials {
		if t < 0 {
			return nil, 0, fmt.Errorf("models: beta binomial: trials[%d] = %d, want ≥ 0", j, t)
		}
	}
	p = distuv.Beta{Alpha: a, Beta: b, Src: rng}.Rand()
	successes = make([]int, len(trials))
	for j, t := range trials {
		s := 0
		for range t {
			if rng.Float64() < p {
				s++
			}
		}
		successes[j] = s
	}
	return successes, p, nil
}

// GenerateGammaNormalPrecision draws a precision τ ~ Gamma(shape a, rate b) and
// y_i ~ N(mu, 1/√τ), i = 1 … n, with the mean mu known. It returns an error for a nil
// rng, n < 0, a non-finite mu or a non-positive a or b.
func GenerateGammaNormalPrecision(rng *rand.Rand, n int, mu, a, b float64) (y []float64, tau float64, err error) {
	if err := checkGen("gamma normal precision", rng, n); err != nil {
		return nil, 0, err
	}
	if !finite(mu) || !positive(a) || !positive(b) {
		return nil, 0, fmt.Errorf("models: gamma normal precision: mu = %v, a = %v, b = %v; want finite mu, positive a and b", mu, a, b)
	}
	tau = distuv.Gamma{Alpha: a, Beta: b, Src: rng}.Rand()
	sd := 1 / math.Sqrt(tau)
	y = make([]float64, n)
	for i := range y {
		y[i] = mu + sd*rng.NormFloat64()
	}
	return y, tau, nil
}

// GenerateMVNNormal draws μ ~ N(mu0, sigma0) and the rows of y (n × k) independently from
// N(μ, sigma), where k = len(mu0) and sigma0, sigma are k × k covariance matrices. It
// returns an error for a nil rng, n < 0, mismatched sizes, a non-finite mu0 or a
// covariance that is not positive definite.
func GenerateMVNNormal(rng *rand.Rand, n int, mu0 []float64, sigma0, sigma mat.Symmetric) (y *mat.Dense, mu []float64, err error) {
	if err := checkGen("mvn normal", rng, n); err != nil {
		return nil, nil, err
	}
	if err := checkMVNArgs(mu0, sigma0, sigma); err != nil {
		return nil, nil, err
	}
	var c0, c mat.Cholesky
	if !c0.Factorize(sigma0) {
		return nil, nil, fmt.Errorf("models: mvn normal: prior covariance sigma0 is not positive definite")
	}
	if !c.Factorize(sigma) {
		return nil, nil, fmt.Errorf("models: mvn normal: covariance sigma is not positive definite")
	}
	var l0, l mat.TriDense
	c0.LTo(&l0)
	c.LTo(&l)
	k := len(mu0)
	z := make([]float64, k)
	mu = make([]float64, k)
	drawMVN(rng, mu0, &l0, z, mu)
	if n == 0 {
		return nil, mu, nil
	}
	y = mat.NewDense(n, k, nil)
	for i := 0; i < n; i++ {
		drawMVN(rng, mu, &l, z, y.RawRowView(i))
	}
	return y, mu, nil
}

// drawMVN writes mean + L z into dst, where Σ = L Lᵀ and z (scratch of length k) is
// filled with standard normal draws: a draw from N(mean, Σ).
func drawMVN(rng *rand.Rand, mean []float64, l *mat.TriDense, z, dst []float64) {
	k := len(mean)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	for i := 0; i < k; i++ {
		s := mean[i]
		for j := 0; j <= i; j++ {
			s += l.At(i, j) * z[j]
		}
		dst[i] = s
	}
}

// checkMVNArgs validates the sizes and finiteness of the MVN Normal-Normal arguments.
func checkMVNArgs(mu0 []float64, sigma0, sigma mat.Symmetric) error {
	k := len(mu0)
	if k == 0 {
		return fmt.Errorf("models: mvn normal: empty prior mean")
	}
	for i, v := range mu0 {
		if !finite(v) {
			return fmt.Errorf("models: mvn normal: mu0[%d] = %v is not finite", i, v)
		}
	}
	if sigma0 == nil || sigma == nil {
		return fmt.Errorf("models: mvn normal: nil covariance matrix")
	}
	if s := sigma0.SymmetricDim(); s != k {
		return fmt.Errorf("models: mvn normal: sigma0 is %d×%d, want %d×%d", s, s, k, k)
	}
	if s := sigma.SymmetricDim(); s != k {
		return fmt.Errorf("models: mvn normal: sigma is %d×%d, want %d×%d", s, s, k, k)
	}
	return nil
}
