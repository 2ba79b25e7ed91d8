package graph_test

import (
	"math"
	"slices"
	"testing"

	"github.com/nmc-go/nmc/nmc/graph"
)

// TestMemoScalarOfGeneralNode: a node the scalar path evaluates through the
// general path (an HMMMarginal) and memoises, because two factors read it, is kept
// in scalar form; scoring a scalar site reads it twice, and the package's tests'
// memo verification (every hit evaluated again and compared) must accept the kept
// jet, which is the evaluated one in scalar form. Found by FuzzModel: the
// verification compared the forms and panicked. The score is twice the one of the
// model with one factor.
func TestMemoScalarOfGeneralNode(t *testing.T) {
	build := func(factors int) *graph.Model {
		b := graph.New()
		v := b.Latent("v", graph.Normal(graph.C(0), graph.C(1)))
		h := graph.HMMMarginal(graph.Stack(v, graph.C(0.5)),
			graph.Rows([][]float64{{0.6, 0.4}, {0.3, 0.7}}), graph.Rows([][]float64{{0.5, 0.5}}))
		for i := range factors {
			b.Factor([]string{"a", "b"}[i], h)
		}
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	one, two := build(1).NewScorer(), build(2).NewScorer()
	x := []float64{0.3}
	prior := -0.5*0.3*0.3 - 0.5*math.Log(2*math.Pi)
	var g1, h1, g2, h2 [1]float64
	f1 := one.Score(x, 0, g1[:], h1[:])
	f2 := two.Score(x, 0, g2[:], h2[:])
	if d := (f2 - prior) - 2*(f1-prior); math.Abs(d) > 1e-12 {
		t.Errorf("score with the marginal read twice %v, with it once %v (prior %v)", f2, f1, prior)
	}
	if d := (g2[0] + 0.3) - 2*(g1[0]+0.3); math.Abs(d) > 1e-12 {
		t.Errorf("gradient with the marginal read twice %v, with it once %v", g2[0], g1[0])
	}
	if d := (h2[0] + 1) - 2*(h1[0]+1); math.Abs(d) > 1e-12 {
		t.Errorf("Hessian with the marginal read twice %v, with it once %v", h2[0], h1[0])
	}
	if f0 := two.Score(x, 0, nil, nil); f0 != f2 {
		t.Errorf("score without derivatives %v, with %v", f0, f2)
	}
}

// TestDepsOfLaterFamilies: Build finds each family's support in turn, and finding
// one evaluates its constant parameters; a CholeskyMul among them collects the
// sites its covariance depends on, and the plan then finds (once, and keeps) the
// site sets of every memoised node, a later family's ordered values among them. The
// later family's sites must be numbered by then: found by FuzzModel, the ordered
// values' prior was in the blankets of z's sites (sites 0 and 1) instead of its own,
// whose scores were 0.
func TestDepsOfLaterFamilies(t *testing.T) {
	b := graph.New()
	pts := graph.Data([]float64{-1, -0.5, 0})
	k := graph.AddDiag(graph.ExpQuadCov(pts, graph.C(0.5), graph.C(0.5)), graph.C(0.5))
	b.Latent("z", graph.Normal(graph.CholeskyMul(k, pts), graph.C(1)), 3)
	b.PositiveOrdered("o", 2, graph.Normal(graph.C(-2), graph.C(0.5)))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]int{{0}, {1}, {2}, {3, 4}, {3, 4}} {
		if got := m.Neighbors(i); !slices.Equal(got, want) {
			t.Errorf("site %s: neighbors %v, want %v", m.Sites()[i].Name, got, want)
		}
	}
	x := []float64{0.1, 0.2, 0.3, 0.5, 0.7} // o = (0.5, 1.2)
	normal := func(y float64) float64 { z := (y + 2) / 0.5; return -0.5*z*z - math.Log(0.5) - 0.5*math.Log(2*math.Pi) }
	sc := m.NewScorer()
	if got, want := sc.Score(x, 3, nil, nil), normal(0.5)+normal(1.2); math.Abs(got-want) > 1e-12 {
		t.Errorf("score of o__raw[0] %v, want %v", got, want)
	}
	if got, want := sc.Score(x, 4, nil, nil), normal(1.2); math.Abs(got-want) > 1e-12 {
		t.Errorf("score of o__raw[1] %v, want %v", got, want)
	}
}
