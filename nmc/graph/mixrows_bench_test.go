package graph

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkMixRowsScore measures one score of each site of normal_mixture (N = 1000
// rows, components 20σ apart, near the simulating state), with derivatives and
// values alone, with the mixture factor scored by rows and element by element
// (Builder.noMixRows, the engine's path before mixrows.go). The states scored
// rotate among three, so that every score by rows computes its rows' terms
// (fresh); kept scores one state again and again, reading the terms kept for it,
// as every other score of a sampler's sweep does. cpu-ns/op is the thread's CPU
// time per score.
func BenchmarkMixRowsScore(b *testing.B) {
	y := mixNormalData(rand.New(rand.NewPCG(1, 2)), 1000, -10, 10)
	// mu__raw = (μ₀, μ₁ − μ₀), sigma[0], sigma[1], theta.
	xs := [][]float64{{-10, 20, 1, 1, 0.3}, {-10.01, 20.02, 1.01, 0.99, 0.29}, {-9.99, 19.98, 0.99, 1.01, 0.31}}
	for _, path := range []struct {
		name string
		off  bool
	}{{"rows", false}, {"elements", true}} {
		m := mixNormalModel(b, y, path.off)
		sc := m.NewScorer()
		for i, s := range m.Sites() {
			k := s.Size
			g, h := make([]float64, k), make([]float64, k*k)
			for _, deriv := range []bool{true, false} {
				name := "site=" + s.Name + "/" + map[bool]string{true: "derivs", false: "values"}[deriv] + "/" + path.name
				gg, hh := g, h
				if !deriv {
					gg, hh = nil, nil
				}
				b.Run(name, func(b *testing.B) {
					n := 0
					cpuLoop(b, func() { sc.Score(xs[n%3], i, gg, hh); n++ })
				})
				if !path.off {
					b.Run(name+"-kept", func(b *testing.B) {
						cpuLoop(b, func() { sc.Score(xs[0], i, gg, hh) })
					})
				}
			}
		}
	}
}

// TestMixRowsNoAllocation: once warm, a score by rows (with derivatives or values
// alone) and the log joint allocate nothing.
func TestMixRowsNoAllocation(t *testing.T) {
	y := mixNormalData(rand.New(rand.NewPCG(1, 2)), 300, -1, 1)
	m := mixNormalModel(t, y, false)
	xs := [][]float64{{-1, 2, 1, 1, 0.3}, {-1.1, 2.1, 1.1, 0.9, 0.35}, {-0.9, 1.9, 0.95, 1.05, 0.25}}
	sc := m.NewScorer()
	for i, s := range m.Sites() {
		k := s.Size
		g, h := make([]float64, k), make([]float64, k*k)
		sc.Score(xs[0], i, g, h)
		n := 0
		if a := testing.AllocsPerRun(20, func() {
			x := xs[n%3]
			n++
			sc.Score(x, i, g, h)
			sc.Score(x, i, nil, nil)
			sc.LogJoint(x)
		}); a != 0 {
			t.Errorf("site %s: %.1f allocations per score", s.Name, a)
		}
	}
}
