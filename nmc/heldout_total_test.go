package nmc

import "testing"

// pointsHeldOut has log p(y_j | x) = j·x[0].
type pointsHeldOut int

func (p pointsHeldOut) Len() int { return int(p) }
func (p pointsHeldOut) LogLik(x, dst []float64) {
	for j := range dst {
		dst[j] = float64(j) * x[0]
	}
}

func TestHeldOutTotal(t *testing.T) {
	h := HeldOutTotal(pointsHeldOut(5))
	if h.Len() != 1 {
		t.Fatalf("Len = %d, want 1", h.Len())
	}
	dst := []float64{0}
	h.LogLik([]float64{2}, dst)
	if dst[0] != 20 { // (0+1+2+3+4)·2
		t.Errorf("total = %v, want 20", dst[0])
	}
}
