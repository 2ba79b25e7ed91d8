package gram

import (
	"math"
	"math/rand/v2"
	"testing"
)

// gramCase is one input of addWeightedGram: a data matrix, a row list, weights
// and a starting h whose lower triangle holds a sentinel.
type gramCase struct {
	k    int
	m    *dataMatrix
	rows []int
	w    []float64
	h0   []float64
}

const gramSentinel = -12345.678

func newGramCase(rng *rand.Rand, k, nData, nRows int) gramCase {
	m := &dataMatrix{rows: nData, cols: k, data: make([]float64, nData*k)}
	for i := range m.data {
		m.data[i] = rng.NormFloat64()
	}
	w := make([]float64, nData)
	for i := range w {
		switch rng.IntN(6) {
		case 0:
			w[i] = 0
		case 1:
			w[i] = -rng.ExpFloat64()
		default:
			w[i] = rng.ExpFloat64()
		}
	}
	rows := make([]int, nRows)
	for i := range rows {
		rows[i] = rng.IntN(nData) // unsorted, with repeats
	}
	h0 := make([]float64, k*k)
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			if j < i {
				h0[i*k+j] = gramSentinel
			} else {
				h0[i*k+j] = rng.NormFloat64()
			}
		}
	}
	return gramCase{k: k, m: m, rows: rows, w: w, h0: h0}
}

// reference returns h0 + Σ w_r x_r x_rᵀ on the upper triangle, summed naively,
// and the bound Σ|terms| of every element (for a rounding tolerance).
func (c gramCase) reference() (want, scale []float64) {
	k := c.k
	want = append([]float64(nil), c.h0...)
	scale = make([]float64, k*k)
	for i := range scale {
		scale[i] = math.Abs(c.h0[i])
	}
	for _, r := range c.rows {
		x := c.m.row(r)
		for i := 0; i < k; i++ {
			for j := i; j < k; j++ {
				term := c.w[r] * x[i] * x[j]
				want[i*k+j] += term
				scale[i*k+j] += math.Abs(term)
			}
		}
	}
	return want, scale
}

// check runs kernel on a copy of h0 and compares it with the reference: upper
// triangle within 1e-12·Σ|terms|, lower triangle untouched.
func (c gramCase) check(t *testing.T, name string, kernel func([]float64, int, dataMatrix, []int, []float64)) {
	t.Helper()
	k := c.k
	want, scale := c.reference()
	h := append([]float64(nil), c.h0...)
	kernel(h, k, *c.m, c.rows, c.w)
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			got := h[i*k+j]
			if j < i {
				if got != gramSentinel {
					t.Fatalf("%s: k=%d n=%d: lower-triangle h[%d,%d] = %v, was %v", name, k, len(c.rows), i, j, got, gramSentinel)
				}
				continue
			}
			if d := math.Abs(got - want[i*k+j]); !(d <= 1e-12*scale[i*k+j]) {
				t.Fatalf("%s: k=%d n=%d: h[%d,%d] = %v, want %v (|diff| %g, Σ|terms| %g)", name, k, len(c.rows), i, j, got, want[i*k+j], d, scale[i*k+j])
			}
		}
	}
}

func TestAddWeightedGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 2))
	ks := []int{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 40, 41, 64, 100, 101}
	for _, k := range ks {
		// Row counts: empty, tiny, odd, around the block size (several blocks
		// with a partial last one), and random.
		nb := max(65536/(16*k), 4)
		ns := []int{0, 1, 2, 3, 4, 5, 7, nb - 1, nb, nb + 1, 2*nb + 3, 1 + rng.IntN(300)}
		for _, n := range ns {
			c := newGramCase(rng, k, 1+rng.IntN(2*n+5), n)
			c.check(t, "generic", addWeightedGramGeneric)
			c.check(t, "addWeightedGram", addWeightedGram)
			if useGramAsm {
				c.check(t, "addWeightedGramAsm", addWeightedGramAsm)
			}
		}
	}
	t.Logf("addWeightedGram runs: OpenBLAS %v, assembly %v", gramBLAS != nil, useGramAsm)
}

// TestAddWeightedGramLargeK covers k beyond the sizes that keep h in L1.
func TestAddWeightedGramLargeK(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 3))
	for _, k := range []int{203, 500} {
		for _, n := range []int{1, 9, 70} {
			c := newGramCase(rng, k, 2*n, n)
			c.check(t, "addWeightedGram", addWeightedGram)
		}
	}
}

// TestAddWeightedGramContiguous is the common call: runs of consecutive rows
// (read in place by the assembly kernel, up to the last row of the matrix), and
// a matrix whose rows are all the same (every tile sums one value).
func TestAddWeightedGramContiguous(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 4))
	for _, k := range []int{3, 5, 40, 101} {
		for _, span := range [][2]int{{0, 1000}, {0, 999}, {1, 1000}, {100, 900}, {997, 1000}} {
			c := newGramCase(rng, k, 1000, span[1]-span[0])
			for i := range c.rows {
				c.rows[i] = span[0] + i
			}
			c.check(t, "addWeightedGram", addWeightedGram)
			for r := 1; r < c.m.rows; r++ {
				copy(c.m.row(r), c.m.row(0))
			}
			c.check(t, "addWeightedGram same rows", addWeightedGram)
		}
	}
}

// TestAddWeightedGramConcurrent runs the kernel from several goroutines at once
// (chains run in parallel and share the packing-buffer pool).
func TestAddWeightedGramConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 5))
	const workers = 4
	cases := make([]gramCase, workers)
	for i := range cases {
		cases[i] = newGramCase(rng, 17+i*9, 400, 400)
	}
	done := make(chan []float64, workers)
	for i := range cases {
		go func(c gramCase) {
			h := append([]float64(nil), c.h0...)
			for range 20 {
				copy(h, c.h0)
				addWeightedGram(h, c.k, *c.m, c.rows, c.w)
			}
			done <- h
		}(cases[i])
	}
	got := map[int][]float64{}
	for range workers {
		h := <-done
		got[len(h)] = h
	}
	for _, c := range cases {
		want, scale := c.reference()
		h := got[c.k*c.k]
		for e := range h {
			if d := math.Abs(h[e] - want[e]); !(d <= 1e-12*scale[e]) {
				t.Fatalf("k=%d: element %d = %v, want %v", c.k, e, h[e], want[e])
			}
		}
	}
}
