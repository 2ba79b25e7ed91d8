//go:build openblas && cgo

package gram

/*
#cgo LDFLAGS: -lopenblas
#include <cblas.h>
*/
import "C"

import (
	"math"
	"sync"
)

func init() { gramBLAS = addWeightedGramBLAS }

// gramBLASBlockBytes bounds the scratch block of gathered rows, so that a call
// over millions of rows needs a few MiB, not a copy of the whole matrix.
const gramBLASBlockBytes = 2 << 20

// gramBLASPool holds scratch blocks so that steady-state calls do not allocate;
// each call takes its own block, so concurrent calls are safe.
var gramBLASPool = sync.Pool{New: func() any { return new([]float64) }}

// addWeightedGramBLAS is addWeightedGram on OpenBLAS. Blocks of rows are
// gathered as √|w_r|·a_r into two scratch matrices, one for positive and one for
// negative weights (zero weights are skipped), and cblas_dsyrk adds P ᵀP − NᵀN to
// the upper triangle of h; dsyrk reads and writes only that triangle.
func addWeightedGramBLAS(h []float64, k int, m dataMatrix, rows []int, w []float64) {
	if len(rows) == 0 || k <= 0 {
		return
	}
	_ = h[k*k-1]
	nb := max(gramBLASBlockBytes/(16*k), 1)
	nb = min(nb, len(rows))
	bufp := gramBLASPool.Get().(*[]float64)
	if cap(*bufp) < 2*nb*k {
		*bufp = make([]float64, 2*nb*k)
	}
	buf := (*bufp)[:2*nb*k]
	pos, neg := buf[:nb*k], buf[nb*k:]
	for b := 0; b < len(rows); b += nb {
		np, nn := 0, 0
		for _, r := range rows[b:min(b+nb, len(rows))] {
			x, wr := m.row(r), w[r]
			switch {
			case wr > 0:
				s := math.Sqrt(wr)
				dst := pos[np*k : np*k+k]
				for j, v := range x[:k] {
					dst[j] = s * v
				}
				np++
			case wr < 0:
				s := math.Sqrt(-wr)
				dst := neg[nn*k : nn*k+k]
				for j, v := range x[:k] {
					dst[j] = s * v
				}
				nn++
			}
		}
		if np > 0 {
			C.cblas_dsyrk(C.CblasRowMajor, C.CblasUpper, C.CblasTrans, C.blasint(k), C.blasint(np),
				1, (*C.double)(&pos[0]), C.blasint(k), 1, (*C.double)(&h[0]), C.blasint(k))
		}
		if nn > 0 {
			C.cblas_dsyrk(C.CblasRowMajor, C.CblasUpper, C.CblasTrans, C.blasint(k), C.blasint(nn),
				-1, (*C.double)(&neg[0]), C.blasint(k), 1, (*C.double)(&h[0]), C.blasint(k))
		}
	}
	gramBLASPool.Put(bufp)
}
