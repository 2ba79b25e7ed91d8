package dist

import (
	"math/rand/v2"
	"testing"
)

// TestStudentTMemo: DerivsMemo gives bit-identical results to Derivs whether the memo
// is empty, reused for the same ν, or refreshed when ν changes.
func TestStudentTMemo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var m Memo
	g1, h1 := make([]float64, 4), make([]float64, 16)
	g2, h2 := make([]float64, 4), make([]float64, 16)
	for i := 0; i < 200; i++ {
		nu := []float64{0.3, 2.5, 40, 3e4}[i/50]
		args := []float64{rng.NormFloat64() * 5, nu, rng.NormFloat64(), 0.1 + rng.Float64()*3}
		l1 := StudentT{}.Derivs(args, 1, g1, h1)
		l2 := StudentT{}.DerivsMemo(args, 1, g2, h2, &m)
		if l1 != l2 {
			t.Fatalf("point %d: log density %v with memo, %v without", i, l2, l1)
		}
		for j := range g1 {
			if g1[j] != g2[j] {
				t.Fatalf("point %d: gradient[%d] %v with memo, %v without", i, j, g2[j], g1[j])
			}
		}
		for j := range h1 {
			if h1[j] != h2[j] {
				t.Fatalf("point %d: Hessian[%d] %v with memo, %v without", i, j, h2[j], h1[j])
			}
		}
		if !m.OK || m.Key != nu {
			t.Fatalf("point %d: memo key %v (ok %v), want %v", i, m.Key, m.OK, nu)
		}
	}
}
