package dist

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/num/hyperdual"

	"github.com/nmc-go/nmc/internal/special"
)

// This file checks every family's gradient and Hessian against forward-mode automatic
// differentiation with gonum's hyperdual numbers: each log density is re-written
// below in hyperdual arithmetic from its textbook formula, so the derivatives come
// from the chain rule, not from the hand derivations in the family files, and agree
// with them to rounding (1e-9 relative) instead of finite-difference accuracy.

type hd = hyperdual.Number

func hc(v float64) hd { return hd{Real: v} }

// lift applies a scalar function with value f and derivatives d1, d2 at x.Real.
func lift(x hd, f, d1, d2 float64) hd {
	return hd{
		Real:    f,
		E1mag:   d1 * x.E1mag,
		E2mag:   d1 * x.E2mag,
		E1E2mag: d1*x.E1E2mag + d2*x.E1mag*x.E2mag,
	}
}

func hlgamma(x hd) hd {
	return lift(x, lgamma(x.Real), special.Digamma(x.Real), special.Trigamma(x.Real))
}

func hlog1p(x hd) hd {
	d := 1 / (1 + x.Real)
	return lift(x, math.Log1p(x.Real), d, -d*d)
}

func hsoftplus(x hd) hd {
	s := special.Logistic(x.Real)
	return lift(x, special.Log1pExp(x.Real), s, s*special.Logistic(-x.Real))
}

func hlogistic(x hd) hd {
	s := special.Logistic(x.Real)
	d := s * special.Logistic(-x.Real)
	return lift(x, s, d, d*(1-2*s))
}

func add(xs ...hd) hd {
	var s hd
	for _, x := range xs {
		s = hyperdual.Add(s, x)
	}
	return s
}

func sub(x, y hd) hd        { return hyperdual.Sub(x, y) }
func mul(x, y hd) hd        { return hyperdual.Mul(x, y) }
func div(x, y hd) hd        { return hyperdual.Mul(x, hyperdual.Inv(y)) }
func sc(f float64, x hd) hd { return hyperdual.Scale(f, x) }
func hlog(x hd) hd          { return hyperdual.Log(x) }
func sq(x hd) hd            { return mul(x, x) }

// hyperdualLogProb returns the hyperdual log density of the case's family, and false
// if the family has no formula here.
func hyperdualLogProb(c familyCase, a []hd) (hd, bool) {
	switch f := c.fam.(type) {
	case Normal:
		z := div(sub(a[0], a[1]), a[2])
		return sub(sub(sc(-0.5, sq(z)), hlog(a[2])), hc(logSqrt2Pi)), true
	case HalfNormal:
		z := div(a[0], a[1])
		return add(hc(math.Ln2-logSqrt2Pi), sc(-0.5, sq(z)), sc(-1, hlog(a[1]))), true
	case LogNormal:
		y := hlog(a[0])
		z := div(sub(y, a[1]), a[2])
		return add(sc(-0.5, sq(z)), sc(-1, hlog(a[2])), hc(-logSqrt2Pi), sc(-1, y)), true
	case StudentT:
		nu, z := a[1], div(sub(a[0], a[2]), a[3])
		half := sc(0.5, nu)
		return add(hlgamma(add(half, hc(0.5))), sc(-1, hlgamma(half)), sc(-0.5, hlog(sc(math.Pi, nu))),
			sc(-1, hlog(a[3])), sc(-1, mul(add(half, hc(0.5)), hlog1p(div(sq(z), nu))))), true
	case HalfStudentT:
		nu, z := a[1], div(a[0], a[2])
		half := sc(0.5, nu)
		return add(hc(math.Ln2), hlgamma(add(half, hc(0.5))), sc(-1, hlgamma(half)), sc(-0.5, hlog(sc(math.Pi, nu))),
			sc(-1, hlog(a[2])), sc(-1, mul(add(half, hc(0.5)), hlog1p(div(sq(z), nu))))), true
	case Flat, HalfFlat:
		return hc(0), true
	case Cauchy:
		z := div(sub(a[0], a[1]), a[2])
		return add(hc(-math.Log(math.Pi)), sc(-1, hlog(a[2])), sc(-1, hlog1p(sq(z)))), true
	case HalfCauchy:
		z := div(a[0], a[1])
		return add(hc(math.Ln2-math.Log(math.Pi)), sc(-1, hlog(a[1])), sc(-1, hlog1p(sq(z)))), true
	case Gamma:
		x, al, b := a[0], a[1], a[2]
		return add(mul(al, hlog(b)), sc(-1, hlgamma(al)), mul(sub(al, hc(1)), hlog(x)), sc(-1, mul(b, x))), true
	case InverseGamma:
		x, al, b := a[0], a[1], a[2]
		return add(mul(al, hlog(b)), sc(-1, hlgamma(al)), sc(-1, mul(add(al, hc(1)), hlog(x))), sc(-1, div(b, x))), true
	case Exponential:
		return sub(hlog(a[1]), mul(a[1], a[0])), true
	case Beta:
		x, al, b := a[0], a[1], a[2]
		return add(mul(sub(al, hc(1)), hlog(x)), mul(sub(b, hc(1)), hlog1p(sc(-1, x))),
			sc(-1, hlgamma(al)), sc(-1, hlgamma(b)), hlgamma(add(al, b))), true
	case Uniform:
		return sc(-1, hlog(sub(a[2], a[1]))), true
	case Dirichlet:
		k := c.k
		var s, sa hd
		for i := range k {
			s = add(s, mul(sub(a[k+i], hc(1)), hlog(a[i])), sc(-1, hlgamma(a[k+i])))
			sa = add(sa, a[k+i])
		}
		return add(s, hlgamma(sa)), true
	case *MultivariateNormal:
		k := c.k
		var q hd
		for i := range k {
			for j := range k {
				q = add(q, sc(f.prec[i*k+j], mul(sub(a[i], a[k+i]), sub(a[j], a[k+j]))))
			}
		}
		return add(sc(-0.5, q), hc(f.logNorm)), true
	case Bernoulli:
		if a[0].Real == 1 {
			return hlog(a[1]), true
		}
		return hlog1p(sc(-1, a[1])), true
	case BernoulliLogit:
		if a[0].Real == 1 {
			return sc(-1, hsoftplus(sc(-1, a[1]))), true
		}
		return sc(-1, hsoftplus(a[1])), true
	case Binomial:
		y, n := a[0].Real, a[1].Real
		s := hc(logChoose(n, y))
		if y > 0 {
			s = add(s, sc(y, hlog(a[2])))
		}
		if n-y > 0 {
			s = add(s, sc(n-y, hlog1p(sc(-1, a[2]))))
		}
		return s, true
	case BinomialLogit:
		y, n := a[0].Real, a[1].Real
		return add(hc(logChoose(n, y)), sc(-y, hsoftplus(sc(-1, a[2]))), sc(-(n-y), hsoftplus(a[2]))), true
	case Categorical:
		return hlog(a[1+int(a[0].Real)]), true
	case CategoricalLogits:
		m := math.Inf(-1)
		for _, l := range a[1:] {
			m = math.Max(m, l.Real)
		}
		var s hd
		for _, l := range a[1:] {
			s = add(s, hyperdual.Exp(sub(l, hc(m))))
		}
		return sub(sub(a[1+int(a[0].Real)], hc(m)), hlog(s)), true
	case Poisson:
		y := a[0].Real
		s := sub(hc(-lgamma(y+1)), a[1])
		if y > 0 {
			s = add(s, sc(y, hlog(a[1])))
		}
		return s, true
	case PoissonLog:
		y := a[0].Real
		return add(sc(y, a[1]), sc(-1, hyperdual.Exp(a[1])), hc(-lgamma(y+1))), true
	case NegBinomial2, NegBinomial2Log:
		y, mu, phi := a[0].Real, a[1], a[2]
		if _, ok := f.(NegBinomial2Log); ok {
			mu = hyperdual.Exp(a[1])
		}
		return add(hlgamma(add(phi, hc(y))), sc(-1, hlgamma(phi)), hc(-lgamma(y+1)), sc(y, hlog(mu)),
			mul(phi, hlog(phi)), sc(-1, mul(add(phi, hc(y)), hlog(add(mu, phi))))), true
	case Weibull:
		al, sg := a[1], a[2]
		l := sub(hlog(a[0]), hlog(sg))
		return add(hlog(al), sc(-1, hlog(sg)), mul(sub(al, hc(1)), l), sc(-1, hyperdual.Exp(mul(al, l)))), true
	case Logistic:
		z := div(sub(a[0], a[1]), a[2])
		return add(sc(-1, z), sc(-1, hlog(a[2])), sc(-2, hsoftplus(sc(-1, z)))), true
	case OrderedLogistic:
		j, k := int(a[0].Real), c.k
		p := hc(1)
		if j > 0 {
			p = hlogistic(sub(a[1], a[2+j-1]))
		}
		if j < k-1 {
			p = sub(p, hlogistic(sub(a[1], a[2+j])))
		}
		return hlog(p), true
	}
	return hd{}, false
}

// TestFamiliesDerivsHyperdual compares every gradient and Hessian entry (non-integer
// arguments) with hyperdual automatic differentiation, at every point of every family.
func TestFamiliesDerivsHyperdual(t *testing.T) {
	t.Parallel()
	for _, c := range allFamilies(t) {
		t.Run(c.name(), func(t *testing.T) {
			for _, a := range c.points {
				n := len(a)
				grad, hess := make([]float64, n), make([]float64, n*n)
				c.fam.Derivs(a, c.k, grad, hess)
				x := make([]hd, n)
				// The hyperdual log-sum-exp forms 1/s − 1/s² for the Hessian of the
				// dominant logit, which cancels to about eps: allow that much there.
				floor := 1e-300
				if _, ok := c.fam.(CategoricalLogits); ok {
					floor = 1e-15
				}
				var hmax, gmax float64
				for i := range n {
					gmax = math.Max(gmax, math.Abs(grad[i]))
					for j := range n {
						hmax = math.Max(hmax, math.Abs(hess[i*n+j]))
					}
				}
				for i := range n {
					if isIntArg(c, i) {
						continue
					}
					for j := i; j < n; j++ {
						if isIntArg(c, j) {
							continue
						}
						for m := range x {
							x[m] = hc(a[m])
						}
						x[i].E1mag = 1
						x[j].E2mag = 1
						v, ok := hyperdualLogProb(c, x)
						if !ok {
							t.Fatalf("no hyperdual formula for %s", c.fam.Name())
						}
						if j == i {
							if d := math.Abs(v.E1mag - grad[i]); d > 1e-9*math.Abs(grad[i])+1e-12*gmax+floor {
								t.Errorf("%v: grad[%d] = %.15g, hyperdual %.15g", a, i, grad[i], v.E1mag)
							}
						}
						hij := hess[i*n+j]
						if d := math.Abs(v.E1E2mag - hij); d > 1e-9*math.Abs(hij)+1e-12*hmax+floor {
							t.Errorf("%v: hess[%d,%d] = %.15g, hyperdual %.15g", a, i, j, hij, v.E1E2mag)
						}
					}
				}
			}
		})
	}
}
