package special

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

const (
	// eulerGamma is the Euler–Mascheroni constant γ (OEIS A001620).
	eulerGamma = 0.57721566490153286060651209008240243
	// catalan is Catalan's constant G (OEIS A006752).
	catalan = 0.91596559417721901505460351493238411
	// zeta3 is Apéry's constant ζ(3) (OEIS A002117).
	zeta3 = 1.20205690315959428539973816151144999
)

func close(got, want, tol float64) bool {
	if got == want {
		return true
	}
	if math.IsInf(got, 0) || math.IsInf(want, 0) {
		return false
	}
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

func closeRel(got, want, tol float64) bool {
	if got == want {
		return true
	}
	return math.Abs(got-want) <= tol*math.Abs(want)
}

// TestDigammaClosedForms checks ψ against closed forms from DLMF §5.4 (values at
// rational arguments) and §5.5 (recurrence), which are independent of the series and
// recurrence used by Digamma.
func TestDigammaClosedForms(t *testing.T) {
	t.Parallel()
	ln2, ln3 := math.Ln2, math.Log(3)
	cases := []struct {
		x, want float64
		src     string
	}{
		{1, -eulerGamma, "ψ(1) = −γ"},
		{0.5, -eulerGamma - 2*ln2, "ψ(1/2) = −γ − 2 ln 2"},
		{0.25, -eulerGamma - math.Pi/2 - 3*ln2, "ψ(1/4) = −γ − π/2 − 3 ln 2"},
		{0.75, -eulerGamma + math.Pi/2 - 3*ln2, "ψ(3/4) = −γ + π/2 − 3 ln 2"},
		{1.0 / 3, -eulerGamma - math.Pi/(2*math.Sqrt(3)) - 1.5*ln3, "ψ(1/3)"},
		{-0.5, -eulerGamma - 2*ln2 + 2, "ψ(−1/2) = ψ(1/2) + 2"},
		{-1.5, -eulerGamma - 2*ln2 + 2 + 2.0/3, "ψ(−3/2) = ψ(−1/2) + 2/3"},
	}
	// ψ(n) = −γ + Σ_{j<n} 1/j (DLMF 5.4.14) and ψ(n+½) = −γ − 2 ln 2 + Σ_{j≤n} 2/(2j−1)
	// (DLMF 5.4.15).
	for _, n := range []int{2, 3, 5, 9, 10, 11, 20, 57, 200} {
		h, g := 0.0, 0.0
		for j := 1; j < n; j++ {
			h += 1 / float64(j)
		}
		for j := 1; j <= n; j++ {
			g += 2 / float64(2*j-1)
		}
		cases = append(cases,
			struct {
				x, want float64
				src     string
			}{float64(n), -eulerGamma + h, "ψ(n) = −γ + H(n−1)"},
			struct {
				x, want float64
				src     string
			}{float64(n) + 0.5, -eulerGamma - 2*ln2 + g, "ψ(n+½)"})
	}
	for _, c := range cases {
		if got := Digamma(c.x); !closeRel(got, c.want, 1e-13) {
			t.Errorf("Digamma(%v) = %.17g, want %.17g (%s)", c.x, got, c.want, c.src)
		}
	}
}

// TestDigammaAsymptotics checks the extremes against the leading terms of the
// expansions at 0 (ψ(x) = −1/x − γ + ζ(2)x − ζ(3)x² + …, DLMF 5.7.4) and at ∞
// (DLMF 5.11.2), where the omitted terms are below 1e-16 relative.
func TestDigammaAsymptotics(t *testing.T) {
	t.Parallel()
	for _, x := range []float64{1e-300, 1e-12, 1e-9} {
		want := -1/x - eulerGamma + math.Pi*math.Pi/6*x - zeta3*x*x
		if got := Digamma(x); !closeRel(got, want, 1e-14) {
			t.Errorf("Digamma(%g) = %.17g, want %.17g", x, got, want)
		}
	}
	for _, x := range []float64{1e5, 1e8, 1e15, 1e300} {
		want := math.Log(x) - 1/(2*x) - 1/(12*x*x)
		if got := Digamma(x); !closeRel(got, want, 1e-15) {
			t.Errorf("Digamma(%g) = %.17g, want %.17g", x, got, want)
		}
	}
}

// TestDigammaVsGonum compares with gonum mathext.Digamma (tested there at 1e-10
// against WolframAlpha) at random points, and checks the recurrence ψ(x+1) = ψ(x) + 1/x
// (DLMF 5.5.2), which couples evaluations on either side of the series threshold.
func TestDigammaVsGonum(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		x := math.Exp(rng.Float64()*20 - 10)
		if rng.IntN(4) == 0 {
			x = -x + 0.25 // includes negative non-integers
		}
		if x == math.Floor(x) {
			continue
		}
		got, ref := Digamma(x), mathext.Digamma(x)
		if !close(got, ref, 1e-10) {
			t.Errorf("Digamma(%.17g) = %.17g, gonum %.17g", x, got, ref)
		}
		if x > 0 {
			// Rounding in ψ(x) + 1/x cancels when 1/x ≫ |ψ(x+1)|: allow for it.
			lhs, rhs := Digamma(x+1), Digamma(x)+1/x
			if math.Abs(lhs-rhs) > 1e-13*math.Max(1, math.Abs(lhs))+1.6e-15/x {
				t.Errorf("recurrence at %.17g: ψ(x+1) = %.17g, ψ(x)+1/x = %.17g", x, lhs, rhs)
			}
		}
	}
}

func TestDigammaSpecial(t *testing.T) {
	t.Parallel()
	if v := Digamma(0); !math.IsInf(v, -1) {
		t.Errorf("Digamma(0) = %v, want -Inf", v)
	}
	if v := Digamma(math.Copysign(0, -1)); !math.IsInf(v, 1) {
		t.Errorf("Digamma(-0) = %v, want +Inf", v)
	}
	for _, x := range []float64{-1, -2, -100, math.NaN(), math.Inf(-1)} {
		if v := Digamma(x); !math.IsNaN(v) {
			t.Errorf("Digamma(%v) = %v, want NaN", x, v)
		}
	}
	if v := Digamma(math.Inf(1)); !math.IsInf(v, 1) {
		t.Errorf("Digamma(+Inf) = %v, want +Inf", v)
	}
}

// TestTrigammaClosedForms checks ψ₁ against DLMF 5.15.2–5.15.3 and the values
// ψ₁(1/4) = π² + 8G, ψ₁(3/4) = π² − 8G (G Catalan's constant).
func TestTrigammaClosedForms(t *testing.T) {
	t.Parallel()
	pi2 := math.Pi * math.Pi
	type tc struct {
		x, want float64
		src     string
	}
	cases := []tc{
		{1, pi2 / 6, "ψ₁(1) = π²/6"},
		{0.5, pi2 / 2, "ψ₁(1/2) = π²/2"},
		{0.25, pi2 + 8*catalan, "ψ₁(1/4) = π² + 8G"},
		{0.75, pi2 - 8*catalan, "ψ₁(3/4) = π² − 8G"},
		{-0.5, pi2/2 + 4, "ψ₁(−1/2) = ψ₁(1/2) + 4"},
		{-2.5, pi2/2 + 4 + 4.0/9 + 4.0/25, "ψ₁(−5/2)"},
	}
	for _, n := range []int{2, 3, 7, 10, 11, 30, 1000} {
		s, h := 0.0, 0.0
		for j := n - 1; j >= 1; j-- {
			s += 1 / float64(j*j)
		}
		for j := n; j >= 1; j-- {
			h += 1 / float64((2*j-1)*(2*j-1))
		}
		cases = append(cases, tc{float64(n), pi2/6 - s, "ψ₁(n) = π²/6 − Σ_{j<n} 1/j²"},
			tc{float64(n) + 0.5, pi2/2 - 4*h, "ψ₁(n+½) = π²/2 − 4 Σ_{j≤n} 1/(2j−1)²"})
	}
	for _, c := range cases {
		// ψ₁(n) for large n is a difference of nearly equal sums in the reference,
		// which costs it a few digits: scale the tolerance by π²/6 / ψ₁(n).
		tol := 1e-13 * math.Max(1, pi2/6/c.want)
		if got := Trigamma(c.x); !closeRel(got, c.want, tol) {
			t.Errorf("Trigamma(%v) = %.17g, want %.17g (%s)", c.x, got, c.want, c.src)
		}
	}
}

// TestTrigammaAsymptotics uses ψ₁(x) = 1/x² + ζ(2) − 2ζ(3)x + … near 0 (DLMF 5.15.1)
// and ψ₁(x) = 1/x + 1/(2x²) + 1/(6x³) + … at ∞ (DLMF 5.15.8), plus the recurrence
// ψ₁(x) = ψ₁(x+1) + 1/x² at random points.
func TestTrigammaAsymptotics(t *testing.T) {
	t.Parallel()
	for _, x := range []float64{1e-300, 1e-10, 1e-7} {
		want := 1/(x*x) + math.Pi*math.Pi/6 - 2*zeta3*x
		if got := Trigamma(x); !closeRel(got, want, 1e-14) {
			t.Errorf("Trigamma(%g) = %.17g, want %.17g", x, got, want)
		}
	}
	for _, x := range []float64{1e5, 1e8, 1e15, 1e300} {
		want := 1/x + 1/(2*x*x) + 1/(6*x*x*x)
		if got := Trigamma(x); !closeRel(got, want, 1e-15) {
			t.Errorf("Trigamma(%g) = %.17g, want %.17g", x, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		x := math.Exp(rng.Float64()*16 - 8)
		lhs, rhs := Trigamma(x), Trigamma(x+1)+1/(x*x)
		if !closeRel(lhs, rhs, 2e-15*digammaShift) {
			t.Errorf("recurrence at %.17g: %.17g vs %.17g", x, lhs, rhs)
		}
	}
	if v := Trigamma(0); !math.IsInf(v, 1) {
		t.Errorf("Trigamma(0) = %v, want +Inf", v)
	}
	if v := Trigamma(-3); !math.IsInf(v, 1) {
		t.Errorf("Trigamma(-3) = %v, want +Inf", v)
	}
	if v := Trigamma(math.NaN()); !math.IsNaN(v) {
		t.Errorf("Trigamma(NaN) = %v, want NaN", v)
	}
}

// TestTrigammaDerivative checks ψ₁ = ψ′ by a 4th-order central difference of Digamma.
func TestTrigammaDerivative(t *testing.T) {
	t.Parallel()
	for _, x := range []float64{0.3, 1.46, 2, 9.99, 10.01, 50} {
		h := 1e-3 * x
		fd := (-Digamma(x+2*h) + 8*Digamma(x+h) - 8*Digamma(x-h) + Digamma(x-2*h)) / (12 * h)
		if got := Trigamma(x); !closeRel(got, fd, 1e-8) {
			t.Errorf("Trigamma(%v) = %.17g, finite difference of Digamma %.17g", x, got, fd)
		}
	}
}

// TestLog1pExp compares with the direct formula where that is exact enough, and with
// the series e^x − e^{2x}/2 and x + e^{−x} at the extremes.
func TestLog1pExp(t *testing.T) {
	t.Parallel()
	for _, x := range []float64{-30, -5, -1, -1e-8, 0, 1e-8, 1, 5, 15} {
		want := math.Log(1 + math.Exp(x))
		if x < -1 {
			want = math.Log1p(math.Exp(x))
		}
		if got := Log1pExp(x); !closeRel(got, want, 1e-15) {
			t.Errorf("Log1pExp(%v) = %.17g, want %.17g", x, got, want)
		}
	}
	for _, x := range []float64{-745, -700, -100, -40, -37.5, -36.9} {
		e := math.Exp(x)
		want := e - e*e/2
		if got := Log1pExp(x); !closeRel(got, want, 1e-15) {
			t.Errorf("Log1pExp(%v) = %.17g, want %.17g", x, got, want)
		}
	}
	for _, x := range []float64{18.5, 25, 33, 34, 40, 745, 1e3, 1e308} {
		want := x + math.Exp(-x)
		if got := Log1pExp(x); !closeRel(got, want, 1e-15) {
			t.Errorf("Log1pExp(%v) = %.17g, want %.17g", x, got, want)
		}
	}
	if v := Log1pExp(0); v != math.Ln2 {
		t.Errorf("Log1pExp(0) = %.17g, want log 2 = %.17g", v, math.Ln2)
	}
	if v := Log1pExp(-745); v != math.SmallestNonzeroFloat64 {
		t.Errorf("Log1pExp(-745) = %v, want the smallest subnormal %v", v, math.SmallestNonzeroFloat64)
	}
	if v := Log1pExp(math.Inf(1)); !math.IsInf(v, 1) {
		t.Errorf("Log1pExp(+Inf) = %v", v)
	}
	if v := Log1pExp(math.Inf(-1)); v != 0 {
		t.Errorf("Log1pExp(-Inf) = %v", v)
	}
	if v := Log1pExp(math.NaN()); !math.IsNaN(v) {
		t.Errorf("Log1pExp(NaN) = %v, want NaN", v)
	}
}

// TestLog1pExpCutoffsExact checks that the cut-offs of Log1pExp only skip work: on a
// fine grid across both of them, and at the arguments where the branches change, the
// result is bit for bit the general form max(x, 0) + log1p(e^−|x|) that the
// Bernoulli-logit scorers compute inline.
func TestLog1pExpCutoffsExact(t *testing.T) {
	t.Parallel()
	general := func(x float64) float64 { return max(x, 0) + math.Log1p(math.Exp(-math.Abs(x))) }
	check := func(x float64) {
		if got, want := Log1pExp(x), general(x); got != want {
			t.Errorf("Log1pExp(%.17g) = %.17g, general form %.17g", x, got, want)
		}
	}
	for x := -800.0; x <= 800; x += 0.0625 {
		check(x)
	}
	for _, c := range []float64{-37, 0, 33.3} {
		x := c
		for range 2000 {
			check(x)
			x = math.Nextafter(x, math.Inf(-1))
		}
		x = c
		for range 2000 {
			check(x)
			x = math.Nextafter(x, math.Inf(1))
		}
	}
	for x := -745.0; x <= -36; x += 0.001 {
		check(x)
	}
	for x := 30.0; x <= 40; x += 0.0001 {
		check(x)
	}
}

func TestLogistic(t *testing.T) {
	t.Parallel()
	for _, x := range []float64{-800, -745, -40, -3, 0, 0.5, 3, 40, 745, 800} {
		got := Logistic(x)
		// σ(x) = (1 + tanh(x/2))/2 is an independent form; it loses relative accuracy
		// only for very negative x, where σ(x) = eˣ/(1+eˣ) ≈ eˣ(1 − eˣ) instead.
		want := (1 + math.Tanh(x/2)) / 2
		if x < -3 {
			e := math.Exp(x)
			want = e * (1 - e)
		}
		if !closeRel(got, want, 1e-14) && !(got == 0 && want == 0) {
			t.Errorf("Logistic(%v) = %.17g, want %.17g", x, got, want)
		}
		if s := got + Logistic(-x); math.Abs(s-1) > 1e-15 {
			t.Errorf("Logistic(%v) + Logistic(%v) = %.17g, want 1", x, -x, s)
		}
	}
	if v := Logistic(0); v != 0.5 {
		t.Errorf("Logistic(0) = %v, want 0.5", v)
	}
	if v := Logistic(-745); v != math.SmallestNonzeroFloat64 {
		t.Errorf("Logistic(-745) = %v, want the smallest subnormal %v", v, math.SmallestNonzeroFloat64)
	}
	if v := Logistic(math.Inf(1)); v != 1 {
		t.Errorf("Logistic(+Inf) = %v, want 1", v)
	}
	if v := Logistic(math.Inf(-1)); v != 0 {
		t.Errorf("Logistic(-Inf) = %v, want 0", v)
	}
	if v := Logistic(math.NaN()); !math.IsNaN(v) {
		t.Errorf("Logistic(NaN) = %v, want NaN", v)
	}
}

func TestLogSumExp(t *testing.T) {
	t.Parallel()
	inf := math.Inf(1)
	cases := []struct {
		xs   []float64
		want float64
	}{
		{nil, -inf},
		{[]float64{-inf, -inf}, -inf},
		{[]float64{3}, 3},
		{[]float64{0, 0}, math.Ln2},
		{[]float64{1000, 1000}, 1000 + math.Ln2},
		{[]float64{-1000, -1000, -1000}, -1000 + math.Log(3)},
		{[]float64{1, 2, 3}, math.Log(math.E + math.E*math.E + math.E*math.E*math.E)},
		{[]float64{0, -inf}, 0},
		{[]float64{-745, -745}, -745 + math.Ln2},
		{[]float64{745, -745, 0}, 745},
		{[]float64{40, -40}, 40 + math.Log1p(math.Exp(-80))},
		{[]float64{1, inf}, inf},
		{[]float64{-inf, inf}, inf},
		{[]float64{inf, inf}, inf},
	}
	for _, c := range cases {
		if got := LogSumExp(c.xs); !close(got, c.want, 1e-15) {
			t.Errorf("LogSumExp(%v) = %.17g, want %.17g", c.xs, got, c.want)
		}
	}
	for _, xs := range [][]float64{{1, math.NaN()}, {math.NaN(), 1}, {math.Inf(1), math.NaN()}, {math.NaN(), math.Inf(-1)}} {
		if v := LogSumExp(xs); !math.IsNaN(v) {
			t.Errorf("LogSumExp(%v) = %v, want NaN", xs, v)
		}
	}
}

// TestRandLogGammaDraws checks RandLogGamma against Marsaglia and Tsang's method
// written out step by step (log v computed in the test and again for the result),
// draw for draw, bit for bit, over shapes below and above 1 and several seeds; and
// the mean of exp of its draws against the shape within 5 standard errors.
func TestRandLogGammaDraws(t *testing.T) {
	var ref func(rng *rand.Rand, shape float64) float64
	ref = func(rng *rand.Rand, shape float64) float64 {
		if shape < 1 {
			return ref(rng, shape+1) - rng.ExpFloat64()/shape
		}
		d := shape - 1.0/3
		c := 1 / math.Sqrt(9*d)
		for {
			z := rng.NormFloat64()
			v := 1 + c*z
			if v <= 0 {
				continue
			}
			v = v * v * v
			u := rng.ExpFloat64()
			if -u < 0.5*z*z+d-d*v+d*math.Log(v) {
				return math.Log(d) + math.Log(v)
			}
		}
	}
	for _, shape := range []float64{0.01, 0.3, 1, 1.5, 3, 31.7, 1e4} {
		a, b := rand.New(rand.NewPCG(3, uint64(shape*100))), rand.New(rand.NewPCG(3, uint64(shape*100)))
		sum := 0.0
		const n = 20000
		for k := range n {
			got, want := RandLogGamma(a, shape), ref(b, shape)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("shape %g, draw %d: %v, step by step %v", shape, k, got, want)
			}
			sum += math.Exp(got)
		}
		if se := math.Sqrt(shape / n); math.Abs(sum/n-shape) > 5*se {
			t.Errorf("shape %g: mean of the gamma draws %g, want %g ± %g", shape, sum/n, shape, 5*se)
		}
	}
}

// TestLogSubnormal: Log and LogGamma at subnormal arguments, where Go's math.Log
// is wrong on amd64 (golang/go#56600), against log x = log(x·2⁵²) − 52 log 2 of a
// normal x·2⁵², and LogGamma against −log x (log Γ(x) = −log x − γx + O(x²)).
func TestLogSubnormal(t *testing.T) {
	for _, x := range []float64{5e-324, 1e-320, 0x1p-1023, 0x1p-1022 * 0.75} {
		want := -744.44007192138126 // log(5e-324) = log(2^-1074)
		if x != 5e-324 {
			want = math.Log(x*0x1p100) - 100*math.Ln2
		}
		if got := Log(x); !close(got, want, 1e-15) {
			t.Errorf("Log(%g) = %.17g, want %.17g", x, got, want)
		}
		if got := LogGamma(x); !close(got, -want, 1e-15) {
			t.Errorf("LogGamma(%g) = %.17g, want %.17g", x, got, -want)
		}
	}
	for _, x := range []float64{0x1p-1022, 1e-300, 0.5, 3} {
		if Log(x) != math.Log(x) {
			t.Errorf("Log(%g) = %v, math.Log %v", x, Log(x), math.Log(x))
		}
	}
}
