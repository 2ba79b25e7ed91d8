package graph

import (
	"math"
	"strings"
	"testing"
)

// TestShapeOpValues checks the values of Concat, Stack, Reshape and Components
// against the same arrangement made by hand, through a Deterministic quantity.
func TestShapeOpValues(t *testing.T) {
	b := New()
	a := b.Latent("a", Normal(C(0), C(1)))
	v := b.Vector("v", 3, Normal(C(0), C(1)))
	p := b.Latent("p", Normal(C(0), C(1)), 2, 2)
	b.Deterministic("concat", Concat(a, v, Exp(a)))
	b.Deterministic("stack", Stack(Index(v, []int{2, 0}), a, Data([]float64{7, 8})))
	b.Deterministic("reshape", Reshape(Stack(a, Index(v, []int{1}), C(5), Index(p, []int{3})), 2, 2))
	b.Deterministic("components", Components(Stack(Index(p, []int{2, 1}), Index(v, []int{0, 2}))))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0.5, 1, 2, 3, -1, -2, -3, -4} // a, v[0..2], p[0,0], p[0,1], p[1,0], p[1,1]
	got := make([]float64, len(m.DerivedNames()))
	m.Derive(x, got)
	want := []float64{
		0.5, 1, 2, 3, math.Exp(0.5), // concat
		3, 0.5, 7, 1, 0.5, 8, // stack: rows (v[2], a, 7), (v[0], a, 8)
		0.5, 2, 5, -4, // reshape
		-3, 1, -2, 3, // components of rows (p[1,0], v[0]), (p[0,1], v[2])
	}
	if len(got) != len(want) {
		t.Fatalf("%d values (%v), want %d", len(got), m.DerivedNames(), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s = %v, want %v", m.DerivedNames()[i], got[i], want[i])
		}
	}
}

// TestShapeOpErrors checks that Build names the operation and the problem.
func TestShapeOpErrors(t *testing.T) {
	cases := []struct {
		name string
		node func(v, w *Node) *Node
		want string
	}{
		{"concat-empty", func(v, w *Node) *Node { return Concat() }, "Concat: no nodes"},
		{"concat-width", func(v, w *Node) *Node { return Concat(v, w) }, "Concat: node 1 has width 3, node 0 width 1"},
		{"stack-width", func(v, w *Node) *Node { return Stack(v, w) }, "Stack: node 1 has width 3, want 1"},
		{"stack-length", func(v, w *Node) *Node { return Stack(v, Data([]float64{1, 2})) }, "Stack: node 1 has 2 elements, others 3"},
		{"reshape", func(v, w *Node) *Node { return Reshape(v, 2, 2) }, "Reshape: 3×1 components cannot be read as 2×2"},
		{"nil", func(v, w *Node) *Node { return Concat(v, nil) }, "Concat: operand 1 is a nil node"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := New()
			v := b.Vector("v", 3, Normal(C(0), C(1)))
			w := b.Latent("w", Dirichlet(Vec(1, 1, 1)))
			b.Deterministic("d", c.node(v, w))
			_, err := b.Build()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Build: %v, want an error containing %q", err, c.want)
			}
		})
	}
}
