package dist

import (
	"math"
	"testing"

	"github.com/nmc-go/nmc/internal/special"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
)

// integrateReal returns ∫ g(u) du over ℝ by the substitution u = c + s·t/(1−t²),
// t ∈ (−1, 1), and an n-point Gauss–Legendre rule; c and s are where g lives and its
// width, which keeps the nodes where the mass is.
func integrateReal(g func(float64) float64, c, s float64, n int) float64 {
	f := func(t float64) float64 {
		d := 1 - t*t
		if d <= 0 {
			return 0
		}
		v := g(c + s*t/d)
		if v == 0 {
			return 0
		}
		return v * s * (1 + t*t) / (d * d)
	}
	return quad.Fixed(f, -1, 1, n, quad.Legendre{}, 0)
}

// integrateDensity returns ∫ p over the support of a scalar family: through
// x = c + s·sinh(w) on ℝ, through x = lo + eᵘ on a half-line, and through x = a + (b−a)·σ(u) on an interval, so
// that integrable singularities at the bounds become smooth, decaying integrands.
// c and s locate the mass on the x, log x or logit scale.
func integrateDensity(f Family, params []float64, c, s float64) float64 {
	kind, lo, hi, _ := f.Support(params, 1)
	args := append([]float64{0}, params...)
	p := func(x float64) float64 {
		args[0] = x
		return math.Exp(f.LogProb(args, 1))
	}
	switch kind {
	case Positive:
		return integrateReal(func(u float64) float64 {
			e := math.Exp(u)
			return p(lo+e) * e
		}, c, s, 4000)
	case Interval:
		return integrateReal(func(u float64) float64 {
			sg := special.Logistic(u)
			return p(lo+(hi-lo)*sg) * (hi - lo) * sg * (1 - sg)
		}, c, s, 4000)
	default:
		// x = c + s·sinh(w) turns the polynomial tails of Student-t and Cauchy into
		// exponential ones.
		return integrateReal(func(w float64) float64 {
			return p(c+s*math.Sinh(w)) * s * math.Cosh(w)
		}, 0, 3, 4000)
	}
}

// TestDensitiesIntegrateToOne checks that every continuous scalar density integrates
// to 1 within 1e-8, including tiny and huge scales and shapes below 1 (singular at 0).
func TestDensitiesIntegrateToOne(t *testing.T) {
	t.Parallel()
	cases := []struct {
		f      Family
		params []float64
		c, s   float64 // centre and width on the integration scale (x, log x or logit x)
	}{
		{Normal{}, []float64{-0.2, 1.5}, -0.2, 1.5},
		{Normal{}, []float64{1e3, 1e-3}, 1e3, 1e-3},
		{Normal{}, []float64{0, 1e3}, 0, 1e3},
		{HalfNormal{}, []float64{1.2}, 0, 1},
		{HalfNormal{}, []float64{1e-3}, math.Log(1e-3), 1},
		{LogNormal{}, []float64{0.3, 0.8}, 0.3, 0.8},
		{LogNormal{}, []float64{-6.9, 1e-3}, -6.9, 1e-3},
		{StudentT{}, []float64{3.5, -0.1, 1.3}, -0.1, 1.3},
		{StudentT{}, []float64{0.5, 0, 1}, 0, 1},
		{StudentT{}, []float64{1e3, 2, 1e-3}, 2, 1e-3},
		{Cauchy{}, []float64{-1, 2}, -1, 2},
		{HalfCauchy{}, []float64{2}, math.Log(2), 2},
		{Gamma{}, []float64{2.5, 0.7}, math.Log(2.5 / 0.7), 1},
		{Gamma{}, []float64{0.3, 2}, -3, 3},
		{Gamma{}, []float64{1e3, 1}, math.Log(1e3), 0.03},
		{InverseGamma{}, []float64{3, 2}, 0, 1},
		{InverseGamma{}, []float64{0.5, 1e-3}, -5, 3},
		{Exponential{}, []float64{2}, -1, 1},
		{Exponential{}, []float64{1e-3}, math.Log(1e3), 1},
		{Beta{}, []float64{2, 5}, -1, 1},
		{Beta{}, []float64{0.5, 0.5}, 0, 2},
		{Beta{}, []float64{1e3, 1e3}, 0, 0.05},
		{Uniform{}, []float64{-1e3, 1e3}, 0, 2},
		{Uniform{}, []float64{0, 2e-3}, 0, 2},
		{Weibull{}, []float64{2.5, 0.7}, math.Log(0.7), 1},
		{Weibull{}, []float64{0.5, 1}, 0, 4},
		{Weibull{}, []float64{40, 3}, math.Log(3), 0.05},
		{Logistic{}, []float64{1, 0.5}, 1, 0.5},
		{Logistic{}, []float64{-1e3, 1e-3}, -1e3, 1e-3},
	}
	for _, c := range cases {
		if got := integrateDensity(c.f, c.params, c.c, c.s); math.Abs(got-1) > 1e-8 {
			t.Errorf("∫ %s(%v) = %.12g, want 1", c.f.Name(), c.params, got)
		}
	}
}

// TestDirichletIntegratesToOne integrates the k = 3 density over the simplex in the
// coordinates x₀ = σ(u), x₁ = (1−x₀)·σ(v), which smooth the boundary singularities.
func TestDirichletIntegratesToOne(t *testing.T) {
	t.Parallel()
	for _, alpha := range [][]float64{{1, 2, 3}, {0.7, 1.5, 0.9}, {5, 5, 5}} {
		args := []float64{0, 0, 0, alpha[0], alpha[1], alpha[2]}
		outer := func(u float64) float64 {
			x0 := special.Logistic(u)
			inner := func(v float64) float64 {
				w := special.Logistic(v)
				args[0], args[1], args[2] = x0, (1-x0)*w, (1-x0)*(1-w)
				return math.Exp((Dirichlet{}).LogProb(args, 3)) * (1 - x0) * w * (1 - w)
			}
			return integrateReal(inner, 0, 2, 300) * x0 * (1 - x0)
		}
		if got := integrateReal(outer, 0, 2, 300); math.Abs(got-1) > 1e-7 {
			t.Errorf("∫ Dirichlet(%v) = %.12g, want 1", alpha, got)
		}
	}
}

// TestMultivariateNormalIntegratesToOne integrates a correlated 2-variate density over
// the plane.
func TestMultivariateNormalIntegratesToOne(t *testing.T) {
	t.Parallel()
	d, err := NewMultivariateNormal(mat.NewSymDense(2, []float64{2, 0.9, 0.9, 0.8}))
	if err != nil {
		t.Fatal(err)
	}
	args := []float64{0, 0, 1, -2}
	outer := func(x float64) float64 {
		return integrateReal(func(y float64) float64 {
			args[0], args[1] = x, y
			return math.Exp(d.LogProb(args, 2))
		}, -2, 1, 300)
	}
	if got := integrateReal(outer, 1, 1.5, 300); math.Abs(got-1) > 1e-8 {
		t.Errorf("∫ MultivariateNormal = %.12g, want 1", got)
	}
}

// TestDiscreteSumToOne sums every discrete probability mass function over its support
// (Poisson far into the tail).
func TestDiscreteSumToOne(t *testing.T) {
	t.Parallel()
	cases := []struct {
		f      Family
		k      int
		params []float64
		upto   int
	}{
		{Bernoulli{}, 1, []float64{0.3}, 1},
		{BernoulliLogit{}, 1, []float64{-2.5}, 1},
		{Binomial{}, 1, []float64{10, 0.4}, 10},
		{Binomial{}, 1, []float64{1000, 0.999}, 1000},
		{Binomial{}, 1, []float64{0, 0.5}, 0},
		{BinomialLogit{}, 1, []float64{50, 1.5}, 50},
		{Categorical{}, 4, []float64{0.1, 0.2, 0.3, 0.4}, 3},
		{CategoricalLogits{}, 3, []float64{0.5, -1, 2}, 2},
		{CategoricalLogits{}, 3, []float64{1e3, -1e3, 0}, 2},
		{Poisson{}, 1, []float64{2.5}, 60},
		{Poisson{}, 1, []float64{1e3}, 1500},
		{PoissonLog{}, 1, []float64{-3}, 40},
		{NegBinomial2{}, 1, []float64{3, 2}, 200},
		{NegBinomial2{}, 1, []float64{50, 1e4}, 200},
		{NegBinomial2Log{}, 1, []float64{0, 0.5}, 150},
		{OrderedLogistic{}, 4, []float64{0.3, -1, 0.5, 2}, 3},
		{OrderedLogistic{}, 2, []float64{-30, 0.7}, 1},
	}
	for _, c := range cases {
		_, _, _, nv := c.f.Support(c.params, c.k)
		if nv != 0 && nv != c.upto+1 {
			t.Errorf("%s(%v): Support says %d values, want %d", c.f.Name(), c.params, nv, c.upto+1)
		}
		args := append([]float64{0}, c.params...)
		var s float64
		for y := 0; y <= c.upto; y++ {
			args[0] = float64(y)
			s += math.Exp(c.f.LogProb(args, c.k))
		}
		if math.Abs(s-1) > 1e-12 {
			t.Errorf("Σ %s(%v) = %.15g, want 1", c.f.Name(), c.params, s)
		}
	}
}
