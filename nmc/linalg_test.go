package nmc

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randSym(rng *rand.Rand, n int, pd bool) []float64 {
	b := make([]float64, n*n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			if pd {
				for k := 0; k < n; k++ {
					s += b[i*n+k] * b[j*n+k]
				}
				if i == j {
					s += 0.1
				}
			} else {
				s = b[i*n+j] + b[j*n+i]
			}
			a[i*n+j] = s
		}
	}
	return a
}

func TestCholeskyAndSolves(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 2, 5, 12} {
		a := randSym(rng, n, true)
		l := append([]float64(nil), a...)
		if !cholesky(l, n) {
			t.Fatalf("n=%d: cholesky failed on a positive definite matrix", n)
		}
		// L Lᵀ = A
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				s := 0.0
				for k := 0; k < n; k++ {
					s += l[i*n+k] * l[j*n+k]
				}
				if math.Abs(s-a[i*n+j]) > 1e-10*(1+math.Abs(a[i*n+j])) {
					t.Fatalf("n=%d: (LLᵀ)[%d,%d] = %g, want %g", n, i, j, s, a[i*n+j])
				}
			}
		}
		// Solve A x = b with the two triangular solves, against gonum.
		b := make([]float64, n)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		x := append([]float64(nil), b...)
		solveLower(l, n, x)
		solveLowerT(l, n, x)
		var want mat.VecDense
		if err := want.SolveVec(mat.NewDense(n, n, a), mat.NewVecDense(n, b)); err != nil {
			t.Fatal(err)
		}
		for i := range x {
			if math.Abs(x[i]-want.AtVec(i)) > 1e-8*(1+math.Abs(want.AtVec(i))) {
				t.Fatalf("n=%d: solve[%d] = %g, want %g", n, i, x[i], want.AtVec(i))
			}
		}
	}
	if cholesky([]float64{1, 2, 2, 1}, 2) {
		t.Error("cholesky accepted an indefinite matrix")
	}
	if cholesky([]float64{math.NaN()}, 1) {
		t.Error("cholesky accepted NaN")
	}
}

func TestSymEigen(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2, 1))
	for _, n := range []int{1, 2, 3, 8, 20} {
		a := randSym(rng, n, false)
		work := append([]float64(nil), a...)
		w, v := make([]float64, n), make([]float64, n*n)
		if !symEigen(work, n, w, v) {
			t.Fatalf("n=%d: no convergence", n)
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				s, o := 0.0, 0.0
				for k := 0; k < n; k++ {
					s += v[i*n+k] * w[k] * v[j*n+k]
					o += v[k*n+i] * v[k*n+j]
				}
				if math.Abs(s-a[i*n+j]) > 1e-9*(1+math.Abs(a[i*n+j])) {
					t.Fatalf("n=%d: (VΛVᵀ)[%d,%d] = %g, want %g", n, i, j, s, a[i*n+j])
				}
				id := 0.0
				if i == j {
					id = 1
				}
				if math.Abs(o-id) > 1e-10 {
					t.Fatalf("n=%d: (VᵀV)[%d,%d] = %g, want %g", n, i, j, o, id)
				}
			}
		}
	}
}

func TestSoftAbs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ l, want float64 }{
		{0, 1e-6},       // limit 1/α at 0
		{-2, 2}, {3, 3}, // |λ| far from 0
		{1e-6, 1e-6 / math.Tanh(1)},
		{-1e-12, 1e-6 * (1 + 1e-12/3)},
	} {
		if got := softAbs(c.l); math.Abs(got-c.want) > 1e-12*math.Abs(c.want) {
			t.Errorf("softAbs(%g) = %.17g, want %.17g", c.l, got, c.want)
		}
	}
}
