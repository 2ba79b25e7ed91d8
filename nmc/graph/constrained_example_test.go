package graph_test

import (
	"fmt"
	"log"

	"github.com/nmc-go/nmc/nmc/graph"
)

// A two-component normal mixture with ordered means (Stan's ordered[2] mu and
// log_mix) and a GARCH-style bound β < 1 − α. The sampler moves the raw sites
// (mu__raw: μ₁ and the gap μ₂ − μ₁; beta__raw: β's fraction of (0, 1 − α)); the
// draws record the constrained values under the latents' names as derived columns.
func ExampleBuilder_Ordered() {
	y := graph.Data([]float64{-2.1, -1.8, -2.4, 1.9, 2.2, 2.0, 1.7})
	b := graph.New()
	lambda := b.Latent("lambda", graph.Beta(graph.C(2), graph.C(2)))
	mu := b.Ordered("mu", 2, graph.Normal(graph.C(0), graph.C(10)))
	sigma := b.Latent("sigma", graph.HalfNormal(graph.C(1)))
	b.Factor("y", graph.LogMix(lambda,
		graph.LogDensity(graph.Normal(graph.Index(mu, []int{0}), sigma), y),
		graph.LogDensity(graph.Normal(graph.Index(mu, []int{1}), sigma), y)))
	alpha := b.Latent("alpha", graph.Uniform(graph.C(0), graph.C(1)))
	b.Bounded("beta", graph.C(0), graph.Sub(graph.C(1), alpha), graph.Flat())
	m, err := b.Build()
	if err != nil {
		log.Fatal(err)
	}
	var sites []string
	for _, s := range m.Sites() {
		sites = append(sites, s.Name)
	}
	fmt.Println(sites)
	fmt.Println(m.DerivedNames())
	// λ = 0.4, μ₁ = −2, gap 4, σ = 0.5, α = 0.3, fraction 0.5 of (0, 0.7).
	x := []float64{0.4, -2, 4, 0.5, 0.3, 0.5}
	derived := make([]float64, len(m.DerivedNames()))
	m.Derive(x, derived)
	fmt.Println(derived)

	// A node bound of the wrong width is refused, naming the latent.
	b2 := graph.New()
	b2.Bounded("z", graph.Vec(0, 1), nil, graph.Flat())
	_, err = b2.Build()
	fmt.Println(err)
	// Output:
	// [lambda mu__raw[0] mu__raw[1] sigma alpha beta__raw]
	// [mu[0] mu[1] beta]
	// [-2 2 0.35]
	// graph: bounded "z": lower bound has 1 elements of width 2, want one scalar element
}
