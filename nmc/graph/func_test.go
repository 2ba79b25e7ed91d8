package graph

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/nmc-go/nmc/nmc"
	jetpkg "github.com/nmc-go/nmc/nmc/jet"
)

// mixFunc returns a GoFunc of nout outputs that mixes all its inputs nonlinearly,
// output c being
//
//	tanh(Σ_i w_ci x_i) + 0.2·x_c·x_{c+1} + 0.05·Σ_i x_i² + 0.1·sin(x_c),
//
// with w_ci = 0.1·(c + 1) − 0.07·i and indices modulo n, and its float64 form.
func mixFunc(nout int) (GoFunc, func(x []float64, out []float64)) {
	f := func(_ *jetpkg.Space, in, out []jetpkg.Number) {
		n := len(in)
		sq := jetpkg.Const(0)
		for _, x := range in {
			sq = sq.Add(x.Square())
		}
		for c := range out {
			lin := jetpkg.Const(0)
			for i, x := range in {
				lin = lin.AddScaled(0.1*float64(c+1)-0.07*float64(i), x)
			}
			xc, xd := in[c%n], in[(c+1)%n]
			out[c] = lin.Tanh().Add(xc.Mul(xd).MulConst(0.2)).AddScaled(0.05, sq).AddScaled(0.1, xc.Sin())
		}
	}
	fv := func(in []float64, out []float64) {
		n := len(in)
		sq := 0.0
		for _, x := range in {
			sq += x * x
		}
		for c := range out {
			lin := 0.0
			for i, x := range in {
				lin += (0.1*float64(c+1) - 0.07*float64(i)) * x
			}
			xc, xd := in[c%n], in[(c+1)%n]
			out[c] = math.Tanh(lin) + 0.2*xc*xd + 0.05*sq + 0.1*math.Sin(xc)
		}
	}
	return f, fv
}

// TestFuncDerivatives checks, for Func nodes over every kind of input (scalar
// sites, a Vector site, plates, a Dirichlet site, MatVec rows, expressions, a
// discrete site, another Func), f, ∇f and ∇²f of every site against finite
// differences of the log joint, with the outputs observed as normal locations
// and, for a single output, used in a linear predictor, as a prior's location and
// as a Builder.Func factor.
func TestFuncDerivatives(t *testing.T) {
	cases := []struct {
		name   string
		nout   int
		inputs func(o *opBase, w *Node) []*Node
	}{
		{"scalars", 3, func(o *opBase, _ *Node) []*Node { return []*Node{o.a, o.s, Index(o.p, []int{1})} }},
		{"one-input", 2, func(o *opBase, _ *Node) []*Node { return []*Node{o.s} }},
		{"vector-site", 2, func(o *opBase, _ *Node) []*Node { return []*Node{o.v, o.a} }},
		{"vector-curved", 2, func(o *opBase, _ *Node) []*Node {
			r := Index(MatVec(o.x, o.v), []int{1})
			return []*Node{Exp(Mul(C(0.5), o.v)), Mul(r, r), Mul(Index(o.v, []int{0}), Index(o.v, []int{2}))}
		}},
		{"plates", 4, func(o *opBase, _ *Node) []*Node { return []*Node{o.p, o.q} }},
		{"dirichlet", 2, func(o *opBase, w *Node) []*Node { return []*Node{w, o.a} }},
		{"matvec-rows", 2, func(o *opBase, _ *Node) []*Node { return []*Node{MatVec(o.x, o.v)} }},
		{"same-row", 1, func(o *opBase, _ *Node) []*Node {
			r := Index(MatVec(o.x, o.v), []int{2})
			return []*Node{r, Exp(Mul(C(0.3), r))}
		}},
		{"expressions", 1, func(o *opBase, _ *Node) []*Node { return []*Node{Exp(o.a), Mul(o.s, o.a), Index(o.v, o.idx)} }},
		{"discrete", 2, func(o *opBase, _ *Node) []*Node { return []*Node{o.z, o.a, o.s} }},
		{"nested", 2, func(o *opBase, _ *Node) []*Node {
			inner, _ := mixFunc(2)
			return []*Node{Components(Func(inner, 2, o.a, o.s)), Index(o.v, []int{0})}
		}},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := New()
			o := newOpBase(b)
			w := b.Latent("w", Dirichlet(Vec(2, 3, 4)))
			f, _ := mixFunc(c.nout)
			e := Func(f, c.nout, c.inputs(o, w)...)
			if err := e.Err(); err != nil {
				t.Fatalf("Func: %v", err)
			}
			b.Observe("y", Normal(Components(e), C(1.3)), o.obs[:c.nout])
			if c.nout == 1 {
				// A scalar Func in a literal linear predictor (a linear factor).
				b.Observe("lin", Normal(Add(e, Mul(e, Data([]float64{0.5, -1, 2}))), C(1.1)), o.obs[:3])
				b.Latent("c", Normal(e, C(2)))
				g, _ := mixFunc(1)
				b.Func("extra", g, c.inputs(o, w)...)
			}
			m, err := b.Build()
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			st := checkModelDerivs(t, c.name, m, rand.New(rand.NewPCG(8, uint64(ci))), 4, 40)
			if !t.Failed() && st.points < 4 {
				t.Errorf("only %d acceptable points out of 40 prior draws", st.points)
			}
		})
	}
}

// TestFuncMatchesExpressions checks a model whose log density is a Builder.Func
// factor against the same model written with the package's expressions: the log
// joint, and every site's score, gradient and Hessian, agree to rounding at
// random states (the two paths share nothing but the priors).
func TestFuncMatchesExpressions(t *testing.T) {
	build := func(useFunc bool) *Model {
		b := New()
		a := b.Latent("a", Normal(C(0.2), C(1)))
		s := b.Latent("s", Gamma(C(3), C(2)))
		v := b.Vector("v", 2, Normal(C(0), C(1)))
		v0, v1 := Index(v, []int{0}), Index(v, []int{1})
		if useFunc {
			// a·s + e^{v₀}·log(s) − (v₁ − a)²/s + logistic(v₀ v₁)
			b.Func("f", func(_ *jetpkg.Space, in, out []jetpkg.Number) {
				a, s, v0, v1 := in[0], in[1], in[2], in[3]
				d := v1.Sub(a)
				out[0] = a.Mul(s).Add(v0.Exp().Mul(s.Log())).Sub(d.Mul(d).Div(s)).Add(v0.Mul(v1).Logistic())
			}, a, s, v)
		} else {
			d := Sub(v1, a)
			b.Factor("f", Add(Sub(Add(Mul(a, s), Mul(Exp(v0), Log(s))), Div(Mul(d, d), s)), Logistic(Mul(v0, v1))))
		}
		m, err := b.Build()
		if err != nil {
			t.Fatalf("Build: %v", err)
		}
		return m
	}
	mf, me := build(true), build(false)
	sf, se := mf.NewScorer(), me.NewScorer()
	rng := rand.New(rand.NewPCG(4, 4))
	x := make([]float64, nmc.Dim(mf.Sites()))
	checked := 0
	for try := 0; try < 20; try++ {
		if err := mf.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		if jf, je := sf.LogJoint(x), se.LogJoint(x); !close(jf, je, 1e-13) {
			t.Errorf("at %v: log joint %.17g with Func, %.17g with expressions", x, jf, je)
		}
		for i, site := range mf.Sites() {
			k := site.Size
			gf, hf, ge, he := make([]float64, k), make([]float64, k*k), make([]float64, k), make([]float64, k*k)
			ff, fe := sf.Score(x, i, gf, hf), se.Score(x, i, ge, he)
			if !close(ff, fe, 1e-13) {
				t.Errorf("site %s at %v: score %.17g with Func, %.17g with expressions", site.Name, x, ff, fe)
			}
			for p := range gf {
				if !close(gf[p], ge[p], 1e-12) {
					t.Errorf("site %s at %v: gradient[%d] %.17g with Func, %.17g with expressions", site.Name, x, p, gf[p], ge[p])
				}
			}
			for p := range hf {
				if !close(hf[p], he[p], 1e-12) {
					t.Errorf("site %s at %v: Hessian[%d] %.17g with Func, %.17g with expressions", site.Name, x, p, hf[p], he[p])
				}
			}
		}
		checked++
	}
	if checked < 20 {
		t.Fatalf("checked %d states", checked)
	}
}

// TestFuncValues checks a Func node's values, recorded as a deterministic
// quantity, against its float64 formula at the inputs read from the state, and
// the log joint of a Builder.Func factor against the priors plus the formula.
func TestFuncValues(t *testing.T) {
	b := New()
	o := newOpBase(b)
	f, fv := mixFunc(3)
	b.Deterministic("F", Func(f, 3, o.a, o.s, o.p))
	g, gv := mixFunc(1)
	b.Func("lik", g, o.v, o.a)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	noFunc := New() // the same priors, without the factor
	newOpBase(noFunc)
	m0, err := noFunc.Build()
	if err != nil {
		t.Fatal(err)
	}
	off := func(name string) int {
		o, _, err := m.Offset(name)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	oa, os, op, ov := off("a"), off("s"), off("p"), off("v")
	rng := rand.New(rand.NewPCG(3, 9))
	x := make([]float64, nmc.Dim(m.Sites()))
	got := make([]float64, 3)
	want, wl := make([]float64, 3), make([]float64, 1)
	sc, sc0 := m.NewScorer(), m0.NewScorer()
	for range 10 {
		if err := m.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		m.Derive(x, got)
		fv([]float64{x[oa], x[os], x[op], x[op+1], x[op+2]}, want)
		for c := range want {
			if !close(got[c], want[c], 1e-14) {
				t.Errorf("F[%d] at %v: %.17g, formula %.17g", c, x, got[c], want[c])
			}
		}
		gv([]float64{x[ov], x[ov+1], x[ov+2], x[oa]}, wl)
		if lj, lj0 := sc.LogJoint(x), sc0.LogJoint(x); !close(lj-lj0, wl[0], 1e-12) {
			t.Errorf("at %v: the factor adds %.17g to the log joint, formula %.17g", x, lj-lj0, wl[0])
		}
	}
}

// TestFuncCacheIsExact checks that results reused from the cache are the results
// computed afresh: scores of every site, in an order that reuses them (each site
// at a state just scored for another, the first after the log joint, which
// caches values without derivatives), equal bit for bit those of a new model's
// scorer that scores each state once.
func TestFuncCacheIsExact(t *testing.T) {
	build := func() *Model {
		b := New()
		o := newOpBase(b)
		f, _ := mixFunc(3)
		b.Observe("y", Normal(Components(Func(f, 3, o.a, o.s, o.v)), C(1.3)), o.obs[:3])
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := build()
	sc := m.NewScorer()
	rng := rand.New(rand.NewPCG(2, 2))
	x := make([]float64, nmc.Dim(m.Sites()))
	for range 5 {
		if err := m.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		sc.LogJoint(x) // values only: cached without derivatives
		for i, site := range m.Sites() {
			if site.Support == nmc.Discrete {
				continue
			}
			k := site.Size
			g1, h1 := make([]float64, k), make([]float64, k*k)
			f1 := sc.Score(x, i, g1, h1) // after other sites' scores at x: from the cache
			fresh := build().NewScorer()
			g2, h2 := make([]float64, k), make([]float64, k*k)
			f2 := fresh.Score(x, i, g2, h2)
			same := math.Float64bits(f1) == math.Float64bits(f2)
			for p := range g1 {
				same = same && math.Float64bits(g1[p]) == math.Float64bits(g2[p])
			}
			for p := range h1 {
				same = same && math.Float64bits(h1[p]) == math.Float64bits(h2[p])
			}
			if !same {
				t.Errorf("site %s: cached score %v ∇ %v ∇² %v, fresh %v ∇ %v ∇² %v", site.Name, f1, g1, h1, f2, g2, h2)
			}
			if fv := sc.Score(x, i, nil, nil); !close(fv, f2, 1e-14) {
				t.Errorf("site %s: score without derivatives %v, with %v", site.Name, fv, f2)
			}
		}
	}
}

// TestFuncScoreDoesNotAllocate checks that a warm scorer scores a site read by a
// Func without allocating, at states that miss the cache as well as hit it.
func TestFuncScoreDoesNotAllocate(t *testing.T) {
	b := New()
	o := newOpBase(b)
	f, _ := mixFunc(3)
	b.Observe("y", Normal(Components(Func(f, 3, o.a, o.s, o.v)), C(1.3)), o.obs[:3])
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	sc := m.NewScorer()
	x := make([]float64, nmc.Dim(m.Sites()))
	if err := m.Init(rand.New(rand.NewPCG(1, 1)), x); err != nil {
		t.Fatal(err)
	}
	k := m.Sites()[0].Size
	g, h := make([]float64, 3), make([]float64, 9)
	for range 40 { // fill the cache's slots
		x[0] += 0.01
		sc.Score(x, 0, g[:k], h[:k*k])
	}
	vo, _, _ := m.Offset("v")
	iv := 0
	for i, s := range m.Sites() {
		if s.Name == "v" {
			iv = i
		}
	}
	if a := testing.AllocsPerRun(50, func() {
		x[0] += 0.001 // a miss
		sc.Score(x, 0, g[:k], h[:k*k])
		sc.Score(x, iv, g, h) // a hit, dense Hessian
		x[vo] += 0.001
		sc.Score(x, iv, g, h)
	}); a != 0 {
		t.Errorf("%v allocations per round of scores, want 0", a)
	}
}

// TestFuncDeterminism checks that draws do not depend on which chain's evaluation
// filled the shared cache: 4 chains give the same draws, bit for bit, with
// GOMAXPROCS 1 and 2 (chains interleaved differently), each on a new model.
func TestFuncDeterminism(t *testing.T) {
	run := func(procs int) []float64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		b := New()
		o := newOpBase(b)
		f, _ := mixFunc(3)
		b.Observe("y", Normal(Components(Func(f, 3, o.a, o.s, o.v)), C(1.3)), o.obs[:3])
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		res, err := nmc.Sample(context.Background(), m, &nmc.Options{Chains: 4, Draws: 200, Warmup: 100, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		var all []float64
		for _, ch := range res.Draws.Chains {
			all = append(all, ch...)
		}
		return all
	}
	d1, d2 := run(1), run(2)
	if len(d1) != len(d2) || len(d1) == 0 {
		t.Fatalf("%d and %d values", len(d1), len(d2))
	}
	for i := range d1 {
		if math.Float64bits(d1[i]) != math.Float64bits(d2[i]) {
			t.Fatalf("value %d: %v with GOMAXPROCS 1, %v with 2", i, d1[i], d2[i])
		}
	}
}
