package graph

import (
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// deriveModel builds a model with two deterministic quantities: a non-centred
// effect mu + tau·raw and a product X·beta (whose scorer keeps a MatVec cache).
func deriveModel(t *testing.T) *Model {
	t.Helper()
	b := New()
	mu := b.Latent("mu", Normal(C(0), C(5)))
	tau := b.Latent("tau", HalfCauchy(C(5)))
	raw := b.Latent("raw", Normal(C(0), C(1)), 3)
	beta := b.Vector("beta", 2, Normal(C(0), C(1)))
	b.Deterministic("theta", Add(mu, Mul(tau, raw)))
	b.Deterministic("eta", MatVec(mat.NewDense(3, 2, []float64{1, 2, -1, 0.5, 3, -2}), beta))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDeriveReusedScorers checks that Derive, which reuses its value scorers across
// calls and goroutines, gives at every state exactly what a model that has never
// derived anything gives there, called in sequence and from concurrent goroutines.
func TestDeriveReusedScorers(t *testing.T) {
	m := deriveModel(t)
	nd := len(m.DerivedNames())
	if nd != 6 {
		t.Fatalf("%d derived names, want 6", nd)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const states = 40
	xs := make([][]float64, states)
	want := make([][]float64, states)
	for k := range xs {
		xs[k] = make([]float64, m.dim)
		if err := m.Init(rng, xs[k]); err != nil {
			t.Fatal(err)
		}
		if k%4 == 3 { // now and then the state before it again (a MatVec cache hit)
			copy(xs[k], xs[k-2])
		}
		want[k] = make([]float64, nd)
		deriveModel(t).Derive(xs[k], want[k])
	}
	check := func(k int, got []float64) {
		for j := range got {
			if got[j] != want[k][j] {
				t.Errorf("state %d: %s = %v, a fresh model gives %v", k, m.DerivedNames()[j], got[j], want[k][j])
			}
		}
	}
	for round := range 2 {
		for k, x := range xs {
			got := make([]float64, nd)
			m.Derive(x, got)
			check(k, got)
		}
		if round == 0 && t.Failed() {
			return
		}
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := make([]float64, nd)
			for r := range 3 * states {
				k := (r*7 + g*5) % states
				m.Derive(xs[k], got)
				check(k, got)
			}
		}()
	}
	wg.Wait()
}
