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

// BenchmarkSignificant times the filter over 4096 rows (one chunk of a linear
// factor) whose weights all count (a Student-t regression's) or are mixed (a
// logistic regression's: most rows far from the boundary drop out).
func BenchmarkSignificant(b *testing.B) {
	const n = 4096
	rows, w, norm2 := make([]int, n), make([]float64, n), make([]float64, n)
	for r := range rows {
		rows[r], norm2[r] = r, 1+float64(r%7)
	}
	for _, c := range []struct {
		name string
		w    func(r int) float64
	}{
		{"all", func(r int) float64 { return 0.5 + float64(r%13)/13 }},
		{"mixed", func(r int) float64 { return math.Exp(-float64((r * 7919) % 97)) }},
	} {
		for r := range w {
			w[r] = c.w(r)
		}
		b.Run(c.name, func(b *testing.B) {
			var dst []int
			for b.Loop() {
				dst = Significant(dst, rows, w, norm2, 10000)
			}
		})
	}
}
