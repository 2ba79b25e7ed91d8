package models

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/nmc-go/nmc/diagnostics"
)

// Families of closed-form posteriors.
const (
	FamilyNormal    = "normal"    // Params: mean, standard deviation
	FamilyGamma     = "gamma"     // Params: shape, rate
	FamilyBeta      = "beta"      // Params: a, b
	FamilyDirichlet = "dirichlet" // Params: α_0 … α_{K−1}
	FamilyMVNormal  = "mvnormal"  // Params: mean (k values), then the k × k covariance row-major
)

// Posterior is a closed-form posterior distribution of the parameters of a conjugate
// model. Names holds the 0-based scalar parameter names ("mu", "p[2]"), Params the
// family's parameters laid out as documented at the Family constants. Scalar families
// (normal, gamma, beta) have one name; dirichlet and mvnormal have one per component.
type Posterior struct {
	Family string
	Names  []string
	Params []float64
}

// Marginal is a univariate distribution given as in exact_posterior.csv: Family is
// "normal" (Par1 = mean, Par2 = standard deviation), "gamma" (shape, rate) or "beta"
// (a, b).
type Marginal struct {
	Family     string
	Par1, Par2 float64
}

// valid reports whether the family is known and its parameters are in their domain
// (a finite mean and positive standard deviation; positive shape and rate; positive a
// and b). The methods return NaN for an invalid distribution.
func (m Marginal) valid() bool {
	switch m.Family {
	case FamilyNormal:
		return finite(m.Par1) && positive(m.Par2)
	case FamilyGamma, FamilyBeta:
		return positive(m.Par1) && positive(m.Par2)
	}
	return false
}

// Mean returns the mean of the distribution (NaN for an unknown family or invalid
// parameters).
func (m Marginal) Mean() float64 {
	if !m.valid() {
		return math.NaN()
	}
	switch m.Family {
	case FamilyNormal:
		return m.Par1
	case FamilyGamma:
		return m.Par1 / m.Par2
	case FamilyBeta:
		return m.Par1 / (m.Par1 + m.Par2)
	}
	return math.NaN()
}

// SD returns the standard deviation of the distribution (NaN for an unknown family or
// invalid parameters).
func (m Marginal) SD() float64 {
	if !m.valid() {
		return math.NaN()
	}
	switch m.Family {
	case FamilyNormal:
		return m.Par2
	case FamilyGamma:
		return math.Sqrt(m.Par1) / m.Par2
	case FamilyBeta:
		s := m.Par1 + m.Par2
		return math.Sqrt(m.Par1 * m.Par2 / (s * s * (s + 1))) // √(ab / ((a+b)²(a+b+1)))
	}
	return math.NaN()
}

// Quantile returns the p-quantile, the inverse of the CDF, for 0 ≤ p ≤ 1 (NaN for p
// outside [0, 1], an unknown family or invalid parameters).
func (m Marginal) Quantile(p float64) float64 {
	if !(p >= 0 && p <= 1) || !m.valid() {
		return math.NaN()
	}
	switch m.Family {
	case FamilyNormal:
		return distuv.Normal{Mu: m.Par1, Sigma: m.Par2}.Quantile(p)
	case FamilyGamma:
		return distuv.Gamma{Alpha: m.Par1, Beta: m.Par2}.Quantile(p)
	case FamilyBeta:
		return distuv.Beta{Alpha: m.Par1, Beta: m.Par2}.Quantile(p)
	}
	return math.NaN()
}

// LogPDF returns the natural log of the density at x (−Inf outside the support, NaN for
// an unknown family or invalid parameters).
func (m Marginal) LogPDF(x float64) float64 {
	if !m.valid() {
		return math.NaN()
	}
	switch m.Family {
	case FamilyNormal:
		return distuv.Normal{Mu: m.Par1, Sigma: m.Par2}.LogProb(x)
	case FamilyGamma:
		if x <= 0 {
			return math.Inf(-1)
		}
		return distuv.Gamma{Alpha: m.Par1, Beta: m.Par2}.LogProb(x)
	case FamilyBeta:
		if x <= 0 || x >= 1 {
			return math.Inf(-1)
		}
		return distuv.Beta{Alpha: m.Par1, Beta: m.Par2}.LogProb(x)
	}
	return math.NaN()
}

// Dim returns the number of scalar parameters.
func (p *Posterior) Dim() int { return len(p.Names) }

// Index returns the position of the named scalar parameter in Names.
func (p *Posterior) Index(name string) (int, error) {
	for i, n := range p.Names {
		if n == name {
			return i, nil
		}
	}
	return -1, fmt.Errorf("models: %s posterior has no parameter %q (have %v)", p.Family, name, p.Names)
}

// Marginal returns the marginal distribution of the named scalar parameter: the
// posterior itself for scalar families, Beta(α_i, Σα − α_i) for a Dirichlet component,
// Normal(mean_i, √Σ_ii) for a multivariate normal component.
func (p *Posterior) Marginal(name string) (Marginal, error) {
	i, err := p.Index(name)
	if err != nil {
		return Marginal{}, err
	}
	k := len(p.Names)
	switch p.Family {
	case FamilyNormal, FamilyGamma, FamilyBeta:
		if len(p.Params) != 2 {
			return Marginal{}, fmt.Errorf("models: %s posterior has %d parameters, want 2", p.Family, len(p.Params))
		}
		return Marginal{Family: p.Family, Par1: p.Params[0], Par2: p.Params[1]}, nil
	case FamilyDirichlet:
		if len(p.Params) != k {
			return Marginal{}, fmt.Errorf("models: dirichlet posterior has %d parameters, want %d", len(p.Params), k)
		}
		var sum float64
		for _, a := range p.Params {
			sum += a
		}
		return Marginal{Family: FamilyBeta, Par1: p.Params[i], Par2: sum - p.Params[i]}, nil
	case FamilyMVNormal:
		if len(p.Params) != k+k*k {
			return Marginal{}, fmt.Errorf("models: mvnormal posterior has %d parameters, want %d", len(p.Params), k+k*k)
		}
		return Marginal{Family: FamilyNormal, Par1: p.Params[i], Par2: math.Sqrt(p.Params[k+i*k+i])}, nil
	}
	return Marginal{}, fmt.Errorf("models: unknown posterior family %q", p.Family)
}

// Mean returns the posterior mean of the named scalar parameter.
func (p *Posterior) Mean(name string) (float64, error) {
	m, err := p.Marginal(name)
	return m.Mean(), err
}

// SD returns the posterior standard deviation of the named scalar parameter.
func (p *Posterior) SD(name string) (float64, error) {
	m, err := p.Marginal(name)
	return m.SD(), err
}

// References returns the exact mean and standard deviation of every scalar
// parameter, in the order of Names: what diagnostics.CompareExact sets the
// estimates from draws against.
func (p *Posterior) References() ([]diagnostics.Reference, error) {
	out := make([]diagnostics.Reference, len(p.Names))
	for i, name := range p.Names {
		m, err := p.Marginal(name)
		if err != nil {
			return nil, err
		}
		out[i] = diagnostics.Reference{Variable: name, Mean: m.Mean(), SD: m.SD()}
	}
	return out, nil
}

// Quantile returns the prob-quantile of the named scalar parameter's marginal.
func (p *Posterior) Quantile(name string, prob float64) (float64, error) {
	m, err := p.Marginal(name)
	if err != nil {
		return math.NaN(), err
	}
	if !(prob >= 0 && prob <= 1) {
		return math.NaN(), fmt.Errorf("models: quantile probability %v outside [0, 1]", prob)
	}
	return m.Quantile(prob), nil
}

// LogPDF returns the log marginal density of the named scalar parameter at x.
func (p *Posterior) LogPDF(name string, x float64) (float64, error) {
	m, err := p.Marginal(name)
	if err != nil {
		return math.NaN(), err
	}
	return m.LogPDF(x), nil
}

// JointLogPDF returns the log density of the whole posterior at x (one value per name):
// for a Dirichlet, with respect to the Lebesgue measure on the first K−1 coordinates
// (−Inf off the simplex, with a tolerance of 1e-9 on the sum); for a multivariate
// normal, the usual k-dimensional density. It returns an error when len(x) ≠ Dim().
func (p *Posterior) JointLogPDF(x []float64) (float64, error) {
	k := len(p.Names)
	if len(x) != k {
		return math.NaN(), fmt.Errorf("models: %s posterior: point has %d values, want %d", p.Family, len(x), k)
	}
	switch p.Family {
	case FamilyNormal, FamilyGamma, FamilyBeta:
		return p.LogPDF(p.Names[0], x[0])
	case FamilyDirichlet:
		if len(p.Params) != k {
			return math.NaN(), fmt.Errorf("models: dirichlet posterior has %d parameters, want %d", len(p.Params), k)
		}
		var sum, a0, lp float64
		for i, a := range p.Params {
			if !(x[i] > 0) {
				return math.Inf(-1), nil
			}
			sum += x[i]
			a0 += a
			lg, _ := math.Lgamma(a)
			lp += (a-1)*math.Log(x[i]) - lg
		}
		if math.Abs(sum-1) > 1e-9 {
			return math.Inf(-1), nil
		}
		lg0, _ := math.Lgamma(a0)
		return lp + lg0, nil
	case FamilyMVNormal:
		if len(p.Params) != k+k*k {
			return math.NaN(), fmt.Errorf("models: mvnormal posterior has %d parameters, want %d", len(p.Params), k+k*k)
		}
		cov := mat.NewSymDense(k, append([]float64(nil), p.Params[k:]...))
		var chol mat.Cholesky
		if !chol.Factorize(cov) {
			return math.NaN(), fmt.Errorf("models: mvnormal posterior covariance is not positive definite")
		}
		d := mat.NewVecDense(k, nil)
		for i := range x {
			d.SetVec(i, x[i]-p.Params[i])
		}
		var s mat.VecDense
		if err := chol.SolveVecTo(&s, d); err != nil {
			return math.NaN(), fmt.Errorf("models: mvnormal posterior: %v", err)
		}
		q := mat.Dot(d, &s)
		return -0.5 * (float64(k)*math.Log(2*math.Pi) + chol.LogDet() + q), nil
	}
	return math.NaN(), fmt.Errorf("models: unknown posterior family %q", p.Family)
}

// checkFinite returns an error naming the first non-finite value of y.
func checkFinite(model, what string, y []float64) error {
	for i, v := range y {
		if !finite(v) {
			return fmt.Errorf("models: %s: %s[%d] = %v is not finite", model, what, i, v)
		}
	}
	return nil
}

// NormalKnownSigmaPosterior returns the posterior of μ in μ ~ N(mu0, tau0),
// y_i ~ N(μ, sigma), where tau0 and sigma are standard deviations: Normal with precision
// 1/tau0² + n/sigma² and mean (mu0/tau0² + Σy/sigma²)/precision. The parameter is
// named "mu".
func NormalKnownSigmaPosterior(y []float64, mu0, tau0, sigma float64) (*Posterior, error) {
	const model = "normal known sigma"
	if !finite(mu0) || !positive(tau0) || !positive(sigma) {
		return nil, fmt.Errorf("models: %s: mu0 = %v, tau0 = %v, sigma = %v; want finite mu0 and positive scales", model, mu0, tau0, sigma)
	}
	if err := checkFinite(model, "y", y); err != nil {
		return nil, err
	}
	var sum float64
	for _, v := range y {
		sum += v
	}
	p0, pl := 1/(tau0*tau0), 1/(sigma*sigma)
	prec := p0 + float64(len(y))*pl
	mean := (mu0*p0 + sum*pl) / prec
	return &Posterior{Family: FamilyNormal, Names: []string{"mu"}, Params: []float64{mean, 1 / math.Sqrt(prec)}}, nil
}

// GammaPoissonPosterior returns the posterior of λ in λ ~ Gamma(shape a, rate b),
// y_i ~ Poisson(λ): Gamma(a + Σy, b + n). The parameter is named "lambda".
func GammaPoissonPosterior(y []int, a, b float64) (*Posterior, error) {
	if !positive(a) || !positive(b) {
		return nil, fmt.Errorf("models: gamma poisson: a = %v, b = %v; want both positive", a, b)
	}
	var sum float64
	for i, v := range y {
		if v < 0 {
			return nil, fmt.Errorf("models: gamma poisson: y[%d] = %d, want a count ≥ 0", i, v)
		}
		sum += float64(v)
	}
	return &Posterior{Family: FamilyGamma, Names: []string{"lambda"}, Params: []float64{a + sum, b + float64(len(y))}}, nil
}

// BetaBinomialPosterior returns the posterior of p in p ~ Beta(a, b),
// s_j ~ Binomial(trials[j], p): Beta(a + Σs, b + Σ(trials − s)). The parameter is
// named "p".
func BetaBinomialPosterior(trials, successes []int, a, b float64) (*Posterior, error) {
	const model = "beta binomial"
	if !positive(a) || !positive(b) {
		return nil, fmt.Errorf("models: %s: a = %v, b = %v; want both positive", model, a, b)
	}
	if len(trials) != len(successes) {
		return nil, fmt.Errorf("models: %s: %d trial counts but %d success counts", model, len(trials), len(successes))
	}
	var s, f float64
	for j, t := range trials {
		if sj := successes[j]; t < 0 || sj < 0 || sj > t {
			return nil, fmt.Errorf("models: %s: group %d has %d successes in %d trials, want 0 ≤ successes ≤ trials", model, j, sj, t)
		}
		s += float64(successes[j])
		f += float64(t - successes[j])
	}
	return &Posterior{Family: FamilyBeta, Names: []string{"p"}, Params: []float64{a + s, b + f}}, nil
}

// DirichletCategoricalPosterior returns the posterior of p in p ~ Dirichlet(alpha),
// y_i ~ Categorical(p) with 0-based categories: Dirichlet(alpha + counts). The
// components are named "p[0]" … "p[K−1]"; each one's marginal is a Beta.
func DirichletCategoricalPosterior(y []int, alpha []float64) (*Posterior, error) {
	const model = "dirichlet categorical"
	if err := checkAlpha(model, alpha); err != nil {
		return nil, err
	}
	post := append([]float64(nil), alpha...)
	for i, v := range y {
		if v < 0 || v >= len(alpha) {
			return nil, fmt.Errorf("models: %s: y[%d] = %d out of range [0, %d)", model, i, v, len(alpha))
		}
		post[v]++
	}
	return &Posterior{Family: FamilyDirichlet, Names: indexedNames("p", len(alpha)), Params: post}, nil
}

// GammaNormalPrecisionPosterior returns the posterior of the precision τ in
// τ ~ Gamma(shape a, rate b), y_i ~ N(mu, 1/√τ) with mu known:
// Gamma(a + n/2, b + Σ(y − mu)²/2). The parameter is named "tau".
func GammaNormalPrecisionPosterior(y []float64, mu, a, b float64) (*Posterior, error) {
	const model = "gamma normal precision"
	if !finite(mu) || !positive(a) || !positive(b) {
		return nil, fmt.Errorf("models: %s: mu = %v, a = %v, b = %v; want finite mu, positive a and b", model, mu, a, b)
	}
	if err := checkFinite(model, "y", y); err != nil {
		return nil, err
	}
	var ss float64
	for _, v := range y {
		ss += (v - mu) * (v - mu)
	}
	return &Posterior{Family: FamilyGamma, Names: []string{"tau"}, Params: []float64{a + float64(len(y))/2, b + ss/2}}, nil
}

// MVNNormalPosterior returns the posterior of μ in μ ~ N(mu0, sigma0), y_i ~ N(μ, sigma)
// (rows of y, n × k; y may be nil for n = 0): Normal with precision
// Σ₀⁻¹ + n Σ⁻¹ and mean (Σ₀⁻¹ mu0 + Σ⁻¹ Σ_i y_i)/precision. The components are named
// "mu[0]" … "mu[k−1]". It returns an error for mismatched sizes, non-finite values or
// covariances that are not positive definite.
func MVNNormalPosterior(y mat.Matrix, mu0 []float64, sigma0, sigma mat.Symmetric) (*Posterior, error) {
	const model = "mvn normal"
	if err := checkMVNArgs(mu0, sigma0, sigma); err != nil {
		return nil, err
	}
	k := len(mu0)
	sum := make([]float64, k)
	n := 0
	if y != nil {
		var c int
		n, c = y.Dims()
		if c != k {
			return nil, fmt.Errorf("models: %s: y has %d columns, want %d", model, c, k)
		}
		for i := 0; i < n; i++ {
			for j := 0; j < k; j++ {
				v := y.At(i, j)
				if !finite(v) {
					return nil, fmt.Errorf("models: %s: y[%d,%d] = %v is not finite", model, i, j, v)
				}
				sum[j] += v
			}
		}
	}
	var c0, c mat.Cholesky
	if !c0.Factorize(sigma0) {
		return nil, fmt.Errorf("models: %s: prior covariance sigma0 is not positive definite", model)
	}
	if !c.Factorize(sigma) {
		return nil, fmt.Errorf("models: %s: covariance sigma is not positive definite", model)
	}
	var p0, p1 mat.SymDense
	if err := c0.InverseTo(&p0); err != nil {
		return nil, fmt.Errorf("models: %s: sigma0: %v", model, err)
	}
	if err := c.InverseTo(&p1); err != nil {
		return nil, fmt.Errorf("models: %s: sigma: %v", model, err)
	}
	prec := mat.NewSymDense(k, nil)
	prec.AddSym(&p0, scaledSym(&p1, float64(n)))
	// rhs = Σ₀⁻¹ mu0 + Σ⁻¹ Σ_i y_i
	var a, b, rhs mat.VecDense
	a.MulVec(&p0, mat.NewVecDense(k, append([]float64(nil), mu0...)))
	b.MulVec(&p1, mat.NewVecDense(k, sum))
	rhs.AddVec(&a, &b)
	var cp mat.Cholesky
	if !cp.Factorize(prec) {
		return nil, fmt.Errorf("models: %s: posterior precision is not positive definite", model)
	}
	var mean mat.VecDense
	if err := cp.SolveVecTo(&mean, &rhs); err != nil {
		return nil, fmt.Errorf("models: %s: %v", model, err)
	}
	var cov mat.SymDense
	if err := cp.InverseTo(&cov); err != nil {
		return nil, fmt.Errorf("models: %s: %v", model, err)
	}
	params := make([]float64, k+k*k)
	for i := 0; i < k; i++ {
		params[i] = mean.AtVec(i)
		for j := 0; j < k; j++ {
			params[k+i*k+j] = cov.At(i, j)
		}
	}
	return &Posterior{Family: FamilyMVNormal, Names: indexedNames("mu", k), Params: params}, nil
}

// scaledSym returns s·a as a new matrix.
func scaledSym(a *mat.SymDense, s float64) *mat.SymDense {
	var out mat.SymDense
	out.ScaleSym(s, a)
	return &out
}

// indexedNames returns base[0], …, base[k−1].
func indexedNames(base string, k int) []string {
	names := make([]string, k)
	for i := range names {
		names[i] = base + "[" + strconv.Itoa(i) + "]"
	}
	return names
}
