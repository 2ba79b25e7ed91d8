package graph_test

import (
	"context"
	"fmt"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// Dawid-Skene in miniature: two labelers label four items; the classes z are summed
// out and each labeler's confusion rows theta are augmented, so that every sweep
// draws the classes and then each row from its exact Dirichlet conditional given
// them (an exact Gibbs draw: every step accepted).
func ExampleBuilder_Augment() {
	item := []int{0, 0, 1, 1, 2, 2, 3, 3}
	labeler := []int{0, 1, 0, 1, 0, 1, 0, 1}
	label := []int{0, 0, 1, 1, 0, 1, 1, 1}
	b := graph.New()
	pi := b.Latent("pi", graph.Dirichlet(graph.Vec(1, 1)))
	z := b.Latent("z", graph.Categorical(pi), 4)
	theta := b.Latent("theta", graph.Dirichlet(graph.Vec(2, 2)), 2, 2) // [labeler, class]
	b.ObserveInts("y", graph.Categorical(graph.At(theta, graph.By(labeler), graph.ByNode(graph.Index(z, item)))), label)
	b.Marginalise(z)
	b.Augment(theta)
	m, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := nmc.Sample(context.Background(), m, &nmc.Options{Chains: 1, Draws: 100, Warmup: 10, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, st := range res.Sites[:2] {
		fmt.Printf("%s: %s\n", st.Name, st.Proposer)
	}
	theta00 := res.Sites[len(res.Sites)-4]
	fmt.Printf("%s: %s, %d of %d accepted\n", theta00.Name, theta00.Proposer, theta00.Accepted, theta00.Proposals)
	// Output:
	// pi: dirichlet
	// z[0]: marginal-draw
	// theta[0,0]: dirichlet-augmented, 220 of 220 accepted
}
