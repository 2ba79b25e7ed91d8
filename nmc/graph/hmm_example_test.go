package graph_test

import (
	"context"
	"fmt"
	"log"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// A two-state hidden Markov model of counts with Poisson emissions and ordered
// rates (the second rate is the first plus a positive gap): the states are summed
// out of the log density and recorded with every draw.
func ExampleBuilder_HiddenMarkov() {
	y := []float64{0, 1, 0, 2, 9, 7, 11, 8, 1, 0, 2, 10, 9}

	b := graph.New()
	lambda1 := b.Latent("lambda1", graph.Gamma(graph.C(2), graph.C(0.5)))
	gap := b.Latent("gap", graph.Gamma(graph.C(2), graph.C(0.5)))
	lambda2 := graph.Add(lambda1, gap)
	gamma := b.Latent("Gamma", graph.Dirichlet(graph.Vec(1, 1)), 2) // row i: P(next | i)
	rho := b.Latent("rho", graph.Dirichlet(graph.Vec(1, 1)))
	logOmega := graph.Stack(graph.LogDensity(graph.Poisson(lambda1), y), graph.LogDensity(graph.Poisson(lambda2), y))
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
	fmt.Println(names[:7], "…", names[len(names)-1])

	// The posterior probability that the count 9 at t = 4 came from the high state.
	col := len(names) - len(y) + 4
	high, n := 0.0, 0
	for _, chain := range res.Draws.Chains {
		for d := 0; d < len(chain)/len(names); d++ {
			high += chain[d*len(names)+col]
			n++
		}
	}
	fmt.Printf("P(z[4] = 1 | y) > 0.99: %v\n", high/float64(n) > 0.99)
	// Output:
	// [lambda1 gap Gamma[0,0] Gamma[0,1] Gamma[1,0] Gamma[1,1] rho[0]] … z[12]
	// P(z[4] = 1 | y) > 0.99: true
}
