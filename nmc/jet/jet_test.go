package jet

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/num/hyperdual"
)

// opCase is one operation under test, written three ways: over Numbers, over
// float64 (the value, and the function finite differences differentiate), and
// over gonum's hyperdual numbers (exact derivatives along two directions; nil
// where hyperdual lacks the function).
type opCase struct {
	name string
	f    func(v []Number) Number
	fv   func(v []float64) float64
	fh   func(v []hyperdual.Number) hyperdual.Number
}

// The operands: two functions of the three variables with curvature in every
// direction, so that each operation's chain rule meets non-zero gradients and
// Hessians of both its arguments.
func opA(v []Number) Number {
	return v[0].MulConst(0.3).AddConst(0.7).Add(v[1].Mul(v[2]).MulConst(0.2)).Add(v[0].Square().MulConst(0.1))
}

func opB(v []Number) Number {
	return v[1].MulConst(0.4).AddConst(1.1).Sub(v[0].Mul(v[2]).MulConst(0.25)).Add(v[2].Mul(v[2]).MulConst(0.15))
}

func valA(v []float64) float64 { return 0.7 + 0.3*v[0] + 0.2*v[1]*v[2] + 0.1*v[0]*v[0] }
func valB(v []float64) float64 { return 1.1 + 0.4*v[1] - 0.25*v[0]*v[2] + 0.15*v[2]*v[2] }

func hdC(c float64) hyperdual.Number { return hyperdual.Number{Real: c} }

func hdA(v []hyperdual.Number) hyperdual.Number {
	return hyperdual.Add(hyperdual.Add(hyperdual.Add(hdC(0.7), hyperdual.Scale(0.3, v[0])),
		hyperdual.Scale(0.2, hyperdual.Mul(v[1], v[2]))), hyperdual.Scale(0.1, hyperdual.Mul(v[0], v[0])))
}

func hdB(v []hyperdual.Number) hyperdual.Number {
	return hyperdual.Add(hyperdual.Sub(hyperdual.Add(hdC(1.1), hyperdual.Scale(0.4, v[1])),
		hyperdual.Scale(0.25, hyperdual.Mul(v[0], v[2]))), hyperdual.Scale(0.15, hyperdual.Mul(v[2], v[2])))
}

// unaryCase returns the case of a function φ applied to opA (or to −opA when neg).
func unaryCase(name string, neg bool, f func(Number) Number, fv func(float64) float64, fh func(hyperdual.Number) hyperdual.Number) opCase {
	sign := 1.0
	if neg {
		sign = -1
	}
	c := opCase{
		name: name,
		f:    func(v []Number) Number { return f(opA(v).MulConst(sign)) },
		fv:   func(v []float64) float64 { return fv(sign * valA(v)) },
	}
	if fh != nil {
		c.fh = func(v []hyperdual.Number) hyperdual.Number { return fh(hyperdual.Scale(sign, hdA(v))) }
	}
	return c
}

// binaryCase returns the case of φ(opA, opB).
func binaryCase(name string, f func(a, b Number) Number, fv func(a, b float64) float64, fh func(a, b hyperdual.Number) hyperdual.Number) opCase {
	c := opCase{
		name: name,
		f:    func(v []Number) Number { return f(opA(v), opB(v)) },
		fv:   func(v []float64) float64 { return fv(valA(v), valB(v)) },
	}
	if fh != nil {
		c.fh = func(v []hyperdual.Number) hyperdual.Number { return fh(hdA(v), hdB(v)) }
	}
	return c
}

func hdLog1p(x hyperdual.Number) hyperdual.Number { return hyperdual.Log(hyperdual.Add(hdC(1), x)) }
func hdLogistic(x hyperdual.Number) hyperdual.Number {
	return hyperdual.Inv(hyperdual.Add(hdC(1), hyperdual.Exp(hyperdual.Scale(-1, x))))
}
func hdSoftplus(x hyperdual.Number) hyperdual.Number { return hdLog1p(hyperdual.Exp(x)) }
func hdDiv(a, b hyperdual.Number) hyperdual.Number   { return hyperdual.Mul(a, hyperdual.Inv(b)) }

func logistic(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
func lgamma(x float64) float64   { v, _ := math.Lgamma(x); return v }

func opCases() []opCase {
	id := func(x hyperdual.Number) hyperdual.Number { return x }
	return []opCase{
		binaryCase("Add", Number.Add, func(a, b float64) float64 { return a + b }, hyperdual.Add),
		binaryCase("Sub", Number.Sub, func(a, b float64) float64 { return a - b }, hyperdual.Sub),
		binaryCase("Mul", Number.Mul, func(a, b float64) float64 { return a * b }, hyperdual.Mul),
		binaryCase("Div", Number.Div, func(a, b float64) float64 { return a / b }, hdDiv),
		binaryCase("AddScaled", func(a, b Number) Number { return a.AddScaled(-1.5, b) },
			func(a, b float64) float64 { return a - 1.5*b },
			func(a, b hyperdual.Number) hyperdual.Number { return hyperdual.Add(a, hyperdual.Scale(-1.5, b)) }),
		binaryCase("Pow", Number.Pow, math.Pow, hyperdual.Pow),
		binaryCase("Max", Max, math.Max, func(a, b hyperdual.Number) hyperdual.Number {
			if a.Real >= b.Real {
				return a
			}
			return b
		}),
		binaryCase("Min", Min, math.Min, func(a, b hyperdual.Number) hyperdual.Number {
			if a.Real <= b.Real {
				return a
			}
			return b
		}),
		binaryCase("Sum", func(a, b Number) Number { return Sum(a, b, Const(3), a.Mul(b)) },
			func(a, b float64) float64 { return a + b + 3 + a*b },
			func(a, b hyperdual.Number) hyperdual.Number {
				return hyperdual.Add(hyperdual.Add(hyperdual.Add(a, b), hdC(3)), hyperdual.Mul(a, b))
			}),
		binaryCase("LogSumExp", func(a, b Number) Number { return LogSumExp(a, b, a.Mul(b), Const(0.5)) },
			func(a, b float64) float64 {
				return math.Log(math.Exp(a) + math.Exp(b) + math.Exp(a*b) + math.Exp(0.5))
			},
			func(a, b hyperdual.Number) hyperdual.Number {
				return hyperdual.Log(hyperdual.Add(hyperdual.Add(hyperdual.Exp(a), hyperdual.Exp(b)),
					hyperdual.Add(hyperdual.Exp(hyperdual.Mul(a, b)), hdC(math.Exp(0.5)))))
			}),
		// Far-apart arguments: the larger dominates, and nothing overflows.
		binaryCase("LogSumExpFar", func(a, b Number) Number { return LogSumExp(a.AddConst(800), b) },
			func(a, b float64) float64 { return a + 800 + math.Log1p(math.Exp(b-a-800)) }, nil),
		// Constant operands, on either side.
		unaryCase("ConstAdd", false, func(x Number) Number { return Const(2).Add(x) }, func(x float64) float64 { return 2 + x }, nil),
		unaryCase("ConstSub", false, func(x Number) Number { return Const(2).Sub(x) }, func(x float64) float64 { return 2 - x }, nil),
		unaryCase("ConstMul", false, func(x Number) Number { return Const(2).Mul(x) }, func(x float64) float64 { return 2 * x }, nil),
		unaryCase("ConstDiv", false, func(x Number) Number { return Const(2).Div(x) }, func(x float64) float64 { return 2 / x },
			func(x hyperdual.Number) hyperdual.Number { return hyperdual.Scale(2, hyperdual.Inv(x)) }),
		unaryCase("DivConstNumber", false, func(x Number) Number { return x.Div(Const(3)) }, func(x float64) float64 { return x / 3 }, nil),
		unaryCase("ConstPow", false, func(x Number) Number { return Const(1.7).Pow(x) }, func(x float64) float64 { return math.Pow(1.7, x) },
			func(x hyperdual.Number) hyperdual.Number { return hyperdual.Pow(hdC(1.7), x) }),
		unaryCase("PowNumberConst", false, func(x Number) Number { return x.Pow(Const(2.5)) }, func(x float64) float64 { return math.Pow(x, 2.5) }, nil),
		unaryCase("ConstAddScaled", false, func(x Number) Number { return Const(1).AddScaled(2, x) }, func(x float64) float64 { return 1 + 2*x }, nil),
		unaryCase("AddScaledConst", false, func(x Number) Number { return x.AddScaled(2, Const(1)) }, func(x float64) float64 { return x + 2 }, nil),
		unaryCase("Neg", false, Number.Neg, func(x float64) float64 { return -x }, func(x hyperdual.Number) hyperdual.Number { return hyperdual.Scale(-1, x) }),
		unaryCase("AddConst", false, func(x Number) Number { return x.AddConst(2.5) }, func(x float64) float64 { return x + 2.5 }, nil),
		unaryCase("SubConst", false, func(x Number) Number { return x.SubConst(2.5) }, func(x float64) float64 { return x - 2.5 }, nil),
		unaryCase("MulConst", false, func(x Number) Number { return x.MulConst(-2.5) }, func(x float64) float64 { return -2.5 * x }, nil),
		unaryCase("DivConst", false, func(x Number) Number { return x.DivConst(-2.5) }, func(x float64) float64 { return x / -2.5 }, nil),
		unaryCase("Exp", false, Number.Exp, math.Exp, hyperdual.Exp),
		unaryCase("Expm1", false, Number.Expm1, math.Expm1, func(x hyperdual.Number) hyperdual.Number { return hyperdual.Sub(hyperdual.Exp(x), hdC(1)) }),
		unaryCase("Log", false, Number.Log, math.Log, hyperdual.Log),
		unaryCase("Log1p", false, Number.Log1p, math.Log1p, hdLog1p),
		unaryCase("Sqrt", false, Number.Sqrt, math.Sqrt, hyperdual.Sqrt),
		unaryCase("Square", false, Number.Square, func(x float64) float64 { return x * x }, func(x hyperdual.Number) hyperdual.Number { return hyperdual.Mul(x, x) }),
		unaryCase("Recip", false, Number.Recip, func(x float64) float64 { return 1 / x }, hyperdual.Inv),
		unaryCase("PowConst2.5", false, func(x Number) Number { return x.PowConst(2.5) }, func(x float64) float64 { return math.Pow(x, 2.5) },
			func(x hyperdual.Number) hyperdual.Number { return hyperdual.PowReal(x, 2.5) }),
		unaryCase("PowConst-1.5", false, func(x Number) Number { return x.PowConst(-1.5) }, func(x float64) float64 { return math.Pow(x, -1.5) },
			func(x hyperdual.Number) hyperdual.Number { return hyperdual.PowReal(x, -1.5) }),
		unaryCase("PowConst2", false, func(x Number) Number { return x.PowConst(2) }, func(x float64) float64 { return math.Pow(x, 2) }, nil),
		unaryCase("PowConst1", false, func(x Number) Number { return x.PowConst(1) }, func(x float64) float64 { return x }, id),
		unaryCase("PowConst3Negative", true, func(x Number) Number { return x.PowConst(3) }, func(x float64) float64 { return math.Pow(x, 3) },
			func(x hyperdual.Number) hyperdual.Number { return hyperdual.Mul(x, hyperdual.Mul(x, x)) }),
		unaryCase("Sin", false, Number.Sin, math.Sin, hyperdual.Sin),
		unaryCase("Cos", false, Number.Cos, math.Cos, hyperdual.Cos),
		unaryCase("Tanh", false, Number.Tanh, math.Tanh, hyperdual.Tanh),
		unaryCase("Logistic", false, Number.Logistic, logistic, hdLogistic),
		unaryCase("LogisticNegative", true, Number.Logistic, logistic, hdLogistic),
		unaryCase("Softplus", false, Number.Softplus, func(x float64) float64 { return math.Log1p(math.Exp(x)) }, hdSoftplus),
		unaryCase("SoftplusNegative", true, Number.Softplus, func(x float64) float64 { return math.Log1p(math.Exp(x)) }, hdSoftplus),
		unaryCase("LogGamma", false, Number.LogGamma, lgamma, nil),
		unaryCase("Abs", false, Number.Abs, math.Abs, hyperdual.Abs),
		unaryCase("AbsNegative", true, Number.Abs, math.Abs, hyperdual.Abs),
		{
			name: "VarTimesItself",
			f:    func(v []Number) Number { return v[0].Mul(v[0]).Mul(v[1]) },
			fv:   func(v []float64) float64 { return v[0] * v[0] * v[1] },
			fh: func(v []hyperdual.Number) hyperdual.Number {
				return hyperdual.Mul(hyperdual.Mul(v[0], v[0]), v[1])
			},
		},
	}
}

// opPoints are the points (of the three variables) at which the cases are
// checked; opA and opB are positive at both.
var opPoints = [][]float64{{0.3, -0.8, 1.2}, {1.1, 0.4, -0.6}}

// fdSteps4 are the offsets and weights of the fourth-order central difference
// f'(x) ≈ Σ w·f(x + o·h)/h.
var fdSteps4 = [4][2]float64{{-2, 1.0 / 12}, {-1, -8.0 / 12}, {1, 8.0 / 12}, {2, -1.0 / 12}}

// closeRel reports whether got and want agree to tol relative to max(1, |want|).
func closeRel(got, want, tol float64) bool {
	if math.IsInf(got, 0) || math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

// TestOpsAgainstFiniteDifferences checks every operation's value against the
// float64 formula, its gradient against fourth-order central differences of that
// formula, and its Hessian against the same differences of its own gradient.
func TestOpsAgainstFiniteDifferences(t *testing.T) {
	const h = 1e-4
	s := NewSpace(3)
	vars := make([]Number, 3)
	for _, c := range opCases() {
		for _, x := range opPoints {
			s.Reset()
			for i := range vars {
				vars[i] = s.Var(i, x[i])
			}
			r := c.f(vars)
			if want := c.fv(x); !closeRel(r.Value(), want, 1e-14) {
				t.Errorf("%s at %v: value %.17g, want %.17g", c.name, x, r.Value(), want)
			}
			for i := 0; i < 3; i++ {
				var fd, fdH [3]float64
				xp := append([]float64(nil), x...)
				for _, st := range fdSteps4 {
					xp[i] = x[i] + st[0]*h
					fd[0] += st[1] * c.fv(xp) / h
					// The jet gradient at the shifted point, for the Hessian's row i.
					s2 := NewSpace(3)
					v2 := make([]Number, 3)
					for k := range v2 {
						v2[k] = s2.Var(k, xp[k])
					}
					r2 := c.f(v2)
					for j := 0; j < 3; j++ {
						fdH[j] += st[1] * r2.Deriv(j) / h
					}
				}
				if g := r.Deriv(i); !closeRel(g, fd[0], 1e-8) {
					t.Errorf("%s at %v: ∂/∂x%d = %.12g, finite difference %.12g", c.name, x, i, g, fd[0])
				}
				for j := 0; j < 3; j++ {
					if hij := r.Deriv2(i, j); !closeRel(hij, fdH[j], 1e-8) {
						t.Errorf("%s at %v: ∂²/∂x%d∂x%d = %.12g, finite difference of the gradient %.12g", c.name, x, i, j, hij, fdH[j])
					}
				}
			}
		}
	}
}

// TestOpsAgainstHyperdual checks every operation that gonum's hyperdual numbers
// can express against them: with x seeded by the unit directions e_i and e_j,
// a hyperdual evaluation gives ∂f/∂x_i and ∂²f/∂x_i∂x_j exactly (to rounding).
func TestOpsAgainstHyperdual(t *testing.T) {
	s := NewSpace(3)
	vars := make([]Number, 3)
	hv := make([]hyperdual.Number, 3)
	checked := 0
	for _, c := range opCases() {
		if c.fh == nil {
			continue
		}
		checked++
		for _, x := range opPoints {
			s.Reset()
			for i := range vars {
				vars[i] = s.Var(i, x[i])
			}
			r := c.f(vars)
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					for k := range hv {
						hv[k] = hyperdual.Number{Real: x[k]}
					}
					hv[i].E1mag = 1
					hv[j].E2mag = 1
					want := c.fh(hv)
					if !closeRel(r.Value(), want.Real, 1e-14) {
						t.Errorf("%s at %v: value %.17g, hyperdual %.17g", c.name, x, r.Value(), want.Real)
					}
					if g := r.Deriv(i); !closeRel(g, want.E1mag, 1e-13) {
						t.Errorf("%s at %v: ∂/∂x%d = %.17g, hyperdual %.17g", c.name, x, i, g, want.E1mag)
					}
					if hij := r.Deriv2(i, j); !closeRel(hij, want.E1E2mag, 1e-13) {
						t.Errorf("%s at %v: ∂²/∂x%d∂x%d = %.17g, hyperdual %.17g", c.name, x, i, j, hij, want.E1E2mag)
					}
				}
			}
		}
	}
	if checked < 30 {
		t.Fatalf("only %d cases have a hyperdual form", checked)
	}
}

// TestValueIndependentOfVariables checks that an operation's value is the same,
// bit for bit, whether its operands are variables or constants (graph.Func relies
// on it: a value computed with derivatives serves a call without).
func TestValueIndependentOfVariables(t *testing.T) {
	s := NewSpace(3)
	vars, consts := make([]Number, 3), make([]Number, 3)
	for _, c := range opCases() {
		for _, x := range opPoints {
			s.Reset()
			for i := range vars {
				vars[i], consts[i] = s.Var(i, x[i]), Const(x[i])
			}
			rv, rc := c.f(vars), c.f(consts)
			if !rc.IsConst() {
				t.Errorf("%s of constants is not a constant", c.name)
			}
			if math.Float64bits(rv.Value()) != math.Float64bits(rc.Value()) {
				t.Errorf("%s at %v: value %.17g with variables, %.17g with constants", c.name, x, rv.Value(), rc.Value())
			}
			// One variable at a time: the others constants.
			for k := range vars {
				mixed := append([]Number(nil), consts...)
				mixed[k] = vars[k]
				if rm := c.f(mixed); math.Float64bits(rm.Value()) != math.Float64bits(rc.Value()) {
					t.Errorf("%s at %v: value %.17g with variable %d only, %.17g with constants", c.name, x, rm.Value(), k, rc.Value())
				}
			}
		}
	}
}

// TestClosedForms checks derivatives worked out by hand, including the tails
// where a naive formula loses its relative accuracy.
func TestClosedForms(t *testing.T) {
	s := NewSpace(2)
	ln2 := math.Ln2
	cases := []struct {
		name string
		at   [2]float64
		f    func(x, y Number) Number
		v    float64
		g    [2]float64
		h    [3]float64 // ∂xx, ∂xy, ∂yy
	}{
		{"x·y", [2]float64{2, 3}, Number.Mul, 6, [2]float64{3, 2}, [3]float64{0, 1, 0}},
		{"x/y", [2]float64{2, 4}, Number.Div, 0.5, [2]float64{0.25, -0.125}, [3]float64{0, -1.0 / 16, 2 * 2.0 / 64}},
		{"x^y", [2]float64{2, 3}, Number.Pow, 8, [2]float64{12, 8 * ln2}, [3]float64{12, 4 * (1 + 3*ln2), 8 * ln2 * ln2}},
		{"e^x sin y", [2]float64{0, math.Pi / 2}, func(x, y Number) Number { return x.Exp().Mul(y.Sin()) },
			1, [2]float64{1, math.Cos(math.Pi / 2)}, [3]float64{1, math.Cos(math.Pi / 2), -1}},
		{"logsumexp(x, y)", [2]float64{0, 0}, func(x, y Number) Number { return LogSumExp(x, y) },
			ln2, [2]float64{0.5, 0.5}, [3]float64{0.25, -0.25, 0.25}},
		{"lgamma(x)", [2]float64{1, 0}, func(x, _ Number) Number { return x.LogGamma() },
			0, [2]float64{-0.57721566490153286, 0}, [3]float64{math.Pi * math.Pi / 6, 0, 0}},
		{"logistic(x)", [2]float64{0, 0}, func(x, _ Number) Number { return x.Logistic() },
			0.5, [2]float64{0.25, 0}, [3]float64{0, 0, 0}},
		// Tails: σ'(±40) = σ(40)σ(−40) ≈ e^{−40}, σ''(40) ≈ −e^{−40};
		// tanh'(20) = 1/cosh²20 ≈ 4e^{−40}, which 1 − tanh² would round to 0.
		{"logistic(40)", [2]float64{40, 0}, func(x, _ Number) Number { return x.Logistic() },
			1 / (1 + math.Exp(-40)), [2]float64{math.Exp(-40) / math.Pow(1+math.Exp(-40), 2), 0},
			[3]float64{-math.Exp(-40) * (1 - math.Exp(-40)) / math.Pow(1+math.Exp(-40), 3), 0, 0}},
		{"softplus(-40)", [2]float64{-40, 0}, func(x, _ Number) Number { return x.Softplus() },
			math.Log1p(math.Exp(-40)), [2]float64{math.Exp(-40) / (1 + math.Exp(-40)), 0},
			[3]float64{math.Exp(-40) / math.Pow(1+math.Exp(-40), 2), 0, 0}},
		{"tanh(20)", [2]float64{20, 0}, func(x, _ Number) Number { return x.Tanh() },
			math.Tanh(20), [2]float64{1 / math.Pow(math.Cosh(20), 2), 0},
			[3]float64{-2 * math.Tanh(20) / math.Pow(math.Cosh(20), 2), 0, 0}},
		{"sqrt(x)·recip(y)", [2]float64{4, 2}, func(x, y Number) Number { return x.Sqrt().Mul(y.Recip()) },
			1, [2]float64{0.125, -0.5}, [3]float64{-1.0 / 64, -1.0 / 16, 0.5}},
	}
	for _, c := range cases {
		s.Reset()
		r := c.f(s.Var(0, c.at[0]), s.Var(1, c.at[1]))
		got := []float64{r.Value(), r.Deriv(0), r.Deriv(1), r.Deriv2(0, 0), r.Deriv2(0, 1), r.Deriv2(1, 1), r.Deriv2(1, 0)}
		want := []float64{c.v, c.g[0], c.g[1], c.h[0], c.h[1], c.h[2], c.h[1]}
		for i := range got {
			// Relative to |want| itself: the tails' values are tiny.
			if !(math.Abs(got[i]-want[i]) <= 1e-14*math.Abs(want[i]) || want[i] == 0 && math.Abs(got[i]) <= 1e-15) {
				t.Errorf("%s: entry %d (value, ∂x, ∂y, ∂xx, ∂xy, ∂yy, ∂yx) = %.17g, want %.17g", c.name, i, got[i], want[i])
			}
		}
	}
}

// TestSpecialValues checks domain edges: Abs at 0, LogSumExp of infinities and
// NaN, Log of 0, and constants in every Space.
func TestSpecialValues(t *testing.T) {
	s := NewSpace(2)
	x := s.Var(0, 0)
	if a := x.Abs(); a.Value() != 0 || !math.IsNaN(a.Deriv(0)) || !math.IsNaN(a.Deriv2(0, 0)) {
		t.Errorf("|x| at 0: value %v, derivatives %v, %v; want 0, NaN, NaN", a.Value(), a.Deriv(0), a.Deriv2(0, 0))
	}
	if a := Const(-3).Abs(); !a.IsConst() || a.Value() != 3 {
		t.Errorf("|−3| = %v (constant %v)", a.Value(), a.IsConst())
	}
	inf := math.Inf(1)
	y := s.Var(1, 2)
	for _, c := range []struct {
		name string
		r    Number
		want float64
	}{
		{"LogSumExp()", LogSumExp(), math.Inf(-1)},
		{"LogSumExp(−Inf, −Inf)", LogSumExp(Const(-inf), y.MulConst(-inf)), math.Inf(-1)},
		{"LogSumExp(y, +Inf)", LogSumExp(y, Const(inf)), inf},
		{"LogSumExp(y, NaN)", LogSumExp(y, Const(math.NaN())), math.NaN()},
		{"LogSumExp(y, −Inf)", LogSumExp(y, Const(-inf)), 2},
		{"log 0", x.Log(), math.Inf(-1)},
	} {
		if v := c.r.Value(); !(v == c.want || math.IsNaN(v) && math.IsNaN(c.want)) {
			t.Errorf("%s = %v, want %v", c.name, v, c.want)
		}
	}
	if r := LogSumExp(y, Const(-inf)); r.Deriv(1) != 1 || r.Deriv2(1, 1) != 0 {
		t.Errorf("LogSumExp(y, −Inf): ∂y = %v, ∂yy = %v; want 1, 0", r.Deriv(1), r.Deriv2(1, 1))
	}
	if c := Const(2); c.Deriv(5) != 0 || c.Deriv2(3, 1) != 0 || c.Space() != nil {
		t.Error("a constant has non-zero derivatives or a Space")
	}
}

// TestRelease checks that a loop releasing its temporaries with Mark and Release
// gives the loop without them bit for bit, keeps its storage bounded, and handles
// kept Numbers that share storage or predate the mark.
func TestRelease(t *testing.T) {
	run := func(release bool) (Number, Number, int) {
		s := NewSpace(2)
		a, b := s.Var(0, 0.7), s.Var(1, -0.3)
		y, z := a, b.Exp()
		before := b.Square() // made before the loop's marks, kept unchanged
		m := s.Mark()
		for i := 0; i < 200; i++ {
			y = y.AddScaled(0.01, y.Mul(z).Sin().Add(before))
			z = z.Add(y.MulConst(0.001).Tanh())
			w := z // shares z's storage
			z = w.AddConst(1e-3)
			if release {
				s.Release(m, &y, &z, &w, &before)
			}
		}
		return y, z, s.top
	}
	y1, z1, top1 := run(false)
	y2, z2, top2 := run(true)
	for _, p := range [][2]Number{{y1, y2}, {z1, z2}} {
		same := p[0].Value() == p[1].Value()
		for i := 0; i < 2; i++ {
			same = same && p[0].Deriv(i) == p[1].Deriv(i)
			for j := 0; j < 2; j++ {
				same = same && p[0].Deriv2(i, j) == p[1].Deriv2(i, j)
			}
		}
		if !same {
			t.Errorf("after Release: value %v, ∂ %v %v; without: %v, ∂ %v %v",
				p[1].Value(), p[1].Deriv(0), p[1].Deriv(1), p[0].Value(), p[0].Deriv(0), p[0].Deriv(1))
		}
	}
	// a, b, z₀ and before precede the mark; y and z follow it.
	if w := NewSpace(2).w; top2 != 6*w || top1 < 200*w {
		t.Errorf("storage in use: %d floats with Release, %d without (a Number is %d)", top2, top1, w)
	}
}

// TestMisusePanics checks the documented panics: operands of two Spaces, and
// indices out of range.
func TestMisusePanics(t *testing.T) {
	s1, s2 := NewSpace(1), NewSpace(1)
	for _, c := range []struct {
		name, want string
		f          func()
	}{
		{"mixed spaces", "different Spaces", func() { s1.Var(0, 1).Add(s2.Var(0, 1)) }},
		{"mixed spaces in LogSumExp", "different Spaces", func() { LogSumExp(s1.Var(0, 1), s2.Var(0, 1)) }},
		{"Var out of range", "Var(1)", func() { s1.Var(1, 0) }},
		{"Deriv out of range", "out of range", func() { s1.Var(0, 1).Deriv(1) }},
		{"Release beyond", "beyond", func() { s := NewSpace(1); s.Var(0, 1); m := s.Mark(); s.Reset(); s.Release(m) }},
		{"negative size", "negative", func() { NewSpace(-1) }},
	} {
		func() {
			defer func() {
				r := recover()
				if msg, _ := r.(string); !strings.Contains(msg, c.want) {
					t.Errorf("%s: recovered %v, want a panic containing %q", c.name, r, c.want)
				}
			}()
			c.f()
		}()
	}
}

// TestDerivs checks Space.Derivs on the Rosenbrock function, whose gradient and
// Hessian are known in closed form.
func TestDerivs(t *testing.T) {
	s := NewSpace(2)
	rosen := func(_ *Space, x []Number) Number {
		return Const(1).Sub(x[0]).Square().Add(x[1].Sub(x[0].Square()).Square().MulConst(100))
	}
	x, y := 1.5, 0.5
	g, h := make([]float64, 2), make([]float64, 4)
	v := s.Derivs(rosen, []float64{x, y}, g, h)
	wantV := (1-x)*(1-x) + 100*(y-x*x)*(y-x*x)
	wantG := []float64{-2*(1-x) - 400*x*(y-x*x), 200 * (y - x*x)}
	wantH := []float64{2 - 400*(y-x*x) + 800*x*x, -400 * x, -400 * x, 200}
	if !closeRel(v, wantV, 1e-15) {
		t.Errorf("value %v, want %v", v, wantV)
	}
	for i := range g {
		if !closeRel(g[i], wantG[i], 1e-15) {
			t.Errorf("gradient[%d] = %v, want %v", i, g[i], wantG[i])
		}
	}
	for i := range h {
		if !closeRel(h[i], wantH[i], 1e-15) {
			t.Errorf("Hessian[%d] = %v, want %v", i, h[i], wantH[i])
		}
	}
}
