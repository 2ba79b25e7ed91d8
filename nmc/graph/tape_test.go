package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// tapeOpsModel returns a model of three scalar latents a, b (positive) and c whose
// observations read every operation a tape has an instruction for, in every
// combination of dependence on the active site: a ⊕ b (constant when c is active,
// one operand dependent when a or b is), a ⊕ (a + b) (both dependent), unary
// operations of a and of b, constants folded at compile time, Index and Concat,
// nodes the general path evaluates (Bounded, LogSumExp), Normal observations with
// a dependent mean, scale or both, and other families (StudentT, by the general
// path).
func tapeOpsModel(tb testing.TB) *Model {
	tb.Helper()
	b := New()
	a := b.Latent("a", Normal(C(0), C(1)))
	bp := b.Latent("b", HalfNormal(C(2)))
	c := b.Latent("c", Normal(C(0), C(1)))
	y := b.Bounded("y", C(0), Add(C(2), Exp(c)), Flat())
	obs := func(name string, mu, sigma *Node, v float64) {
		b.Observe(name, Normal(mu, sigma), []float64{v})
	}
	ops := map[string]func(x, z *Node) *Node{"add": Add, "sub": Sub, "mul": Mul, "div": Div}
	for _, name := range []string{"add", "sub", "mul", "div"} {
		op := ops[name]
		obs(name+"_ab", op(a, bp), C(1.5), 0.3)
		obs(name+"_ba", op(bp, a), Exp(c), -0.2)
		obs(name+"_aab", op(a, Add(a, bp)), Add(bp, C(0.5)), 0.7)
		obs(name+"_abc", Mul(op(Mul(c, C(2)), Add(bp, C(1))), C(0.5)), Softplus(Add(a, c)), 0.1)
		obs(name+"_k", op(C(3), C(7)), Add(bp, op(C(2), C(5))), 1.1) // folded
	}
	unary := map[string]func(*Node) *Node{
		"neg": Neg, "exp": Exp, "log": Log, "log1p": Log1p, "sqrt": Sqrt, "logistic": Logistic, "softplus": Softplus,
		"square": func(n *Node) *Node { return Pow(n, 2) }, "cube": func(n *Node) *Node { return Pow(n, 3) },
		"pow": func(n *Node) *Node { return Pow(n, -1.5) },
	}
	for _, name := range []string{"neg", "exp", "log", "log1p", "sqrt", "logistic", "softplus", "square", "cube", "pow"} {
		u := unary[name]
		obs(name+"_b", u(bp), C(2), 0.4)
		obs(name+"_bc", Mul(u(bp), c), Add(C(1), Mul(bp, bp)), -0.4)
		obs(name+"_k", u(C(1.7)), bp, 0.9) // folded
	}
	v := Concat(a, Mul(a, bp), Sqrt(bp), C(4))
	b.Observe("concat", Normal(Index(v, []int{1, 0, 2, 2, 3}), Add(bp, Index(v, []int{2, 2, 2, 2, 2}))), []float64{0.1, 0.2, 0.3, 0.4, 0.5})
	// A sum with one reader followed by a square root of another slot: not one
	// fused instruction.
	bb := Mul(bp, bp)
	obs("sqrt_next", Add(Add(bp, bb), Sqrt(bb)), C(1), 0.5)
	obs("sqrt_next_k", Add(Add(C(0.5), bb), Sqrt(bb)), C(1), 0.5)
	// Square roots of sums as means (a root as a scale is fused with its Normal).
	obs("root_mean", Sqrt(Add(bp, Exp(bp))), C(1), 0.5)
	obs("root_mean_k", Sqrt(Add(Exp(a), bp)), C(1), 0.5)
	// Squares as first factors of products.
	obs("square_first", Add(Mul(Pow(bp, 2), bp), C(1)), C(1), 0.5)
	obs("square_first_d", Add(Mul(Pow(bp, 2), bp), bp), C(1), 0.5)
	// Roots of sums of k·b² and another term.
	obs("root_ms_a", Sqrt(Add(Mul(C(2), Pow(bp, 2)), bp)), C(1), 0.5)
	obs("root_ms_k", Sqrt(Add(C(1.5), Mul(C(2), Pow(bp, 2)))), C(1), 0.5)
	obs("root_mul_add", Sqrt(Add(Mul(bp, Exp(bp)), C(1))), C(1), 0.5)
	// Products of a difference k − d and a dependent factor (an ARMA error times
	// its coefficient), as either factor, plus a constant or a dependent term.
	obs("kd_mul_b", Add(Mul(a, Sub(C(1.5), Exp(a))), Exp(c)), C(1), 0.5)
	obs("kd_mul_a", Add(Mul(Sub(C(2.5), Exp(a)), a), Exp(c)), C(1), 0.5)
	obs("kd_mul_dd", Add(Mul(a, Sub(C(0.5), Exp(a))), Exp(a)), C(1), 0.5)
	obs("bounded", Mul(y, a), Add(y, C(0.5)), 0.6)
	obs("lse", LogSumExp(a, Mul(bp, c)), Sqrt(Add(bp, C(1))), 1.2)
	b.Observe("t", StudentT(C(4), Mul(a, c), bp), []float64{0.8, -0.3})
	m, err := b.Build()
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// tapeState returns a random state of tapeOpsModel: a and c normal, b and y's
// raw coordinate in (0, 1).
func tapeState(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = 2 * rng.NormFloat64()
	}
	x[1] = math.Exp(x[1])
	x[3] = 0.05 + 0.9*rng.Float64()
	return x
}

// sameFloat reports whether a and b are the same bits, or both NaN.
func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

// compareTape checks that sc (with tapes) and ref (without) give the same scores,
// gradients and Hessians, bit for bit, for every site at x, and returns how many
// of sc's scores ran a tape.
func compareTape(t *testing.T, m *Model, sc, ref *scorer, x []float64) uint64 {
	t.Helper()
	runs := sc.tape.runs
	for i := range m.Sites() {
		g1, h1, g2, h2 := make([]float64, 1), make([]float64, 1), make([]float64, 1), make([]float64, 1)
		f1, f2 := sc.Score(x, i, g1, h1), ref.Score(x, i, g2, h2)
		if !sameFloat(f1, f2) || !math.IsInf(f1, -1) && (!sameFloat(g1[0], g2[0]) || !sameFloat(h1[0], h2[0])) {
			t.Fatalf("site %d at %v: tape (%v, %v, %v), general path (%v, %v, %v)", i, x, f1, g1[0], h1[0], f2, g2[0], h2[0])
		}
		if v1, v2 := sc.Score(x, i, nil, nil), ref.Score(x, i, nil, nil); !sameFloat(v1, v2) {
			t.Fatalf("site %d at %v: values only, tape %v, general path %v", i, x, v1, v2)
		}
	}
	return sc.tape.runs - runs
}

// tapeCase is a model of the tape tests with a draw of its states.
type tapeCase struct {
	name  string
	m     *Model
	state func(*rand.Rand) []float64
}

// tapeCases returns tapeOpsModel and the recursions (ARMA(1,1), GARCH(1,1)) of
// T = 30, with their states.
func tapeCases(t *testing.T) []tapeCase {
	m := tapeOpsModel(t)
	cases := []tapeCase{{"ops", m, func(rng *rand.Rand) []float64 { return tapeState(rng, m.dim) }}}
	for _, rc := range recursionCases(t, 30) {
		cases = append(cases, tapeCase{rc.name, rc.m, rc.state})
	}
	return cases
}

// TestTapeMatchesGeneralPath checks that the site tapes of tapeOpsModel and of
// ARMA(1,1) and GARCH(1,1) give the general path's scores, gradients and Hessians
// bit for bit at random states (and at states outside the support), that every
// score at a state inside the support ran its tape, and that the tapes hold every instruction.
func TestTapeMatchesGeneralPath(t *testing.T) {
	cases := tapeCases(t)
	seen := map[tOp]bool{}
	kd := map[uint8]bool{} // product-sums taking a difference k − d as a factor (8: a, 16: b)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sc, ref := tc.m.newScorer(), tc.m.newScorer()
			ref.tape.off = true
			rng := rand.New(rand.NewPCG(7, 8))
			n := len(tc.m.Sites())
			for r := range 40 {
				x := tc.state(rng)
				if r%10 == 9 {
					x[rng.IntN(len(x))] = []float64{-1, 0, math.Inf(1), math.NaN(), 1e-170, 1e200}[r/10%6]
				}
				// A state outside the support may give a general node a constant
				// jet (the score falls back: TestTapeDeopt).
				if runs := compareTape(t, tc.m, sc, ref, x); runs != uint64(2*n) && r%10 != 9 {
					t.Fatalf("at %v: %d of %d scores ran a tape", x, runs, 2*n)
				}
			}
			for i := range n {
				tp := tc.m.siteTape(i)
				for _, in := range append(append(append(append(tp.pre, tp.code...), tp.normals...), tp.scales...), tp.chains...) {
					seen[in.op] = true
					if in.op == tMulAddDK || in.op == tMulAddDD {
						kd[in.sub&24] = true
					}
				}
			}
		})
	}
	for op := tLoad; op <= tRun; op++ {
		if !seen[op] {
			t.Errorf("no tape holds instruction %d", op)
		}
	}
	if !kd[8] || !kd[16] {
		t.Errorf("product-sums with a difference as factor a, b: %v, %v", kd[8], kd[16])
	}
}

// TestTapePre checks that a tape's values that do not depend on the active site
// (its pre) are computed again exactly when a coordinate they read changes its
// bits (−0 after 0 too), and kept otherwise (a proposal of the active site):
// on ARMA(1, 1), whose sigma site's residuals are all pre, the scores equal the
// general path's bit for bit either way.
func TestTapePre(t *testing.T) {
	m := recursionCases(t, 30)[0].m
	sc, ref := m.newScorer(), m.newScorer()
	ref.tape.off = true
	x := []float64{0.5, 0.3, -0.2, 1.1}
	sigma := 3
	steps := []struct {
		coord int
		v     float64
		runs  bool // the pre runs
	}{
		{-1, 0, true}, {sigma, 0.9, false}, {sigma, 1.3, false}, {0, 0.6, true}, {0, 0.6, false},
		{1, 0, true}, {1, math.Copysign(0, -1), true}, {2, -0.25, true}, {sigma, 1e-3, false},
	}
	for _, st := range steps {
		if st.coord >= 0 {
			x[st.coord] = st.v
		}
		before := sc.tape.preRuns
		g1, h1, g2, h2 := make([]float64, 1), make([]float64, 1), make([]float64, 1), make([]float64, 1)
		f1, f2 := sc.Score(x, sigma, g1, h1), ref.Score(x, sigma, g2, h2)
		if !sameFloat(f1, f2) || !sameFloat(g1[0], g2[0]) || !sameFloat(h1[0], h2[0]) {
			t.Fatalf("at %v: tape (%v, %v, %v), general path (%v, %v, %v)", x, f1, g1[0], h1[0], f2, g2[0], h2[0])
		}
		if ran := sc.tape.preRuns > before; ran != st.runs {
			t.Errorf("at %v after coordinate %d changed: the pre ran %v, want %v", x, st.coord, ran, st.runs)
		}
	}
	tp := m.siteTape(sigma)
	pre := 0 // the pre's instructions, a chain's links and a run's instructions each one
	for _, in := range tp.pre {
		if pre++; in.op == tChain || in.op == tRun {
			pre += int(in.b-in.a) - 1
		}
	}
	if pre < 2*29 || len(tp.code) > 5 {
		t.Errorf("sigma's tape: %d instructions in its pre, %d after", pre, len(tp.code))
	}
}

// TestTapeChains checks that ARMA(1, 1)'s tapes run its recursion as chains
// (tape_chain.go): the mu and phi sites' with their companions and their
// observations in the chain's loop, theta's with its observations, sigma's pre
// with its companions; and that a recursion whose observations are declared in
// another order than its steps (last to first, evens then odds), so that an
// observation may read a step after the next one's, gives the general path's
// scores bit for bit with its chains.
func TestTapeChains(t *testing.T) {
	m := recursionCases(t, 30)[0].m
	for i, want := range []struct{ pre, comp, obs bool }{{false, true, true}, {false, true, true}, {false, false, true}, {true, true, false}} {
		tp := m.siteTape(i)
		code := tp.code
		if want.pre {
			code = tp.pre
		}
		var ch *tinst
		for k := range code {
			if code[k].op == tChain {
				ch = &code[k]
			}
		}
		if ch == nil || ch.b-ch.a < 28 || (ch.out != 0) != want.comp || (ch.e > ch.aux) != want.obs {
			t.Errorf("site %d: chain %+v, want one of 28 steps or more, companions %v, observations %v", i, ch, want.comp, want.obs)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	y := armaSeries(rng, 20, 1, 0.6, 0.3, 0.8)
	for _, order := range []string{"reversed", "evens first"} {
		t.Run(order, func(t *testing.T) {
			b := New()
			par, nu := armaPredictions(b, y)
			var steps []int
			for s := range y {
				if order == "reversed" {
					steps = append(steps, len(y)-1-s)
				} else if 2*s < len(y) {
					steps = append(steps, 2*s)
				}
			}
			for s := 1; order != "reversed" && s < len(y); s += 2 {
				steps = append(steps, s)
			}
			for _, s := range steps {
				b.Observe(fmt.Sprintf("y%d", s), Normal(nu[s], par[3]), y[s:s+1])
			}
			m, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			sc, ref := m.newScorer(), m.newScorer()
			ref.tape.off = true
			for range 20 {
				x := []float64{2 * rng.NormFloat64(), 2*rng.Float64() - 1, 1.8*rng.Float64() - 0.9, math.Exp(2*rng.Float64() - 1)}
				if runs := compareTape(t, m, sc, ref, x); runs != 2*4 {
					t.Fatalf("at %v: %d of 8 scores ran a tape", x, runs)
				}
			}
			chained := false
			for i := range 3 {
				for _, in := range m.siteTape(i).code {
					chained = chained || in.op == tChain && in.e > in.aux
				}
			}
			if !chained {
				t.Errorf("no chain runs observations")
			}
		})
	}
}

// TestTapeDeopt checks a node the general path evaluates whose dependence on the
// active site is not what the tape compiled (At by a node index: the tape assumes
// it may read the active site): the score falls back to the general path, with the
// same result.
func TestTapeDeopt(t *testing.T) {
	b := New()
	w := b.Latent("w", Normal(C(0), C(1)), 3)
	k := b.Latent("k", Normal(C(0), C(1)))
	picked := At(w, ByNode(C(1)))
	b.Observe("y", Normal(Add(picked, k), C(1)), []float64{0.4})
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	sc, ref := m.newScorer(), m.newScorer()
	ref.tape.off = true
	x := []float64{0.1, 0.2, 0.3, -0.5}
	runs := compareTape(t, m, sc, ref, x)
	// w[0] and w[2] are read by At's candidates but not picked: their scores fall
	// back; w[1] and k run their tapes.
	if want := uint64(2 * (len(m.Sites()) - 2)); runs != want {
		t.Errorf("%d scores ran a tape, want %d", runs, want)
	}
}

// TestSquare checks square against math.Pow(v, 2) bit for bit, near and below
// the smallest normal number too.
func TestSquare(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	vals := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64,
		math.SmallestNonzeroFloat64, 0x1p-511, 0x1p-512, 0x1.6a09e667f3bcdp-512, 1.5e-154, 1e-160, 1e154, 1e155}
	for range 100000 {
		vals = append(vals, math.Ldexp(rng.Float64()+0.5, rng.IntN(2200)-1100)*float64(1-2*rng.IntN(2)))
	}
	for _, v := range vals {
		if got, want := square(v), math.Pow(v, 2); !sameFloat(got, want) {
			t.Fatalf("square(%v) = %v, math.Pow = %v", v, got, want)
		}
	}
}

// TestTapeNoAllocation checks that a warm scorer's tape scores do not allocate.
func TestTapeNoAllocation(t *testing.T) {
	for _, rc := range recursionCases(t, 50) {
		sc := rc.m.newScorer()
		x := rc.state(rand.New(rand.NewPCG(3, 4)))
		g, h := make([]float64, 1), make([]float64, 1)
		n := len(rc.m.Sites())
		for i := range n {
			sc.Score(x, i, g, h) // compile the tapes, size the slots
		}
		i := 0
		if a := testing.AllocsPerRun(100, func() {
			sc.Score(x, i%n, g, h)
			sc.Score(x, i%n, nil, nil)
			i++
		}); a != 0 {
			t.Errorf("%s: %v allocations per score", rc.name, a)
		}
		if sc.tape.runs == 0 {
			t.Errorf("%s: no tape ran", rc.name)
		}
	}
}

// TestTapeConcurrentScorers checks that scorers of one model on several
// goroutines, compiling the sites' tapes at their first scores, give the scores of
// a scorer without tapes (run with -race: the tapes are shared).
func TestTapeConcurrentScorers(t *testing.T) {
	c := recursionCases(t, 20)[1] // GARCH: a Bounded latent, a general node
	x := c.state(rand.New(rand.NewPCG(9, 9)))
	ref := c.m.newScorer()
	ref.tape.off = true
	n := len(c.m.Sites())
	want := make([][3]float64, n)
	for i := range n {
		g, h := make([]float64, 1), make([]float64, 1)
		want[i][0] = ref.Score(x, i, g, h)
		want[i][1], want[i][2] = g[0], h[0]
	}
	errs := make(chan error, 4)
	for w := range 4 {
		go func() {
			sc := c.m.newScorer()
			g, h := make([]float64, 1), make([]float64, 1)
			for r := range 3 * n {
				i := (r + w) % n
				f := sc.Score(x, i, g, h)
				if !sameFloat(f, want[i][0]) || !sameFloat(g[0], want[i][1]) || !sameFloat(h[0], want[i][2]) {
					errs <- fmt.Errorf("goroutine %d, site %d: (%v, %v, %v), want %v", w, i, f, g[0], h[0], want[i])
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestDivSubnormalDivisor checks Div where the reciprocal of the divisor
// overflows (a subnormal divisor): Exp(c)/Exp(a − 4) at a = c = −738 is the float64
// quotient of the two (about e⁴), not +Inf, by the tape, by the general path and
// in the log joint, with the divisor dependent on the active site or not.
func TestDivSubnormalDivisor(t *testing.T) {
	b := New()
	a := b.Latent("a", Flat())
	c := b.Latent("c", Flat())
	b.Observe("y_dd", Normal(Div(Exp(a), Exp(Sub(a, C(4)))), C(1)), []float64{50})
	b.Observe("y_kd", Normal(Div(Exp(c), Exp(Sub(a, C(4)))), C(1)), []float64{50})
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{-738, -738}
	d := math.Exp(x[0] - 4)
	q := math.Exp(x[1]) / d
	if !math.IsInf(1/d, 1) || q < 40 || q > 70 {
		t.Fatalf("1/%v = %v, quotient %v: not the case tested", d, 1/d, q)
	}
	want := 2 * (-0.5*(50-q)*(50-q) - logSqrt2Pi)
	sc, ref := m.newScorer(), m.newScorer()
	ref.tape.off = true
	if f := sc.LogJoint(x); math.Abs(f-want) > 1e-12*math.Abs(want) {
		t.Errorf("log joint %v, want %v", f, want)
	}
	for i, w := range []float64{want, want / 2} { // c's blanket is y_kd
		for _, s := range []*scorer{sc, ref} {
			if f := s.Score(x, i, nil, nil); math.Abs(f-w) > 1e-12*math.Abs(w) {
				t.Errorf("site %d (tape %v): score %v, want %v", i, !s.tape.off, f, w)
			}
			g, h := make([]float64, 1), make([]float64, 1)
			if f := s.Score(x, i, g, h); math.Abs(f-w) > 1e-12*math.Abs(w) {
				t.Errorf("site %d (tape %v): score with derivatives %v, want %v", i, !s.tape.off, f, w)
			}
		}
	}
	if sc.tape.runs == 0 {
		t.Error("no score ran a tape")
	}
}
