package graph_test

import (
	"fmt"
	"log"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc/graph"
)

// A Bayesian logistic regression on four rows: an intercept (one scalar site) and a
// Vector site of two coefficients, moved together by one Newton step.
func ExampleBuilder() {
	x := mat.NewDense(4, 2, []float64{
		0.5, 1.0,
		-1.2, 0.3,
		0.8, -0.7,
		2.0, 0.1,
	})
	y := []float64{1, 0, 0, 1}

	b := graph.New()
	alpha := b.Latent("alpha", graph.Normal(graph.C(0), graph.C(10)))
	beta := b.Vector("beta", 2, graph.Normal(graph.C(0), graph.C(2.5)))
	b.Observe("y", graph.BernoulliLogit(graph.Add(alpha, graph.MatVec(x, beta))), y)
	m, err := b.Build()
	if err != nil {
		log.Fatal(err)
	}
	for i, s := range m.Sites() {
		fmt.Printf("%-5s size %d, %v, coordinates %v, blanket %d terms\n", s.Name, s.Size, s.Support, s.Coords(), m.Blanket(i))
	}
	// Output:
	// alpha size 1, real, coordinates [alpha], blanket 5 terms
	// beta  size 2, real, coordinates [beta[0] beta[1]], blanket 6 terms
}

// The Dawid-Skene model of annotators: each item has an unknown class z[i], each
// labeler l a confusion matrix whose row m, theta[l,m], is the distribution of the
// labels l gives to items of class m. Label j, given by labeler[j] to item[j], reads
// theta[labeler[j], z[item[j]]].
func ExampleAt() {
	const items, labelers, classes = 3, 2, 3
	item := []int{0, 0, 1, 2, 2}
	labeler := []int{0, 1, 0, 0, 1}
	label := []int{2, 2, 0, 1, 1}

	b := graph.New()
	pi := b.Latent("pi", graph.Dirichlet(graph.Vec(1, 1, 1)))
	z := b.Latent("z", graph.Categorical(pi), items)
	theta := b.Latent("theta", graph.Dirichlet(graph.Vec(2, 1, 1)), labelers, classes)
	b.ObserveInts("y", graph.Categorical(graph.At(theta, graph.By(labeler), graph.ByNode(graph.Index(z, item)))), label)
	m, err := b.Build()
	if err != nil {
		log.Fatal(err)
	}
	for i, s := range m.Sites() {
		if s.Name == "pi" || s.Name == "z[0]" || s.Name == "theta[1,2]" {
			fmt.Printf("%s: %v, coordinates %v, blanket %d terms\n", s.Name, s.Support, s.Coords(), m.Blanket(i))
		}
	}
	// Output:
	// pi: simplex, coordinates [pi[0] pi[1] pi[2]], blanket 4 terms
	// z[0]: discrete, coordinates [z[0]], blanket 3 terms
	// theta[1,2]: simplex, coordinates [theta[1,2,0] theta[1,2,1] theta[1,2,2]], blanket 3 terms
}

// The score of one site of a funnel, z ~ N(0, 3), x ~ N(0, exp(z/2)), with its exact
// gradient and Hessian. By hand, f(z) = −log(2π) − log 3 − z²/18 − z/2 − x²e^(−z)/2,
// f′(z) = −z/9 − 1/2 + x²e^(−z)/2 and f″(z) = −1/9 − x²e^(−z)/2; at z = 1, x = 0.5
// these are −3.5380, −0.5651 and −0.1571.
func ExampleModel_NewScorer() {
	b := graph.New()
	z := b.Latent("z", graph.Normal(graph.C(0), graph.C(3)))
	b.Latent("x", graph.Normal(graph.C(0), graph.Exp(graph.Mul(z, graph.C(0.5)))))
	m, err := b.Build()
	if err != nil {
		log.Fatal(err)
	}
	state := []float64{1, 0.5} // z, x
	g, h := make([]float64, 1), make([]float64, 1)
	f := m.NewScorer().Score(state, 0, g, h)
	fmt.Printf("f = %.4f, g = %.4f, H = %.4f\n", f, g[0], h[0])
	// Output:
	// f = -3.5380, g = -0.5651, H = -0.1571
}
