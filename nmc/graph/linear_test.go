package graph

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc"
)

// linearTestModels declares nine models with linear factors, each twice: scored
// as linear factors, and element by element (noLinear, the former engine). n = 9000
// rows make three chunks of linChunk.
func linearTestModels(t *testing.T, noLinear bool) map[string]*Model {
	t.Helper()
	const n = 9000
	rng := rand.New(rand.NewPCG(31, 32))
	newX := func(k int) *mat.Dense {
		x := mat.NewDense(n, k, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < k; j++ {
				x.Set(i, j, rng.NormFloat64())
			}
		}
		return x
	}
	out := map[string]*Model{}
	add := func(name string, b *Builder, outside ...string) { // outside: sites the factor does not read
		t.Helper()
		m, err := b.Build()
		if err != nil {
			t.Fatalf("%s: Build: %v", name, err)
		}
		if want := 1; !noLinear && len(m.linear) != want {
			t.Fatalf("%s: %d linear factors, want %d", name, len(m.linear), want)
		}
		for i := range m.Sites() {
			if f := m.siteFamily(i); f != nil && indexedPlate(m, f) {
				if len(m.linSites[i]) != 0 {
					t.Fatalf("%s: site %s of an indexed plate scores %d linear factors, want 0", name, m.Sites()[i].Name, len(m.linSites[i]))
				}
				continue
			}
			if !noLinear && len(m.linSites[i]) != 1 && !slices.Contains(outside, m.Sites()[i].Name) {
				t.Fatalf("%s: site %s scores %d linear factors, want 1", name, m.Sites()[i].Name, len(m.linSites[i]))
			}
		}
		out[name] = m
	}
	{
		x, y := newX(5), make([]float64, n)
		for i := range y {
			y[i] = float64(rng.IntN(2))
		}
		b := New()
		b.noLinear = noLinear
		alpha := b.Latent("alpha", Normal(C(0), C(10)))
		beta := b.Vector("beta", 5, Normal(C(0), C(2.5)))
		b.Observe("y", BernoulliLogit(Add(alpha, MatVec(x, beta))), y)
		b.Group("scale", Dilate(alpha, 1), Dilate(beta, 1))
		b.Group("mixed", Dilate(alpha, 0.3), Shift(beta, -0.7))
		add("logistic", b)
	}
	{
		x, y := newX(4), make([]float64, n)
		for i := range y {
			y[i] = 2 * rng.NormFloat64()
		}
		b := New()
		b.noLinear = noLinear
		nu := b.Latent("nu", Gamma(C(2), C(0.1)))
		sigma := b.Latent("sigma", Exponential(C(0.1)))
		alpha := b.Latent("alpha", Normal(C(0), C(10)))
		beta := b.Vector("beta", 4, Normal(C(0), C(2.5)))
		b.Observe("y", StudentT(nu, Add(alpha, MatVec(x, beta)), sigma), y)
		b.Group("scale", Dilate(alpha, 1), Dilate(beta, 1))
		b.Group("noise", Dilate(sigma, 1), Dilate(nu, 0.5), Shift(alpha, 0.2))
		b.Group("ridge", Dilate(nu, 1), Dilate(sigma, 0.3)) // shared arguments only
		add("robust", b)
	}
	{
		// Two MatVec terms, a subtraction, a data offset, a shared scale through Exp.
		x1, x2, y, off := newX(3), newX(2), make([]float64, n), make([]float64, n)
		for i := range y {
			y[i], off[i] = rng.NormFloat64(), 0.1*rng.NormFloat64()
		}
		b := New()
		b.noLinear = noLinear
		alpha := b.Latent("alpha", Normal(C(0), C(1)))
		logs := b.Latent("logs", Normal(C(0), C(1)))
		b1 := b.Vector("b1", 3, Normal(C(0), C(1)))
		b2 := b.Vector("b2", 2, Normal(C(0), C(1)))
		eta := Sub(Add(Data(off), MatVec(x1, b1)), Add(MatVec(x2, b2), alpha))
		b.Observe("y", Normal(eta, Exp(logs)), y)
		b.Group("b1", Dilate(b1, 1))
		b.Group("b2 and alpha", Shift(b2, 0.5), Dilate(alpha, 2))
		b.Group("scale", Dilate(alpha, 1), Dilate(b1, 1), Dilate(b2, 1))
		add("two terms", b)
	}
	{
		// Coefficients as a plate of scalar sites, each its own site (and a Vector).
		x1, x2, y := newX(3), newX(2), make([]float64, n)
		for i := range y {
			y[i] = 2 * rng.NormFloat64()
		}
		b := New()
		b.noLinear = noLinear
		nu := b.Latent("nu", Gamma(C(2), C(0.1)))
		alpha := b.Latent("alpha", Normal(C(0), C(1)))
		beta := b.Latent("beta", Normal(C(0), C(1)), 3)
		gamma := b.Vector("gamma", 2, Normal(C(0), C(1)))
		b.Observe("y", StudentT(nu, Add(alpha, Sub(MatVec(x1, beta), MatVec(x2, gamma))), C(1.5)), y)
		b.Group("scale", Dilate(alpha, 1), Dilate(beta, 1))
		b.Group("shift", Shift(beta, 0.5), Dilate(gamma, 0.7))
		add("plate", b)
	}
	{
		// A regression written literally (column terms, linear_cols.go): scalar
		// coefficients times data columns, one of them also the scale (its rows'
		// derivatives then mix η and σ).
		x, x2, y := newX(1).RawMatrix().Data, newX(1).RawMatrix().Data, make([]float64, n)
		for i := range y {
			y[i] = 1 + 0.5*x[i] + rng.NormFloat64()
		}
		b := New()
		b.noLinear = noLinear
		nu := b.Latent("nu", Gamma(C(2), C(0.1)))
		sigma := b.Latent("sigma", Gamma(C(2), C(2)))
		alpha := b.Latent("alpha", Normal(C(0), C(1)))
		beta := b.Latent("beta", Normal(C(0), C(1)))
		b.Observe("y", StudentT(nu, Add(alpha, Add(Mul(beta, Data(x)), Mul(Data(x2), sigma))), sigma), y)
		b.Group("scale", Dilate(alpha, 1), Dilate(beta, 1))
		b.Group("noise", Dilate(sigma, 1), Shift(beta, 0.3), Dilate(nu, 0.5))
		add("literal", b)
	}
	{
		// Index of a Vector site's coordinates times columns, a coefficient through
		// Exp, constant expressions as a column and an offset, beside a MatVec.
		h, z, w, y := newX(1).RawMatrix().Data, newX(1).RawMatrix().Data, newX(1).RawMatrix().Data, make([]float64, n)
		x2 := newX(2)
		for i := range y {
			y[i] = float64(rng.IntN(2))
		}
		b := New()
		b.noLinear = noLinear
		coef := b.Vector("b", 3, Normal(C(0), C(1)))
		logc := b.Latent("logc", Normal(C(0), C(1)))
		gamma := b.Vector("gamma", 2, Normal(C(0), C(1)))
		eta := Add(Index(coef, []int{0}), Sub(Mul(Index(coef, []int{1}), Data(h)), Mul(Data(z), Exp(logc))))
		eta = Add(eta, Neg(Mul(Index(coef, []int{2}), Sub(Data(w), C(0.5)))))
		eta = Sub(Add(eta, MatVec(x2, gamma)), Mul(C(0.2), Data(w)))
		b.Observe("y", BernoulliLogit(eta), y)
		b.Group("scale", Dilate(coef, 1), Dilate(gamma, 1))
		b.Group("c", Shift(logc, 1), Dilate(coef, 0.5))
		add("index", b)
	}
	{
		// A Poisson regression with crossed varying intercepts read by data indices,
		// a[g] and c[h] (Index and At, one subtracted), a coefficient of a data column
		// and a shared offset: the plates' sites keep the element path; the groups
		// dilate and shift a plate and shift the other at rates of their own over a
		// scale (ShiftOverEach).
		g, h, x, y := make([]int, n), make([]int, n), make([]float64, n), make([]int, n)
		for i := range y {
			g[i], h[i], x[i], y[i] = rng.IntN(40), rng.IntN(7), rng.NormFloat64(), rng.IntN(5)
		}
		rates := make([]float64, 7)
		for j := range rates {
			rates[j] = float64(j) - 2.5
		}
		b := New()
		b.noLinear = noLinear
		mu := b.Latent("mu", Normal(C(0), C(1)))
		sigma := b.Latent("sigma", HalfNormal(C(1)))
		a := b.Latent("a", Normal(mu, sigma), 40)
		c := b.Latent("c", Normal(C(0), C(1)), 7)
		coef := b.Latent("b", Normal(C(0), C(1)))
		b.ObserveInts("y", PoissonLog(Sub(Add(Add(Index(a, g), Mul(coef, Data(x))), C(0.2)), At(c, By(h)))), y)
		b.Group("scale", DilateAbout(a, mu, 1), Dilate(sigma, 1))
		b.Group("shift", Shift(mu, 1), Shift(a, 1), Shift(coef, 0.3))
		b.Group("over", Shift(coef, 1), ShiftOverEach(c, sigma, rates))
		b.NoAutoGroups()
		add("indexed", b, "mu", "sigma")
	}
	{
		// The same regression non-centred: b0 + b·x + sigma·z[g] − tau·w[h] (indexed
		// columns, scaled by latents, one subtracted; two such terms, so Build finds
		// no groups), with groups that move a scale and its plate together, a plate
		// alone, and the non-centred rules' orbits.
		g, h, x, y := make([]int, n), make([]int, n), make([]float64, n), make([]int, n)
		for i := range y {
			g[i], h[i], x[i], y[i] = rng.IntN(40), rng.IntN(7), 3+rng.NormFloat64(), rng.IntN(5)
		}
		b := New()
		b.noLinear = noLinear
		b0 := b.Latent("b0", Normal(C(0), C(1)))
		sigma := b.Latent("sigma", HalfNormal(C(1)))
		tau := b.Latent("tau", HalfNormal(C(1)))
		z := b.Latent("z", Normal(C(0), C(1)), 40)
		w := b.Latent("w", Normal(C(0), C(1)), 7)
		coef := b.Latent("b", Normal(C(0), C(1)))
		eta := Sub(Add(Add(b0, Mul(coef, Data(x))), Mul(sigma, Index(z, g))), Mul(At(w, By(h)), tau))
		b.ObserveInts("y", PoissonLog(eta), y)
		b.Group("both", Dilate(tau, 0.7), Shift(w, 0.4), Shift(b0, 1))
		b.Group("plate", ShiftOver(w, sigma, 1.5))
		b.Group("ridge", Shift(coef, 1), ShiftOver(z, sigma, -0.5))
		b.Group("dilate", Dilate(sigma, 1), Dilate(z, -1))
		add("non-centred", b)
	}
	{
		// An ordinal regression: the cutpoints are a shared vector argument (an
		// Ordered latent's elements), and a shared intercept moves η in every row.
		x, y := newX(3), make([]int, n)
		for i := range y {
			y[i] = rng.IntN(4)
		}
		b := New()
		b.noLinear = noLinear
		alpha := b.Latent("alpha", Normal(C(0), C(1)))
		beta := b.Vector("beta", 3, Normal(C(0), C(1)))
		c := b.Ordered("c", 3, Normal(C(0), C(3)))
		b.ObserveInts("y", OrderedLogistic(Add(alpha, MatVec(x, beta)), c), y)
		b.Group("scale", Dilate(alpha, 1), Dilate(beta, 1))
		b.Group("shift", Shift(alpha, 1), Dilate(beta, 0.5))
		add("ordinal", b)
	}
	return out
}

// indexedPlate reports whether latent f is an indexed-plate term or column of one
// of m's linear factors.
func indexedPlate(m *Model, f *family) bool {
	for _, lf := range m.linear {
		for _, tm := range lf.terms {
			if tm.idx != nil && tm.fam == f {
				return true
			}
		}
		for _, c := range lf.cols {
			if c.plate == f {
				return true
			}
		}
	}
	return false
}

// allScores returns every site's score with and without derivatives (gradient and
// Hessian appended), the log joint, and every group's orbit score with its two
// derivatives, at x.
func allScores(m *Model, sc nmc.Scorer, x []float64) []float64 {
	var out []float64
	for i, s := range m.Sites() {
		g, h := make([]float64, s.Size), make([]float64, s.Size*s.Size)
		out = append(out, sc.Score(x, i, g, h))
		out = append(append(out, g...), h...)
		out = append(out, sc.Score(x, i, nil, nil))
	}
	out = append(out, sc.LogJoint(x))
	for g := range m.Groups() {
		var d [2]float64
		out = append(out, sc.(nmc.OrbitScorer).ScoreOrbit(x, g, &d), d[0], d[1])
		out = append(out, sc.(nmc.OrbitScorer).ScoreOrbit(x, g, nil))
	}
	return out
}

// TestLinearMatchesElements checks linear factors against the element-by-element
// engine at random states: every score, gradient, Hessian, log joint and orbit score
// with its derivatives agrees to 1e-10 relative to the largest of the two and 1.
func TestLinearMatchesElements(t *testing.T) {
	lin, elem := linearTestModels(t, false), linearTestModels(t, true)
	for name, m := range lin {
		rng := rand.New(rand.NewPCG(41, uint64(len(name))))
		x := make([]float64, nmc.Dim(m.Sites()))
		sl, se := m.NewScorer(), elem[name].NewScorer()
		for pt := 0; pt < 4; pt++ {
			if err := m.Init(rng, x); err != nil {
				t.Fatal(err)
			}
			a, b := allScores(m, sl, x), allScores(elem[name], se, x)
			worst := 0.0
			for i := range a {
				d := math.Abs(a[i]-b[i]) / math.Max(1, math.Max(math.Abs(a[i]), math.Abs(b[i])))
				if !(d <= 1e-10) {
					t.Errorf("%s point %d value %d: linear %.15g, elements %.15g", name, pt, i, a[i], b[i])
				}
				worst = max(worst, d)
			}
			if pt == 0 {
				t.Logf("%s: %d values, largest relative difference %.2g", name, len(a), worst)
			}
		}
	}
}

// TestLinearCacheNeverStale walks a warm scorer through states that change one
// coordinate of a Vector site, a scalar site, several at once, or go back to an
// earlier state (the cache's other slot), in random order, and compares everything
// it returns with a fresh scorer's (empty caches) at the same state: bit for bit,
// since the cache returns X·v computed from scratch at exactly that v (none of these
// states' vectors is an exact multiple of another's, where the cache scales a slot
// instead: TestMvCacheScaled). A scorer with three goroutines agrees bit for bit too.
func TestLinearCacheNeverStale(t *testing.T) {
	for name, m := range linearTestModels(t, false) {
		rng := rand.New(rand.NewPCG(43, uint64(len(name))))
		dim := nmc.Dim(m.Sites())
		x := make([]float64, dim)
		if err := m.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		warm := m.NewScorer()
		three := m.newScorer()
		three.nworkers = 3
		var history [][]float64
		for step := 0; step < 40; step++ {
			history = append(history, append([]float64(nil), x...))
			switch rng.IntN(4) {
			case 0: // one coordinate of a Vector site, or a scalar site
				x[rng.IntN(dim)] += 0.1 * rng.NormFloat64()
			case 1: // several coordinates
				for range 3 {
					x[rng.IntN(dim)] += 0.1 * rng.NormFloat64()
				}
			case 2: // back to an earlier state
				copy(x, history[rng.IntN(len(history))])
			case 3: // unchanged
			}
			for _, c := range []int{0, 1} { // keep positive sites positive (robust's nu, sigma)
				if m.Sites()[c].Support == nmc.Positive {
					x[c] = math.Abs(x[c]) + 0.1
				}
			}
			// Score a random subset of sites first, so that the caches hold other states.
			for range rng.IntN(3) {
				y := history[rng.IntN(len(history))]
				warm.Score(y, rng.IntN(len(m.Sites())), nil, nil)
			}
			got, want, par := allScores(m, warm, x), allScores(m, m.NewScorer(), x), allScores(m, three, x)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) || math.Float64bits(par[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%s step %d value %d: warm scorer %v, fresh %v, three goroutines %v", name, step, i, got[i], want[i], par[i])
				}
			}
		}
	}
}

// TestLinearSharedTermsReused checks that an orbit moving only shared arguments
// (robust's ridge group: ν and σ, summed by the family's DerivsSharedRows) shares the
// rows' terms with the site scores at the same state, in both directions: the orbit
// score of a scorer that has just scored a site there reuses that site's terms, a
// site score after the orbit score reuses the orbit's, and every result is bit for
// bit a fresh scorer's (a cold cache fills the terms).
func TestLinearSharedTermsReused(t *testing.T) {
	m := linearTestModels(t, false)["robust"]
	ridge := -1
	for g, gr := range m.Groups() {
		if gr.Name == "ridge" {
			ridge = g
		}
	}
	if ridge < 0 {
		t.Fatal("no ridge group")
	}
	rng := rand.New(rand.NewPCG(47, 48))
	x := make([]float64, nmc.Dim(m.Sites()))
	const nu = 0 // the site ν
	g, h := make([]float64, 1), make([]float64, 1)
	orbit := func(sc *scorer) [3]float64 {
		var d [2]float64
		f := sc.ScoreOrbit(x, ridge, &d)
		return [3]float64{f, d[0], d[1]}
	}
	site := func(sc *scorer) [3]float64 {
		f := sc.Score(x, nu, g, h)
		return [3]float64{f, g[0], h[0]}
	}
	reused := func(sc *scorer) bool { return sc.lin[0].reuse }
	for pt := 0; pt < 4; pt++ {
		if err := m.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		a := m.newScorer()
		o1 := orbit(a) // fills
		if reused(a) {
			t.Fatalf("point %d: a cold scorer's orbit score reused terms", pt)
		}
		s1 := site(a)
		if !reused(a) {
			t.Fatalf("point %d: the site score after the orbit score at the same state did not reuse its terms", pt)
		}
		b := m.newScorer()
		s2 := site(b) // fills
		o2 := orbit(b)
		if !reused(b) {
			t.Fatalf("point %d: the orbit score after a site score at the same state did not reuse its terms", pt)
		}
		fo, fs := orbit(m.newScorer()), site(m.newScorer())
		for i := range 3 {
			if math.Float64bits(o1[i]) != math.Float64bits(fo[i]) || math.Float64bits(o2[i]) != math.Float64bits(fo[i]) ||
				math.Float64bits(s1[i]) != math.Float64bits(fs[i]) || math.Float64bits(s2[i]) != math.Float64bits(fs[i]) {
				t.Fatalf("point %d value %d: orbit %v (filled) %v (reused), fresh %v; site %v (reused) %v (filled), fresh %v",
					pt, i, o1, o2, fo, s1, s2, fs)
			}
		}
	}
}

// TestKeep checks nmc.StateKeeper on a logistic regression: after scoring states A
// and B, Keep(A) makes the next new state C replace B's values, so that scoring A
// again reuses its rows' terms and X·β (without Keep, C replaces A's and A is
// computed again); every score equals a fresh scorer's bit for bit either way.
func TestKeep(t *testing.T) {
	m := linearTestModels(t, false)["logistic"]
	const scale = 0 // the group "scale"
	rng := rand.New(rand.NewPCG(49, 50))
	dim := nmc.Dim(m.Sites())
	a := make([]float64, dim)
	if err := m.Init(rng, a); err != nil {
		t.Fatal(err)
	}
	other := func() []float64 {
		x := append([]float64(nil), a...)
		for j := 1; j < dim; j++ { // β's coordinates (α is coordinate 0)
			x[j] += 0.1 * rng.NormFloat64()
		}
		return x
	}
	b, c := other(), other()
	beta := func(x []float64) []float64 { return x[1:] }
	for _, keep := range []bool{false, true} {
		sc := m.newScorer()
		var fs []float64
		for _, x := range [][]float64{a, b, c, a} {
			if keep && &x[0] == &c[0] {
				sc.Keep(a) // back at a after the rejected b
			}
			fs = append(fs, sc.ScoreOrbit(x, scale, nil))
			if &x[0] == &c[0] {
				kept := false
				for _, sl := range sc.mv[m.linear[0].terms[0].node.id].slots {
					kept = kept || (sl.ok && sameBits(sl.src, beta(a)))
				}
				if kept != keep {
					t.Errorf("keep %v: X·β of a still cached after c: %v", keep, kept)
				}
			}
		}
		if reused := sc.lin[0].reuse; reused != keep {
			t.Errorf("keep %v: the last score at a reused its rows' terms: %v", keep, reused)
		}
		for i, x := range [][]float64{a, b, c, a} {
			if want := m.newScorer().ScoreOrbit(x, scale, nil); math.Float64bits(fs[i]) != math.Float64bits(want) {
				t.Errorf("keep %v: score %d is %v, a fresh scorer's %v", keep, i, fs[i], want)
			}
		}
		// Keep is called after every rejected proposal: it must not allocate.
		if n := testing.AllocsPerRun(20, func() { sc.Keep(a) }); n != 0 {
			t.Errorf("Keep allocates %v times per call", n)
		}
	}
}

// TestLinearRefusesWideArguments: an ordinal regression of 70 categories has 70
// arguments besides its value (η and 69 cutpoints), more than the 64-bit set of the
// arguments a call moves can index, so its factor is scored element by element; a
// factor of 40 categories is a linear factor.
func TestLinearRefusesWideArguments(t *testing.T) {
	const n = 40
	rng := rand.New(rand.NewPCG(45, 46))
	x := mat.NewDense(n, 2, nil)
	for i := range n {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
	}
	build := func(k int) *Model {
		y := make([]int, n)
		for i := range y {
			y[i] = rng.IntN(k)
		}
		b := New()
		beta := b.Vector("beta", 2, Normal(C(0), C(1)))
		c := b.Ordered("c", k-1, Normal(C(0), C(10)))
		b.ObserveInts("y", OrderedLogistic(MatVec(x, beta), c), y)
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := build(40); len(m.linear) != 1 {
		t.Errorf("40 categories: %d linear factors, want 1", len(m.linear))
	}
	if m := build(70); len(m.linear) != 0 {
		t.Errorf("70 categories: %d linear factors, want 0", len(m.linear))
	}
}
