package models

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc"
)

// momentTarget is the exact posterior mean and sd of one scalar parameter.
type momentTarget struct {
	param    string
	mean, sd float64
}

// conjugateCase is a conjugate model built through the graph with the exact posterior
// moments of its parameters.
type conjugateCase struct {
	label   string
	built   *Built
	targets []momentTarget
}

// targetsOf lists the exact mean and sd of every scalar parameter of p.
func targetsOf(t *testing.T, p *Posterior) []momentTarget {
	t.Helper()
	var out []momentTarget
	for _, name := range p.Names {
		mean, err1 := p.Mean(name)
		sd, err2 := p.SD(name)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s posterior %s: %v %v", p.Family, name, err1, err2)
		}
		out = append(out, momentTarget{name, mean, sd})
	}
	return out
}

// sharedConjugateCases builds the four conjugate models on the shared data files, with
// the exact moments read from exact_posterior.csv (computed by the peer systems'
// scripts, not by this package).
func sharedConjugateCases(t *testing.T) []conjugateCase {
	t.Helper()
	dir := func(f string) string { return testData(t, "conjugate", f) }
	hyper, err := ReadHyperparameters(dir("hyperparameters.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := ReadExactPosterior(dir("exact_posterior.csv"))
	if err != nil {
		t.Fatal(err)
	}
	exact := map[string][]momentTarget{}
	for _, r := range rows {
		exact[r.Model] = append(exact[r.Model], momentTarget{r.Parameter, r.Mean, r.SD})
	}
	var cases []conjugateCase
	add := func(model string, b *Built, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		if len(exact[model]) == 0 {
			t.Fatalf("exact_posterior.csv has no rows for %s", model)
		}
		cases = append(cases, conjugateCase{"testdata/" + model, b, exact[model]})
	}
	{
		h := hyper["normal_known_sigma"]
		y, err := ReadNormalData(dir("normal_known_sigma.csv"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := NormalKnownSigma(y, h["mu0"], h["tau0"], h["sigma"])
		add("normal_known_sigma", b, err)
	}
	{
		h := hyper["gamma_poisson"]
		y, err := ReadCountData(dir("gamma_poisson.csv"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := GammaPoisson(y, h["a"], h["b"])
		add("gamma_poisson", b, err)
	}
	{
		alpha, err := HyperVector(hyper["dirichlet_categorical"], "alpha")
		if err != nil {
			t.Fatal(err)
		}
		y, err := ReadCategoricalData(dir("dirichlet_categorical.csv"), len(alpha))
		if err != nil {
			t.Fatal(err)
		}
		b, err := DirichletCategorical(y, alpha)
		add("dirichlet_categorical", b, err)
	}
	{
		h := hyper["beta_binomial"]
		trials, succ, err := ReadBinomialData(dir("beta_binomial.csv"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := BetaBinomial(trials, succ, h["a"], h["b"])
		add("beta_binomial", b, err)
	}
	return cases
}

// generatedConjugateCases builds all six conjugate models on data drawn by the
// package's generators (fixed seed), with the exact moments from the closed forms.
func generatedConjugateCases(t *testing.T) []conjugateCase {
	t.Helper()
	rng := rand.New(rand.NewPCG(20260322, 1))
	var cases []conjugateCase
	add := func(b *Built, err error, p *Posterior, perr error) {
		t.Helper()
		if err != nil || perr != nil {
			t.Fatalf("build: %v; posterior: %v", err, perr)
		}
		cases = append(cases, conjugateCase{"generated/" + b.Name, b, targetsOf(t, p)})
	}
	{
		y, _, err := GenerateNormalKnownSigma(rng, 30, 1, 3, 1.5)
		if err != nil {
			t.Fatal(err)
		}
		b, err := NormalKnownSigma(y, 1, 3, 1.5)
		p, perr := NormalKnownSigmaPosterior(y, 1, 3, 1.5)
		add(b, err, p, perr)
	}
	{
		y, _, err := GenerateGammaPoisson(rng, 25, 3, 0.7)
		if err != nil {
			t.Fatal(err)
		}
		b, err := GammaPoisson(y, 3, 0.7)
		p, perr := GammaPoissonPosterior(y, 3, 0.7)
		add(b, err, p, perr)
	}
	{
		trials := []int{4, 9, 1, 15, 7, 12}
		succ, _, err := GenerateBetaBinomial(rng, trials, 1.5, 2.5)
		if err != nil {
			t.Fatal(err)
		}
		b, err := BetaBinomial(trials, succ, 1.5, 2.5)
		p, perr := BetaBinomialPosterior(trials, succ, 1.5, 2.5)
		add(b, err, p, perr)
	}
	{
		alpha := []float64{0.5, 1, 2}
		y, _, err := GenerateDirichletCategorical(rng, 60, alpha)
		if err != nil {
			t.Fatal(err)
		}
		b, err := DirichletCategorical(y, alpha)
		p, perr := DirichletCategoricalPosterior(y, alpha)
		add(b, err, p, perr)
	}
	{
		y, _, err := GenerateGammaNormalPrecision(rng, 40, -2, 3, 2)
		if err != nil {
			t.Fatal(err)
		}
		b, err := GammaNormalPrecision(y, -2, 3, 2)
		p, perr := GammaNormalPrecisionPosterior(y, -2, 3, 2)
		add(b, err, p, perr)
	}
	{
		mu0 := []float64{1, -1, 0.5}
		sigma0 := mat.NewSymDense(3, []float64{4, 1, 0.5, 1, 2, -0.3, 0.5, -0.3, 1})
		sigma := mat.NewSymDense(3, []float64{1, 0.6, 0, 0.6, 2, 0.4, 0, 0.4, 1.5})
		y, _, err := GenerateMVNNormal(rng, 20, mu0, sigma0, sigma)
		if err != nil {
			t.Fatal(err)
		}
		b, err := MVNNormal(y, mu0, sigma0, sigma)
		p, perr := MVNNormalPosterior(y, mu0, sigma0, sigma)
		add(b, err, p, perr)
	}
	return cases
}

// TestSampleConjugate samples every conjugate model, on the shared data files and on
// generated data, with the paper's exact Newton step (γ = 1) and checks:
//
//   - the posterior mean and sd of every scalar parameter against the closed form,
//     |mean − exact|/MCSE_mean < z and |sd − exact_sd|/MCSE_sd < z, where z is the
//     two-sided normal critical value of a Šidák-corrected family-wise α = 0.01 over
//     all those checks;
//   - exact one-step recovery: the proposal of each site is its exact conditional
//     posterior, so every proposal is accepted (Accepted == Proposals for every site
//     and chain).
func TestSampleConjugate(t *testing.T) {
	t.Parallel()
	cases := append(sharedConjugateCases(t), generatedConjugateCases(t)...)
	n := 0
	for _, c := range cases {
		n += 2 * len(c.targets)
	}
	z := sidakZ(0.01, n)
	t.Logf("%d models, %d checks, z = %.3f", len(cases), n, z)
	for i, c := range cases {
		res := sample(t, c.built, &nmc.Options{Chains: 4, Draws: 1000, Warmup: 50, Seed: uint64(100 + i)})
		for _, s := range res.Sites {
			if s.Proposals == 0 || s.Accepted != s.Proposals {
				t.Errorf("%s: site %s accepted %d of %d proposals, want all (exact conditional proposal)",
					c.label, s.Name, s.Accepted, s.Proposals)
			}
			if s.Fallbacks != 0 {
				t.Errorf("%s: site %s used %d fallback proposals, want 0", c.label, s.Name, s.Fallbacks)
			}
		}
		for _, tg := range c.targets {
			name := fmt.Sprintf("%s %s", c.label, tg.param)
			m := estimate(t, name, paramDraws(t, res.Draws, tg.param))
			checkZ(t, name+" mean", m.mean, tg.mean, m.mcseMean, z)
			checkZ(t, name+" sd", m.sd, tg.sd, m.mcseSD, z)
		}
	}
}
