package graph_test

import (
	"fmt"
	"log"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// Neal's funnel with its group move: z is shifted by 2t and x dilated by e^t, so
// that x/e^{z/2} is unchanged along the orbit. The scorer gives the exact first and
// second derivatives of the log density along the orbit.
func ExampleBuilder_Group() {
	b := graph.New()
	z := b.Latent("z", graph.Normal(graph.C(0), graph.C(3)))
	x := b.Latent("x", graph.Normal(graph.C(0), graph.Exp(graph.Mul(z, graph.C(0.5)))))
	b.Group("funnel", graph.Shift(z, 2), graph.Dilate(x, 1))
	m, err := b.Build()
	if err != nil {
		log.Fatal(err)
	}
	for _, g := range m.Groups() {
		fmt.Println(g.Name, g.Coords)
	}
	// Along the orbit only z's prior changes: f(t) = −(z + 2t)²/18 − z/2 − t + const,
	// so df/dt = −2z/9 − 1 and d²f/dt² = −4/9.
	var d [2]float64
	m.NewScorer().(nmc.OrbitScorer).ScoreOrbit([]float64{1.5, 0.4}, 0, &d)
	fmt.Printf("df/dt = %.4f, d²f/dt² = %.4f\n", d[0], d[1])

	// An orbit that leaves a site's support is refused.
	b2 := graph.New()
	s := b2.Latent("sigma", graph.HalfNormal(graph.C(1)))
	b2.Group("bad", graph.Shift(s, 1))
	_, err = b2.Build()
	fmt.Println(err)
	// Output:
	// funnel [{0 shift 2 -1} {1 dilate 1 -1}]
	// df/dt = -1.3333, d²f/dt² = -0.4444
	// graph: group "bad": the shift of site "sigma" (positive support) can leave its support: a shift can take it to 0 or below; dilate it about 0 instead
}
