package graph

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkMixRowsScore measures one score with derivatives of each site of
// normal_mixture (N = 1000 rows, components 20σ apart, at the simulating state) with
// the mixture factor scored by rows and element by element (Builder.noMixRows, the
// engine's path before mixrows.go). cpu-ns/op is the thread's CPU time per score.
func BenchmarkMixRowsScore(b *testing.B) {
	y := mixNormalData(rand.New(rand.NewPCG(1, 2)), 1000, -10, 10)
	for _, path := range []struct {
		name string
		off  bool
	}{{"rows", false}, {"elements", true}} {
		m := mixNormalModel(b, y, path.off)
		// mu__raw = (μ₀, μ₁ − μ₀), sigma[0], sigma[1], theta.
		x := []float64{-10, 20, 1, 1, 0.3}
		sc := m.NewScorer()
		for i, s := range m.Sites() {
			k := s.Size
			g, h := make([]float64, k), make([]float64, k*k)
			b.Run("site="+s.Name+"/"+path.name, func(b *testing.B) {
				cpuLoop(b, func() { sc.Score(x, i, g, h) })
			})
			b.Run("site="+s.Name+"/values/"+path.name, func(b *testing.B) {
				cpuLoop(b, func() { sc.Score(x, i, nil, nil) })
			})
		}
	}
}

// TestMixRowsNoAllocation: once warm, a score by rows (with derivatives or values
// alone) and the log joint allocate nothing.
func TestMixRowsNoAllocation(t *testing.T) {
	y := mixNormalData(rand.New(rand.NewPCG(1, 2)), 300, -1, 1)
	m := mixNormalModel(t, y, false)
	x := []float64{-1, 2, 1, 1, 0.3}
	sc := m.NewScorer()
	for i, s := range m.Sites() {
		k := s.Size
		g, h := make([]float64, k), make([]float64, k*k)
		sc.Score(x, i, g, h)
		if a := testing.AllocsPerRun(20, func() { sc.Score(x, i, g, h); sc.Score(x, i, nil, nil); sc.LogJoint(x) }); a != 0 {
			t.Errorf("site %s: %.1f allocations per score", s.Name, a)
		}
	}
}
