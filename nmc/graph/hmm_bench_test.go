//go:build unix

package graph

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"
)

// cpuNow returns the process's user and system CPU time so far. On a shared machine
// the benchmarks' CPU time per call (reported as cpu-ns/op) is steadier than their
// wall time.
func cpuNow(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

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

// The HMM benchmarks run on poissonHMMParts's model (ordered Poisson rates, a
// Dirichlet plate of transition rows, a Dirichlet initial distribution) with its
// states recorded, at N = 100 and 2,000 steps and K = 2 and 5 states:
//
//	go test -run '^$' -bench 'BenchmarkHMM' -count 6 ./nmc/graph/

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
				c0 := cpuNow(b)
				for range b.N {
					sc.Score(x, i, g, h)
				}
				b.ReportMetric(float64(cpuNow(b)-c0)/float64(b.N), "cpu-ns/op")
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
			c0 := cpuNow(b)
			for range b.N {
				m.Generate(rng, x, z)
			}
			b.ReportMetric(float64(cpuNow(b)-c0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkHMMBuild times the declaration and Build of the HMM (and one prior
// draw).
func BenchmarkHMMBuild(b *testing.B) {
	for _, sz := range hmmBenchSizes {
		b.Run(fmt.Sprintf("N=%d/K=%d", sz.n, sz.k), func(b *testing.B) {
			c0 := cpuNow(b)
			for range b.N {
				hmmBenchModel(b, sz.n, sz.k)
			}
			b.ReportMetric(float64(cpuNow(b)-c0)/float64(b.N), "cpu-ns/op")
		})
	}
}
