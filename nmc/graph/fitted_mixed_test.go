package graph_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// poissonVarying declares a Poisson regression with 30 varying intercepts of 20
// rows each, y ~ PoissonLog(a[g] + b1·x), a ~ Normal(b0, sigma) (simulated with
// b0 = 0.5, b1 = 0.3, sigma = 0.8, x ~ N(1, 1)).
func poissonVarying() *graph.Builder {
	rng := rand.New(rand.NewPCG(7, 9))
	const rows, groups = 600, 30
	a := make([]float64, groups)
	for j := range a {
		a[j] = 0.8 * rng.NormFloat64()
	}
	x, g, y := make([]float64, rows), make([]int, rows), make([]int, rows)
	for i := range rows {
		g[i], x[i] = i%groups, 1+rng.NormFloat64()
		lambda := math.Exp(0.5 + a[g[i]] + 0.3*x[i])
		for p := rng.Float64(); p > math.Exp(-lambda); p *= rng.Float64() {
			y[i]++
		}
	}
	b := graph.New()
	b0 := b.Latent("b0", graph.Normal(graph.C(0), graph.C(5)))
	b1 := b.Latent("b1", graph.Normal(graph.C(0), graph.C(5)))
	sigma := b.Latent("sigma", graph.HalfNormal(graph.C(1)))
	an := b.Latent("a", graph.Normal(b0, sigma), groups)
	b.ObserveInts("y", graph.PoissonLog(graph.Add(graph.Index(an, g), graph.Mul(b1, graph.Data(x)))), y)
	return b
}

// TestFittedLeftToSitesTogether checks that the fitted steps of a group's block
// are left out when its sites' Newton steps accept at least 90% of their warm-up
// proposals together, although some site accepts less: on poissonVarying every
// intercept's step accepts 88–96% and the groups' 99%, and the fitted steps (which
// replaced the sites' steps on most sweeps) halved the least bulk ESS per CPU
// second.
func TestFittedLeftToSitesTogether(t *testing.T) {
	m, err := poissonVarying().Build()
	if err != nil {
		t.Fatal(err)
	}
	res, err := nmc.Sample(context.Background(), m, &nmc.Options{Chains: 4, Draws: 1000, Seed: 1, Warmup: nmc.AutoWarmup})
	if err != nil {
		t.Fatal(err)
	}
	fitted := 0
	for _, s := range res.Moves {
		if !strings.HasPrefix(s.Name, "fitted(") {
			continue
		}
		fitted++
		if s.Proposals != 0 || !strings.Contains(s.Unused, "accepted at least 90% of their warm-up proposals together") {
			t.Errorf("%s: %d proposals, Unused %q; want none, left to its sites", s.Name, s.Proposals, s.Unused)
		}
	}
	if fitted == 0 {
		t.Fatal("no fitted block planned")
	}
}
