package dist

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCheckParamsErrors checks that invalid parameters give a *ParamError naming the
// family, the parameter, the element and the value.
func TestCheckParamsErrors(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		f      Family
		k      int
		params []float64
		param  string
		index  int
	}{
		{Normal{}, 1, []float64{0, -1}, "sigma", -1},
		{Normal{}, 1, []float64{0, 0}, "sigma", -1},
		{Normal{}, 1, []float64{nan, 1}, "mu", -1},
		{HalfNormal{}, 1, []float64{inf}, "sigma", -1},
		{LogNormal{}, 1, []float64{0, -2}, "sigma", -1},
		{StudentT{}, 1, []float64{0, 0, 1}, "nu", -1},
		{StudentT{}, 1, []float64{3, 0, -1}, "sigma", -1},
		{Cauchy{}, 1, []float64{0, -1}, "gamma", -1},
		{HalfCauchy{}, 1, []float64{0}, "scale", -1},
		{Gamma{}, 1, []float64{-1, 1}, "alpha", -1},
		{Gamma{}, 1, []float64{1, nan}, "beta", -1},
		{InverseGamma{}, 1, []float64{1, -1}, "beta", -1},
		{Exponential{}, 1, []float64{-3}, "rate", -1},
		{Beta{}, 1, []float64{0, 1}, "alpha", -1},
		{Uniform{}, 1, []float64{1, 1}, "b", -1},
		{Uniform{}, 1, []float64{-inf, 1}, "a", -1},
		{Dirichlet{}, 3, []float64{1, -0.5, 1}, "alpha", 1},
		{Bernoulli{}, 1, []float64{1.2}, "p", -1},
		{Bernoulli{}, 1, []float64{nan}, "p", -1},
		{BernoulliLogit{}, 1, []float64{inf}, "logit", -1},
		{Binomial{}, 1, []float64{2.5, 0.5}, "n", -1},
		{Binomial{}, 1, []float64{-1, 0.5}, "n", -1},
		{Binomial{}, 1, []float64{5, -0.1}, "p", -1},
		{BinomialLogit{}, 1, []float64{5, nan}, "logit", -1},
		{Categorical{}, 3, []float64{0.2, 0.3, 0.4}, "probs", -1},   // sums to 0.9
		{Categorical{}, 3, []float64{0.5, -0.1, 0.6}, "probs", 1},   // negative
		{Categorical{}, 3, []float64{0.5, 0.5, 1e-8}, "probs", -1},  // sum off by 1e-8
		{CategoricalLogits{}, 3, []float64{0, nan, 1}, "logits", 1}, // NaN
		{Poisson{}, 1, []float64{-1}, "rate", -1},
		{PoissonLog{}, 1, []float64{inf}, "logRate", -1},
		{testMVN(t), 3, []float64{0, inf, 0}, "mean", 1},
	}
	for _, c := range cases {
		err := c.f.CheckParams(c.params, c.k)
		var pe *ParamError
		if !errors.As(err, &pe) {
			t.Errorf("%s.CheckParams(%v) = %v, want a *ParamError", c.f.Name(), c.params, err)
			continue
		}
		if pe.Family != c.f.Name() || pe.Param != c.param || pe.Index != c.index {
			t.Errorf("%s.CheckParams(%v): got family %q param %q index %d, want %q %q %d",
				c.f.Name(), c.params, pe.Family, pe.Param, pe.Index, c.f.Name(), c.param, c.index)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "dist: "+c.f.Name()+" parameter "+c.param) {
			t.Errorf("error %q does not name the family and parameter", msg)
		}
		// Invalid parameters: Rand writes NaN rather than a draw.
		vw, _ := c.f.Layout(c.k)
		dst := make([]float64, vw)
		c.f.Rand(rand.New(rand.NewPCG(1, 1)), c.params, c.k, dst)
		for _, v := range dst {
			if !math.IsNaN(v) {
				t.Errorf("%s.Rand(%v) wrote %v, want NaN", c.f.Name(), c.params, dst)
				break
			}
		}
	}
	// The sum check accepts rounding-level deviations from 1.
	if err := (Categorical{}).CheckParams([]float64{0.1, 0.2, 0.7 + 1e-12}, 3); err != nil {
		t.Errorf("Categorical sum 1+1e-12 rejected: %v", err)
	}
}

// TestCheckParamsShape checks errors for a wrong number of parameter values or a bad
// dimension.
func TestCheckParamsShape(t *testing.T) {
	t.Parallel()
	mvn := testMVN(t)
	cases := []struct {
		f      Family
		k      int
		params []float64
		want   string
	}{
		{Normal{}, 1, []float64{0}, "dist: Normal: got 1 parameter values, want 2"},
		{Dirichlet{}, 3, []float64{1, 1}, "dist: Dirichlet: got 2 parameter values, want 3"},
		{Dirichlet{}, 0, nil, "dist: Dirichlet: dimension k = 0, want ≥ 1"},
		{Categorical{}, 0, nil, "dist: Categorical: dimension k = 0, want ≥ 1"},
		{mvn, 2, []float64{0, 0}, "dist: MultivariateNormal: dimension k = 2, want 3 (the covariance's)"},
		{&MultivariateNormal{}, 1, []float64{0}, "dist: MultivariateNormal: not created with NewMultivariateNormal"},
	}
	for _, c := range cases {
		err := c.f.CheckParams(c.params, c.k)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s.CheckParams(%v, %d) = %v, want %q", c.f.Name(), c.params, c.k, err, c.want)
		}
	}
}

func TestNewMultivariateNormalErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cov  *mat.SymDense
		want string
	}{
		{nil, "dist: MultivariateNormal: covariance is nil"},
		{mat.NewSymDense(2, []float64{1, 2, 2, 1}), "not positive definite"},
		{mat.NewSymDense(2, []float64{1, 0, 0, 0}), "not positive definite"},
		{mat.NewSymDense(2, []float64{1, 0, 0, math.NaN()}), "covariance[1, 1] = NaN is not finite"},
	}
	for _, c := range cases {
		d, err := NewMultivariateNormal(c.cov)
		if err == nil || !strings.Contains(err.Error(), c.want) || d != nil {
			t.Errorf("NewMultivariateNormal(%v) = %v, %v; want error containing %q", c.cov, d, err, c.want)
		}
	}
	d, err := NewMultivariateNormal(mat.NewSymDense(1, []float64{4}))
	if err != nil || d.Dim() != 1 {
		t.Fatalf("NewMultivariateNormal(1×1) = %v, %v", d, err)
	}
	// 1-dimensional: the same as Normal with σ = 2.
	if got, want := d.LogProb([]float64{1, -0.5}, 1), (Normal{}).LogProb([]float64{1, -0.5, 2}, 1); math.Abs(got-want) > 1e-14 {
		t.Errorf("1-d MultivariateNormal = %v, Normal %v", got, want)
	}
}

// TestInSupport checks values on both sides of every support boundary.
func TestInSupport(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		f    Family
		k    int
		args []float64
		want bool
	}{
		{Bernoulli{}, 1, []float64{2, 0.5}, false},
		{Bernoulli{}, 1, []float64{1, 0.5}, true},
		{Bernoulli{}, 1, []float64{0.5, 0.5}, false},
		{BernoulliLogit{}, 1, []float64{-1, 0}, false},
		{Poisson{}, 1, []float64{-1, 1}, false},
		{Poisson{}, 1, []float64{0, 1}, true},
		{Poisson{}, 1, []float64{2.5, 1}, false},
		{PoissonLog{}, 1, []float64{1e6, 1}, true},
		{Binomial{}, 1, []float64{5, 5, 0.5}, true},
		{Binomial{}, 1, []float64{6, 5, 0.5}, false},
		{BinomialLogit{}, 1, []float64{-1, 5, 0}, false},
		{Categorical{}, 3, []float64{2, 0.2, 0.3, 0.5}, true},
		{Categorical{}, 3, []float64{3, 0.2, 0.3, 0.5}, false},
		{CategoricalLogits{}, 3, []float64{-1, 0, 0, 0}, false},
		{Normal{}, 1, []float64{nan, 0, 1}, false},
		{Normal{}, 1, []float64{inf, 0, 1}, false},
		{Normal{}, 1, []float64{-1e300, 0, 1}, true},
		{HalfNormal{}, 1, []float64{0, 1}, true},
		{HalfNormal{}, 1, []float64{-1e-300, 1}, false},
		{HalfCauchy{}, 1, []float64{-1, 1}, false},
		{Exponential{}, 1, []float64{0, 1}, true},
		{Gamma{}, 1, []float64{0, 1, 1}, false},
		{Gamma{}, 1, []float64{1e-300, 1, 1}, true},
		{InverseGamma{}, 1, []float64{-1, 1, 1}, false},
		{LogNormal{}, 1, []float64{0, 0, 1}, false},
		{Beta{}, 1, []float64{0, 1, 1}, false},
		{Beta{}, 1, []float64{1, 1, 1}, false},
		{Beta{}, 1, []float64{0.5, 1, 1}, true},
		{Uniform{}, 1, []float64{3, 1, 3}, true},
		{Uniform{}, 1, []float64{3.001, 1, 3}, false},
		{Dirichlet{}, 3, []float64{0.2, 0.3, 0.5, 1, 1, 1}, true},
		{Dirichlet{}, 3, []float64{0.2, 0.3, 0.6, 1, 1, 1}, false},
		{Dirichlet{}, 3, []float64{0, 0.5, 0.5, 1, 1, 1}, false},
		{testMVN(t), 3, []float64{0, nan, 0, 0, 0, 0}, false},
	}
	for _, c := range cases {
		if got := c.f.InSupport(c.args, c.k); got != c.want {
			t.Errorf("%s.InSupport(%v) = %v, want %v", c.f.Name(), c.args, got, c.want)
		}
	}
}

// TestSupportBounds checks the bounds and value counts that pick the proposer.
func TestSupportBounds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		f      Family
		k      int
		params []float64
		kind   Support
		lo, hi float64
		nv     int
	}{
		{Gamma{}, 1, []float64{1, 1}, Positive, 0, math.Inf(1), 0},
		{Beta{}, 1, []float64{1, 1}, Interval, 0, 1, 0},
		{Uniform{}, 1, []float64{-2, 5}, Interval, -2, 5, 0},
		{Bernoulli{}, 1, []float64{0.5}, Discrete, 0, 1, 2},
		{Binomial{}, 1, []float64{7, 0.5}, Discrete, 0, 7, 8},
		{BinomialLogit{}, 1, []float64{7, 0.5}, Discrete, 0, 7, 8},
		{Categorical{}, 5, []float64{0.2, 0.2, 0.2, 0.2, 0.2}, Discrete, 0, 4, 5},
		{Poisson{}, 1, []float64{3}, Discrete, 0, math.Inf(1), 0},
		{Dirichlet{}, 3, []float64{1, 1, 1}, Simplex, 0, 1, 0},
	}
	for _, c := range cases {
		kind, lo, hi, nv := c.f.Support(c.params, c.k)
		if kind != c.kind || lo != c.lo || hi != c.hi || nv != c.nv {
			t.Errorf("%s.Support(%v) = %v, %v, %v, %d; want %v, %v, %v, %d",
				c.f.Name(), c.params, kind, lo, hi, nv, c.kind, c.lo, c.hi, c.nv)
		}
	}
}

// TestDerivsShortBuffersPanic checks the documented panic for buffers shorter than the
// layout (a programming error), with a message naming the method.
func TestDerivsShortBuffersPanic(t *testing.T) {
	t.Parallel()
	defer func() {
		r := recover()
		if s, ok := r.(string); !ok || !strings.Contains(s, "dist: Normal.Derivs") {
			t.Errorf("recovered %v, want a dist: Normal.Derivs panic", r)
		}
	}()
	(Normal{}).Derivs([]float64{0, 0, 1}, 1, make([]float64, 3), make([]float64, 4))
}
