package graph

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// TestScaleOf checks that scaleOf finds the factor of a vector scaled coordinate by
// coordinate as a dilation's orbit scales it (v = fl(e·w), e = e^{rate·t}), zeros
// and signs included, and refuses a vector off by a relative 1e-9 in one coordinate, a zero w,
// other lengths and non-finite factors.
func TestScaleOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for trial := 0; trial < 2000; trial++ {
		n := 1 + rng.IntN(50)
		w := make([]float64, n)
		for j := range w {
			if rng.IntN(10) > 0 {
				w[j] = rng.NormFloat64() * math.Exp(3*rng.NormFloat64())
			}
		}
		w[rng.IntN(n)] = rng.NormFloat64() // at least one non-zero
		e := math.Exp(rng.NormFloat64() * math.Exp(2*rng.NormFloat64()))
		if rng.IntN(4) == 0 {
			e = -e
		}
		v := make([]float64, n)
		for j := range w {
			v[j] = e * w[j]
		}
		c, ok := scaleOf(w, v)
		if !ok {
			if e == 0 || math.IsInf(e, 0) || allZero(v) {
				continue // an underflowed or overflowed factor: nothing to find
			}
			t.Fatalf("trial %d: v = %g·w not recognised (w %v)", trial, e, w)
		}
		for j := range w {
			if c*w[j] != v[j] {
				t.Fatalf("trial %d: factor %v gives %v at %d, want %v", trial, c, c*w[j], j, v[j])
			}
		}
		// One non-zero coordinate moved by a relative 1e-9, with another non-zero
		// coordinate left: no factor fits both.
		nz := 0
		for _, y := range w {
			if y != 0 {
				nz++
			}
		}
		if nz < 2 {
			continue
		}
		j := rng.IntN(n)
		for w[j] == 0 || v[j] == 0 {
			j = (j + 1) % n
		}
		v[j] *= 1 + 1e-9
		if c, ok := scaleOf(w, v); ok {
			t.Fatalf("trial %d: factor %v returned for a vector that is not a multiple", trial, c)
		}
	}
	if _, ok := scaleOf([]float64{0, 0}, []float64{0, 0}); ok {
		t.Error("a zero w gave a factor")
	}
	if _, ok := scaleOf([]float64{1, 2}, []float64{2, 4, 6}); ok {
		t.Error("other lengths gave a factor")
	}
	if _, ok := scaleOf([]float64{1, 2}, []float64{math.NaN(), math.NaN()}); ok {
		t.Error("a NaN vector gave a factor")
	}
	if _, ok := scaleOf([]float64{1e-300, 2}, []float64{math.Inf(1), math.Inf(1)}); ok {
		t.Error("an infinite vector gave a factor")
	}
	if c, ok := scaleOf([]float64{1, -2, 0}, []float64{3, -6, 0}); !ok || c != 3 {
		t.Errorf("(3, −6, 0) = c·(1, −2, 0): got %v, %v", c, ok)
	}
}

func allZero(v []float64) bool {
	for _, y := range v {
		if y != 0 {
			return false
		}
	}
	return true
}

// TestMvCacheScaled checks the product cache on a dilated vector: X·(e·w) after X·w
// is e·(X·w) bit for bit (the slot was scaled, not recomputed), within 1e-13 of X·v
// computed from scratch (relative to Σ|X_rj v_j|), and stored under its own key (a
// later call at e·w is an exact hit, w is still in the other slot); a vector that
// is not a multiple of a slot's is computed from scratch, bit for bit a cold cache's.
func TestMvCacheScaled(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	const rows, cols = 9000, 7
	x := &dataMatrix{rows: rows, cols: cols, data: make([]float64, rows*cols)}
	for i := range x.data {
		x.data[i] = rng.NormFloat64()
	}
	gemv := func(v []float64) []float64 {
		out := make([]float64, rows)
		blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: x.data},
			blas64.Vector{N: cols, Inc: 1, Data: v}, 0, blas64.Vector{N: rows, Inc: 1, Data: out})
		return out
	}
	var c mvCache
	epoch := uint64(0)
	call := func(v []float64) []float64 {
		epoch++
		return append([]float64(nil), c.vector(x, v, epoch, 2)...)
	}
	w := make([]float64, cols)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	xw := call(w)
	for trial := 0; trial < 20; trial++ {
		e := math.Exp(rng.NormFloat64())
		v := make([]float64, cols)
		for j := range w {
			v[j] = e * w[j]
		}
		f, ok := scaleOf(w, v)
		if !ok {
			t.Fatalf("trial %d: not a multiple", trial)
		}
		got := call(v)
		want := gemv(v)
		for r := range got {
			if math.Float64bits(got[r]) != math.Float64bits(f*xw[r]) {
				t.Fatalf("trial %d row %d: %v, want the scaled %v", trial, r, got[r], f*xw[r])
			}
			abs := 0.0
			for j, a := range x.row(r) {
				abs += math.Abs(a * v[j])
			}
			if math.Abs(got[r]-want[r]) > 1e-13*abs {
				t.Fatalf("trial %d row %d: %v, X·v from scratch %v", trial, r, got[r], want[r])
			}
		}
		if again := call(v); !sameBits(again, got) {
			t.Fatalf("trial %d: a second call at e·w is not an exact hit", trial)
		}
		if back := call(w); !sameBits(back, xw) {
			t.Fatalf("trial %d: w's slot was lost or changed", trial)
		}
		// Not a multiple of either slot: computed from scratch.
		u := append([]float64(nil), v...)
		u[rng.IntN(cols)] += 0.5
		var cold mvCache
		if got, want := call(u), cold.vector(x, u, 1, 2); !sameBits(got, want) {
			t.Fatalf("trial %d: another vector is not X·u from scratch", trial)
		}
		xw = call(w) // w back in a slot (u may have evicted it)
	}
}
