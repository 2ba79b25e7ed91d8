package graph

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/internal/special"
	"gonum.org/v1/gonum/mat"
)

// TestNegligibleRowsSkipped checks the Hessian of logistic regression's
// coefficient site on well-separated data: most rows' weights σ'(z) underflow
// against the rows near the boundary and are skipped, and the result still equals
// the full sum −Σ σ'(z_r) x_r x_rᵀ − I/sd² to rounding.
func TestNegligibleRowsSkipped(t *testing.T) {
	const n, k, sd = 2000, 5, 2.5
	rng := rand.New(rand.NewPCG(8, 9))
	x := mat.NewDense(n, k, nil)
	y := make([]float64, n)
	beta := make([]float64, k)
	for j := range beta {
		beta[j] = 3 * rng.NormFloat64()
	}
	for i := 0; i < n; i++ {
		z := 0.0
		for j := 0; j < k; j++ {
			x.Set(i, j, 10*rng.NormFloat64())
			z += x.At(i, j) * beta[j]
		}
		if rng.Float64() < special.Logistic(z) {
			y[i] = 1
		}
	}
	want := make([]float64, k*k)
	for i := 0; i < n; i++ {
		z := mat.Dot(x.RowView(i), mat.NewVecDense(k, beta))
		s := special.Logistic(z)
		w := s * (1 - s)
		for p := 0; p < k; p++ {
			for q := 0; q < k; q++ {
				want[p*k+q] -= w * x.At(i, p) * x.At(i, q)
			}
		}
	}
	norm := 0.0
	for p := 0; p < k; p++ {
		want[p*k+p] -= 1 / (sd * sd)
	}
	for _, v := range want {
		norm += v * v
	}
	// Both paths: the linear factor (linear.go) and the element-by-element one.
	for _, linear := range []bool{true, false} {
		b := New()
		b.noLinear = !linear
		bs := b.Vector("beta", k, Normal(C(0), C(sd)))
		b.Observe("y", BernoulliLogit(MatVec(x, bs)), y)
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		sc := m.NewScorer().(*scorer)
		g, h := make([]float64, k), make([]float64, k*k)
		sc.Score(beta, 0, g, h)
		var kept int
		if linear {
			if len(m.linear) != 1 {
				t.Fatalf("%d linear factors, want 1", len(m.linear))
			}
			kept = len(sc.lin[0].kept[0])
		} else {
			kept = len(sc.batches[0].kept)
		}
		if kept == 0 || kept > n/2 {
			t.Fatalf("linear %v: kept %d of %d rows; want a minority (most |z| are large)", linear, kept, n)
		}
		diff := 0.0
		for i := range want {
			diff += (h[i] - want[i]) * (h[i] - want[i])
		}
		if rel := math.Sqrt(diff / norm); rel > 1e-13 {
			t.Errorf("linear %v: Hessian differs from the full sum by %.3g (relative Frobenius); kept %d of %d rows", linear, rel, kept, n)
		}
		t.Logf("linear %v: kept %d of %d rows", linear, kept, n)
	}
}
