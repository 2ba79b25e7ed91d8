package models

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The conjugate generators are checked over many replications: the parameter's draws
// follow the prior, and the data given the parameter follow the likelihood.

func TestGenerateNormalKnownSigma(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 1))
	var mus, resid []float64
	for range 2000 {
		y, mu, err := GenerateNormalKnownSigma(rng, 5, 1, 10, 2)
		if err != nil {
			t.Fatal(err)
		}
		mus = append(mus, mu)
		for _, v := range y {
			resid = append(resid, v-mu)
		}
	}
	checkMean(t, "mu", mus, 1, 10)
	checkVar(t, "mu", mus, 1, 100)
	checkMean(t, "y − mu", resid, 0, 2)
	checkVar(t, "y − mu", resid, 0, 4)
}

func TestGenerateGammaPoisson(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(32, 1))
	var lambdas []float64
	var diff, vari float64
	for range 2000 {
		y, lambda, err := GenerateGammaPoisson(rng, 5, 2, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		lambdas = append(lambdas, lambda)
		for _, v := range y {
			diff += float64(v) - lambda
			vari += lambda
		}
	}
	// Gamma(2, rate 0.5): mean 4, variance 8.
	checkMean(t, "lambda", lambdas, 4, math.Sqrt(8))
	checkVar(t, "lambda", lambdas, 4, 8)
	checkSum(t, "y given lambda", diff, vari)
}

func TestGenerateDirichletCategorical(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(33, 1))
	alpha := []float64{1, 2, 3, 4}
	ps := make([][]float64, 4)
	diff, vari := make([]float64, 4), make([]float64, 4)
	for range 2000 {
		y, p, err := GenerateDirichletCategorical(rng, 10, alpha)
		if err != nil {
			t.Fatal(err)
		}
		for k := range p {
			ps[k] = append(ps[k], p[k])
		}
		for _, v := range y {
			for k := range p {
				diff[k] += b2f(v == k) - p[k]
				vari[k] += p[k] * (1 - p[k])
			}
		}
	}
	for k, a := range alpha {
		// Dirichlet component k: mean a/10, variance a(10 − a)/(10²·11).
		checkMean(t, "p component", ps[k], a/10, math.Sqrt(a*(10-a)/1100))
		checkSum(t, "y given p", diff[k], vari[k])
	}
}

func TestGenerateBetaBinomial(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(34, 1))
	trials := []int{20, 5, 0, 13}
	var ps []float64
	var diff, vari float64
	for range 2000 {
		s, p, err := GenerateBetaBinomial(rng, trials, 2, 3)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
		for j, n := range trials {
			if s[j] < 0 || s[j] > n {
				t.Fatalf("%d successes in %d trials", s[j], n)
			}
			diff += float64(s[j]) - float64(n)*p
			vari += float64(n) * p * (1 - p)
		}
	}
	// Beta(2, 3): mean 0.4, variance 2·3/(5²·6) = 0.04.
	checkMean(t, "p", ps, 0.4, 0.2)
	checkVar(t, "p", ps, 0.4, 0.04)
	checkSum(t, "successes given p", diff, vari)
}

func TestGenerateGammaNormalPrecision(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(35, 1))
	var taus, std []float64
	for range 2000 {
		y, tau, err := GenerateGammaNormalPrecision(rng, 5, -1, 3, 2)
		if err != nil {
			t.Fatal(err)
		}
		taus = append(taus, tau)
		for _, v := range y {
			std = append(std, (v+1)*math.Sqrt(tau))
		}
	}
	// Gamma(3, rate 2): mean 1.5, variance 0.75; (y − mu)√τ ~ N(0, 1).
	checkMean(t, "tau", taus, 1.5, math.Sqrt(0.75))
	checkVar(t, "tau", taus, 1.5, 0.75)
	checkMean(t, "(y − mu)√τ", std, 0, 1)
	checkVar(t, "(y − mu)√τ", std, 0, 1)
}

func TestGenerateMVNNormal(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(36, 1))
	mu0 := []float64{1, -2}
	s0 := mat.NewSymDense(2, []float64{4, 1.2, 1.2, 1})
	s := mat.NewSymDense(2, []float64{1, -0.6, -0.6, 2})
	var m0, m1, m01, r0, r1, r01 []float64
	for range 2000 {
		y, mu, err := GenerateMVNNormal(rng, 4, mu0, s0, s)
		if err != nil {
			t.Fatal(err)
		}
		d0, d1 := mu[0]-mu0[0], mu[1]-mu0[1]
		m0, m1, m01 = append(m0, d0), append(m1, d1), append(m01, d0*d1)
		for i := 0; i < 4; i++ {
			e0, e1 := y.At(i, 0)-mu[0], y.At(i, 1)-mu[1]
			r0, r1, r01 = append(r0, e0), append(r1, e1), append(r01, e0*e1)
		}
	}
	checkMean(t, "mu[0] − mu0[0]", m0, 0, 2)
	checkMean(t, "mu[1] − mu0[1]", m1, 0, 1)
	checkVar(t, "mu[0]", m0, 0, 4)
	checkMean(t, "prior cross product", m01, 1.2, 0)
	checkMean(t, "y[0] − mu[0]", r0, 0, 1)
	checkVar(t, "y[1] − mu[1]", r1, 0, 2)
	checkMean(t, "likelihood cross product", r01, -0.6, 0)

	bad := mat.NewSymDense(2, []float64{1, 2, 2, 1})
	if _, _, err := GenerateMVNNormal(rng, 4, mu0, bad, s); err == nil || !strings.Contains(err.Error(), "sigma0 is not positive definite") {
		t.Errorf("indefinite sigma0: error %v", err)
	}
	if _, _, err := GenerateMVNNormal(rng, 4, []float64{1}, s0, s); err == nil || !strings.Contains(err.Error(), "sigma0 is 2×2, want 1×1") {
		t.Errorf("size mismatch: error %v", err)
	}
}

func TestGenerateConjugateErrors(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"nil rng", third(GenerateNormalKnownSigma(nil, 3, 0, 1, 1)), "nil random generator"},
		{"negative n", third(GenerateGammaPoisson(rng, -1, 1, 1)), "n = -1"},
		{"scale", third(GenerateNormalKnownSigma(rng, 3, 0, 0, 1)), "tau0 = 0"},
		{"alpha", third(GenerateDirichletCategorical(rng, 3, []float64{1, -1})), "alpha[1] = -1"},
		{"one category", third(GenerateDirichletCategorical(rng, 3, []float64{1})), "1 categories"},
		{"trials", third(GenerateBetaBinomial(rng, []int{3, -1}, 1, 1)), "trials[1] = -1"},
		{"precision", third(GenerateGammaNormalPrecision(rng, 3, math.Inf(1), 1, 1)), "mu = +Inf"},
	}
	for _, c := range cases {
		if c.err == nil || !strings.HasPrefix(c.err.Error(), "models: ") || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, c.err, c.want)
		}
	}
}

// third returns the error of a (value, value, error) triple.
func third[A, B any](_ A, _ B, err error) error { return err }
