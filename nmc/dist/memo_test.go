package dist

import (
	"math/rand/v2"
	"testing"
)

// checkMemo checks that f.DerivsMemo gives bit-identical results to f.Derivs at 200
// points whose memoised parameter (key) takes four values in turn, whether the memo
// is empty, reused for the same key, or refreshed when the key changes.
func checkMemo(t *testing.T, f interface {
	Family
	MemoDeriver
}, n int, point func(rng *rand.Rand, key float64) []float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	var m Memo
	g1, h1 := make([]float64, n), make([]float64, n*n)
	g2, h2 := make([]float64, n), make([]float64, n*n)
	for i := 0; i < 200; i++ {
		key := []float64{0.3, 2.5, 40, 3e4}[i/50]
		args := point(rng, key)
		l1 := f.Derivs(args, 1, g1, h1)
		l2 := f.DerivsMemo(args, 1, g2, h2, &m)
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
		if !m.OK || m.Key != key {
			t.Fatalf("point %d: memo key %v (ok %v), want %v", i, m.Key, m.OK, key)
		}
	}
}

// TestStudentTMemo: the Student-t's memo of ν's terms.
func TestStudentTMemo(t *testing.T) {
	checkMemo(t, StudentT{}, 4, func(rng *rand.Rand, nu float64) []float64 {
		return []float64{rng.NormFloat64() * 5, nu, rng.NormFloat64(), 0.1 + rng.Float64()*3}
	})
}

// TestNormalMemo: the normal's memo of log σ.
func TestNormalMemo(t *testing.T) {
	checkMemo(t, Normal{}, 3, func(rng *rand.Rand, s float64) []float64 {
		return []float64{rng.NormFloat64() * 5, rng.NormFloat64(), s}
	})
}
