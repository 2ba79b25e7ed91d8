package models

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// Built is a model ready to sample: the compiled graph model and, when test data was
// given, its held-out pointwise log-likelihood (the input of the predictive
// log-likelihood curve).
type Built struct {
	// Name is the model's name as the command line knows it, e.g. "blr".
	Name string
	// Model is what to sample: Graph itself for every model (the graph engine
	// scores the regressions' likelihoods as linear factors with the linear
	// predictor cached, and the annotation model's labels through their counts by
	// class, see nmc/graph), the annotation model, in both its forms, wrapped to
	// start from majority-vote classes instead of a prior draw. Model and Graph
	// declare the same group moves (nmc.Grouper): logistic regression's (alpha,
	// beta) dilation, robust regression's (nu, sigma) ridge, the funnel's orbit and
	// the centred eight schools' (theta about mu, tau) dilation; the sampler's
	// nmc.Defaults.NoGroupMoves leaves them out.
	Model nmc.Model
	// Graph is the compiled graph model (state layout, Offset, Neighbors).
	Graph *graph.Model
	// HeldOut computes log p(y_j | θ) for every test point; nil without test data.
	HeldOut nmc.HeldOut
}

// scaleGroup names the group move of logistic regression: (alpha, beta) dilated
// about 0.
const scaleGroup = "scale(alpha, beta)"

// or returns v, or def when v is 0.
func or(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// LogisticPrior holds the prior scales of Bayesian logistic regression; zero fields
// take the paper's values: alpha ~ N(0, 10), beta_k ~ N(0, 2.5).
type LogisticPrior struct{ AlphaSD, BetaSD float64 }

// Logistic builds Bayesian logistic regression, written with the public graph API:
//
//	alpha ~ Normal(0, 10); beta ~ Normal(0, 2.5) (one K-dimensional site);
//	y_i ~ Bernoulli(logit⁻¹(alpha + X_i·beta)).
//
// It declares one group move, "scale(alpha, beta)": (alpha, beta) dilated about 0
// at rate 1, the ridge along which near-separable data lets the coefficients slide
// (BENCHMARKS.md, "Mixing"). test may be nil. Parameters: alpha, beta[k] (0-based).
func Logistic(train RegressionData, test *RegressionData, prior *LogisticPrior) (*Built, error) {
	if err := train.Validate(true); err != nil {
		return nil, fmt.Errorf("models: blr: train: %w", err)
	}
	var p LogisticPrior
	if prior != nil {
		p = *prior
	}
	_, k := train.Dims()
	b := graph.New()
	alpha := b.Latent("alpha", graph.Normal(graph.C(0), graph.C(or(p.AlphaSD, 10))))
	beta := b.Vector("beta", k, graph.Normal(graph.C(0), graph.C(or(p.BetaSD, 2.5))))
	b.Observe("y", graph.BernoulliLogit(graph.Add(alpha, graph.MatVec(train.X, beta))), train.Y)
	b.Group(scaleGroup, graph.Dilate(alpha, 1), graph.Dilate(beta, 1))
	m, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("models: blr: %w", err)
	}
	out := &Built{Name: "blr", Model: m, Graph: m}
	if test != nil {
		if err := test.Validate(true); err != nil {
			return nil, fmt.Errorf("models: blr: test: %w", err)
		}
		if _, kt := test.Dims(); kt != k {
			return nil, fmt.Errorf("models: blr: test data has %d predictors, train %d", kt, k)
		}
		h, err := newLinearHeldOut(m, *test, false)
		if err != nil {
			return nil, err
		}
		out.HeldOut = h
	}
	return out, nil
}

// RobustPrior holds the hyperparameters of robust regression; zero fields take the
// paper's values: nu ~ Gamma(2, rate 0.1), sigma ~ Exponential(rate 0.1),
// alpha ~ N(0, 10), beta_k ~ N(0, 2.5).
type RobustPrior struct{ NuShape, NuRate, SigmaRate, AlphaSD, BetaSD float64 }

// Robust builds robust (Student-t) regression:
//
//	nu ~ Gamma(2, 0.1); sigma ~ Exponential(0.1); alpha ~ N(0, 10); beta ~ N(0, 2.5);
//	y_i ~ StudentT(nu, alpha + X_i·beta, sigma).
//
// It declares one group move, "ridge(nu, sigma)": nu dilated about 0 at rate 1 and
// sigma at rate 1/(ν₀+1), ν₀ the median of nu's prior (16.8 for the default
// Gamma(2, 0.1): rate 0.056). The orbit follows the ridge of the posterior in
// (log ν, log σ), along which single-site steps on nu and sigma are slow: with many
// observations the mode of log σ given log ν moves with slope 1/(ν+1) (from the
// Student-t's Fisher information), and log ν and log σ are correlated by about 0.7.
// Measured with `nmc sample -model robust -n 20000 -k 40 -draws 1000 -chains 4`
// (seeds 1, 2, 3; posterior means of nu 10.9, 20.6, 8.0): the smaller bulk ESS of nu
// and sigma rose from 713, 378, 937 to 2350, 3440, 1992.
//
// It does not declare the (alpha, beta) dilation of Logistic: with continuous y the
// data pin the scale of the coefficients (there is no ridge along it), and at the
// same sizes the smallest bulk ESS of alpha and beta was 3339–3642 with that group
// and 3476–3572 without, while its two orbit scores a sweep cost as much as the
// ridge group's. Parameters: nu, sigma, alpha, beta[k].
func Robust(train RegressionData, test *RegressionData, prior *RobustPrior) (*Built, error) {
	if err := train.Validate(false); err != nil {
		return nil, fmt.Errorf("models: robust: train: %w", err)
	}
	var p RobustPrior
	if prior != nil {
		p = *prior
	}
	_, k := train.Dims()
	b := graph.New()
	nu := b.Latent("nu", graph.Gamma(graph.C(or(p.NuShape, 2)), graph.C(or(p.NuRate, 0.1))))
	sigma := b.Latent("sigma", graph.Exponential(graph.C(or(p.SigmaRate, 0.1))))
	alpha := b.Latent("alpha", graph.Normal(graph.C(0), graph.C(or(p.AlphaSD, 10))))
	beta := b.Vector("beta", k, graph.Normal(graph.C(0), graph.C(or(p.BetaSD, 2.5))))
	b.Observe("y", graph.StudentT(nu, graph.Add(alpha, graph.MatVec(train.X, beta)), sigma), train.Y)
	if rate, ok := ridgeRate(or(p.NuShape, 2), or(p.NuRate, 0.1)); ok {
		b.Group(ridgeGroup, graph.Dilate(nu, 1), graph.Dilate(sigma, rate))
	}
	m, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("models: robust: %w", err)
	}
	out := &Built{Name: "robust", Model: m, Graph: m}
	if test != nil {
		if err := test.Validate(false); err != nil {
			return nil, fmt.Errorf("models: robust: test: %w", err)
		}
		if _, kt := test.Dims(); kt != k {
			return nil, fmt.Errorf("models: robust: test data has %d predictors, train %d", kt, k)
		}
		h, err := newLinearHeldOut(m, *test, true)
		if err != nil {
			return nil, err
		}
		out.HeldOut = h
	}
	return out, nil
}

// ridgeGroup names the group move of robust regression: nu and sigma dilated along
// the posterior's ridge.
const ridgeGroup = "ridge(nu, sigma)"

// ridgeRate returns sigma's dilation rate in robust regression's ridge group (nu's
// is 1), 1/(ν₀+1) with ν₀ the median of the Gamma(shape, rate) prior of nu, and
// whether the prior is valid (Build reports an invalid one).
//
// The ridge: per observation (location known), the Fisher information of the
// Student-t in η = log ν and s = log σ has I_ss = 2ν/(ν+3) and
// I_ηs = −2ν/((ν+1)(ν+3)) (Lange, Little and Taylor 1989, in log coordinates). With
// many observations the mode of s given η therefore moves with slope
// −I_ηs/I_ss = 1/(ν+1), and η and s are correlated by 0.70–0.75 for every ν from 8
// to 100 (0.64 at ν = 3), so single-site steps on ν and σ mix like a Gibbs sampler
// at that correlation. A dilation of (ν, σ) at rates (1, 1/(ν+1)) moves η with the
// residual s − η/(ν+1) fixed, which is independent of η to that order: the orbit
// follows the ridge. On robust regression with 10,000 train rows (ν̂ = 10.9) the
// draws of single-site NMC have correlation 0.69–0.75 by chain and the slope of
// log σ on log ν is 0.088, against 1/(ν̂+1) = 0.084.
//
// The slope depends on ν, which is not known when the model is built; the prior's
// median is its central value. A slope off by a factor of 2 either way still leaves
// the orbit a long move along the ridge (on a bivariate normal of correlation 0.72,
// Gibbs steps with one such orbit move per sweep keep 65% or more of the ESS that
// the exact slope gives, against 34% without the move).
func ridgeRate(shape, rate float64) (float64, bool) {
	if !(shape > 0) || !(rate > 0) || math.IsInf(shape, 0) || math.IsInf(rate, 0) {
		return 0, false
	}
	med := distuv.Gamma{Alpha: shape, Beta: rate}.Quantile(0.5)
	if !(med >= 0) || math.IsInf(med, 0) {
		return 0, false
	}
	return 1 / (med + 1), true
}

// AnnotationPrior holds the hyperparameters of the Dawid-Skene model and its form
// (classes explicit or summed out); zero fields take the paper's values: pi ~ Dirichlet(1/C, …),
// theta[l,m] ~ Dirichlet(alpha_m) with alpha_mn = Gamma·Rho on the diagonal and
// Gamma·(1−Rho)/(C−1) off it, Gamma = 10, Rho = 0.5.
type AnnotationPrior struct {
	PiConcentration, Gamma, Rho float64
	// ExplicitClasses keeps the classes z in the sweep, as the paper has them: pi and
	// theta are scored given z (pi's conditional is an exact Dirichlet) and z is
	// updated by exact enumeration, one item at a time. By default (false) the
	// classes are summed out (graph.Builder.Marginalise): every z site is
	// nmc.Site.Marginalised, pi and theta see the marginal likelihood of each item's
	// labels, and z is drawn from its exact conditional after each sweep, so it is
	// still recorded. Both forms have the same posterior and run on the graph
	// engine. `nmc sample -explicit-classes` sets it.
	//
	// With the classes summed out, pi and theta form the model's Hamiltonian block
	// (graph.Builder.Hamiltonian): once per sweep a static HMC move of all of them
	// jointly, in log-ratio coordinates, with the gradient of the summed-out log
	// joint (the items' class responsibilities turned into expected counts, one
	// pass over the labels), which follows the slow direction where the
	// prevalence of a rare class and the confusion rows of that class pin each
	// other (nmc.HamiltonianMove; nmc.Defaults.NoHamiltonian, `-no-hmc`, turns it
	// off). The confusion
	// rows theta are also augmented (graph.Builder.Augment): instead of summed-out
	// single-site steps, each of which sums over every item its labeler labelled,
	// they are drawn once per sweep from their exact Dirichlet conditional given
	// freshly drawn classes (nmc.AugmentRound; nmc.Defaults.NoAugment turns it
	// off). pi is also
	// declared the lead of the lead-and-follow moves (graph.Builder.Lead), which
	// the sampler uses only without the Hamiltonian block: after warm-up, random
	// walks of pi in its log-ratio coordinates (see nmc.LeadMoves).
	//
	// Measured at 5,000 train items, 100 labelers, 3 classes, 4 × 1000 draws
	// (`nmc sample -model annotation -n 10000 -k 100 -draws 1000 -chains 4 -seed S`,
	// adaptive warm-up), min bulk ESS of pi and of theta, max R-hat, at seeds 1 and 2:
	// z explicit, pi 24 and 21, R-hat 1.11–1.16; summed out with pi's lead moves,
	// pi 433 and 460, theta 858 and 622, R-hat 1.009–1.01; with theta augmented
	// twice per sweep besides the lead moves (`-no-hmc`), pi 584 and 551, theta
	// 1443 and 1160, R-hat 1.0057 and 1.0066, for 0.98× the CPU time of z
	// explicit; with the Hamiltonian block (the default), pi 1590 and 3332, theta
	// 3172 and 2356, R-hat 1.0025 and 1.0037 (seeds 1–10 and the times in
	// BENCHMARKS.md).
	ExplicitClasses bool
}

// Annotation builds the Dawid-Skene annotation model with discrete true labels:
//
//	pi ~ Dirichlet(1/C, …); z_i ~ Categorical(pi); theta[l,m] ~ Dirichlet(alpha_m);
//	y_j ~ Categorical(theta[labeler_j, z[item_j]]).
//
// Parameters: pi[m], z[i], theta[l,m,n] (0-based). test may be nil; its held-out
// likelihood sums out each test item's class. Built.Graph is the model written with
// the graph API (z summed out by graph.Builder.Marginalise unless
// prior.ExplicitClasses, see AnnotationPrior), and Built.Model is that graph model
// started from majority-vote classes, in both forms. (Each form once had a
// hand-written scorer beside it; they are gone since the graph engine came within
// 1.3× of them per sweep: 1.2–1.25× with z summed out, 1.06–1.08× with z explicit,
// at 5,000 train items, 100 labelers and 3 classes, see BenchmarkAnnotationSweep
// and BENCHMARKS.md.)
func Annotation(train AnnotationData, test *AnnotationData, prior *AnnotationPrior) (*Built, error) {
	if err := train.Validate(); err != nil {
		return nil, fmt.Errorf("models: annotation: train: %w", err)
	}
	if train.NumItems == 0 {
		return nil, fmt.Errorf("models: annotation: train data has no items")
	}
	var p AnnotationPrior
	if prior != nil {
		p = *prior
	}
	c, l := train.NumClasses, train.NumLabelers
	cfg := AnnotationConfig{N: 2, Labelers: l, Classes: c, JLoc: 1, Gamma: or(p.Gamma, 10), Rho: or(p.Rho, 0.5)}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	conc := make([]float64, c)
	for m := range conc {
		conc[m] = or(p.PiConcentration, 1/float64(c))
	}
	rows := make([][]float64, c)
	for m := range rows {
		rows[m] = cfg.ConfusionPrior(m)
	}
	classOf := make([]int, l*c)
	for i := range classOf {
		classOf[i] = i % c
	}
	b := graph.New()
	pi := b.Latent("pi", graph.Dirichlet(graph.Vec(conc...)))
	z := b.Latent("z", graph.Categorical(pi), train.NumItems)
	theta := b.Latent("theta", graph.Dirichlet(graph.Index(graph.Rows(rows), classOf)), l, c)
	if train.NumLabels() > 0 {
		b.ObserveInts("y", graph.Categorical(graph.At(theta, graph.By(train.Labeler), graph.ByNode(graph.Index(z, train.Item)))), train.Label)
	}
	if !p.ExplicitClasses {
		b.Marginalise(z)
		b.Lead(pi)
		b.Augment(theta)
		b.Hamiltonian(pi, theta)
	}
	m, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("models: annotation: %w", err)
	}
	start, err := newAnnotationStart(m, train, conc, rows)
	if err != nil {
		return nil, err
	}
	out := &Built{Name: "annotation", Model: start, Graph: m}
	if test != nil {
		if err := test.Validate(); err != nil {
			return nil, fmt.Errorf("models: annotation: test: %w", err)
		}
		if test.NumLabelers != l || test.NumClasses != c {
			return nil, fmt.Errorf("models: annotation: test data has %d labelers and %d classes, train %d and %d", test.NumLabelers, test.NumClasses, l, c)
		}
		h, err := newAnnotationHeldOut(m, *test)
		if err != nil {
			return nil, err
		}
		out.HeldOut = newAnnotationProductHeldOut(h)
	}
	return out, nil
}

// Funnel builds Neal's funnel: z ~ Normal(0, 3); x ~ Normal(0, exp(z/2)).
// It declares one group move, "funnel(z, x)": z shifted at rate 2 and x dilated
// about 0 at rate 1, so that x/e^{z/2} is unchanged along the orbit and the move
// walks up and down the neck. Parameters: z, x.
func Funnel() (*Built, error) {
	b := graph.New()
	z := b.Latent("z", graph.Normal(graph.C(0), graph.C(3)))
	x := b.Latent("x", graph.Normal(graph.C(0), graph.Exp(graph.Mul(z, graph.C(0.5)))))
	b.Group("funnel(z, x)", graph.Shift(z, 2), graph.Dilate(x, 1))
	m, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("models: funnel: %w", err)
	}
	return &Built{Name: "funnel", Model: m, Graph: m}, nil
}

// EightSchoolsData is Rubin's eight schools: estimated effects and their standard errors.
var EightSchoolsData = struct{ Y, Sigma []float64 }{
	Y:     []float64{28, 8, -3, 7, -1, 1, 18, 12},
	Sigma: []float64{15, 10, 16, 11, 9, 11, 10, 18},
}

// EightSchools builds the hierarchical eight-schools model:
//
//	mu ~ Normal(0, 5); tau ~ HalfCauchy(5); theta_j ~ Normal(mu, tau); y_j ~ Normal(theta_j, sigma_j)
//
// centred, or non-centred (theta_raw_j ~ Normal(0, 1), theta = mu + tau·theta_raw,
// recorded with every draw). Parameters: mu, tau, theta[j] (and theta_raw[j]).
//
// The centred model declares two group moves: "scale(theta, tau)", every theta_j
// dilated about mu and tau dilated about 0, rate 1 each, which keeps
// (theta_j − mu)/tau fixed and so moves along the funnel between tau and the
// thetas; and "shift(mu, theta)", mu and every theta_j shifted together, which
// moves the common level that single-site steps on mu (pinned by the thetas) and
// on the thetas (pinned by mu at small tau) cannot (mu's bulk ESS of 4 × 1000
// draws, seeds 1–3: about 300–370 without it, 3,700–3,800 with it). The
// non-centred model declares none: its reparameterisation is the other cure for
// the same funnel, and it stays as it was for comparison.
func EightSchools(y, sigma []float64, noncentred bool) (*Built, error) {
	if len(y) == 0 || len(y) != len(sigma) {
		return nil, fmt.Errorf("models: eight_schools: %d effects and %d standard errors", len(y), len(sigma))
	}
	for j, s := range sigma {
		if !(s > 0) || !finite(s) {
			return nil, fmt.Errorf("models: eight_schools: sigma[%d] = %v, want a finite value > 0", j, s)
		}
	}
	b := graph.New()
	mu := b.Latent("mu", graph.Normal(graph.C(0), graph.C(5)))
	tau := b.Latent("tau", graph.HalfCauchy(graph.C(5)))
	var theta *graph.Node
	if noncentred {
		raw := b.Latent("theta_raw", graph.Normal(graph.C(0), graph.C(1)), len(y))
		theta = graph.Add(mu, graph.Mul(tau, raw))
		b.Deterministic("theta", theta)
	} else {
		theta = b.Latent("theta", graph.Normal(mu, tau), len(y))
		b.Group("scale(theta, tau)", graph.DilateAbout(theta, mu, 1), graph.Dilate(tau, 1))
		b.Group("shift(mu, theta)", graph.Shift(mu, 1), graph.Shift(theta, 1))
	}
	b.Observe("y", graph.Normal(theta, graph.Data(sigma)), y)
	m, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("models: eight_schools: %w", err)
	}
	return &Built{Name: "eight_schools", Model: m, Graph: m}, nil
}

// NormalKnownSigma builds mu ~ Normal(mu0, tau0); y_i ~ Normal(mu, sigma). Parameter: mu.
func NormalKnownSigma(y []float64, mu0, tau0, sigma float64) (*Built, error) {
	b := graph.New()
	mu := b.Latent("mu", graph.Normal(graph.C(mu0), graph.C(tau0)))
	b.Observe("y", graph.Normal(mu, graph.C(sigma)), y)
	return build("normal_known_sigma", b)
}

// GammaPoisson builds lambda ~ Gamma(a, rate b); y_i ~ Poisson(lambda). Parameter: lambda.
func GammaPoisson(y []int, a, rate float64) (*Built, error) {
	b := graph.New()
	lambda := b.Latent("lambda", graph.Gamma(graph.C(a), graph.C(rate)))
	b.ObserveInts("y", graph.Poisson(lambda), y)
	return build("gamma_poisson", b)
}

// BetaBinomial builds p ~ Beta(a, b); s_j ~ Binomial(trials_j, p). Parameter: p.
func BetaBinomial(trials, successes []int, a, bb float64) (*Built, error) {
	if len(trials) != len(successes) {
		return nil, fmt.Errorf("models: beta_binomial: %d trials and %d successes", len(trials), len(successes))
	}
	b := graph.New()
	p := b.Latent("p", graph.Beta(graph.C(a), graph.C(bb)))
	b.ObserveInts("s", graph.Binomial(graph.Ints(trials), p), successes)
	return build("beta_binomial", b)
}

// DirichletCategorical builds p ~ Dirichlet(alpha); y_i ~ Categorical(p) (y 0-based).
// Parameters: p[k].
func DirichletCategorical(y []int, alpha []float64) (*Built, error) {
	b := graph.New()
	p := b.Latent("p", graph.Dirichlet(graph.Vec(alpha...)))
	b.ObserveInts("y", graph.Categorical(p), y)
	return build("dirichlet_categorical", b)
}

// GammaNormalPrecision builds tau ~ Gamma(a, rate b); y_i ~ Normal(mu, 1/√tau) with
// mu known. Parameter: tau.
func GammaNormalPrecision(y []float64, mu, a, rate float64) (*Built, error) {
	b := graph.New()
	tau := b.Latent("tau", graph.Gamma(graph.C(a), graph.C(rate)))
	b.Observe("y", graph.Normal(graph.C(mu), graph.Pow(tau, -0.5)), y)
	return build("gamma_normal", b)
}

// MVNNormal builds mu ~ MVN(mu0, sigma0); y_i ~ MVN(mu, sigma) for the rows of y.
// Parameters: mu[k].
func MVNNormal(y mat.Matrix, mu0 []float64, sigma0, sigma *mat.SymDense) (*Built, error) {
	if y == nil {
		return nil, fmt.Errorf("models: mvn_normal: nil data")
	}
	r, c := y.Dims()
	flat := make([]float64, 0, r*c)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			flat = append(flat, y.At(i, j))
		}
	}
	b := graph.New()
	mu := b.Latent("mu", graph.MultivariateNormal(graph.Vec(mu0...), sigma0))
	b.Observe("y", graph.MultivariateNormal(mu, sigma), flat)
	return build("mvn_normal", b)
}

func build(name string, b *graph.Builder) (*Built, error) {
	m, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("models: %s: %w", name, err)
	}
	return &Built{Name: name, Model: m, Graph: m}, nil
}
