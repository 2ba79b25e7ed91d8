package graph

import (
	"math"
	"testing"
)

// TestVariadicArgsCopied: a node made from a slice of nodes passed as nodes...
// keeps its own copy of the slice, so that a loop may fill the same slice again
// for its next step (a forward algorithm's terms): before, the nodes shared the
// caller's slice, the next step's nodes became their own arguments, and Build
// overflowed the stack walking the cycle.
func TestVariadicArgsCopied(t *testing.T) {
	b := New()
	x := b.Latent("x", Normal(C(0), C(1)))
	terms := make([]*Node, 2)
	acc := x
	for range 3 {
		terms[0], terms[1] = acc, C(0)
		acc = LogSumExp(terms...) // log(e^acc + 1)
	}
	sum := make([]*Node, 2)
	sum[0], sum[1] = x, C(1)
	cat := Concat(sum...)
	sum[0], sum[1] = C(5), C(6)
	b.Factor("f", acc)
	b.Deterministic("cat", cat)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	x0 := 0.3
	want := x0
	for range 3 {
		want = math.Log(math.Exp(want) + 1)
	}
	lj := m.NewScorer().LogJoint([]float64{x0})
	if got := lj - (-0.5*x0*x0 - 0.5*math.Log(2*math.Pi)); math.Abs(got-want) > 1e-12 {
		t.Errorf("factor = %v, want %v", got, want)
	}
	out := make([]float64, 2)
	m.Derive([]float64{x0}, out)
	if out[0] != x0 || out[1] != 1 {
		t.Errorf("Concat recorded %v, want [%v 1]", out, x0)
	}
}
