// Package jet computes exact first and second derivatives of Go functions by
// forward-mode differentiation: a Number carries a value, its gradient and its
// Hessian with respect to the n variables of a Space, and every operation on
// Numbers applies the chain rule to all three. A function written once in plain Go
// over Numbers — an ODE integrator, a loop, a special likelihood — gives its value,
// gradient and Hessian together, exact to rounding (no finite differences).
// Package graph calls such functions as nodes of a model (graph.Func).
//
// # Overview
//
// A Space of n variables owns the storage of its Numbers. Var(i, v) is variable i
// at value v; Const(c) is a constant, usable with any Space; operations are
// methods that return new Numbers, so expressions chain:
//
//	s := jet.NewSpace(2)
//	x, y := s.Var(0, 1.5), s.Var(1, 0.5)
//	f := x.Mul(y).Exp().Add(y.Square().MulConst(3)) // e^{xy} + 3y²
//	f.Value()      // f(1.5, 0.5)
//	f.Deriv(0)     // ∂f/∂x
//	f.Deriv2(0, 1) // ∂²f/∂x∂y
//
// The arithmetic: Add, Sub, Mul, Div, Neg, AddScaled (x + c·y), the scalar forms
// AddConst, SubConst, MulConst, DivConst, and Sum of several. The functions: Exp,
// Expm1, Log, Log1p, Sqrt, Square, Recip, PowConst (constant exponent), Pow
// (Number exponent), Sin, Cos, Tanh, Logistic, Softplus (log(1 + eˣ)), LogGamma,
// Abs, and the package functions Max, Min and LogSumExp of several. A constant
// operand costs nothing (c − x is Const(c).Sub(x)).
//
// Space.Derivs evaluates a function of n Numbers at a point and returns its value,
// gradient and Hessian as float64s: the derivatives of a hand-written nmc.Model.
//
// # Storage and cost
//
// A Number's derivatives live in its Space's buffer, handed out bump by bump; an
// operation allocates nothing once the buffer has grown to what the computation
// needs, so a function evaluated at every step of a sampler costs no garbage after
// its first call. Reset releases every Number of a Space; Mark and Release release
// the temporaries of a loop's step and keep its running values, so a long loop
// (an integrator of thousands of steps) works in a few kilobytes:
//
//	m := s.Mark()
//	for i := 0; i < steps; i++ {
//		y = rk4Step(y, t, h)
//		s.Release(m, &y)
//	}
//
// An operation costs O(n²) (the Hessian has n(n+1)/2 distinct entries): about
// 15–30 ns for n = 4. Numbers suit functions of a few to a few dozen variables;
// the variables need not be the function's only inputs (the others are
// constants).
//
// # Conventions
//
// Derivatives are with respect to the Space's variables, 0-based. Deriv2 returns
// either triangle of the symmetric Hessian. The value of an operation is computed
// by the same float64 expression whether its operands are constants or not, so a
// function's value does not depend on which of its inputs are variables. Domain
// errors give what package math gives (NaN, ±Inf) in the value and derivatives; a
// point where a function has no derivative (Abs at 0) gives NaN derivatives.
// Operations on Numbers of two different Spaces panic, as do Var, Deriv and
// Deriv2 with an index out of range: those are programming errors.
//
// A Space is used by one goroutine at a time.
//
// # References
//
// Griewank, A., & Walther, A. (2008). Evaluating Derivatives: Principles and
// Techniques of Algorithmic Differentiation (2nd ed.), chapter 13 (Taylor and
// tensor propagation). SIAM.
//
// Fike, J. A., & Alonso, J. J. (2011). The development of hyper-dual numbers for
// exact second-derivative calculations. AIAA 2011-886 (gonum's num/hyperdual: the
// same derivatives along one pair of directions).
package jet
