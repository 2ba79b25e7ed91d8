package graph_test

import (
	"fmt"
	"log"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc/graph"
)

// An ordinal logistic regression as Stan writes it (vector[2] beta; ordered[2] c;
// y ~ ordered_logistic(x * beta, c)), categories 0-based: the Ordered latent's
// three elements are taken as the vector of cutpoints. The log joint at a state is
// the priors plus Σ log(σ(η − c_{y−1}) − σ(η − c_y)).
func ExampleOrderedLogistic() {
	x := mat.NewDense(4, 2, []float64{1, 0.5, -0.3, 1, 0.8, -1, -1.2, 0.2})
	y := []int{2, 1, 0, 0}
	b := graph.New()
	beta := b.Vector("beta", 2, graph.Normal(graph.C(0), graph.C(2.5)))
	c := b.Ordered("c", 2, graph.Normal(graph.C(0), graph.C(5)))
	b.ObserveInts("y", graph.OrderedLogistic(graph.MatVec(x, beta), c), y)
	m, err := b.Build()
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range m.Sites() {
		fmt.Println(s.Name, s.Size, s.Support)
	}
	// beta = (0.5, −0.2), c = (−0.4, −0.4 + 1.1): the raw sites hold c₀ and the gap.
	state := []float64{0.5, -0.2, -0.4, 1.1}
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	cuts := []float64{-0.4, 0.7}
	normal := func(v, sd float64) float64 { return -0.5*(v/sd)*(v/sd) - math.Log(sd) - 0.5*math.Log(2*math.Pi) }
	want := normal(0.5, 2.5) + normal(-0.2, 2.5) + normal(-0.4, 5) + normal(0.7, 5) // the priors
	for i, yi := range y {
		eta := 0.5*x.At(i, 0) - 0.2*x.At(i, 1)
		hi, lo := 1.0, 0.0
		if yi > 0 {
			hi = sig(eta - cuts[yi-1])
		}
		if yi < 2 {
			lo = sig(eta - cuts[yi])
		}
		want += math.Log(hi - lo)
	}
	got := m.NewScorer().LogJoint(state)
	fmt.Printf("log joint %.8f, by hand %.8f\n", got, want)
	// Output:
	// beta 2 real
	// c__raw[0] 1 real
	// c__raw[1] 1 positive
	// log joint -12.88464842, by hand -12.88464842
}
