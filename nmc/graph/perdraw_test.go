package graph

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The calls made at every draw (Derive, Replicate, PointwiseLogLik, and Init through
// PriorPredictive) reuse their evaluators across calls and goroutines; these tests
// check that a reused evaluator gives exactly what a new model gives, and that a
// warm call allocates nothing.

// perDrawModel builds a model with every kind of observation those calls read: a
// regression through a MatVec over a Vector site (whose evaluators keep X·β), a
// vector-valued parameter (a Categorical on a Dirichlet), a count, and derived
// quantities (among them a non-centred plate mu + tau·raw).
func perDrawModel(t testing.TB) *Model {
	t.Helper()
	b := New()
	mu := b.Latent("mu", Normal(C(0), C(5)))
	tau := b.Latent("tau", HalfCauchy(C(2)))
	beta := b.Vector("beta", 2, Normal(C(0), C(1)))
	pi := b.Latent("pi", Dirichlet(Vec(1, 2, 3)))
	lam := b.Latent("lam", Gamma(C(2), C(1)))
	raw := b.Latent("raw", Normal(C(0), C(1)), 3)
	x := mat.NewDense(4, 2, []float64{1, 2, -1, 0.5, 3, -2, 0.25, 1})
	eta := Add(MatVec(x, beta), mu)
	b.Observe("y", Normal(eta, tau), []float64{0.5, -1, 2, 0})
	b.ObserveInts("c", Categorical(pi), []int{0, 2, 2, 1, 2})
	b.ObserveInts("n", Poisson(lam), []int{3, 0, 5})
	b.Deterministic("eta", eta)
	b.Deterministic("scale", Mul(tau, Exp(mu)))
	b.Deterministic("theta", Add(mu, Mul(tau, raw)))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// perDrawResults is what the per-draw calls give at one state.
type perDrawResults struct {
	derived, loglik, yrep, prior, priorY []float64
}

// perDrawCalls makes every per-draw call at state x, with random numbers from
// PCG streams of seed.
func perDrawCalls(t testing.TB, m *Model, x []float64, seed uint64) perDrawResults {
	r := perDrawResults{
		derived: make([]float64, len(m.DerivedNames())),
		loglik:  make([]float64, m.NumObserved()),
		yrep:    make([]float64, m.NumReplicated()),
		prior:   make([]float64, m.dim),
		priorY:  make([]float64, m.NumReplicated()),
	}
	m.Derive(x, r.derived)
	m.PointwiseLogLik(x, r.loglik)
	if err := m.Replicate(rand.New(rand.NewPCG(seed, 1)), x, r.yrep); err != nil {
		t.Error(err)
	}
	if err := m.PriorPredictive(rand.New(rand.NewPCG(seed, 2)), r.prior, r.priorY); err != nil {
		t.Error(err)
	}
	return r
}

// equalBits reports whether a and b hold the same float64 values bit for bit
// (NaN included).
func equalBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(u, v float64) bool { return u == v || (u != u && v != v) })
}

// TestPerDrawReusedEvaluators: at every state, in sequence and from concurrent
// goroutines, one model's per-draw calls give bit for bit what a newly built model's
// first calls give. The states come back now and then (a MatVec cache hit) and
// otherwise differ (a miss, with a warm evaluator that saw other states).
func TestPerDrawReusedEvaluators(t *testing.T) {
	m := perDrawModel(t)
	if n := len(m.DerivedNames()); n != 8 {
		t.Fatalf("%d derived names, want 8", n)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	const states = 30
	xs := make([][]float64, states)
	want := make([]perDrawResults, states)
	for k := range xs {
		xs[k] = make([]float64, m.dim)
		if err := m.Init(rng, xs[k]); err != nil {
			t.Fatal(err)
		}
		if k%5 == 4 {
			copy(xs[k], xs[k-3])
		}
		want[k] = perDrawCalls(t, perDrawModel(t), xs[k], uint64(k))
	}
	check := func(k int, got perDrawResults) {
		for _, c := range []struct {
			name      string
			got, want []float64
		}{
			{"Derive", got.derived, want[k].derived},
			{"PointwiseLogLik", got.loglik, want[k].loglik},
			{"Replicate", got.yrep, want[k].yrep},
			{"PriorPredictive state", got.prior, want[k].prior},
			{"PriorPredictive data", got.priorY, want[k].priorY},
		} {
			if !equalBits(c.got, c.want) {
				t.Errorf("state %d: %s gives %v, a new model %v", k, c.name, c.got, c.want)
			}
		}
	}
	for range 2 {
		for k, x := range xs {
			check(k, perDrawCalls(t, m, x, uint64(k)))
		}
		if t.Failed() {
			return
		}
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 3 * states {
				k := (r*7 + g*3) % states
				check(k, perDrawCalls(t, m, xs[k], uint64(k)))
			}
		}()
	}
	wg.Wait()
}

// TestPerDrawNoAllocation: once warm, the per-draw calls allocate nothing (each
// made a value scorer, and Replicate and PointwiseLogLik more, at every call).
// Not parallel: AllocsPerRun needs the process to itself.
func TestPerDrawNoAllocation(t *testing.T) {
	if raceDetector {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	m := perDrawModel(t)
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, m.dim)
	if err := m.Init(rng, x); err != nil {
		t.Fatal(err)
	}
	derived := make([]float64, len(m.DerivedNames()))
	loglik := make([]float64, m.NumObserved())
	yrep := make([]float64, m.NumReplicated())
	prior := make([]float64, m.dim)
	for _, c := range []struct {
		name string
		call func()
	}{
		{"Derive", func() { m.Derive(x, derived) }},
		{"PointwiseLogLik", func() { m.PointwiseLogLik(x, loglik) }},
		{"LogLik().LogLik", func() { m.LogLik().LogLik(x, loglik) }},
		{"Replicate", func() {
			if err := m.Replicate(rng, x, yrep); err != nil {
				t.Fatal(err)
			}
		}},
		{"PriorPredictive", func() {
			if err := m.PriorPredictive(rng, prior, yrep); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		c.call()
		if a := testing.AllocsPerRun(50, c.call); a != 0 {
			t.Errorf("%s: %v allocations per call, want 0", c.name, a)
		}
	}
}
