package graph

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestIndexedNames: a scalar declared with an indexed name (a recursion's states
// declared one by one) is recorded under that name, as a plate's site would be;
// every other use of indices, malformed names and names whose columns would mix
// are refused, and the error says what to write.
func TestIndexedNames(t *testing.T) {
	b := New()
	var prev *Node = C(0)
	for i := 0; i < 3; i++ {
		prev = b.Latent("x["+string(rune('0'+i))+"]", Normal(prev, C(1)))
	}
	b.Latent("S[1,0]", Gamma(C(2), C(1)))
	b.Deterministic("mu[2]", Mul(prev, C(2)))
	b.Factor("lp[0]", Neg(Mul(prev, prev)))
	b.Observe("y[0]", Normal(prev, C(1)), []float64{0.5})
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var sites, coords []string
	for _, s := range m.Sites() {
		sites = append(sites, s.Name)
		coords = append(coords, s.CoordNames...)
	}
	want := []string{"x[0]", "x[1]", "x[2]", "S[1,0]"}
	if !slices.Equal(sites, want) || !slices.Equal(coords, want) {
		t.Errorf("sites %v, coordinates %v, want %v", sites, coords, want)
	}
	if got := m.DerivedNames(); !slices.Equal(got, []string{"mu[2]"}) {
		t.Errorf("derived names %v, want [mu[2]]", got)
	}
	if got := m.ObservedNames(); !slices.Equal(got, []string{"y[0]"}) {
		t.Errorf("observed names %v, want [y[0]]", got)
	}
	if off, n, err := m.Offset("x[1]"); err != nil || off != 1 || n != 1 {
		t.Errorf("Offset(x[1]) = %d, %d, %v", off, n, err)
	}
	x := make([]float64, m.dim)
	if err := m.Init(rand.New(rand.NewPCG(1, 1)), x); err != nil {
		t.Fatal(err)
	}

	std := func(b *Builder) *Node { return b.Latent("a", Normal(C(0), C(1))) }
	for _, c := range []struct {
		name string
		decl func(b *Builder)
		want []string
	}{
		{"leading zero", func(b *Builder) { b.Latent("z[01]", Normal(C(0), C(1))) }, []string{"invalid", `"z[01]"`, "z[3]"}},
		{"sign", func(b *Builder) { b.Latent("z[-1]", Normal(C(0), C(1))) }, []string{"invalid", `"z[-1]"`}},
		{"space", func(b *Builder) { b.Latent("z[1, 2]", Normal(C(0), C(1))) }, []string{"invalid", `"z[1, 2]"`}},
		{"two brackets", func(b *Builder) { b.Latent("z[1][2]", Normal(C(0), C(1))) }, []string{"invalid", `"z[1][2]"`}},
		{"unclosed", func(b *Builder) { b.Latent("z[1", Normal(C(0), C(1))) }, []string{"invalid", `"z[1"`}},
		{"no base", func(b *Builder) { b.Latent("[1]", Normal(C(0), C(1))) }, []string{"invalid", `"[1]"`}},
		{"empty index", func(b *Builder) { b.Latent("z[]", Normal(C(0), C(1))) }, []string{"invalid", `"z[]"`}},
		{"plate", func(b *Builder) { b.Latent("z[0]", Normal(C(0), C(1)), 2) }, []string{`"z[0]"`, "one scalar", `Latent("z", d, n)`}},
		{"vector", func(b *Builder) { b.Vector("v[0]", 2, Normal(C(0), C(1))) }, []string{`"v[0]"`, "one scalar"}},
		{"simplex", func(b *Builder) { b.Latent("w[0]", Dirichlet(Vec(1, 1))) }, []string{`"w[0]"`, "one scalar"}},
		{"observation of several", func(b *Builder) {
			a := std(b)
			b.Observe("y[0]", Normal(a, C(1)), []float64{1, 2})
		}, []string{`"y[0]"`, "one scalar"}},
		{"deterministic of several", func(b *Builder) {
			a := std(b)
			b.Deterministic("d[0]", Add(a, Data([]float64{1, 2})))
		}, []string{`"d[0]"`, "one scalar"}},
		{"plain then indexed", func(b *Builder) {
			b.Latent("z", Normal(C(0), C(1)), 2)
			b.Latent("z[2]", Normal(C(0), C(1)))
		}, []string{`"z[2]"`, `"z" is declared without indices`}},
		{"indexed then plain", func(b *Builder) {
			b.Latent("z[2]", Normal(C(0), C(1)))
			b.Deterministic("z", C(1))
		}, []string{`"z" is declared with indices`}},
		{"ranks", func(b *Builder) {
			b.Latent("z[2]", Normal(C(0), C(1)))
			b.Latent("z[0,1]", Normal(C(0), C(1)))
		}, []string{`"z[0,1]"`, "1 indices elsewhere, not 2"}},
		{"duplicate", func(b *Builder) {
			b.Latent("z[2]", Normal(C(0), C(1)))
			b.Latent("z[2]", Normal(C(0), C(1)))
		}, []string{"duplicate", `"z[2]"`}},
	} {
		err := buildErr(t, c.decl)
		if err == nil {
			t.Errorf("%s: Build accepted the model", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", c.name, err, w)
			}
		}
	}
}
