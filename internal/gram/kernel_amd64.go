//go:build amd64 && !purego && !(openblas && cgo)

package gram

import (
	"sync"

	"golang.org/x/sys/cpu"
)

// useGramAsm reports whether addWeightedGram runs the assembly kernel: the CPU
// and the operating system must support AVX2 and FMA (x/sys/cpu checks both).
var useGramAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// useGramAVX512 reports whether addWeightedGramAsm tiles h with the AVX-512 8×8
// kernel (gramTile8x8) for the tiles it accumulates in place, two rows of 4×8
// AVX2 tiles at once (gramRowPair): the CPU and the operating system must support
// AVX-512F (x/sys/cpu checks both). An 8×8 tile takes 0.66× the time of its two
// 4×8 tiles, and h is the AVX2 loop's bit for bit. A variable, so that the tests
// run both.
var useGramAVX512 = useGramAsm && cpuHasAVX512

// cpuHasAVX512 reports whether the CPU and the operating system support AVX-512F.
var cpuHasAVX512 = cpu.X86.HasAVX512F

// gramPack copies n rows of the row-major matrix data (k columns) into x and
// their weighted copies into u: with r = rows[t], x[t*k+j] = data[r*k+j] and
// u[t*k+j] = w[r]·data[r*k+j]. It does no bounds checks.
//
//go:noescape
func gramPack(u, x, data *float64, k int, rows *int, w *float64, n int)

// gramScale is gramPack without the plain copy: u[t*k+j] = w[r]·data[r*k+j].
//
//go:noescape
func gramScale(u, data *float64, k int, rows *int, w *float64, n int)

// gramTile4x8 adds Σ_{t<n} u[t*ld+a]·x[t*ld+b] to c[a*ldc+b] for a < 4, b < 8,
// keeping the 4×8 block of c in registers. It does no bounds checks.
//
//go:noescape
func gramTile4x8(c *float64, ldc int, u, x *float64, ld int, n int)

// gramTile4x4 is gramTile4x8 on a 4×4 block.
//
//go:noescape
func gramTile4x4(c *float64, ldc int, u, x *float64, ld int, n int)

// gramTile8x8 is gramTile4x8 on an 8×8 block, with AVX-512.
//
//go:noescape
func gramTile8x8(c *float64, ldc int, u, x *float64, ld int, n int)

const (
	// gramBlockBytes bounds the packed block (u and x together), so that it
	// stays in L1/L2 while every tile of h streams over it.
	gramBlockBytes = 256 << 10
	// gramSlack is the number of floats after the packed block that the
	// tiles may read past its end (values read there only reach discarded
	// lanes: rows or columns of a tile at or beyond k).
	gramSlack = 8
)

// gramPool holds packing buffers so that steady-state calls do not allocate;
// each call takes its own buffer, so concurrent calls are safe.
var gramPool = sync.Pool{New: func() any { return new([]float64) }}

// addWeightedGramAsm is addWeightedGram on the AVX2/FMA kernels. Rows are packed
// nb at a time (weighted copy u and plain copy x, both nb×k); then each 4×8 tile
// of the upper triangle of h (rows i0..i0+3, i0 a multiple of 4; after a 4×8 or
// 4×4 diagonal tile, columns on a grid of step 8 aligned with the end of h)
// accumulates the block in registers. Tiles that straddle the diagonal or the
// right edge go through a scratch tile and only their upper-triangle, in-range
// elements are added to h.
func addWeightedGramAsm(h []float64, k int, m dataMatrix, rows []int, w []float64) {
	if len(rows) == 0 || k <= 0 {
		return
	}
	// The assembly does no bounds checks: check everything it will read or
	// write, panicking like the generic kernel would.
	_ = h[k*k-1]
	if m.cols != k || len(m.data) < m.rows*k {
		panic("graph: addWeightedGram: data matrix shape does not match k")
	}
	for _, r := range rows {
		if uint(r) >= uint(m.rows) || uint(r) >= uint(len(w)) {
			panic("graph: addWeightedGram: row index out of range")
		}
	}
	nb := max(gramBlockBytes/(16*k), 4)
	nb = min(nb, len(rows))
	need := 2*nb*k + gramSlack
	bufp := gramPool.Get().(*[]float64)
	if cap(*bufp) < need {
		*bufp = make([]float64, need)
	}
	buf := (*bufp)[:need]
	u, xbuf := buf[:nb*k], buf[nb*k:]
	var t [32]float64
	g := ((k + 3) &^ 3) % 8
	for b := 0; b < len(rows); b += nb {
		blk := rows[b:min(b+nb, len(rows))]
		n := len(blk)
		// A block of consecutive rows is read in place (its last row must be
		// followed by gramSlack floats of m.data); otherwise it is copied.
		x := xbuf
		if first := blk[0]; blk[n-1] == first+n-1 && (first+n)*k+gramSlack <= len(m.data) && gramConsecutive(blk) {
			x = m.data[first*k:]
			gramScale(&u[0], &m.data[0], k, &blk[0], &w[0], n)
		} else {
			gramPack(&u[0], &x[0], &m.data[0], k, &blk[0], &w[0], n)
		}
		for i0 := 0; i0 < k; i0 += 4 {
			if useGramAVX512 && i0%8 == g && i0+4 < k {
				gramRowPair(h, k, &t, i0, u, x, n)
				i0 += 4
				continue
			}
			// The diagonal tile, 4×8 if i0 ≡ g (mod 8), 4×4 otherwise, goes
			// through the scratch, and so does a tile crossing the right
			// edge; the others start at columns j0 ≡ g (mod 8), so that the
			// last one ends at k when k is a multiple of 4, and are added to
			// h in place.
			var j0 int
			if i0%8 == g {
				gramEdgeTile(h, k, &t, i0, i0, 8, u, x, n)
				j0 = i0 + 8
			} else {
				gramEdgeTile(h, k, &t, i0, i0, 4, u, x, n)
				j0 = i0 + 4
			}
			for ; j0+8 <= k; j0 += 8 {
				gramTile4x8(&h[i0*k+j0], k, &u[i0], &x[j0], k, n)
			}
			if j0 < k {
				gramEdgeTile(h, k, &t, i0, j0, 8, u, x, n)
			}
		}
	}
	gramPool.Put(bufp)
}

// gramRowPair is the loop body of addWeightedGramAsm for rows i0 ≡ g (mod 8) and
// i0 + 4 together, with AVX-512: the two diagonal tiles as for the AVX2 tiles, then
// the in-place tiles of both rows, which start at the same column i0 + 8, as 8×8
// tiles (gramTile8x8 accumulates each element of h by the same fused
// multiply-adds, in the same order, as gramTile4x8 does), then the right-edge tiles
// of both rows. The result is the AVX2 loop's bit for bit.
func gramRowPair(h []float64, k int, t *[32]float64, i0 int, u, x []float64, n int) {
	gramEdgeTile(h, k, t, i0, i0, 8, u, x, n)
	gramEdgeTile(h, k, t, i0+4, i0+4, 4, u, x, n)
	j0 := i0 + 8
	for ; j0+8 <= k; j0 += 8 {
		gramTile8x8(&h[i0*k+j0], k, &u[i0], &x[j0], k, n)
	}
	if j0 < k {
		gramEdgeTile(h, k, t, i0, j0, 8, u, x, n)
		gramEdgeTile(h, k, t, i0+4, j0, 8, u, x, n)
	}
}

// gramConsecutive reports whether rows[t] = rows[0]+t for every t.
func gramConsecutive(rows []int) bool {
	for t, r := range rows {
		if r != rows[0]+t {
			return false
		}
	}
	return true
}

// gramEdgeTile computes the 4×width tile at (i0, j0), width 4 or 8, into the
// scratch t and adds its elements with i < k, i <= j < k to h. u and x start at
// row 0, column 0 of the packed block; reads past their rows' ends stay inside
// the slack of the buffer (or of m.data).
func gramEdgeTile(h []float64, k int, t *[32]float64, i0, j0, width int, u, x []float64, n int) {
	*t = [32]float64{}
	if width == 4 {
		gramTile4x4(&t[0], 8, &u[i0], &x[j0], k, n)
	} else {
		gramTile4x8(&t[0], 8, &u[i0], &x[j0], k, n)
	}
	for a := 0; a < 4 && i0+a < k; a++ {
		i := i0 + a
		for bj := max(i-j0, 0); bj < width && j0+bj < k; bj++ {
			h[i*k+j0+bj] += t[a*8+bj]
		}
	}
}
