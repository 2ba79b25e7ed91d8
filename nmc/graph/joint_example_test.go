package graph_test

import (
	"fmt"
	"strings"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// Dawid-Skene in miniature with its class weights pi and confusion rows theta in the
// Hamiltonian block: the classes z are summed out, and one call of the scorer's
// JointGrad gives the log joint and its gradient in every coordinate of the block
// (pi's two, then theta's two per row), which Hamiltonian Monte Carlo moves together.
func ExampleBuilder_Hamiltonian() {
	item := []int{0, 0, 1, 1, 2, 2, 3, 3}
	labeler := []int{0, 1, 0, 1, 0, 1, 0, 1}
	label := []int{0, 0, 1, 1, 0, 1, 1, 1}
	b := graph.New()
	pi := b.Latent("pi", graph.Dirichlet(graph.Vec(1, 1)))
	z := b.Latent("z", graph.Categorical(pi), 4)
	theta := b.Latent("theta", graph.Dirichlet(graph.Vec(2, 2)), 2, 2) // [labeler, class]
	b.ObserveInts("y", graph.Categorical(graph.At(theta, graph.By(labeler), graph.ByNode(graph.Index(z, item)))), label)
	b.Marginalise(z)
	b.Hamiltonian(pi, theta)
	m, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	sites := m.HamiltonianSites()
	var names []string
	for _, i := range sites {
		names = append(names, m.Sites()[i].Name)
	}
	fmt.Println(strings.Join(names, " "))
	// pi, z (summed out: any class), then theta row by row.
	x := []float64{0.6, 0.4, 0, 0, 0, 0, 0.8, 0.2, 0.3, 0.7, 0.9, 0.1, 0.25, 0.75}
	grad := make([]float64, 10)
	lp := m.NewScorer().(nmc.JointGradienter).JointGrad(x, sites, grad, true)
	fmt.Printf("log joint %.4f\n", lp)
	fmt.Printf("gradient %.4f\n", grad)
	// Output:
	// pi theta[0,0] theta[0,1] theta[1,0] theta[1,1]
	// log joint -6.0710
	// gradient [2.3183 6.5225 2.8536 5.5405 5.7237 4.1313 2.1501 14.5593 4.2597 4.7254]
}
