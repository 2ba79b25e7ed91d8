package dist

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// familyCase is one family at one vector dimension with valid points at which every
// generic property is checked. Adding a family to allFamilies adds it to every
// table-driven test.
type familyCase struct {
	fam     Family
	k       int
	support Support
	intArgs []int       // argument indices that hold integers (derivatives must be 0)
	points  [][]float64 // full args: value then parameters, all inside the domain
}

// testMVN is a 3-variate normal with a non-diagonal covariance.
func testMVN(t testing.TB) *MultivariateNormal {
	cov := mat.NewSymDense(3, []float64{
		2, 0.3, 0.1,
		0.3, 1, -0.2,
		0.1, -0.2, 0.5,
	})
	d, err := NewMultivariateNormal(cov)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// testMVNSmall is a 2-variate normal with tiny, strongly correlated scales.
func testMVNSmall(t testing.TB) *MultivariateNormal {
	cov := mat.NewSymDense(2, []float64{1e-6, 0.9e-6, 0.9e-6, 1e-6})
	d, err := NewMultivariateNormal(cov)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func allFamilies(t testing.TB) []familyCase {
	return []familyCase{
		{Normal{}, 1, Real, nil, [][]float64{
			{0.3, -0.2, 1.5}, {1e3 + 0.002, 1e3, 1e-3}, {-4, 0, 1e3}, {1e3, -1e3, 50},
		}},
		{HalfNormal{}, 1, Positive, nil, [][]float64{
			{0.7, 1.2}, {1e-4, 1e-3}, {2e3, 1e3}, {1e-8, 2},
		}},
		{LogNormal{}, 1, Positive, nil, [][]float64{
			{2.5, 0.3, 0.8}, {1e-3, -6.9, 1e-3}, {1e3, 7, 0.5}, {0.05, 1, 3},
		}},
		{StudentT{}, 1, Real, nil, [][]float64{
			{0.4, 3.5, -0.1, 1.3}, {1e3, 1e3, 999, 1.5}, {-1e3, 0.5, 0, 1e-3}, {0.1, 0.01, 0, 1},
			{2, 30, 0, 1},
		}},
		{HalfStudentT{}, 1, Positive, nil, [][]float64{
			{0.4, 3.5, 1.3}, {1e3, 1e3, 1.5}, {1e-3, 0.5, 1e-3}, {0.1, 0.01, 1}, {2, 30, 1},
		}},
		{Flat{}, 1, Real, nil, [][]float64{{0.3}, {-1e3}, {1e6}}},
		{HalfFlat{}, 1, Positive, nil, [][]float64{{0.3}, {1e-6}, {1e6}}},
		{Cauchy{}, 1, Real, nil, [][]float64{
			{0.5, -1, 2}, {1e3, 0, 1e-3}, {1.0001, 1, 1e-3}, {3, 3.5, 1e3},
		}},
		{HalfCauchy{}, 1, Positive, nil, [][]float64{
			{0.5, 2}, {1e3, 1e-3}, {1e-5, 1e3},
		}},
		{Gamma{}, 1, Positive, nil, [][]float64{
			{1.3, 2.5, 0.7}, {1e-3, 1e-3, 1}, {1e3, 1e3, 1}, {0.01, 0.5, 1e3},
		}},
		{InverseGamma{}, 1, Positive, nil, [][]float64{
			{0.8, 3, 2}, {1e3, 1e-3, 1e3}, {1e-3, 2, 1e-3},
		}},
		{Exponential{}, 1, Positive, nil, [][]float64{
			{0.5, 2}, {1e-6, 1e3}, {1e3, 1e-3},
		}},
		{Beta{}, 1, Interval, nil, [][]float64{
			{0.3, 2, 5}, {1e-6, 0.5, 0.5}, {1 - 1e-6, 1e3, 1e-3}, {0.5, 1e3, 1e3}, {0.9, 1, 1},
		}},
		{Uniform{}, 1, Interval, nil, [][]float64{
			{0.5, 0, 1}, {-999, -1e3, 1e3}, {1e-3, 0, 2e-3},
		}},
		{Dirichlet{}, 3, Simplex, nil, [][]float64{
			{0.2, 0.3, 0.5, 1, 2, 3},
			{1e-4, 0.5, 0.4999, 1e-3, 1e-3, 1e-3},
			{1.0 / 3, 1.0 / 3, 1.0 / 3, 1e3, 1e3, 1e3},
		}},
		{Dirichlet{}, 2, Simplex, nil, [][]float64{{0.7, 0.3, 0.5, 4}}},
		{testMVN(t), 3, Real, nil, [][]float64{
			{0.1, -0.3, 2, 0, 0, 0}, {1e3, -1e3, 5, 999, -998, 4},
		}},
		{testMVNSmall(t), 2, Real, nil, [][]float64{{1e-3, -1e-3, 0, 0}}},
		{Bernoulli{}, 1, Discrete, []int{0}, [][]float64{
			{1, 0.3}, {0, 0.3}, {1, 1e-6}, {0, 1 - 1e-6},
		}},
		{BernoulliLogit{}, 1, Discrete, []int{0}, [][]float64{
			{1, 0.3}, {0, -40}, {1, 40}, {0, 700}, {1, -700},
		}},
		{Binomial{}, 1, Discrete, []int{0, 1}, [][]float64{
			{3, 10, 0.4}, {0, 5, 1e-6}, {1000, 1000, 0.999}, {0, 0, 0.5},
		}},
		{BinomialLogit{}, 1, Discrete, []int{0, 1}, [][]float64{
			{3, 10, 0.2}, {0, 1000, -5}, {1000, 1000, 30}, {500, 1000, 1e-3},
		}},
		{Categorical{}, 4, Discrete, []int{0}, [][]float64{
			{2, 0.1, 0.2, 0.3, 0.4}, {0, 1e-6, 0.5, 0.5 - 1e-6, 0}, {3, 0.25, 0.25, 0.25, 0.25},
		}},
		{CategoricalLogits{}, 3, Discrete, []int{0}, [][]float64{
			{1, 0.5, -1, 2}, {0, -30, 30, 0}, {2, 1e3, -1e3, 0},
		}},
		{Poisson{}, 1, Discrete, []int{0}, [][]float64{
			{3, 2.5}, {0, 1e-6}, {1000, 1e3}, {5, 1e-3},
		}},
		{PoissonLog{}, 1, Discrete, []int{0}, [][]float64{
			{3, 0.9}, {0, -20}, {1000, 6.9},
		}},
		{NegBinomial2{}, 1, Discrete, []int{0}, [][]float64{
			{3, 2.5, 1.5}, {0, 1e-3, 2}, {70, 50, 3}, {5, 4, 1e4}, {1000, 900, 0.5}, {12, 3, 0.2},
			{100, 90, 1e5}, {64, 70, 2e4},
		}},
		{NegBinomial2Log{}, 1, Discrete, []int{0}, [][]float64{
			{3, 0.9, 1.5}, {0, -5, 0.7}, {100, 4.5, 10}, {2, 1, 1e5}, {64, 4, 2},
		}},
		{Weibull{}, 1, Positive, nil, [][]float64{
			{1.3, 2.5, 0.7}, {0.01, 0.5, 1}, {50, 3, 40}, {2, 1, 1}, {1e-4, 4, 2e-4},
		}},
		{Logistic{}, 1, Real, nil, [][]float64{
			{0.3, -0.2, 1.5}, {30, 0, 1}, {-40, 0, 1}, {1e-3, 0, 1e-3}, {-1e3, 1e3, 50},
		}},
		{OrderedLogistic{}, 4, Discrete, []int{0}, [][]float64{
			{0, 0.5, -1, 0.3, 2}, {1, 0.5, -1, 0.3, 2}, {2, -3, -1, 0.3, 2}, {3, 10, -1, 0.3, 2},
			{1, 0, -0.05, 0.05, 5}, {2, 30, -1, 25, 29},
		}},
		{OrderedLogistic{}, 2, Discrete, []int{0}, [][]float64{{1, 0.3, 0.7}, {0, 0.3, 0.7}}},
	}
}

func (c familyCase) name() string { return fmt.Sprintf("%s/k=%d", c.fam.Name(), c.k) }

func isIntArg(c familyCase, i int) bool {
	for _, j := range c.intArgs {
		if j == i {
			return true
		}
	}
	return false
}

// TestFamiliesBasic checks, at every valid point of every family: the layout matches
// the argument count; CheckParams accepts the parameters; InSupport accepts the value;
// the support kind; LogProb is finite and equals the value Derivs returns; the
// Hessian is symmetric; derivatives with respect to integer arguments are 0; and
// Rand draws values inside the support.
func TestFamiliesBasic(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range allFamilies(t) {
		t.Run(c.name(), func(t *testing.T) {
			vw, pw := c.fam.Layout(c.k)
			if len(pw) != len(c.fam.ParamNames()) {
				t.Fatalf("Layout gives %d parameter widths, ParamNames %d", len(pw), len(c.fam.ParamNames()))
			}
			n := vw
			for _, w := range pw {
				n += w
			}
			for _, a := range c.points {
				if len(a) != n {
					t.Fatalf("point %v has %d args, layout says %d", a, len(a), n)
				}
				params := a[vw:]
				if err := c.fam.CheckParams(params, c.k); err != nil {
					t.Errorf("CheckParams(%v) = %v", params, err)
				}
				if !c.fam.InSupport(a, c.k) {
					t.Errorf("InSupport(%v) = false", a)
				}
				kind, _, _, _ := c.fam.Support(params, c.k)
				if kind != c.support {
					t.Errorf("Support = %v, want %v", kind, c.support)
				}
				lp := c.fam.LogProb(a, c.k)
				if math.IsNaN(lp) || math.IsInf(lp, 0) {
					t.Errorf("LogProb(%v) = %v", a, lp)
				}
				grad, hess := make([]float64, n), make([]float64, n*n)
				lp2 := c.fam.Derivs(a, c.k, grad, hess)
				if !(math.Abs(lp2-lp) <= 1e-13*math.Max(1, math.Abs(lp))) {
					t.Errorf("Derivs value %.17g, LogProb %.17g at %v", lp2, lp, a)
				}
				for i := range n {
					if math.IsNaN(grad[i]) || math.IsInf(grad[i], 0) {
						t.Errorf("grad[%d] = %v at %v", i, grad[i], a)
					}
					for j := range n {
						hij, hji := hess[i*n+j], hess[j*n+i]
						if math.IsNaN(hij) || math.IsInf(hij, 0) {
							t.Errorf("hess[%d,%d] = %v at %v", i, j, hij, a)
						}
						if hij != hji && math.Abs(hij-hji) > 1e-14*math.Max(math.Abs(hij), math.Abs(hji)) {
							t.Errorf("hess not symmetric at [%d,%d]: %v vs %v at %v", i, j, hij, hji, a)
						}
					}
					if isIntArg(c, i) {
						if grad[i] != 0 {
							t.Errorf("grad[%d] = %v for integer argument at %v", i, grad[i], a)
						}
						for j := range n {
							if hess[i*n+j] != 0 {
								t.Errorf("hess[%d,%d] = %v for integer argument at %v", i, j, hess[i*n+j], a)
							}
						}
					}
				}
				draw := make([]float64, n)
				copy(draw, a)
				for range 20 {
					c.fam.Rand(rng, params, c.k, draw[:vw])
					if !c.fam.InSupport(draw, c.k) {
						t.Errorf("Rand(%v) drew %v, outside the support", params, draw[:vw])
					}
					if l := c.fam.LogProb(draw, c.k); math.IsNaN(l) || math.IsInf(l, 1) {
						t.Errorf("LogProb at drawn %v = %v", draw[:vw], l)
					}
				}
			}
		})
	}
}

// fdStep returns the finite-difference step for argument j: 1e-2 of the local length
// scale 1/√|H_jj| (from the analytic Hessian: it only sizes the step), and never more
// than 1e-2·|a_j|. With a 4th-order formula the truncation error is then about 1e-8
// relative, well inside the tolerances, and the round-off stays small.
func fdStep(a []float64, hess []float64, n, j int) float64 {
	l := math.Max(math.Abs(a[j]), 1)
	if hjj := math.Abs(hess[j*n+j]); hjj > 0 && !math.IsInf(hjj, 0) {
		l = math.Min(l, 1/math.Sqrt(hjj))
	}
	if a[j] != 0 {
		l = math.Min(l, math.Abs(a[j]))
	}
	return 1e-2 * l
}

// central4 returns the 4th-order central difference (−f(2h) + 8f(h) − 8f(−h) + f(−2h))/(12h)
// of f along coordinate j, halving h until all four points are inside the support and
// the result is finite. It returns the step used, or nil if none worked.
func central4(f func([]float64) []float64, a []float64, j int, h float64) ([]float64, float64) {
	x := append([]float64(nil), a...)
	for range 30 {
		eval := func(d float64) []float64 {
			x[j] = a[j] + d
			return f(x)
		}
		fp2, fp1, fm1, fm2 := eval(2*h), eval(h), eval(-h), eval(-2*h)
		ok := true
		out := make([]float64, len(fp1))
		for i := range out {
			out[i] = (-fp2[i] + 8*fp1[i] - 8*fm1[i] + fm2[i]) / (12 * h)
			if math.IsNaN(out[i]) || math.IsInf(out[i], 0) {
				ok = false
			}
		}
		if ok {
			return out, h
		}
		h /= 2
	}
	return nil, h
}

// richardson returns the central difference at step h/2 (after central4's halving)
// and, per component, an estimate of its error: the change from step h to h/2. A wrong
// analytic derivative differs from both by an amount that does not shrink with h, so
// allowing for this estimate does not hide errors; it only absorbs the truncation and
// round-off of the difference quotient itself.
func richardson(f func([]float64) []float64, a []float64, j int, h float64) (d, errEst []float64, step float64) {
	d1, h1 := central4(f, a, j, h)
	if d1 == nil {
		return nil, nil, h1
	}
	d2, h2 := central4(f, a, j, h1/2)
	if d2 == nil {
		return nil, nil, h2
	}
	errEst = make([]float64, len(d2))
	for i := range d2 {
		errEst[i] = 2 * math.Abs(d1[i]-d2[i])
	}
	return d2, errEst, h2
}

// TestFamiliesDerivsFD checks the analytic gradient against 4th-order central
// differences of LogProb, and the analytic Hessian against 4th-order central
// differences of the analytic gradient, for the value and every parameter at every
// point of every family. Tolerances: 1e-6 relative for the gradient and 1e-5 for the
// Hessian, plus a round-off floor of the difference quotient, 1000·eps·|f|/h.
func TestFamiliesDerivsFD(t *testing.T) {
	t.Parallel()
	const eps = 0x1p-52
	for _, c := range allFamilies(t) {
		t.Run(c.name(), func(t *testing.T) {
			for _, a := range c.points {
				n := len(a)
				grad, hess := make([]float64, n), make([]float64, n*n)
				lp := c.fam.Derivs(a, c.k, grad, hess)
				logp := func(x []float64) []float64 { return []float64{c.fam.LogProb(x, c.k)} }
				gradAt := func(x []float64) []float64 {
					g, h := make([]float64, n), make([]float64, n*n)
					if math.IsInf(c.fam.Derivs(x, c.k, g, h), -1) {
						g[0] = math.NaN()
					}
					return g
				}
				var gmax float64
				for _, g := range grad {
					gmax = math.Max(gmax, math.Abs(g))
				}
				for j := range n {
					if isIntArg(c, j) {
						continue
					}
					h := fdStep(a, hess, n, j)
					fd, fe, h := richardson(logp, a, j, h)
					if fd == nil {
						t.Errorf("%v: no finite difference step for arg %d", a, j)
						continue
					}
					tol := 1e-6*math.Abs(grad[j]) + 1e-8*gmax + 1000*eps*(math.Abs(lp)+1)/h + fe[0]
					if d := math.Abs(fd[0] - grad[j]); !(d <= tol) {
						t.Errorf("%v: grad[%d] = %.12g, finite difference %.12g (diff %.3g, tol %.3g)",
							a, j, grad[j], fd[0], d, tol)
					}
					fdh, fhe, h := richardson(gradAt, a, j, fdStep(a, hess, n, j))
					if fdh == nil {
						t.Errorf("%v: no finite difference step for the Hessian column %d", a, j)
						continue
					}
					var hmax float64
					for i := range n {
						hmax = math.Max(hmax, math.Abs(hess[i*n+j]))
					}
					for i := range n {
						if isIntArg(c, i) {
							continue
						}
						hij := hess[i*n+j]
						tol := 1e-5*math.Abs(hij) + 1e-7*hmax + 1000*eps*(gmax+1)/h + fhe[i]
						if d := math.Abs(fdh[i] - hij); !(d <= tol) {
							t.Errorf("%v: hess[%d,%d] = %.12g, finite difference %.12g (diff %.3g, tol %.3g)",
								a, i, j, hij, fdh[i], d, tol)
						}
					}
				}
			}
		})
	}
}
