package models_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// The regressions as a user declares them in a program of their own, with the
// public graph API only (as in the README), against the built-in models.Logistic
// and models.Robust: 10,000 train rows, K = 40, the paper's generator, 2 chains ×
// 200 draws (Regression…) or the scorer work of one sweep at a fixed state
// (Sweep…), group move on in both. The built-in models are now the graph models
// themselves; until commit 53cee9b they were hand-written scorers, against which
// BENCHMARKS.md gives the ratios. Compare the pairs with benchstat:
//
//	go test -run '^$' -bench 'Regression(Builtin|User)|Sweep' -count 5 ./models/

// userLogistic is Bayesian logistic regression declared with nmc/graph.
func userLogistic(d models.RegressionData) (nmc.Model, error) {
	_, k := d.Dims()
	b := graph.New()
	alpha := b.Latent("alpha", graph.Normal(graph.C(0), graph.C(10)))
	beta := b.Vector("beta", k, graph.Normal(graph.C(0), graph.C(2.5)))
	b.Observe("y", graph.BernoulliLogit(graph.Add(alpha, graph.MatVec(d.X, beta))), d.Y)
	b.Group("scale(alpha, beta)", graph.Dilate(alpha, 1), graph.Dilate(beta, 1))
	return b.Build()
}

// userRobust is robust (Student-t) regression declared with nmc/graph.
func userRobust(d models.RegressionData) (nmc.Model, error) {
	_, k := d.Dims()
	b := graph.New()
	nu := b.Latent("nu", graph.Gamma(graph.C(2), graph.C(0.1)))
	sigma := b.Latent("sigma", graph.Exponential(graph.C(0.1)))
	alpha := b.Latent("alpha", graph.Normal(graph.C(0), graph.C(10)))
	beta := b.Vector("beta", k, graph.Normal(graph.C(0), graph.C(2.5)))
	b.Observe("y", graph.StudentT(nu, graph.Add(alpha, graph.MatVec(d.X, beta)), sigma), d.Y)
	// The ridge group of models.Robust: sigma at 1/(ν₀+1), ν₀ the prior median of nu.
	nu0 := distuv.Gamma{Alpha: 2, Beta: 0.1}.Quantile(0.5)
	b.Group("ridge(nu, sigma)", graph.Dilate(nu, 1), graph.Dilate(sigma, 1/(nu0+1)))
	return b.Build()
}

// regressionBench samples 2 chains × 200 draws (seed 1, defaults otherwise) of the
// built-in model or the user's declaration on the paper's data (seed 2020).
func regressionBench(b *testing.B, robust, user bool) {
	gen, build, decl := models.GenerateLogistic, func(d models.RegressionData) (*models.Built, error) { return models.Logistic(d, nil, nil) }, userLogistic
	if robust {
		gen, build, decl = models.GenerateRobust, func(d models.RegressionData) (*models.Built, error) { return models.Robust(d, nil, nil) }, userRobust
	}
	train, _, _, err := gen(rand.New(rand.NewPCG(2020, 1)), 20000, 40)
	if err != nil {
		b.Fatal(err)
	}
	var m nmc.Model
	if user {
		m, err = decl(train)
	} else {
		var built *models.Built
		built, err = build(train)
		if built != nil {
			m = built.Model
		}
	}
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := nmc.Sample(context.Background(), m, &nmc.Options{Warmup: nmc.NoWarmup, Chains: 2, Draws: 200, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRegressionBuiltinLogistic(b *testing.B) { regressionBench(b, false, false) }
func BenchmarkRegressionUserLogistic(b *testing.B)    { regressionBench(b, false, true) }
func BenchmarkRegressionBuiltinRobust(b *testing.B)   { regressionBench(b, true, false) }
func BenchmarkRegressionUserRobust(b *testing.B)      { regressionBench(b, true, true) }

// sweepBench times the scorer work of one sweep at a fixed state, without the
// sampler's randomness: for every site its score with gradient and Hessian at the
// state and at a moved state (as a proposal and its reverse), and the group's orbit
// score with derivatives at both. The state is the last of 50 draws of one chain.
func sweepBench(b *testing.B, robust, user bool) {
	gen, build, decl := models.GenerateLogistic, func(d models.RegressionData) (*models.Built, error) { return models.Logistic(d, nil, nil) }, userLogistic
	if robust {
		gen, build, decl = models.GenerateRobust, func(d models.RegressionData) (*models.Built, error) { return models.Robust(d, nil, nil) }, userRobust
	}
	train, _, _, err := gen(rand.New(rand.NewPCG(2020, 1)), 20000, 40)
	if err != nil {
		b.Fatal(err)
	}
	built, err := build(train)
	if err != nil {
		b.Fatal(err)
	}
	m := built.Model
	if user {
		if m, err = decl(train); err != nil {
			b.Fatal(err)
		}
	}
	res, err := nmc.Sample(context.Background(), built.Model, &nmc.Options{Warmup: nmc.NoWarmup, Chains: 1, Draws: 50, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	dim := nmc.Dim(m.Sites())
	c := res.Draws.Chains[0]
	x := c[len(c)-dim:]
	y := append([]float64(nil), x...)
	for i := range y {
		y[i] *= 1.001
	}
	sc := m.NewScorer()
	sites := m.Sites()
	grad, hess := make([]float64, 64), make([]float64, 64*64)
	var d [2]float64
	for b.Loop() {
		for _, p := range [][]float64{x, y} {
			for i, s := range sites {
				sc.Score(p, i, grad[:s.Size], hess[:s.Size*s.Size])
			}
			sc.(nmc.OrbitScorer).ScoreOrbit(p, 0, &d)
		}
	}
}

func BenchmarkSweepBuiltinLogistic(b *testing.B) { sweepBench(b, false, false) }
func BenchmarkSweepUserLogistic(b *testing.B)    { sweepBench(b, false, true) }
func BenchmarkSweepBuiltinRobust(b *testing.B)   { sweepBench(b, true, false) }
func BenchmarkSweepUserRobust(b *testing.B)      { sweepBench(b, true, true) }
