package models

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/internal/special"
	"gonum.org/v1/gonum/stat/distuv"
)

// linearEta returns α + X_i·β for every row of d.
func linearEta(d RegressionData, truth LinearTruth) []float64 {
	n, k := d.Dims()
	eta := make([]float64, n)
	for i := range eta {
		s := truth.Alpha
		for j := 0; j < k; j++ {
			s += d.X.At(i, j) * truth.Beta[j]
		}
		eta[i] = s
	}
	return eta
}

// designValues returns every entry of the train and test design matrices.
func designValues(ds ...RegressionData) []float64 {
	var xs []float64
	for _, d := range ds {
		xs = append(xs, d.X.RawMatrix().Data...)
	}
	return xs
}

func TestGenerateLogistic(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 1))
	var xs []float64
	var sumDiff, sumVar float64
	for rep := 0; rep < 5; rep++ {
		train, test, truth, err := GenerateLogistic(rng, 2000, 8)
		if err != nil {
			t.Fatal(err)
		}
		if n, k := train.Dims(); n != 1000 || k != 8 {
			t.Fatalf("train is %d×%d, want 1000×8", n, k)
		}
		if n, _ := test.Dims(); n != 1000 || len(test.Y) != 1000 {
			t.Fatalf("test has %d rows, want 1000", n)
		}
		if len(truth.Beta) != 8 || truth.Nu != 0 || truth.Sigma != 0 {
			t.Fatalf("truth %+v", truth)
		}
		for _, d := range []RegressionData{train, test} {
			if err := d.Validate(true); err != nil {
				t.Fatal(err)
			}
			// y_i ~ Bernoulli(p_i): Σ(y − p) has variance Σ p(1 − p).
			for i, eta := range linearEta(d, truth) {
				p := special.Logistic(eta)
				sumDiff += d.Y[i] - p
				sumVar += p * (1 - p)
			}
		}
		xs = append(xs, designValues(train, test)...)
	}
	checkSum(t, "logistic y given η", sumDiff, sumVar)
	checkMean(t, "X entries", xs, 0, RegressionXSD)
	checkVar(t, "X entries", xs, 0, RegressionXSD*RegressionXSD)

	// An odd n gives the extra row to test.
	train, test, _, err := GenerateLogistic(rng, 5, 1)
	if err != nil || len(train.Y) != 2 || len(test.Y) != 3 {
		t.Errorf("n = 5: train %d rows, test %d, err %v; want 2, 3", len(train.Y), len(test.Y), err)
	}
}

func TestGenerateRobust(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(12, 1))
	var us, xs []float64
	for rep := 0; rep < 6; rep++ {
		train, test, truth, err := GenerateRobust(rng, 1000, 5)
		if err != nil {
			t.Fatal(err)
		}
		if !(truth.Nu > 0) || !(truth.Sigma > 0) {
			t.Fatalf("truth nu = %v, sigma = %v", truth.Nu, truth.Sigma)
		}
		for _, d := range []RegressionData{train, test} {
			if err := d.Validate(false); err != nil {
				t.Fatal(err)
			}
			// Probability integral transform through the generating Student-t: uniform.
			for i, eta := range linearEta(d, truth) {
				us = append(us, distuv.StudentsT{Mu: eta, Sigma: truth.Sigma, Nu: truth.Nu}.CDF(d.Y[i]))
			}
		}
		xs = append(xs, designValues(train, test)...)
	}
	checkUniform(t, "robust y given η, ν, σ", us)
	checkMean(t, "X entries", xs, 0, RegressionXSD)
	checkVar(t, "X entries", xs, 0, RegressionXSD*RegressionXSD)
}

// TestRegressionPriors draws many tiny data sets and checks the parameters' priors:
// α ~ N(0, 10), β_k ~ N(0, 2.5), ν ~ Gamma(2, rate 0.1) (mean 20, variance 200),
// σ ~ Exponential(rate 0.1) (mean 10, variance 100).
func TestRegressionPriors(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 1))
	const reps = 4000
	var alphas, betas, nus, sigmas []float64
	for rep := 0; rep < reps; rep++ {
		gen := GenerateLogistic
		if rep%2 == 1 {
			gen = GenerateRobust
		}
		_, _, truth, err := gen(rng, 2, 2)
		if err != nil {
			t.Fatal(err)
		}
		alphas = append(alphas, truth.Alpha)
		betas = append(betas, truth.Beta...)
		if rep%2 == 1 {
			nus = append(nus, truth.Nu)
			sigmas = append(sigmas, truth.Sigma)
		}
	}
	checkMean(t, "alpha", alphas, 0, RegressionAlphaSD)
	checkVar(t, "alpha", alphas, 0, RegressionAlphaSD*RegressionAlphaSD)
	checkMean(t, "beta", betas, 0, RegressionBetaSD)
	checkVar(t, "beta", betas, 0, RegressionBetaSD*RegressionBetaSD)
	checkMean(t, "nu", nus, 20, math.Sqrt(200))
	checkVar(t, "nu", nus, 20, 200)
	checkMean(t, "sigma", sigmas, 10, 10)
	checkVar(t, "sigma", sigmas, 10, 100)
}

func TestGenerateRegressionErrors(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct {
		rng  *rand.Rand
		n, k int
		want string
	}{
		{nil, 10, 2, "nil random generator"},
		{rng, 1, 2, "n = 1 rows"},
		{rng, 10, 0, "k = 0 predictors"},
	} {
		_, _, _, err1 := GenerateLogistic(c.rng, c.n, c.k)
		_, _, _, err2 := GenerateRobust(c.rng, c.n, c.k)
		for _, err := range []error{err1, err2} {
			if err == nil || !strings.HasPrefix(err.Error(), "models: ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("n = %d, k = %d: error %v, want %q", c.n, c.k, err, c.want)
			}
		}
	}
}
