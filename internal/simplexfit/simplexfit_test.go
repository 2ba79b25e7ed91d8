package simplexfit

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/nmc/dist"
)

// TestSteerHessian checks that a Dirichlet score in the homogeneous form is left as
// it is, and that a mixture-like score (a Dirichlet plus a dense negative
// semi-definite term) keeps its Hessian along the simplex and gets a fit whose
// (α_n − 1)/x_n − g_n is the same for every n.
func TestSteerHessian(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 1))
	var dir dist.Dirichlet
	for k := 2; k <= 5; k++ {
		alpha, x := make([]float64, k), make([]float64, k)
		for n := range alpha {
			alpha[n] = 1 + 20*rng.Float64()
		}
		dir.Rand(rng, alpha, k, x)
		g, h := make([]float64, k), make([]float64, k*k)
		for n := range x {
			g[n] = (alpha[n] - 1) / x[n]
			h[n*k+n] = -(alpha[n] - 1) / (x[n] * x[n])
		}
		want := append([]float64(nil), h...)
		SteerHessian(h, g, x, k, make([]float64, ScratchLen(k)))
		for n := range h {
			if math.Abs(h[n]-want[n]) > 1e-9*max(1, math.Abs(want[n])) {
				t.Errorf("k = %d: Dirichlet score: Hessian[%d] %v after steering, %v before", k, n, h[n], want[n])
			}
		}
		// Add −u uᵀ (a responsibility-like term) to the Dirichlet Hessian.
		u := make([]float64, k)
		for n := range u {
			u[n] = 5 * rng.Float64() / x[n]
		}
		for n := 0; n < k; n++ {
			for j := 0; j < k; j++ {
				h[n*k+j] = want[n*k+j] - u[n]*u[j]
			}
		}
		before := append([]float64(nil), h...)
		SteerHessian(h, g, x, k, make([]float64, ScratchLen(k)))
		// Tangent part: vᵀhv unchanged for Σv = 0.
		for range 5 {
			v := make([]float64, k)
			s := 0.0
			for n := range v {
				v[n] = rng.NormFloat64()
				s += v[n]
			}
			for n := range v {
				v[n] -= s / float64(k)
			}
			q0, q1 := 0.0, 0.0
			for n := 0; n < k; n++ {
				for j := 0; j < k; j++ {
					q0 += v[n] * before[n*k+j] * v[j]
					q1 += v[n] * h[n*k+j] * v[j]
				}
			}
			if math.Abs(q0-q1) > 1e-8*max(1, math.Abs(q0)) {
				t.Errorf("k = %d: tangent curvature %v after steering, %v before", k, q1, q0)
			}
		}
		a := DirichletFit(x, h)
		lam := (a[0]-1)/x[0] - g[0]
		for n := 1; n < k; n++ {
			if d := (a[n]-1)/x[n] - g[n]; math.Abs(d-lam) > 1e-6*max(1, math.Abs(g[n]), math.Abs(lam)) {
				t.Errorf("k = %d: fit α %v is not a Dirichlet with the score's gradient %v along the simplex", k, a, g)
				break
			}
		}
	}
}
