package nmc

import (
	"context"
	"testing"
)

// benchSample runs Sample with one chain of 1000 draws per iteration and reports
// draws per second.
func benchSample(b *testing.B, m Model) {
	b.ReportAllocs()
	o := &Options{Warmup: NoWarmup, Chains: 1, Draws: 1000, Seed: 1}
	n := 0
	for b.Loop() {
		if _, err := Sample(context.Background(), m, o); err != nil {
			b.Fatal(err)
		}
		n += o.Draws
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "draws/s")
}

func BenchmarkSampleConjugateNormalNormal(b *testing.B) { benchSample(b, newMVNModel()) }

func BenchmarkSampleConjugateGammaPoisson(b *testing.B) {
	m, _, _ := gammaPoissonModel(2, 0.5, []float64{3, 1, 4, 0, 2}, 1, 0)
	benchSample(b, m)
}

func BenchmarkSampleConjugateBetaBinomial(b *testing.B) {
	m, _, _ := betaBinomialModel(2, 2, 5, 5, 1, 0, 1)
	benchSample(b, m)
}

func BenchmarkSampleConjugateDirichlet(b *testing.B) {
	benchSample(b, &dirichletModel{c: []float64{0, 3, 3, 5}})
}

// BenchmarkSweepNormalNormal times one sweep of a running chain (must not allocate).
func BenchmarkSweepNormalNormal(b *testing.B) {
	ch := newTestChain(b, newMVNModel(), nil)
	b.ReportAllocs()
	for b.Loop() {
		ch.testSweep(false, 1)
	}
}
