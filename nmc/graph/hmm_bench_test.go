package graph

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// hmmBenchModel builds poissonHMMParts's model with its states recorded on n
// counts of a k-state chain, and a state drawn from the prior.
func hmmBenchModel(b *testing.B, n, k int) (*Model, []float64) {
	rng := rand.New(rand.NewPCG(1, uint64(n*10+k)))
	y := randomCounts(rng, n)
	bl := New()
	p := poissonHMMParts(bl, y, k)
	bl.HiddenMarkov("z", p.logOmega, p.gamma, p.rho)
	m, err := bl.Build()
	if err != nil {
		b.Fatal(err)
	}
	x := make([]float64, m.dim)
	if err := m.Init(rng, x); err != nil {
		b.Fatal(err)
	}
	return m, x
}

var hmmBenchSizes = []struct{ n, k int }{{100, 2}, {100, 5}, {2000, 2}, {2000, 5}}

// BenchmarkHMMScore times one score with gradient and Hessian of an emission rate
// (lam0), a gap between rates (delta[0]), a transition row (Gamma[0]) and the
// initial distribution (rho).
func BenchmarkHMMScore(b *testing.B) {
	for _, sz := range hmmBenchSizes {
		m, x := hmmBenchModel(b, sz.n, sz.k)
		for _, site := range []string{"lam0", "delta[0]", "Gamma[0]", "rho"} {
			i := -1
			for j, s := range m.Sites() {
				if s.Name == site {
					i = j
				}
			}
			b.Run(fmt.Sprintf("N=%d/K=%d/%s", sz.n, sz.k, site), func(b *testing.B) {
				sc := m.NewScorer()
				k := m.Sites()[i].Size
				g, h := make([]float64, k), make([]float64, k*k)
				sc.Score(x, i, g, h)
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					sc.Score(x, i, g, h)
				}
			})
		}
	}
}

// BenchmarkHMMGenerate times one draw of the hidden states.
func BenchmarkHMMGenerate(b *testing.B) {
	for _, sz := range hmmBenchSizes {
		m, x := hmmBenchModel(b, sz.n, sz.k)
		b.Run(fmt.Sprintf("N=%d/K=%d", sz.n, sz.k), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(2, 2))
			z := make([]float64, sz.n)
			m.Generate(rng, x, z)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				m.Generate(rng, x, z)
			}
		})
	}
}

// BenchmarkHMMBuild times the declaration and Build of the HMM (and one prior
// draw).
func BenchmarkHMMBuild(b *testing.B) {
	for _, sz := range hmmBenchSizes {
		b.Run(fmt.Sprintf("N=%d/K=%d", sz.n, sz.k), func(b *testing.B) {
			for range b.N {
				hmmBenchModel(b, sz.n, sz.k)
			}
		})
	}
}
