package graph_test

import (
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// gpKind names the GP of a benchmark: the latent Poisson GP (centred), its
// non-centred form, or the GP regression.
type gpKind int

const (
	gpPois gpKind = iota
	gpPoisNC
	gpReg
)

// gpBenchModel returns the GP of kind on n points with data simulated from its
// prior, and a state drawn from its prior.
func gpBenchModel(tb testing.TB, kind gpKind, n int) (*graph.Model, []float64) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(5, uint64(n)))
	x := gpRegX(n)
	pois := kind != gpReg
	build := func(k []int) *graph.Builder {
		if kind == gpPoisNC {
			return gpPoisNCModel(x, k)
		}
		return gpPoisModel(x, k)
	}
	var prior *graph.Builder
	if pois {
		prior = build(make([]int, n))
	} else {
		prior = gpRegModel(x, make([]float64, n))
	}
	st, y, _, err := simulateGP(rng, prior)
	if err != nil {
		tb.Fatal(err)
	}
	var b *graph.Builder
	if pois {
		k := make([]int, n)
		for i, v := range y {
			k[i] = int(v)
		}
		b = build(k)
	} else {
		b = gpRegModel(x, y)
	}
	m, err := b.Build()
	if err != nil {
		tb.Fatal(err)
	}
	return m, st
}

// gpScoreFresh returns a function that scores site i with derivatives at a new
// value of the site every call (a proposal, as each step of the sampler scores:
// a covariance the site moves is factorised afresh; one it does not move comes
// from the factor cache).
func gpScoreFresh(m *graph.Model, st []float64, i int) func() float64 {
	sc := m.NewScorer()
	site := m.Sites()[i]
	off := nmc.Offsets(m.Sites())[i]
	g, h := make([]float64, site.Size), make([]float64, site.Size*site.Size)
	prop := append([]float64(nil), st...)
	call := 0
	return func() float64 {
		call++
		for c := 0; c < site.Size; c++ {
			prop[off+c] = st[off+c] * (1 + 1e-3*float64(call%97+1))
		}
		return sc.Score(prop, i, g, h)
	}
}

// TestGPScoresDoNotAllocate checks that scoring each site of the GPs at fresh
// proposals does not allocate once the scorer is warm.
func TestGPScoresDoNotAllocate(t *testing.T) {
	for _, kind := range []gpKind{gpPois, gpPoisNC, gpReg} {
		m, st := gpBenchModel(t, kind, 11)
		for i, s := range m.Sites() {
			score := gpScoreFresh(m, st, i)
			for range 4 {
				score()
			}
			if a := testing.AllocsPerRun(20, func() { score() }); a != 0 {
				t.Errorf("GP %d, site %s: %v allocations per score", kind, s.Name, a)
			}
		}
	}
}

var sinkGP float64

// benchGP measures a score with derivatives of each site of a GP on n points at
// a fresh proposal (gpScoreFresh). Besides ns/op (wall) it reports the process's
// CPU time per score, cpu-µs/op, which a shared machine inflates less.
func benchGP(b *testing.B, kind gpKind, n int) {
	m, st := gpBenchModel(b, kind, n)
	for i, s := range m.Sites() {
		b.Run(s.Name, func(b *testing.B) {
			score := gpScoreFresh(m, st, i)
			score()
			b.ReportAllocs()
			cpu0 := cpuSeconds()
			for b.Loop() {
				sinkGP += score()
			}
			b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N)*1e6, "cpu-µs/op")
		})
	}
}

func BenchmarkGPPoisScore_N11(b *testing.B)    { benchGP(b, gpPois, 11) }
func BenchmarkGPPoisScore_N133(b *testing.B)   { benchGP(b, gpPois, 133) }
func BenchmarkGPPoisNCScore_N11(b *testing.B)  { benchGP(b, gpPoisNC, 11) }
func BenchmarkGPPoisNCScore_N133(b *testing.B) { benchGP(b, gpPoisNC, 133) }
func BenchmarkGPRegScore_N11(b *testing.B)     { benchGP(b, gpReg, 11) }
func BenchmarkGPRegScore_N133(b *testing.B)    { benchGP(b, gpReg, 133) }
