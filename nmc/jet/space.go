package jet

import "fmt"

// A Space owns the derivative storage of the Numbers of one computation over n
// variables. It hands the storage out from one growing buffer, bump by bump, so
// that an operation costs no allocation once the buffer has reached the size the
// computation needs; Reset releases every Number at once, and Mark and Release
// release the temporaries of a loop's step while keeping its results.
//
// A Space is not safe for concurrent use: use one per goroutine. The zero value
// is not usable; make a Space with NewSpace.
type Space struct {
	n    int // variables
	w    int // floats per Number: n for the gradient, n(n+1)/2 for the Hessian
	buf  []float64
	top  int
	vars []Number // Derivs's variables
}

// A Mark is a position in a Space's storage (Space.Mark), to which Release
// returns.
type Mark int

// NewSpace returns a Space of Numbers over n variables (n ≥ 0; NewSpace panics if
// n < 0). A Space of 0 variables makes only constants: Numbers whose arithmetic
// is that of float64.
func NewSpace(n int) *Space {
	if n < 0 {
		panic(fmt.Sprintf("jet: NewSpace(%d): negative number of variables", n))
	}
	return &Space{n: n, w: n + n*(n+1)/2}
}

// NumVars returns the number of variables n.
func (s *Space) NumVars() int { return s.n }

// Var returns variable i (0 ≤ i < n) at value v: its gradient is the unit vector
// e_i and its Hessian zero. Var panics if i is out of range.
func (s *Space) Var(i int, v float64) Number {
	if i < 0 || i >= s.n {
		panic(fmt.Sprintf("jet: Var(%d) in a Space of %d variables", i, s.n))
	}
	off := s.alloc()
	d := s.buf[off : off+s.w]
	clear(d)
	d[i] = 1
	return Number{s: s, v: v, off: off}
}

// Reset releases every Number of the Space (they must not be used afterwards) and
// keeps the storage for the next computation.
func (s *Space) Reset() { s.top = 0 }

// Mark returns the current position of the Space's storage: the Numbers made
// after it can be released by Release.
func (s *Space) Mark() Mark { return Mark(s.top) }

// Release releases the Numbers made since m, except those that keep points to:
// their storage is moved down to m and the Numbers updated, so that a loop keeps
// only its running values from one step to the next. Every other Number made
// since m (including copies of the kept ones) must not be used afterwards.
// Numbers made before m, constants and Numbers of other Spaces in keep are left
// as they are. Release panics if m is beyond the current position (a Mark taken
// before a Reset and reused after it, say).
//
// A loop that releases its step's temporaries to a mark taken before it works in
// a bounded amount of storage, whatever its number of steps (each step's y
// replaces the last one's at m):
//
//	m := s.Mark()
//	for range n {
//		y = y.AddScaled(h, rate(t, y))
//		s.Release(m, &y)
//	}
func (s *Space) Release(m Mark, keep ...*Number) {
	if int(m) > s.top || m < 0 {
		panic(fmt.Sprintf("jet: Release to %d, beyond the storage in use (%d)", m, s.top))
	}
	dst, last := int(m), -1
	for {
		// The kept Number of smallest offset not yet moved. Moving them in order
		// of offset copies every one downwards (dst ≤ src), never over another.
		src := -1
		for _, p := range keep {
			if p.s == s && p.off >= int(m) && p.off > last && (src < 0 || p.off < src) {
				src = p.off
			}
		}
		if src < 0 {
			break
		}
		if src != dst {
			copy(s.buf[dst:dst+s.w], s.buf[src:src+s.w])
		}
		for _, p := range keep {
			if p.s == s && p.off == src {
				p.off = dst
			}
		}
		last = src
		dst += s.w
	}
	s.top = dst
}

// Derivs returns f(x) and writes its gradient into grad (length n) and its
// Hessian into hess (n×n, row-major, both triangles) when they are not nil, f
// being evaluated on the n variables of the Space at the values x (length n).
// It resets the Space first. Derivs panics if len(x) is not n, or if grad or
// hess is too short.
func (s *Space) Derivs(f func(s *Space, x []Number) Number, x []float64, grad, hess []float64) float64 {
	n := s.n
	if len(x) != n {
		panic(fmt.Sprintf("jet: Derivs at %d values in a Space of %d variables", len(x), n))
	}
	s.Reset()
	s.vars = s.vars[:0]
	for i, v := range x {
		s.vars = append(s.vars, s.Var(i, v))
	}
	r := f(s, s.vars)
	if grad != nil {
		grad = grad[:n]
		for i := range grad {
			grad[i] = r.Deriv(i)
		}
	}
	if hess != nil {
		hess = hess[:n*n]
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				hess[i*n+j] = r.Deriv2(i, j)
			}
		}
	}
	return r.v
}

// alloc reserves the storage of one Number and returns its offset. The storage
// is not cleared. The buffer may move: slices of it are taken after alloc.
func (s *Space) alloc() int {
	off := s.top
	s.top += s.w
	if s.top > len(s.buf) {
		nb := make([]float64, max(2*len(s.buf), s.top, 64*s.w))
		copy(nb, s.buf[:off])
		s.buf = nb
	}
	return off
}

// at returns the derivative storage at offset off.
func (s *Space) at(off int) []float64 { return s.buf[off : off+s.w] }

// d returns the derivative storage of x (a Number of s).
func (s *Space) d(x Number) []float64 { return s.buf[x.off : x.off+s.w] }

// tri returns the packed index of the Hessian entry (i, j), i ≤ j, in the upper
// triangle stored row by row after the gradient.
func (s *Space) tri(i, j int) int { return s.n + i*(2*s.n-i-1)/2 + j }

// space returns the Space of the non-constant operands of a binary operation
// (nil if both are constants), and panics if they belong to different Spaces.
func space(a, b Number) *Space {
	if a.s == nil {
		return b.s
	}
	if b.s != nil && b.s != a.s {
		panic("jet: operands of different Spaces")
	}
	return a.s
}
