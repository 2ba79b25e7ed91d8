package graph_test

import (
	"fmt"

	"github.com/nmc-go/nmc/nmc/graph"
)

// A two-component normal mixture with its classes summed out: the weights w and the
// means mu are scored through log Σ_k w_k N(y_i | mu_k, 1), and each class z[i] is
// still recorded, drawn from its exact conditional after every sweep.
func ExampleBuilder_Marginalise() {
	y := []float64{-2.1, -1.4, 0.3, 2.2, 2.9}
	b := graph.New()
	w := b.Latent("w", graph.Dirichlet(graph.Vec(2, 2)))
	mu := b.Latent("mu", graph.Normal(graph.C(0), graph.C(5)), 2)
	z := b.Latent("z", graph.Categorical(w), len(y))
	b.Observe("y", graph.Normal(graph.At(mu, graph.ByNode(z)), graph.C(1)), y)
	b.Marginalise(z)
	m, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, s := range m.Sites() {
		fmt.Printf("%s marginalised: %v, blanket: %d elements\n", s.Name, s.Marginalised, m.Blanket(i))
		if i == 3 {
			break
		}
	}
	// Output:
	// w marginalised: false, blanket: 11 elements
	// mu[0] marginalised: false, blanket: 11 elements
	// mu[1] marginalised: false, blanket: 11 elements
	// z[0] marginalised: true, blanket: 2 elements
}
