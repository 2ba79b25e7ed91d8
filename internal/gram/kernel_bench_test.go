package gram

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// gramKernels are the implementations of addWeightedGram compared by
// BenchmarkGramKernel; a nil entry is not available in this build (the assembly
// kernel is not built with the openblas tag, OpenBLAS only with it).
func gramKernels() []struct {
	name string
	f    func([]float64, int, dataMatrix, []int, []float64)
} {
	var asm func([]float64, int, dataMatrix, []int, []float64)
	if useGramAsm {
		asm = addWeightedGramAsm
	}
	return []struct {
		name string
		f    func([]float64, int, dataMatrix, []int, []float64)
	}{
		{"generic", addWeightedGramGeneric},
		{"asm", asm},
		{"openblas", gramBLAS},
	}
}

// BenchmarkGramKernel times one addWeightedGram call over n rows (all rows of
// the matrix, in order) of a k-column matrix, per implementation.
func BenchmarkGramKernel(b *testing.B) {
	sizes := []struct{ k, n int }{
		{5, 10000}, {20, 10000}, {40, 4}, {40, 32}, {40, 1000}, {40, 10000}, {100, 10000}, {101, 10000},
		{5, 4}, {5, 32},
	}
	for _, sz := range sizes {
		rng := rand.New(rand.NewPCG(5, uint64(sz.k)))
		c := newGramCase(rng, sz.k, sz.n, sz.n)
		for i := range c.rows {
			c.rows[i] = i
		}
		h := make([]float64, sz.k*sz.k)
		for _, kern := range gramKernels() {
			b.Run(fmt.Sprintf("k=%d/n=%d/%s", sz.k, sz.n, kern.name), func(b *testing.B) {
				if kern.f == nil {
					b.Skip("not available in this build")
				}
				b.ReportAllocs()
				b.SetBytes(int64(8 * sz.k * sz.n))
				for b.Loop() {
					kern.f(h, sz.k, *c.m, c.rows, c.w)
				}
			})
		}
	}
}

// BenchmarkGramLarge times one addWeightedGram call over a million rows of a
// 40-column matrix (320 MB), per implementation.
func BenchmarkGramLarge(b *testing.B) {
	const k, n = 40, 1000000
	rng := rand.New(rand.NewPCG(5, 1))
	c := newGramCase(rng, k, n, n)
	for i := range c.rows {
		c.rows[i] = i
	}
	h := make([]float64, k*k)
	for _, kern := range gramKernels() {
		b.Run(fmt.Sprintf("k=%d/n=%d/%s", k, n, kern.name), func(b *testing.B) {
			if kern.f == nil {
				b.Skip("not available in this build")
			}
			b.ReportAllocs()
			b.SetBytes(int64(8 * k * n))
			for b.Loop() {
				kern.f(h, k, *c.m, c.rows, c.w)
			}
		})
	}
}
