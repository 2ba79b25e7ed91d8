package graph

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc"
)

// TestEveryDistribution puts each family through the engine twice: as the prior of a
// latent x whose parameters are expressions of both coordinates of a Vector site u
// (so that the Hessian of u includes the cross derivatives between parameters), and
// as an observation whose parameters read x and u. Every continuous site's score,
// gradient and Hessian are checked against finite differences of the log joint.
func TestEveryDistribution(t *testing.T) {
	cov := mat.NewSymDense(2, []float64{1, 0.6, 0.6, 2})
	cases := []struct {
		name    string
		support nmc.Support
		prior   func(u0, u1 *Node) *Dist
		obs     func(u0, u1, x *Node) *Dist
		values  []float64
	}{
		{"Normal", nmc.Real,
			func(u0, u1 *Node) *Dist { return Normal(u0, Exp(u1)) },
			func(u0, u1, x *Node) *Dist { return Normal(Add(x, u0), Softplus(u1)) },
			[]float64{0.3, -1.2, 2}},
		{"HalfNormal", nmc.Positive,
			func(u0, u1 *Node) *Dist { return HalfNormal(Exp(Add(u0, u1))) },
			func(u0, u1, x *Node) *Dist { return HalfNormal(Mul(x, Exp(u0))) },
			[]float64{0.3, 1.2, 2}},
		{"LogNormal", nmc.Positive,
			func(u0, u1 *Node) *Dist { return LogNormal(u0, Exp(u1)) },
			func(u0, u1, x *Node) *Dist { return LogNormal(Log(x), Exp(u1)) },
			[]float64{0.3, 1.2, 2}},
		{"StudentT", nmc.Real,
			func(u0, u1 *Node) *Dist { return StudentT(Add(C(1), Exp(u0)), u1, Exp(Mul(u0, u1))) },
			func(u0, u1, x *Node) *Dist { return StudentT(Add(C(2), Exp(u1)), Mul(x, u0), Exp(u0)) },
			[]float64{0.3, -1.2, 4}},
		{"Cauchy", nmc.Real,
			func(u0, u1 *Node) *Dist { return Cauchy(u0, Exp(u1)) },
			func(u0, u1, x *Node) *Dist { return Cauchy(x, Exp(Sub(u0, u1))) },
			[]float64{0.3, -1.2, 4}},
		{"HalfCauchy", nmc.Positive,
			func(u0, u1 *Node) *Dist { return HalfCauchy(Exp(Mul(u0, u1))) },
			func(u0, u1, x *Node) *Dist { return HalfCauchy(Add(x, Exp(u1))) },
			[]float64{0.3, 1.2, 4}},
		{"Gamma", nmc.Positive,
			func(u0, u1 *Node) *Dist { return Gamma(Add(C(1), Exp(u0)), Exp(u1)) },
			func(u0, u1, x *Node) *Dist { return Gamma(Add(C(0.5), x), Exp(Add(u0, u1))) },
			[]float64{0.3, 1.2, 2}},
		{"InverseGamma", nmc.Positive,
			func(u0, u1 *Node) *Dist { return InverseGamma(Add(C(2), Exp(u0)), Exp(Mul(C(0.5), Add(u0, u1)))) },
			func(u0, u1, x *Node) *Dist { return InverseGamma(Exp(u1), Add(x, C(0.1))) },
			[]float64{0.3, 1.2, 2}},
		{"Exponential", nmc.Positive,
			func(u0, u1 *Node) *Dist { return Exponential(Exp(Sub(u0, u1))) },
			func(u0, u1, x *Node) *Dist { return Exponential(Mul(x, Exp(u0))) },
			[]float64{0.3, 1.2, 2}},
		{"Beta", nmc.Interval,
			func(u0, u1 *Node) *Dist { return Beta(Add(C(1), Exp(u0)), Add(C(1), Exp(u1))) },
			func(u0, u1, x *Node) *Dist { return Beta(Add(C(0.5), x), Exp(Mul(u0, u1))) },
			[]float64{0.3, 0.9, 0.05}},
		{"Uniform", nmc.Interval,
			func(u0, u1 *Node) *Dist { return Uniform(C(-1), C(2)) },
			func(u0, u1, x *Node) *Dist { return Uniform(Sub(x, Exp(u0)), Add(C(2), Exp(u1))) },
			[]float64{-1, 0.5, 1.9}},
		{"Dirichlet", nmc.Simplex,
			func(u0, u1 *Node) *Dist {
				return Dirichlet(Add(Mul(Exp(u0), Vec(1, 2, 3)), Mul(Exp(u1), Vec(1, 1, 0.5))))
			},
			func(u0, u1, x *Node) *Dist { return Dirichlet(Mul(Exp(u0), Add(x, Vec(0.5, 0.5, 0.5)))) },
			[]float64{0.2, 0.3, 0.5, 0.6, 0.3, 0.1}},
		{"MultivariateNormal", nmc.Real,
			func(u0, u1 *Node) *Dist {
				return MultivariateNormal(Add(Mul(u0, Vec(1, 2)), Mul(Exp(u1), Vec(-1, 1))), cov)
			},
			func(u0, u1, x *Node) *Dist { return MultivariateNormal(Add(x, Mul(Mul(u0, u1), Vec(0.5, 1))), cov) },
			[]float64{0.5, -1, 2, 1}},
		{"Bernoulli", nmc.Discrete,
			func(u0, u1 *Node) *Dist { return Bernoulli(Logistic(Sub(u0, u1))) },
			func(u0, u1, x *Node) *Dist { return Bernoulli(Logistic(Add(Mul(u0, u1), x))) },
			[]float64{0, 1, 1}},
		{"BernoulliLogit", nmc.Discrete,
			func(u0, u1 *Node) *Dist { return BernoulliLogit(Mul(u0, Exp(u1))) },
			func(u0, u1, x *Node) *Dist { return BernoulliLogit(Add(Mul(u0, u1), x)) },
			[]float64{0, 1, 1}},
		{"Binomial", nmc.Discrete,
			func(u0, u1 *Node) *Dist { return Binomial(C(5), Logistic(Add(u0, u1))) },
			func(u0, u1, x *Node) *Dist { return Binomial(C(7), Logistic(Sub(Mul(u0, u1), Mul(C(0.1), x)))) },
			[]float64{0, 3, 7}},
		{"BinomialLogit", nmc.Discrete,
			func(u0, u1 *Node) *Dist { return BinomialLogit(C(4), Mul(u0, u1)) },
			func(u0, u1, x *Node) *Dist { return BinomialLogit(C(6), Add(Exp(u0), Mul(u1, x))) },
			[]float64{0, 2, 6}},
		{"Categorical", nmc.Discrete,
			func(u0, u1 *Node) *Dist {
				e := Exp(Add(Mul(u0, Vec(1, 0, -1)), Mul(u1, Vec(0, 1, 0.5))))
				return Categorical(Div(e, Sum(e)))
			},
			func(u0, u1, x *Node) *Dist {
				e := Exp(Mul(Add(u0, x), Vec(0.5, 0, -0.5)))
				return Categorical(Div(e, Sum(e)))
			},
			[]float64{0, 2, 1}},
		{"CategoricalLogits", nmc.Discrete,
			func(u0, u1 *Node) *Dist { return CategoricalLogits(Add(Mul(u0, Vec(1, 0, -1)), Mul(u1, Vec(0, 1, 0)))) },
			func(u0, u1, x *Node) *Dist {
				return CategoricalLogits(Add(Mul(Mul(u0, u1), Vec(1, 2, 3)), Mul(x, Vec(0.3, 0, 0))))
			},
			[]float64{0, 2, 1}},
		{"Poisson", nmc.Discrete,
			func(u0, u1 *Node) *Dist { return Poisson(Exp(Add(u0, u1))) },
			func(u0, u1, x *Node) *Dist { return Poisson(Mul(Exp(u0), Add(x, Softplus(u1)))) },
			[]float64{0, 3, 7}},
		{"PoissonLog", nmc.Discrete,
			func(u0, u1 *Node) *Dist { return PoissonLog(Mul(u0, u1)) },
			func(u0, u1, x *Node) *Dist { return PoissonLog(Add(u0, Mul(C(0.2), x))) },
			[]float64{0, 3, 7}},
		{"NegBinomial2", nmc.Discrete,
			func(u0, u1 *Node) *Dist { return NegBinomial2(Exp(Add(u0, u1)), Exp(u1)) },
			func(u0, u1, x *Node) *Dist { return NegBinomial2(Mul(Exp(u0), Add(x, C(1))), Exp(Mul(u0, u1))) },
			[]float64{0, 3, 7}},
		{"NegBinomial2Log", nmc.Discrete,
			func(u0, u1 *Node) *Dist { return NegBinomial2Log(Mul(u0, u1), Exp(u0)) },
			func(u0, u1, x *Node) *Dist { return NegBinomial2Log(Add(u0, Mul(C(0.2), x)), Add(C(0.5), Exp(u1))) },
			[]float64{0, 3, 70}},
		{"Weibull", nmc.Positive,
			func(u0, u1 *Node) *Dist { return Weibull(Add(C(1), Exp(u0)), Exp(u1)) },
			func(u0, u1, x *Node) *Dist { return Weibull(Add(C(0.5), x), Exp(Add(u0, u1))) },
			[]float64{0.3, 1.2, 2}},
		{"LogisticDist", nmc.Real,
			func(u0, u1 *Node) *Dist { return LogisticDist(u0, Exp(u1)) },
			func(u0, u1, x *Node) *Dist { return LogisticDist(Mul(x, u0), Exp(Sub(u0, u1))) },
			[]float64{0.3, -1.2, 4}},
		{"OrderedLogistic", nmc.Discrete,
			// The prior's cutpoints as three scalar elements (an Ordered latent's
			// form), u0 − 2 < u0 + e^{u1} < u0 + e^{u1} + 1; the observation's as
			// one element of width 3.
			func(u0, u1 *Node) *Dist {
				return OrderedLogistic(Mul(u0, u1), Concat(Sub(u0, C(2)), Add(u0, Exp(u1)), Add(u0, Add(Exp(u1), C(1)))))
			},
			func(u0, u1, x *Node) *Dist {
				return OrderedLogistic(Add(Mul(C(0.3), x), u1), Stack(C(-1), Add(C(0.2), Exp(u0)), Add(C(1.5), Exp(u0))))
			},
			[]float64{0, 2, 3}},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := New()
			u := b.Vector("u", 2, Normal(C(0), C(0.5)))
			u0, u1 := Index(u, []int{0}), Index(u, []int{1})
			x := b.Latent("x", c.prior(u0, u1))
			b.Observe("y", c.obs(u0, u1, x), c.values)
			m, err := b.Build()
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			if got := m.Sites()[1].Support; got != c.support {
				t.Errorf("x has support %v, want %v", got, c.support)
			}
			st := checkModelDerivs(t, c.name, m, rand.New(rand.NewPCG(9, uint64(ci))), 6, 60)
			if !t.Failed() && st.points < 6 {
				t.Errorf("only %d acceptable points out of 60 prior draws", st.points)
			}
		})
	}
}

// TestBinomialLatentTrials declares a Binomial whose number of trials is a discrete
// latent: the site must be unbounded discrete (its bound is not known at Build), and
// its score must agree with the log joint.
func TestBinomialLatentTrials(t *testing.T) {
	b := New()
	k := b.Latent("k", Poisson(C(3)))
	u := b.Latent("u", Normal(C(0), C(1)))
	b.Latent("x", BinomialLogit(Add(k, C(1)), u))
	b.ObserveInts("y", Binomial(Add(k, C(2)), Logistic(u)), []int{1, 2})
	m, err := b.Build()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	x := m.Sites()[2]
	if x.Support != nmc.Discrete || x.NumValues != 0 {
		t.Errorf("x: support %v with %d values, want discrete with 0 (unbounded)", x.Support, x.NumValues)
	}
	st := checkModelDerivs(t, "binomial-latent-n", m, rand.New(rand.NewPCG(9, 99)), 6, 60)
	if !t.Failed() && st.points < 6 {
		t.Errorf("only %d acceptable points out of 60 prior draws", st.points)
	}
}
