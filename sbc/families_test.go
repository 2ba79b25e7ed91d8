package sbc_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
	"github.com/nmc-go/nmc/sbc"
)

// graphSimulator returns the simulator of a model declared by build: the
// parameters and data drawn from the model's prior predictive (build given
// placeholder data, n ones, in every family's support), then the model built on
// those data; vars are the coordinates ranked.
func graphSimulator(build func(y []float64) *graph.Builder, n int, vars []string) sbc.Simulator {
	return func(rng *rand.Rand) (nmc.Model, map[string]float64, error) {
		ones := make([]float64, n)
		for i := range ones {
			ones[i] = 1
		}
		prior, err := build(ones).Build()
		if err != nil {
			return nil, nil, err
		}
		sites := prior.Sites()
		x := make([]float64, nmc.Dim(sites))
		y := make([]float64, prior.NumReplicated())
		if err := prior.PriorPredictive(rng, x, y); err != nil {
			return nil, nil, err
		}
		m, err := build(y).Build()
		if err != nil {
			return nil, nil, err
		}
		offsets := nmc.Offsets(sites)
		byName := map[string]float64{}
		for i, s := range sites {
			for c, name := range s.CoordNames {
				byName[name] = x[offsets[i]+c]
			}
		}
		truth := map[string]float64{}
		for _, v := range vars {
			val, ok := byName[v]
			if !ok {
				return nil, nil, fmt.Errorf("no coordinate %q", v)
			}
			truth[v] = val
		}
		return m, truth, nil
	}
}

// counts returns y as integers (the prior predictive's draws of a count).
func counts(y []float64) []int {
	out := make([]int, len(y))
	for i, v := range y {
		out[i] = int(v)
	}
	return out
}

// covariate is a fixed covariate of n rows in [−1.5, 1.5].
func covariate(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = -1.5 + 3*float64(i)/float64(n-1)
	}
	return x
}

// TestFamiliesCalibrated runs SBC on small models of the families Stan users reach
// for after the Normal and Poisson ones, each observed through the graph API: a
// negative binomial regression (NegBinomial2Log), a negative binomial mean
// (NegBinomial2), Weibull survival times, logistic errors, an ordinal
// regression (OrderedLogistic, its cutpoints c₀ and increasing gaps) and a
// multinomial logistic regression (CategoricalLogits of a Stack of MatVecs, whose
// coefficient block is scored in one pass). A wrong
// log density would bend the ranks (the derivatives only steer the proposals,
// whose densities the acceptance ratio takes; package dist checks them against
// hyperdual numbers and finite differences).
func TestFamiliesCalibrated(t *testing.T) {
	t.Parallel()
	x := covariate(30)
	design := mat.NewDense(len(x), 2, nil) // an intercept and the covariate
	for i, v := range x {
		design.Set(i, 0, 1)
		design.Set(i, 1, v)
	}
	cases := []struct {
		name  string
		n     int
		vars  []string
		build func(y []float64) *graph.Builder
	}{
		{"NegBinomial2Log regression", len(x), []string{"alpha", "beta", "phi"}, func(y []float64) *graph.Builder {
			b := graph.New()
			alpha := b.Latent("alpha", graph.Normal(graph.C(1), graph.C(0.5)))
			beta := b.Latent("beta", graph.Normal(graph.C(0), graph.C(0.5)))
			phi := b.Latent("phi", graph.Gamma(graph.C(4), graph.C(1)))
			b.ObserveInts("y", graph.NegBinomial2Log(graph.Add(alpha, graph.Mul(beta, graph.Data(x))), phi), counts(y))
			return b
		}},
		{"NegBinomial2 mean", 20, []string{"mu", "phi"}, func(y []float64) *graph.Builder {
			b := graph.New()
			mu := b.Latent("mu", graph.LogNormal(graph.C(1.5), graph.C(0.5)))
			phi := b.Latent("phi", graph.LogNormal(graph.C(0), graph.C(0.7)))
			b.ObserveInts("y", graph.NegBinomial2(mu, phi), counts(y))
			return b
		}},
		{"Weibull", 20, []string{"alpha", "sigma"}, func(y []float64) *graph.Builder {
			b := graph.New()
			alpha := b.Latent("alpha", graph.LogNormal(graph.C(0.3), graph.C(0.3)))
			sigma := b.Latent("sigma", graph.LogNormal(graph.C(0), graph.C(0.5)))
			b.Observe("y", graph.Weibull(alpha, sigma), y)
			return b
		}},
		{"logistic", 20, []string{"mu", "s"}, func(y []float64) *graph.Builder {
			b := graph.New()
			mu := b.Latent("mu", graph.Normal(graph.C(0), graph.C(1)))
			s := b.Latent("s", graph.HalfNormal(graph.C(1)))
			b.Observe("y", graph.LogisticDist(mu, s), y)
			return b
		}},
		{"ordinal regression", len(x), []string{"beta", "c0", "gap[0]", "gap[1]"}, func(y []float64) *graph.Builder {
			b := graph.New()
			beta := b.Latent("beta", graph.Normal(graph.C(0), graph.C(1)))
			c0 := b.Latent("c0", graph.Normal(graph.C(-1), graph.C(1)))
			gap := b.Latent("gap", graph.Gamma(graph.C(3), graph.C(2)), 2)
			c1 := graph.Add(c0, graph.Index(gap, []int{0}))
			c2 := graph.Add(c1, graph.Index(gap, []int{1}))
			b.ObserveInts("y", graph.OrderedLogistic(graph.Mul(beta, graph.Data(x)), graph.Stack(c0, c1, c2)), counts(y))
			return b
		}},
		{"multinomial logistic regression", len(x), []string{"b1[0]", "b1[1]", "b2[0]", "b2[1]"}, func(y []float64) *graph.Builder {
			b := graph.New()
			b1 := b.Vector("b1", 2, graph.Normal(graph.C(0), graph.C(1)))
			b2 := b.Vector("b2", 2, graph.Normal(graph.C(0), graph.C(1)))
			b.ObserveInts("y", graph.CategoricalLogits(graph.Stack(graph.C(0), graph.MatVec(design, b1), graph.MatVec(design, b2))), counts(y))
			return b
		}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res, err := sbc.Run(context.Background(), sbc.Config{Simulator: graphSimulator(c.build, c.n, c.vars), Sims: sims, Seed: 40 + uint64(i)})
			if err != nil {
				t.Fatal(err)
			}
			checkUniform(t, c.name, res)
		})
	}
}
