package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/nmc-go/nmc/internal/special"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/sbc"
)

// Default sizes of the regression simulators of simulation-based calibration: small
// data sets, so that a few hundred simulations take seconds, with a moderate design
// scale. The paper's X ~ N(0, 10²) makes most logistic data sets separable, whose
// posteriors are a matter of the prior's tails; X ~ N(0, 1) keeps the likelihood
// informative.
const (
	// SimulatorRegressionN and SimulatorRegressionK are the rows and predictors of
	// the blr and robust simulators when their sizes are 0.
	SimulatorRegressionN, SimulatorRegressionK = 100, 2
	// SimulatorXSD is the standard deviation of the design entries, X_ik ~ N(0, 1).
	SimulatorXSD = 1.0
)

// Default sizes of the annotation simulator: a small Dawid-Skene data set (each
// labeler labels about 25 items, so the labels inform θ), cheap enough for a few
// hundred simulations in seconds.
const (
	// SimulatorAnnotationItems and SimulatorAnnotationLabelers are the items and
	// labelers of the annotation simulator when its sizes are 0.
	SimulatorAnnotationItems, SimulatorAnnotationLabelers = 40, 4
	// SimulatorAnnotationClasses is the number of classes of the annotation
	// simulator.
	SimulatorAnnotationClasses = 3
	// SimulatorAnnotationJLoc is the Poisson mean of the number of labels per item
	// (clipped to 1 … labelers), as in the paper's generator.
	SimulatorAnnotationJLoc = 2.5
)

// simulatorModels lists the registry models that have a simulator, in Names order.
var simulatorModels = []string{"funnel", "blr", "robust", "annotation", "normal_known_sigma", "gamma_poisson", "beta_binomial", "dirichlet_categorical"}

// SimulatorNames returns the registry models that Simulator knows. The slice is a
// new copy.
func SimulatorNames() []string { return append([]string(nil), simulatorModels...) }

// Simulator returns the simulation-based calibration simulator of the registry model
// called name (see package sbc): each call draws the parameters from the model's
// prior, data from its likelihood, and returns the model built on those data (as
// Dataset.Build builds it, group moves included) with the drawn parameters as the
// truth.
//
//   - normal_known_sigma, gamma_poisson, beta_binomial, dirichlet_categorical: the
//     registry's hyperparameters (ConjugateHyperparameters) and the generators of
//     Generate; n observations (groups for beta_binomial, of k trials each); 0 means
//     the registry's default size (Spec.DefaultN, DefaultK). dirichlet_categorical
//     has 4 categories: k must be 0 or 4.
//   - blr and robust: the paper's priors (α ~ N(0, 10), β_k ~ N(0, 2.5); for robust
//     also ν ~ Gamma(2, rate 0.1), σ ~ Exponential(rate 0.1)), n rows and k
//     predictors with X_ik ~ N(0, SimulatorXSD²), no held-out data; 0 means
//     SimulatorRegressionN and SimulatorRegressionK.
//   - annotation: the Dawid-Skene model with its classes z summed out
//     (AnnotationPrior.ExplicitClasses false) and the paper's prior, n items and k
//     labelers (AnnotationSimulator(n, k, true); 0 means SimulatorAnnotationItems and
//     SimulatorAnnotationLabelers). The truth holds every pi[m], theta[l,m,n] and
//     z[i].
//   - funnel: no data (n and k must be 0): z ~ N(0, 3), x ~ N(0, e^{z/2}), and the
//     funnel itself is the posterior; the check is then that the sampler draws the
//     prior.
//
// It returns an error for a model without a simulator (eight_schools),
// an unknown model and sizes out of range.
func Simulator(name string, n, k int) (sbc.Simulator, error) {
	spec, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	sizeErr := func(size string, v int, format string, args ...any) error {
		return &SizeError{Model: name, Size: size, Value: v, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case n < 0:
		return nil, sizeErr("n", n, "want a positive size")
	case k < 0:
		return nil, sizeErr("k", k, "want a positive size")
	}
	if spec.Conjugate {
		if n == 0 {
			n = spec.DefaultN
		}
		if k == 0 {
			k = spec.DefaultK
		}
		if spec.DefaultK == 0 && k != 0 {
			return nil, sizeErr("k", k, "model %s has no second size", name)
		}
	}
	switch name {
	case "normal_known_sigma":
		return func(rng *rand.Rand) (nmc.Model, map[string]float64, error) {
			y, mu, err := GenerateNormalKnownSigma(rng, n, NormalKnownSigmaMu0, NormalKnownSigmaTau0, NormalKnownSigmaSigma)
			if err != nil {
				return nil, nil, err
			}
			b, err := NormalKnownSigma(y, NormalKnownSigmaMu0, NormalKnownSigmaTau0, NormalKnownSigmaSigma)
			return built(b, err, map[string]float64{"mu": mu})
		}, nil
	case "gamma_poisson":
		return func(rng *rand.Rand) (nmc.Model, map[string]float64, error) {
			y, lambda, err := GenerateGammaPoisson(rng, n, GammaPoissonA, GammaPoissonB)
			if err != nil {
				return nil, nil, err
			}
			b, err := GammaPoisson(y, GammaPoissonA, GammaPoissonB)
			return built(b, err, map[string]float64{"lambda": lambda})
		}, nil
	case "beta_binomial":
		trials := make([]int, n)
		for j := range trials {
			trials[j] = k
		}
		return func(rng *rand.Rand) (nmc.Model, map[string]float64, error) {
			s, p, err := GenerateBetaBinomial(rng, trials, BetaBinomialA, BetaBinomialB)
			if err != nil {
				return nil, nil, err
			}
			b, err := BetaBinomial(trials, s, BetaBinomialA, BetaBinomialB)
			return built(b, err, map[string]float64{"p": p})
		}, nil
	case "dirichlet_categorical":
		alpha := DirichletCategoricalAlpha()
		if k != len(alpha) {
			return nil, sizeErr("k", k, "dirichlet_categorical has %d categories (prior Dirichlet(1, 2, 3, 4))", len(alpha))
		}
		return func(rng *rand.Rand) (nmc.Model, map[string]float64, error) {
			y, p, err := GenerateDirichletCategorical(rng, n, alpha)
			if err != nil {
				return nil, nil, err
			}
			truth := make(map[string]float64, len(p))
			for i, v := range p {
				truth["p["+strconv.Itoa(i)+"]"] = v
			}
			b, err := DirichletCategorical(y, alpha)
			return built(b, err, truth)
		}, nil
	case "blr", "robust":
		if n == 0 {
			n = SimulatorRegressionN
		}
		if k == 0 {
			k = SimulatorRegressionK
		}
		if n < 1 {
			return nil, sizeErr("n", n, "want at least 1 row")
		}
		robust := name == "robust"
		return func(rng *rand.Rand) (nmc.Model, map[string]float64, error) {
			data, truth := simulateRegression(rng, n, k, SimulatorXSD, robust)
			var b *Built
			var err error
			if robust {
				b, err = Robust(data, nil, nil)
			} else {
				b, err = Logistic(data, nil, nil)
			}
			return built(b, err, truth)
		}, nil
	case "annotation":
		return AnnotationSimulator(n, k, true)
	case "funnel":
		if n != 0 || k != 0 {
			return nil, sizeErr("n", n, "model funnel has no data")
		}
		b, err := Funnel()
		if err != nil {
			return nil, err
		}
		return func(rng *rand.Rand) (nmc.Model, map[string]float64, error) {
			z := 3 * rng.NormFloat64()
			x := math.Exp(z/2) * rng.NormFloat64()
			return b.Model, map[string]float64{"z": z, "x": x}, nil
		}, nil
	}
	return nil, fmt.Errorf("models: model %s has no simulator for simulation-based calibration (models with one: %s)", name, strings.Join(simulatorModels, ", "))
}

// built returns the model of b and truth, or err.
func built(b *Built, err error, truth map[string]float64) (nmc.Model, map[string]float64, error) {
	if err != nil {
		return nil, nil, err
	}
	return b.Model, truth, nil
}

// AnnotationSimulator returns the simulation-based calibration simulator of a small
// Dawid-Skene model (Simulator "annotation" is AnnotationSimulator(n, k, true)). Each
// call draws π ~ Dirichlet(1/C, …), θ[l][m] ~ Dirichlet(α_m) with the paper's γ = 10
// and ρ = 0.5, then n items with z_i ~ Categorical(π), each labelled by a
// Poisson(SimulatorAnnotationJLoc) number of its k labelers (clipped to 1 … k, drawn
// without replacement) with y ~ Categorical(θ[l][z_i]) — GenerateAnnotation's process,
// the model's own prior predictive — and returns the model built on the labels alone
// with the same prior, the classes summed out when marginalise is set
// (AnnotationPrior.ExplicitClasses false) and explicit otherwise. The truth holds every
// pi[m], theta[l,m,n] and z[i]; in both forms z is a draw column (with marginalise it
// is drawn after each sweep from its exact conditional), and package sbc breaks its
// ties at random. SimulatorAnnotationClasses classes; n and k of 0 mean
// SimulatorAnnotationItems and SimulatorAnnotationLabelers. It returns a *SizeError
// for a negative size.
func AnnotationSimulator(n, k int, marginalise bool) (sbc.Simulator, error) {
	switch {
	case n < 0:
		return nil, &SizeError{Model: "annotation", Size: "n", Value: n, Reason: "want a positive number of items"}
	case k < 0:
		return nil, &SizeError{Model: "annotation", Size: "k", Value: k, Reason: "want a positive number of labelers"}
	}
	if n == 0 {
		n = SimulatorAnnotationItems
	}
	if k == 0 {
		k = SimulatorAnnotationLabelers
	}
	// GenerateAnnotation splits its N items into train and test halves: draw 2n and
	// keep the n train items.
	cfg := AnnotationConfig{N: 2 * n, Labelers: k, Classes: SimulatorAnnotationClasses, JLoc: SimulatorAnnotationJLoc, Gamma: 10, Rho: 0.5}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	prior := &AnnotationPrior{Gamma: cfg.Gamma, Rho: cfg.Rho, ExplicitClasses: !marginalise}
	return func(rng *rand.Rand) (nmc.Model, map[string]float64, error) {
		train, _, gen, err := GenerateAnnotation(rng, cfg)
		if err != nil {
			return nil, nil, err
		}
		names, values := gen.Named()
		truth := make(map[string]float64, len(names)+len(train.Z))
		for j, name := range names {
			truth[name] = values[j]
		}
		for i, z := range train.Z {
			truth["z["+strconv.Itoa(i)+"]"] = float64(z)
		}
		train.Z = nil // the classes are latent: the model sees the labels only
		b, err := Annotation(train, nil, prior)
		return built(b, err, truth)
	}, nil
}

// simulateRegression draws a regression data set of n rows and k predictors from
// the paper's priors with X_ik ~ N(0, xsd²): α, β, then X row by row, then y
// (Bernoulli-logit, or Student-t with ν and σ drawn first when robust). It returns
// the data and the parameters by draw-column name.
func simulateRegression(rng *rand.Rand, n, k int, xsd float64, robust bool) (RegressionData, map[string]float64) {
	truth := make(map[string]float64, k+3)
	var nu, sigma float64
	if robust {
		nu = distuv.Gamma{Alpha: RobustNuShape, Beta: RobustNuRate, Src: rng}.Rand()
		sigma = rng.ExpFloat64() / RobustSigmaRate
		truth["nu"], truth["sigma"] = nu, sigma
	}
	alpha := RegressionAlphaSD * rng.NormFloat64()
	truth["alpha"] = alpha
	beta := make([]float64, k)
	for j := range beta {
		beta[j] = RegressionBetaSD * rng.NormFloat64()
		truth["beta["+strconv.Itoa(j)+"]"] = beta[j]
	}
	x := make([]float64, n*k)
	for i := range x {
		x[i] = xsd * rng.NormFloat64()
	}
	y := make([]float64, n)
	t := distuv.StudentsT{Mu: 0, Sigma: sigma, Nu: nu, Src: rng}
	for i := range y {
		eta := alpha
		for j, b := range beta {
			eta += x[i*k+j] * b
		}
		switch {
		case robust:
			y[i] = eta + t.Rand()
		case rng.Float64() < special.Logistic(eta):
			y[i] = 1
		}
	}
	return RegressionData{X: mat.NewDense(n, k, x), Y: y}, truth
}
