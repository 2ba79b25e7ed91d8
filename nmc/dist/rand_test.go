package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/internal/special"
)

const (
	nDraws = 100000
	zMax   = 4.5 // two-sided p ≈ 7e-6 per check
)

// checkMoments compares the sample mean and variance of xs with the true mean and
// variance, in units of their Monte Carlo standard errors: √(σ²/n) for the mean and
// √((m₄ − s⁴)/n) for the variance, m₄ the sample fourth central moment. Pass
// variance = NaN to check the mean only.
func checkMoments(t *testing.T, name string, xs []float64, mean, variance float64) {
	t.Helper()
	n := float64(len(xs))
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= n
	var s2, m4 float64
	for _, x := range xs {
		d := x - m
		s2 += d * d
		m4 += d * d * d * d
	}
	s2 /= n - 1
	m4 /= n
	sd := math.Sqrt(variance)
	if math.IsNaN(variance) {
		sd = math.Sqrt(s2)
	}
	if z := math.Abs(m-mean) / (sd / math.Sqrt(n)); !(z < zMax) {
		t.Errorf("%s: sample mean %.6g, want %.6g (z = %.2f)", name, m, mean, z)
	}
	if math.IsNaN(variance) {
		return
	}
	se := math.Sqrt((m4 - s2*s2) / n)
	if z := math.Abs(s2-variance) / se; !(z < zMax) {
		t.Errorf("%s: sample variance %.6g, want %.6g (z = %.2f)", name, s2, variance, z)
	}
}

// checkCDF compares the fraction of xs at or below q with the probability F(q), in
// units of the binomial standard error.
func checkCDF(t *testing.T, name string, xs []float64, q, F float64) {
	t.Helper()
	var c float64
	for _, x := range xs {
		if x <= q {
			c++
		}
	}
	n := float64(len(xs))
	frac := c / n
	if z := math.Abs(frac-F) / math.Sqrt(F*(1-F)/n); !(z < zMax) {
		t.Errorf("%s: P(X ≤ %g) = %.5f, want %.5f (z = %.2f)", name, q, frac, F, z)
	}
}

func drawN(f Family, rng *rand.Rand, params []float64, k int) []float64 {
	xs := make([]float64, nDraws)
	var dst [1]float64
	for i := range xs {
		f.Rand(rng, params, k, dst[:])
		xs[i] = dst[0]
	}
	return xs
}

// TestRandMoments checks the mean and variance of 1e5 seeded draws of every scalar
// family against closed forms, and tail probabilities for the heavy-tailed ones.
func TestRandMoments(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2024, 7))
	nan := math.NaN()
	pi := math.Pi
	cases := []struct {
		f          Family
		k          int
		params     []float64
		mean, vari float64
	}{
		{Normal{}, 1, []float64{-0.2, 1.5}, -0.2, 2.25},
		{Normal{}, 1, []float64{1e3, 1e-3}, 1e3, 1e-6},
		{HalfNormal{}, 1, []float64{1.2}, 1.2 * math.Sqrt(2/pi), 1.44 * (1 - 2/pi)},
		{LogNormal{}, 1, []float64{0.3, 0.5}, math.Exp(0.3 + 0.125), (math.Exp(0.25) - 1) * math.Exp(0.6+0.25)},
		{StudentT{}, 1, []float64{9, 1, 2}, 1, 4 * 9.0 / 7},
		{StudentT{}, 1, []float64{3, -1, 0.5}, -1, 0.25 * 3}, // infinite 4th moment: mean only
		{Gamma{}, 1, []float64{2.5, 0.7}, 2.5 / 0.7, 2.5 / 0.49},
		{Gamma{}, 1, []float64{0.3, 2}, 0.15, 0.075},
		{Gamma{}, 1, []float64{1e-3, 1}, 1e-3, 1e-3},
		{InverseGamma{}, 1, []float64{6, 2}, 0.4, 0.04},
		{Exponential{}, 1, []float64{2}, 0.5, 0.25},
		{Beta{}, 1, []float64{2, 5}, 2.0 / 7, 10.0 / (49 * 8)},
		{Beta{}, 1, []float64{1e-3, 1e-3}, 0.5, 0.25 / 1.002},
		{Beta{}, 1, []float64{0.5, 3}, 0.5 / 3.5, 1.5 / (3.5 * 3.5 * 4.5)},
		{Uniform{}, 1, []float64{-1, 3}, 1, 16.0 / 12},
		{Bernoulli{}, 1, []float64{0.3}, 0.3, 0.21},
		{BernoulliLogit{}, 1, []float64{-1}, special.Logistic(-1), special.Logistic(-1) * special.Logistic(1)},
		{Binomial{}, 1, []float64{10, 0.4}, 4, 2.4},
		{Binomial{}, 1, []float64{1000, 0.3}, 300, 210},
		{Binomial{}, 1, []float64{1000, 0.999}, 999, 0.999},
		{BinomialLogit{}, 1, []float64{40, 0.5}, 40 * special.Logistic(0.5), 40 * special.Logistic(0.5) * special.Logistic(-0.5)},
		{Categorical{}, 4, []float64{0.1, 0.2, 0.3, 0.4}, 2, 1},
		{CategoricalLogits{}, 3, []float64{0, 0, math.Log(2)}, 1.25, 0.25*1 + 0.5*4 - 1.25*1.25},
		{Poisson{}, 1, []float64{2.5}, 2.5, 2.5},
		{Poisson{}, 1, []float64{1e3}, 1e3, 1e3},
		{PoissonLog{}, 1, []float64{-1}, math.Exp(-1), math.Exp(-1)},
	}
	for _, c := range cases {
		xs := drawN(c.f, rng, c.params, c.k)
		name := c.f.Name()
		v := c.vari
		if name == "StudentT" && c.params[0] <= 4 {
			v = nan
		}
		checkMoments(t, name, xs, c.mean, v)
	}

	// Heavy tails: the CDF at a few points. Cauchy: ½ + atan(z)/π; half-Cauchy:
	// (2/π)·atan(x/s); Student-t with ν = 2: ½ + z/(2√(2+z²)).
	xs := drawN(Cauchy{}, rng, []float64{-1, 2}, 1)
	for _, z := range []float64{-5, -1, 0, 0.3, 4} {
		checkCDF(t, "Cauchy", xs, -1+2*z, 0.5+math.Atan(z)/pi)
	}
	xs = drawN(HalfCauchy{}, rng, []float64{2}, 1)
	for _, q := range []float64{0.1, 2, 30} {
		checkCDF(t, "HalfCauchy", xs, q, 2/pi*math.Atan(q/2))
	}
	xs = drawN(StudentT{}, rng, []float64{2, 0.5, 3}, 1)
	for _, z := range []float64{-6, -0.5, 0, 2} {
		checkCDF(t, "StudentT(ν=2)", xs, 0.5+3*z, 0.5+z/(2*math.Sqrt(2+z*z)))
	}
	// Tiny ν: the draw combines a normal with an underflowing χ² on the log scale.
	xs = drawN(StudentT{}, rng, []float64{0.05, 0, 1}, 1)
	for _, x := range xs {
		if math.IsNaN(x) {
			t.Fatalf("StudentT(ν=0.05) drew NaN")
		}
	}
	checkCDF(t, "StudentT(ν=0.05)", xs, 0, 0.5)
}

// TestRandLogGamma checks log-scale Gamma draws for tiny shapes, where the draws
// themselves underflow: E[log G] = ψ(α) and Var[log G] = ψ₁(α).
func TestRandLogGamma(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, a := range []float64{1e-3, 0.05, 0.9, 1, 7.5} {
		xs := make([]float64, nDraws)
		for i := range xs {
			xs[i] = RandLogGamma(rng, a)
		}
		checkMoments(t, "RandLogGamma", xs, special.Digamma(a), special.Trigamma(a))
	}
	if v := RandLogGamma(rng, 0); !math.IsNaN(v) {
		t.Errorf("RandLogGamma(0) = %v, want NaN", v)
	}
	for range 1000 {
		if x := RandGamma(rng, 1e-4, 1); !(x > 0) {
			t.Fatalf("RandGamma(1e-4) = %v, want > 0", x)
		}
		if x := RandBeta(rng, 1e-4, 1e-4); !(x > 0 && x < 1) {
			t.Fatalf("RandBeta(1e-4, 1e-4) = %v, want in (0, 1)", x)
		}
	}
}

// TestRandDirichlet checks each coordinate's mean αᵢ/A and variance
// αᵢ(A−αᵢ)/(A²(A+1)), and that every draw is on the simplex.
func TestRandDirichlet(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	for _, alpha := range [][]float64{{1, 2, 3}, {0.01, 0.02, 0.5}, {1e3, 2e3, 1e3}} {
		k := len(alpha)
		var A float64
		for _, a := range alpha {
			A += a
		}
		cols := make([][]float64, k)
		for i := range cols {
			cols[i] = make([]float64, nDraws)
		}
		args := make([]float64, 2*k)
		copy(args[k:], alpha)
		for n := range nDraws {
			(Dirichlet{}).Rand(rng, alpha, k, args[:k])
			if !(Dirichlet{}).InSupport(args, k) {
				t.Fatalf("Dirichlet(%v) drew %v, not on the simplex", alpha, args[:k])
			}
			for i := range k {
				cols[i][n] = args[i]
			}
		}
		for i, a := range alpha {
			checkMoments(t, "Dirichlet", cols[i], a/A, a*(A-a)/(A*A*(A+1)))
		}
	}
}

// TestRandMultivariateNormal checks the means and every covariance entry of 1e5
// draws; the standard error of a sample covariance is estimated from the draws.
func TestRandMultivariateNormal(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 3))
	d := testMVN(t)
	cov := mat.NewSymDense(3, []float64{2, 0.3, 0.1, 0.3, 1, -0.2, 0.1, -0.2, 0.5})
	mean := []float64{1, -2, 0.5}
	draws := make([][]float64, nDraws)
	for n := range draws {
		draws[n] = make([]float64, 3)
		d.Rand(rng, mean, 3, draws[n])
	}
	for i := range 3 {
		col := make([]float64, nDraws)
		for n, x := range draws {
			col[n] = x[i]
		}
		checkMoments(t, "MultivariateNormal", col, mean[i], cov.At(i, i))
		for j := i + 1; j < 3; j++ {
			prod := make([]float64, nDraws)
			for n, x := range draws {
				prod[n] = (x[i] - mean[i]) * (x[j] - mean[j])
			}
			// The mean of the products estimates Σᵢⱼ (the means are known).
			checkMoments(t, "MultivariateNormal cov", prod, cov.At(i, j), math.NaN())
		}
	}
}
