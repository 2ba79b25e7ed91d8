// Package gram accumulates weighted Gram matrices Aᵀ diag(w) A: the Hessian of a sum
// of scalar functions of a linear map, such as a regression's coefficient site. It is
// the hottest loop of package graph's regression likelihoods (linear factors), so it
// has an AVX2/FMA assembly kernel (chosen at run time), a pure-Go fallback (always
// under the purego build tag) and an optional OpenBLAS path (build tag openblas,
// needs cgo and libopenblas-dev).
package gram

// AddWeighted adds Σ_r w[r]·a_r a_rᵀ to the upper triangle (diagonal included) of the
// k×k row-major matrix h, where a_r = data[r·k : (r+1)·k] (data is row-major with k
// columns) and r runs over rows (any subset of row indices, in any order, repeats
// allowed). w is indexed by row number; weights may be negative or zero. Elements of
// h below the diagonal are not touched. It is safe for concurrent use on different h.
func AddWeighted(h []float64, k int, data []float64, rows []int, w []float64) {
	if k <= 0 || len(rows) == 0 {
		return
	}
	m := dataMatrix{rows: len(data) / k, cols: k, data: data}
	addWeightedGram(h, k, m, rows, w)
}

// dataMatrix is a row-major matrix with stride cols.
type dataMatrix struct {
	rows, cols int
	data       []float64
}

func (m *dataMatrix) row(i int) []float64 { return m.data[i*m.cols : (i+1)*m.cols] }

// addWeightedGram adds Σ_r w[r]·a_r a_rᵀ to the upper triangle (diagonal included)
// of the k×k row-major matrix h, where a_r is row r of m and r runs over rows (any
// subset of row indices, in any order, repeats allowed; weights may be negative or
// zero). Elements of h below the diagonal are not touched. This is Aᵀ diag(w) A,
// the Hessian of a sum of scalar functions of a linear map.
//
// Built with the openblas tag (and cgo) it calls OpenBLAS (kernel_openblas.go).
// Otherwise, on amd64 CPUs with AVX2 and FMA (and without the purego build tag), it
// runs the register-tiled assembly kernel of kernel_amd64.s (except on tiny inputs,
// where its set-up costs more than it saves); elsewhere it runs
// addWeightedGramGeneric.
func addWeightedGram(h []float64, k int, m dataMatrix, rows []int, w []float64) {
	if gramBLAS != nil {
		gramBLAS(h, k, m, rows, w)
		return
	}
	if useGramAsm && len(rows)*k*k >= gramAsmMinWork {
		addWeightedGramAsm(h, k, m, rows, w)
		return
	}
	addWeightedGramGeneric(h, k, m, rows, w)
}

// gramAsmMinWork is the smallest len(rows)·k² for which addWeightedGram uses the
// assembly kernel (at k = 5 it is slower than the generic one on 4 rows, faster
// on 32).
const gramAsmMinWork = 256

// gramBLAS is the OpenBLAS addWeightedGram, set by kernel_openblas.go when the
// package is built with the openblas tag and cgo; nil otherwise.
var gramBLAS func(h []float64, k int, m dataMatrix, rows []int, w []float64)

// addWeightedGramGeneric is the pure-Go addWeightedGram. Rows are taken four at a
// time so that each pass over h does four rank-one updates, which keeps h in L1 and
// runs about 1.5× faster than gonum's Dsyrk on the pre-scaled matrix.
func addWeightedGramGeneric(h []float64, k int, m dataMatrix, rows []int, w []float64) {
	r := 0
	for ; r+4 <= len(rows); r += 4 {
		x0, x1, x2, x3 := m.row(rows[r]), m.row(rows[r+1]), m.row(rows[r+2]), m.row(rows[r+3])
		w0, w1, w2, w3 := w[rows[r]], w[rows[r+1]], w[rows[r+2]], w[rows[r+3]]
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
		x0, w0 := m.row(rows[r]), w[rows[r]]
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
