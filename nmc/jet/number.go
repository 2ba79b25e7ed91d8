package jet

// A Number is a value with its gradient and Hessian with respect to the
// variables of a Space. Numbers are values: operations return new Numbers and
// never change their operands. A Number made by Const, or computed from constants
// only, is a constant (zero derivatives) and belongs to no Space; the others keep
// their derivatives in the storage of their Space and are valid until the Space
// is reset or releases them (Space.Release).
//
// The zero Number is the constant 0.
type Number struct {
	s   *Space // nil: a constant
	v   float64
	off int // derivatives at s.buf[off : off+s.w]
}

// Const returns the constant c: a Number of zero derivatives, usable with the
// Numbers of any Space.
func Const(c float64) Number { return Number{v: c} }

// Value returns the value of x.
func (x Number) Value() float64 { return x.v }

// IsConst reports whether x is a constant (its derivatives are all zero because
// it was computed from constants only).
func (x Number) IsConst() bool { return x.s == nil }

// Space returns the Space of x, or nil for a constant.
func (x Number) Space() *Space { return x.s }

// Deriv returns ∂x/∂v_i, the derivative of x with respect to variable i of its
// Space (0 for a constant).
func (x Number) Deriv(i int) float64 {
	if x.s == nil {
		return 0
	}
	if i < 0 || i >= x.s.n {
		panic("jet: Deriv of a variable out of range")
	}
	return x.s.buf[x.off+i]
}

// Deriv2 returns ∂²x/∂v_i∂v_j, the second derivative of x with respect to
// variables i and j of its Space (0 for a constant).
func (x Number) Deriv2(i, j int) float64 {
	if x.s == nil {
		return 0
	}
	if i < 0 || j < 0 || i >= x.s.n || j >= x.s.n {
		panic("jet: Deriv2 of a variable out of range")
	}
	if i > j {
		i, j = j, i
	}
	return x.s.buf[x.off+x.s.tri(i, j)]
}

// Add returns x + y.
func (x Number) Add(y Number) Number {
	v := x.v + y.v
	switch {
	case y.s == nil:
		return Number{s: x.s, v: v, off: x.off} // the derivatives of x, shared
	case x.s == nil:
		return Number{s: y.s, v: v, off: y.off}
	}
	s := space(x, y)
	off := s.alloc()
	r, a, b := s.at(off), s.d(x), s.d(y)
	for i := range r {
		r[i] = a[i] + b[i]
	}
	return Number{s: s, v: v, off: off}
}

// Sub returns x − y.
func (x Number) Sub(y Number) Number {
	v := x.v - y.v
	switch {
	case y.s == nil:
		return Number{s: x.s, v: v, off: x.off}
	case x.s == nil:
		return y.s.linear(-1, y, v)
	}
	s := space(x, y)
	off := s.alloc()
	r, a, b := s.at(off), s.d(x), s.d(y)
	for i := range r {
		r[i] = a[i] - b[i]
	}
	return Number{s: s, v: v, off: off}
}

// AddScaled returns x + c·y, in one operation (an Euler or Runge-Kutta update).
func (x Number) AddScaled(c float64, y Number) Number {
	v := x.v + c*y.v
	switch {
	case y.s == nil:
		return Number{s: x.s, v: v, off: x.off}
	case x.s == nil:
		return y.s.linear(c, y, v)
	}
	s := space(x, y)
	off := s.alloc()
	r, a, b := s.at(off), s.d(x), s.d(y)
	for i := range r {
		r[i] = a[i] + c*b[i]
	}
	return Number{s: s, v: v, off: off}
}

// Mul returns x·y.
func (x Number) Mul(y Number) Number {
	v := x.v * y.v
	switch {
	case x.s == nil && y.s == nil:
		return Number{v: v}
	case y.s == nil:
		return x.s.linear(y.v, x, v)
	case x.s == nil:
		return y.s.linear(x.v, y, v)
	}
	s := space(x, y)
	off := s.alloc()
	r, a, b := s.at(off), s.d(x), s.d(y)
	for i := range r {
		r[i] = y.v*a[i] + x.v*b[i]
	}
	n, h, k := s.n, r[s.n:], 0
	for p := 0; p < n; p++ {
		ap, bp := a[p], b[p]
		for q := p; q < n; q++ {
			h[k] += ap*b[q] + bp*a[q]
			k++
		}
	}
	return Number{s: s, v: v, off: off}
}

// Div returns x/y.
func (x Number) Div(y Number) Number {
	v := x.v / y.v
	switch {
	case x.s == nil && y.s == nil:
		return Number{v: v}
	case y.s == nil:
		return x.s.linear(1/y.v, x, v)
	case x.s == nil:
		// c/y: first derivative −c/y², second 2c/y³.
		d1 := -v / y.v
		return y.s.unary(y, v, d1, -2*d1/y.v)
	}
	// v·y = x, differentiated: ∇v = (∇x − v∇y)/y and
	// ∇²v = (∇²x − v∇²y − ∇v∇yᵀ − ∇y∇vᵀ)/y.
	s := space(x, y)
	off := s.alloc()
	r, a, b := s.at(off), s.d(x), s.d(y)
	inv := 1 / y.v
	for i := range r {
		r[i] = (a[i] - v*b[i]) * inv
	}
	n, h, k := s.n, r[s.n:], 0
	for p := 0; p < n; p++ {
		gp, bp := r[p], b[p]
		for q := p; q < n; q++ {
			h[k] -= (gp*b[q] + bp*r[q]) * inv
			k++
		}
	}
	return Number{s: s, v: v, off: off}
}

// Neg returns −x.
func (x Number) Neg() Number {
	if x.s == nil {
		return Number{v: -x.v}
	}
	return x.s.linear(-1, x, -x.v)
}

// AddConst returns x + c.
func (x Number) AddConst(c float64) Number { return Number{s: x.s, v: x.v + c, off: x.off} }

// SubConst returns x − c.
func (x Number) SubConst(c float64) Number { return Number{s: x.s, v: x.v - c, off: x.off} }

// MulConst returns c·x.
func (x Number) MulConst(c float64) Number {
	v := x.v * c
	if x.s == nil {
		return Number{v: v}
	}
	return x.s.linear(c, x, v)
}

// DivConst returns x/c.
func (x Number) DivConst(c float64) Number {
	v := x.v / c
	if x.s == nil {
		return Number{v: v}
	}
	return x.s.linear(1/c, x, v)
}

// Sum returns x₀ + x₁ + …, summed in order (0 for no arguments).
func Sum(xs ...Number) Number {
	var v float64
	var s *Space
	for _, x := range xs {
		v += x.v
		if x.s != nil {
			if s != nil && x.s != s {
				panic("jet: operands of different Spaces")
			}
			s = x.s
		}
	}
	if s == nil {
		return Number{v: v}
	}
	off := s.alloc()
	r := s.at(off)
	clear(r)
	for _, x := range xs {
		if x.s != nil {
			for i, d := range s.d(x) {
				r[i] += d
			}
		}
	}
	return Number{s: s, v: v, off: off}
}

// linear returns the Number of value v and derivatives c times those of x.
func (s *Space) linear(c float64, x Number, v float64) Number {
	off := s.alloc()
	r, a := s.at(off), s.d(x)
	for i := range r {
		r[i] = c * a[i]
	}
	return Number{s: s, v: v, off: off}
}

// unary returns φ(x) given f = φ(x.v), d1 = φ′(x.v) and d2 = φ″(x.v):
// ∇φ = d1·∇x and ∇²φ = d1·∇²x + d2·∇x∇xᵀ.
func (s *Space) unary(x Number, f, d1, d2 float64) Number {
	if x.s == nil {
		return Number{v: f}
	}
	off := s.alloc()
	r, a := s.at(off), s.d(x)
	for i := range r {
		r[i] = d1 * a[i]
	}
	if d2 != 0 { // NaN included
		n, h, k := s.n, r[s.n:], 0
		for p := 0; p < n; p++ {
			c := d2 * a[p]
			for q := p; q < n; q++ {
				h[k] += c * a[q]
				k++
			}
		}
	}
	return Number{s: s, v: f, off: off}
}

// binary returns φ(x, y) given its value f and partial derivatives at (x.v, y.v):
// ∇φ = fx∇x + fy∇y and
// ∇²φ = fx∇²x + fy∇²y + fxx∇x∇xᵀ + fxy(∇x∇yᵀ + ∇y∇xᵀ) + fyy∇y∇yᵀ.
// Both operands are Numbers of s.
func (s *Space) binary(x, y Number, f, fx, fy, fxx, fxy, fyy float64) Number {
	off := s.alloc()
	r, a, b := s.at(off), s.d(x), s.d(y)
	for i := range r {
		r[i] = fx*a[i] + fy*b[i]
	}
	n, h, k := s.n, r[s.n:], 0
	for p := 0; p < n; p++ {
		ap, bp := a[p], b[p]
		ca, cb := fxx*ap+fxy*bp, fxy*ap+fyy*bp
		for q := p; q < n; q++ {
			h[k] += ca*a[q] + cb*b[q]
			k++
		}
	}
	return Number{s: s, v: f, off: off}
}
