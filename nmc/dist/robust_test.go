package dist

import (
	"math"
	"testing"
)

// TestRobustExtremes replaces each argument of every valid point by extreme and
// invalid values and checks that LogProb and Derivs never panic, never return NaN or
// +Inf, agree with each other, and give no NaN derivative where the log density is
// finite.
func TestRobustExtremes(t *testing.T) {
	t.Parallel()
	specials := []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 1e300, -1e300, 1e-8, 1 - 1e-16,
		math.NaN(), math.Inf(1), math.Inf(-1), 0.5, -1, 2, 3.7, 1e5}
	for _, c := range allFamilies(t) {
		for _, a := range c.points {
			n := len(a)
			grad, hess := make([]float64, n), make([]float64, n*n)
			x := append([]float64(nil), a...)
			for i := range n {
				for _, v := range specials {
					copy(x, a)
					x[i] = v
					lp := c.fam.LogProb(x, c.k)
					d := c.fam.Derivs(x, c.k, grad, hess)
					if math.IsNaN(lp) || math.IsInf(lp, 1) {
						t.Errorf("%s.LogProb(%v) = %v", c.fam.Name(), x, lp)
						continue
					}
					if d != lp && math.Abs(d-lp) > 1e-12*math.Abs(lp) {
						t.Errorf("%s at %v: Derivs %v, LogProb %v", c.fam.Name(), x, d, lp)
					}
					if math.IsInf(lp, -1) {
						continue
					}
					for j, g := range grad {
						if math.IsNaN(g) {
							t.Errorf("%s at %v: grad[%d] is NaN", c.fam.Name(), x, j)
						}
					}
					for j, h := range hess[:n*n] {
						if math.IsNaN(h) {
							t.Errorf("%s at %v: hess[%d] is NaN", c.fam.Name(), x, j)
						}
					}
				}
			}
		}
	}
}
