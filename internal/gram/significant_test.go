package gram

import (
	"math"
	"slices"
	"testing"
)

// TestSignificant checks the cut (2⁻⁵³/n of the largest term), that rows keep their
// order, and that a non-finite term keeps every row.
func TestSignificant(t *testing.T) {
	w := []float64{1, 1e-20, -0.5, 1e-15, 0}
	norm2 := []float64{1, 1, 2, 1, 1}
	rows := []int{4, 3, 2, 1, 0}
	// Largest term 1; cut 2⁻⁵³/5 ≈ 2.2e-17: 1e-15 stays, 1e-20 and 0 go.
	if got := Significant(nil, rows, w, norm2, 5); !slices.Equal(got, []int{3, 2, 0}) {
		t.Errorf("kept %v, want [3 2 0]", got)
	}
	// Counted against 1e6 rows in all, the cut (1.1e-22) falls below 1e-20.
	if got := Significant(nil, rows, w, norm2, 1e6); !slices.Equal(got, []int{3, 2, 1, 0}) {
		t.Errorf("n = 1e6: kept %v, want [3 2 1 0]", got)
	}
	w[4] = math.NaN()
	if got := Significant(make([]int, 0, 1), rows, w, norm2, 5); !slices.Equal(got, rows) {
		t.Errorf("with a NaN weight kept %v, want every row", got)
	}
}
