package models_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// The regressions as a user declares them in a program of their own, with the
// public graph API only (as in the README), against the built-in models.Logistic
// and models.Robust: 10,000 train rows, K = 40, the paper's generator, 2 chains ×
// 200 draws, group move on in both. Compare the pairs with benchstat:
//
//	go test -run '^$' -bench 'Regression(Builtin|User)' -count 5 ./models/

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
	b.Group("scale(alpha, beta)", graph.Dilate(alpha, 1), graph.Dilate(beta, 1))
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
		if _, err := nmc.Sample(context.Background(), m, &nmc.Options{Chains: 2, Draws: 200, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRegressionBuiltinLogistic(b *testing.B) { regressionBench(b, false, false) }
func BenchmarkRegressionUserLogistic(b *testing.B)    { regressionBench(b, false, true) }
func BenchmarkRegressionBuiltinRobust(b *testing.B)   { regressionBench(b, true, false) }
func BenchmarkRegressionUserRobust(b *testing.B)      { regressionBench(b, true, true) }
