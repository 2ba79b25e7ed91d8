package gram

import "math"

// Significant returns, in dst[:0], the rows r whose term w[r]·a_r a_rᵀ of
// Σ w_r a_r a_rᵀ is not negligible, given norm2[r] = ‖a_r‖². A term is dropped when
// its Frobenius norm |w[r]|·norm2[r] is at most 2⁻⁵³/n of the largest among rows, so
// that, when the rows are one of several groups of n rows in all, all dropped terms
// together change the sum by less than one rounding error of its largest term. In
// logistic regression with well-separated data most rows sit far from the decision
// boundary, where w_r = σ(z)(1−σ(z)) ≈ e^−|z| underflows to nothing against the rows
// near it: skipping them is most of the Hessian's cost. The result is a deterministic
// function of the weights, so a Metropolis-Hastings ratio using it stays exact. A
// non-finite term keeps every row, so that it reaches the sum.
func Significant(dst, rows []int, w, norm2 []float64, n int) []int {
	dst = dst[:0]
	largest := 0.0
	for _, r := range rows {
		t := math.Abs(w[r]) * norm2[r]
		if !(t <= math.MaxFloat64) { // NaN or +Inf
			return append(dst, rows...)
		}
		if t > largest { // t is finite and ≥ 0: the max builtin's NaN and −0 cases cannot arise
			largest = t
		}
	}
	cut := largest * 0x1p-53 / float64(n)
	for _, r := range rows {
		if math.Abs(w[r])*norm2[r] > cut {
			dst = append(dst, r)
		}
	}
	return dst
}
