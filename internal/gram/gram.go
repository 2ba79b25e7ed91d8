// Package gram accumulates weighted Gram matrices Aᵀ diag(w) A, the Hessian of a
// sum of scalar functions of a linear map (regression coefficients). It is the
// hottest loop of the regression models and of package graph.
package gram

// AddWeighted adds Σ_r w[r]·a_r a_rᵀ to the upper triangle (diagonal included) of the
// k×k row-major matrix h, where a_r = data[r·k : (r+1)·k] and r runs over rows. w is
// indexed by row number. The lower triangle of h is not touched.
func AddWeighted(h []float64, k int, data []float64, rows []int, w []float64) {
	r := 0
	for ; r+4 <= len(rows); r += 4 {
		i0, i1, i2, i3 := rows[r], rows[r+1], rows[r+2], rows[r+3]
		x0, x1, x2, x3 := data[i0*k:i0*k+k], data[i1*k:i1*k+k], data[i2*k:i2*k+k], data[i3*k:i3*k+k]
		w0, w1, w2, w3 := w[i0], w[i1], w[i2], w[i3]
		for i := 0; i < k; i++ {
			a0, a1, a2, a3 := w0*x0[i], w1*x1[i], w2*x2[i], w3*x3[i]
			hi := h[i*k+i : i*k+k]
			n := len(hi)
			y0, y1, y2, y3 := x0[i:k][:n], x1[i:k][:n], x2[i:k][:n], x3[i:k][:n]
			for j := range hi {
				hi[j] += a0*y0[j] + a1*y1[j] + a2*y2[j] + a3*y3[j]
			}
		}
	}
	for ; r < len(rows); r++ {
		i0 := rows[r]
		x0, w0 := data[i0*k:i0*k+k], w[i0]
		for i := 0; i < k; i++ {
			a := w0 * x0[i]
			hi := h[i*k+i : i*k+k]
			y := x0[i:k][:len(hi)]
			for j := range hi {
				hi[j] += a * y[j]
			}
		}
	}
}
