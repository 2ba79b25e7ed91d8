package graph_test

import (
	"context"
	"fmt"
	"log"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// A two-state hidden Markov model of counts with Poisson emissions and ordered
// rates (Stan's positive_ordered): the states are summed out of the log density and
// recorded with every draw.
func ExampleBuilder_HiddenMarkov() {
	y := graph.Data([]float64{0, 1, 0, 2, 9, 7, 11, 8, 1, 0, 2, 10, 9})

	b := graph.New()
	lambda := b.PositiveOrdered("lambda", 2, graph.Gamma(graph.C(2), graph.C(0.5)))
	gamma := b.Latent("Gamma", graph.Dirichlet(graph.Vec(1, 1)), 2) // row i: P(next | i)
	rho := b.Latent("rho", graph.Dirichlet(graph.Vec(1, 1)))
	logOmega := graph.Stack(
		graph.LogDensity(graph.Poisson(graph.Index(lambda, []int{0})), y),
		graph.LogDensity(graph.Poisson(graph.Index(lambda, []int{1})), y))
	b.HiddenMarkov("z", logOmega, gamma, rho)
	m, err := b.Build()
	if err != nil {
		log.Fatal(err)
	}
	res, err := nmc.Sample(context.Background(), m, &nmc.Options{Chains: 2, Draws: 1000, Warmup: 200, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	names := res.Draws.Names
	fmt.Println(names[:9], "…", names[len(names)-1])

	// The posterior probability that the count 9 at t = 4 came from the high state.
	col := len(names) - y.Len() + 4
	high, n := 0.0, 0
	for _, chain := range res.Draws.Chains {
		for d := 0; d < len(chain)/len(names); d++ {
			high += chain[d*len(names)+col]
			n++
		}
	}
	fmt.Printf("P(z[4] = 1 | y) > 0.99: %v\n", high/float64(n) > 0.99)
	// Output:
	// [lambda__raw[0] lambda__raw[1] Gamma[0,0] Gamma[0,1] Gamma[1,0] Gamma[1,1] rho[0] rho[1] lambda[0]] … z[12]
	// P(z[4] = 1 | y) > 0.99: true
}
