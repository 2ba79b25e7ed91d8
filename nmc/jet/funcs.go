package jet

import (
	"math"

	"github.com/nmc-go/nmc/internal/special"
)

// Exp returns eˣ.
func (x Number) Exp() Number {
	f := math.Exp(x.v)
	return x.s.unary(x, f, f, f)
}

// Expm1 returns eˣ − 1, accurate for x near 0.
func (x Number) Expm1() Number {
	f := math.Expm1(x.v)
	if x.s == nil {
		return Number{v: f}
	}
	e := math.Exp(x.v)
	return x.s.unary(x, f, e, e)
}

// Log returns log x (NaN for x < 0, −Inf at 0).
func (x Number) Log() Number {
	f := math.Log(x.v)
	d1 := 1 / x.v
	return x.s.unary(x, f, d1, -d1*d1)
}

// Log1p returns log(1 + x), accurate for x near 0.
func (x Number) Log1p() Number {
	f := math.Log1p(x.v)
	d1 := 1 / (1 + x.v)
	return x.s.unary(x, f, d1, -d1*d1)
}

// Sqrt returns √x.
func (x Number) Sqrt() Number {
	f := math.Sqrt(x.v)
	d1 := 0.5 / f
	return x.s.unary(x, f, d1, -0.5*d1/x.v)
}

// Square returns x².
func (x Number) Square() Number {
	return x.s.unary(x, x.v*x.v, 2*x.v, 2)
}

// Recip returns 1/x.
func (x Number) Recip() Number {
	f := 1 / x.v
	d1 := -f * f
	return x.s.unary(x, f, d1, -2*d1*f)
}

// PowConst returns xᵖ for a constant exponent p, as math.Pow does (a negative x
// needs an integer p). Its derivatives are p·xᵖ⁻¹ and p(p−1)·xᵖ⁻².
func (x Number) PowConst(p float64) Number {
	f := math.Pow(x.v, p)
	switch {
	case x.s == nil:
		return Number{v: f}
	case p == 0:
		return Number{v: f}
	case p == 1:
		return x
	case p == 2:
		return x.s.unary(x, f, 2*x.v, 2)
	}
	return x.s.unary(x, f, p*math.Pow(x.v, p-1), p*(p-1)*math.Pow(x.v, p-2))
}

// Pow returns xʸ. With a non-constant exponent it is e^{y·log x}, whose
// derivatives are defined for x > 0 (NaN otherwise); with a constant y it is
// x.PowConst(y).
func (x Number) Pow(y Number) Number {
	f := math.Pow(x.v, y.v)
	switch {
	case y.s == nil:
		return x.PowConst(y.v)
	case x.s == nil:
		// cʸ: derivatives cʸ·log c and cʸ·log²c.
		l := math.Log(x.v)
		return y.s.unary(y, f, f*l, f*l*l)
	}
	s := space(x, y)
	l := math.Log(x.v)
	ix := 1 / x.v
	fx := y.v * f * ix
	return s.binary(x, y, f,
		fx, f*l,
		fx*(y.v-1)*ix, f*(1+y.v*l)*ix, f*l*l)
}

// Sin returns sin x.
func (x Number) Sin() Number {
	f := math.Sin(x.v)
	if x.s == nil {
		return Number{v: f}
	}
	return x.s.unary(x, f, math.Cos(x.v), -f)
}

// Cos returns cos x.
func (x Number) Cos() Number {
	f := math.Cos(x.v)
	if x.s == nil {
		return Number{v: f}
	}
	return x.s.unary(x, f, -math.Sin(x.v), -f)
}

// Tanh returns tanh x. Its first derivative is computed as 1/cosh²x, which keeps
// its relative accuracy where tanh x is near ±1.
func (x Number) Tanh() Number {
	f := math.Tanh(x.v)
	if x.s == nil {
		return Number{v: f}
	}
	c := math.Cosh(x.v)
	d1 := 1 / (c * c)
	return x.s.unary(x, f, d1, -2*f*d1)
}

// Logistic returns the logistic sigmoid σ(x) = 1/(1 + e⁻ˣ). Its derivatives,
// σ(x)σ(−x) and σ(x)σ(−x)(σ(−x) − σ(x)), keep their relative accuracy in both
// tails.
func (x Number) Logistic() Number {
	f := special.Logistic(x.v)
	if x.s == nil {
		return Number{v: f}
	}
	g := special.Logistic(-x.v)
	d1 := f * g
	return x.s.unary(x, f, d1, d1*(g-f))
}

// Softplus returns log(1 + eˣ) without overflow (special.Log1pExp's algorithm,
// as the rest of the module computes it); its derivatives are σ(x) and
// σ(x)σ(−x).
func (x Number) Softplus() Number {
	f := special.Log1pExp(x.v)
	if x.s == nil {
		return Number{v: f}
	}
	p := special.Logistic(x.v)
	return x.s.unary(x, f, p, p*special.Logistic(-x.v))
}

// LogGamma returns log|Γ(x)|, whose derivatives are the digamma and trigamma
// functions ψ(x) and ψ₁(x).
func (x Number) LogGamma() Number {
	f, _ := math.Lgamma(x.v)
	if x.s == nil {
		return Number{v: f}
	}
	return x.s.unary(x, f, special.Digamma(x.v), special.Trigamma(x.v))
}

// Abs returns |x|. At x = 0, where |x| has no derivative, the derivatives of a
// non-constant x are NaN.
func (x Number) Abs() Number {
	f := math.Abs(x.v)
	switch {
	case x.s == nil:
		return Number{v: f}
	case x.v > 0:
		return Number{s: x.s, v: f, off: x.off}
	case x.v < 0:
		return x.s.linear(-1, x, f)
	}
	// 0 or NaN: the derivatives are not defined.
	nan := math.NaN()
	return x.s.unary(x, f, nan, nan)
}

// Max returns the larger of x and y, with its derivatives (those of x when they
// are equal). If either is NaN, that operand is returned.
func Max(x, y Number) Number {
	space(x, y) // operands of one Space
	if x.v != x.v || x.v >= y.v {
		return x
	}
	return y
}

// Min returns the smaller of x and y, with its derivatives (those of x when they
// are equal). If either is NaN, that operand is returned.
func Min(x, y Number) Number {
	space(x, y)
	if x.v != x.v || x.v <= y.v {
		return x
	}
	return y
}

// LogSumExp returns log Σᵢ exp(xᵢ), computed as m + log Σᵢ exp(xᵢ − m) with m
// the largest xᵢ, so that it neither overflows nor underflows (the value is that
// of the module's float64 log-sum-exp, bit for bit). Its gradient is Σᵢ wᵢ∇xᵢ and
// its Hessian Σᵢ wᵢ(∇²xᵢ + ∇xᵢ∇xᵢᵀ) − ∇∇ᵀ, with the weights wᵢ = exp(xᵢ − value)
// (the softmax). It is −Inf with zero derivatives for no arguments or when every
// xᵢ is −Inf, +Inf when one is +Inf, and NaN when one is NaN.
func LogSumExp(xs ...Number) Number {
	m := math.Inf(-1)
	var s *Space
	for _, x := range xs {
		if math.IsNaN(x.v) {
			return Number{v: math.NaN()}
		}
		m = max(m, x.v)
		if x.s != nil {
			if s != nil && x.s != s {
				panic("jet: operands of different Spaces")
			}
			s = x.s
		}
	}
	if math.IsInf(m, 0) {
		return Number{v: m}
	}
	var sum float64
	for _, x := range xs {
		sum += math.Exp(x.v - m)
	}
	v := m + math.Log(sum)
	if s == nil {
		return Number{v: v}
	}
	off := s.alloc()
	r := s.at(off)
	clear(r)
	n, h := s.n, r[s.n:]
	for _, x := range xs {
		if x.s == nil {
			continue
		}
		w := math.Exp(x.v-m) / sum
		a := s.d(x)
		for i := range r {
			r[i] += w * a[i]
		}
		k := 0
		for p := 0; p < n; p++ {
			c := w * a[p]
			for q := p; q < n; q++ {
				h[k] += c * a[q]
				k++
			}
		}
	}
	k := 0
	for p := 0; p < n; p++ {
		gp := r[p]
		for q := p; q < n; q++ {
			h[k] -= gp * r[q]
			k++
		}
	}
	return Number{s: s, v: v, off: off}
}
