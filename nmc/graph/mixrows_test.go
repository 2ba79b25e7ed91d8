package graph

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/nmc"
)

// mixNormalData draws n observations of the two-component normal mixture with
// means mu0 and mu1, unit scales and weight 0.3 on the first.
func mixNormalData(rng *rand.Rand, n int, mu0, mu1 float64) []float64 {
	y := make([]float64, n)
	for i := range y {
		m := mu1
		if rng.Float64() < 0.3 {
			m = mu0
		}
		y[i] = m + rng.NormFloat64()
	}
	return y
}

// mixNormalModel is models/ports' normal_mixture (which this package cannot import):
// ordered means, a plate of two scales, theta ~ Beta(5, 5) and LogMix of the
// components' Normal LogDensity; with off, the factor is scored element by element.
func mixNormalModel(t testing.TB, y []float64, off bool) *Model {
	t.Helper()
	b := New()
	b.noMixRows = off
	mu := b.Ordered("mu", 2, Normal(C(0), C(10)))
	sigma := b.Latent("sigma", HalfNormal(C(2)), 2)
	theta := b.Latent("theta", Beta(C(5), C(5)))
	yd := Data(y)
	comp := func(k int) *Node {
		return LogDensity(Normal(Index(mu, []int{k}), Index(sigma, []int{k})), yd)
	}
	b.Factor("y", LogMix(theta, comp(0), comp(1)))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mixJointModel is the mixture with both means one Vector site (a site of two
// coordinates whose jets are unit ones) and one scale shared by both components,
// and a declared group shifting the means (an orbit score).
func mixJointModel(t testing.TB, y []float64, off bool) *Model {
	t.Helper()
	b := New()
	b.noMixRows = off
	mu := b.Vector("mu", 2, Normal(C(0), C(10)))
	sigma := b.Latent("sigma", HalfNormal(C(2)))
	theta := b.Latent("theta", Beta(C(5), C(5)))
	yd := Data(y)
	b.Factor("y", LogMix(theta,
		LogDensity(Normal(Index(mu, []int{0}), sigma), yd),
		LogDensity(Normal(Index(mu, []int{1}), sigma), yd)))
	loc := b.Latent("loc", Normal(C(0), C(1)))
	b.Observe("z", Normal(loc, C(1)), []float64{0.5})
	b.Group("shift", Shift(mu, 1), Shift(loc, 1))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mixLSEModel is a LogSumExp of three components with offsets log w_j from a
// Dirichlet weight (a simplex site of three coordinates) and three families: a
// Normal, a Student-t (the family's derivatives) and a Cauchy, whose locations are
// a plate and whose scales are scalar latents written as expressions.
func mixLSEModel(t testing.TB, y []float64, off bool) *Model {
	t.Helper()
	b := New()
	b.noMixRows = off
	w := b.Latent("w", Dirichlet(Vec(3, 3, 3)))
	loc := b.Latent("loc", Normal(C(0), C(5)), 3)
	ls := b.Latent("logscale", Normal(C(0), C(0.5)))
	nu := b.Latent("nu", Gamma(C(8), C(1)))
	yd := Data(y)
	at := func(n *Node, k int) *Node { return Index(n, []int{k}) }
	scale := Exp(ls)
	b.Factor("y", LogSumExp(
		Add(Log(at(Components(w), 0)), LogDensity(Normal(at(loc, 0), scale), yd)),
		Add(LogDensity(StudentT(nu, at(loc, 1), Mul(C(2), scale)), yd), Log(at(Components(w), 1))),
		Add(Log(at(Components(w), 2)), LogDensity(Cauchy(at(loc, 2), C(1.5)), yd))))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mixPoissonModel is a LogSumExp of three Poisson components (the closed form),
// rates a PositiveOrdered latent, equal weights.
func mixPoissonModel(t testing.TB, k []float64, off bool) *Model {
	t.Helper()
	b := New()
	b.noMixRows = off
	rate := b.PositiveOrdered("rate", 3, Gamma(C(2), C(0.2)))
	kd := Data(k)
	comp := func(j int) *Node { return LogDensity(Poisson(Index(rate, []int{j})), kd) }
	b.Factor("k", LogSumExp(comp(0), comp(1), comp(2)))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func relDiff(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// mixModels lists the test models, each with its fast path on and off.
func mixModels(t testing.TB) []struct {
	name      string
	fast, ref *Model
} {
	rng := rand.New(rand.NewPCG(3, 27))
	sep, ovl := mixNormalData(rng, 300, -10, 10), mixNormalData(rng, 300, -1, 1)
	mix3 := make([]float64, 200)
	for i := range mix3 {
		mix3[i] = []float64{-3, 0, 4}[i%3] + rng.NormFloat64()
	}
	counts := make([]float64, 150)
	for i := range counts {
		// Knuth's method: the number of uniforms multiplied before the product
		// falls to e^−λ.
		l, n, p := math.Exp(-[]float64{1, 6, 20}[i%3]), 0.0, rng.Float64()
		for p > l {
			p *= rng.Float64()
			n++
		}
		counts[i] = n
	}
	type pair = struct {
		name      string
		fast, ref *Model
	}
	return []pair{
		{"normal_mixture separated", mixNormalModel(t, sep, false), mixNormalModel(t, sep, true)},
		{"normal_mixture overlapping", mixNormalModel(t, ovl, false), mixNormalModel(t, ovl, true)},
		{"joint means, shared scale", mixJointModel(t, ovl, false), mixJointModel(t, ovl, true)},
		{"LogSumExp of 3 with offsets", mixLSEModel(t, mix3, false), mixLSEModel(t, mix3, true)},
		{"LogSumExp of 3 Poisson", mixPoissonModel(t, counts, false), mixPoissonModel(t, counts, true)},
	}
}

// TestMixRowsMatchesElements: every site's score, gradient and Hessian, the values
// alone, the log joint, the orbit scores and JointHessian of all sites, of the
// mixture factors scored by rows equal those of the element-by-element path to
// 1e-10 (relative to max(1, |value|)) at 20 random states of each model.
func TestMixRowsMatchesElements(t *testing.T) {
	const tol = 1e-10
	for _, mm := range mixModels(t) {
		if mm.fast.numMix != 1 || mm.ref.numMix != 0 {
			t.Fatalf("%s: %d mixture factors compiled (want 1), %d with them off", mm.name, mm.fast.numMix, mm.ref.numMix)
		}
		sites := mm.fast.Sites()
		x := make([]float64, nmc.Dim(sites))
		sf, sr := mm.fast.NewScorer(), mm.ref.NewScorer()
		rng := rand.New(rand.NewPCG(5, 8))
		worst := 0.0
		check := func(what string, a, b float64) {
			d := relDiff(a, b)
			worst = max(worst, d)
			if !(d <= tol) {
				t.Errorf("%s: %s: rows %.15g, elements %.15g (relative difference %.3g)", mm.name, what, a, b, d)
			}
		}
		// checkHess compares Hessians entry by entry relative to the entry's scale
		// max(1, √|H_pp·H_qq|): a cross term far smaller than the diagonal (the
		// separated components' μ₀–σ₁) is a sum of rows that cancel, and each path
		// rounds it at the diagonal's scale.
		checkHess := func(what string, a, b []float64, k int) {
			for p := range k {
				for q := range k {
					scale := math.Max(1, math.Sqrt(math.Abs(b[p*k+p]*b[q*k+q])))
					d := math.Abs(a[p*k+q]-b[p*k+q]) / scale
					worst = max(worst, d)
					if !(d <= tol) {
						t.Errorf("%s: %s [%d,%d]: rows %.15g, elements %.15g (difference %.3g of %.3g)", mm.name, what, p, q, a[p*k+q], b[p*k+q], d, scale)
					}
				}
			}
		}
		for range 20 {
			if err := mm.fast.Init(rng, x); err != nil {
				t.Fatal(err)
			}
			check("log joint", sf.LogJoint(x), sr.LogJoint(x))
			for i, s := range sites {
				k := s.Size
				gf, hf := make([]float64, k), make([]float64, k*k)
				gr, hr := make([]float64, k), make([]float64, k*k)
				check(s.Name+" score", sf.Score(x, i, gf, hf), sr.Score(x, i, gr, hr))
				check(s.Name+" value", sf.Score(x, i, nil, nil), sr.Score(x, i, nil, nil))
				for p := range gf {
					check(s.Name+" gradient", gf[p], gr[p])
				}
				checkHess(s.Name+" Hessian", hf, hr, k)
			}
			if os, ok := sf.(nmc.OrbitScorer); ok {
				or := sr.(nmc.OrbitScorer)
				for g := range mm.fast.Groups() {
					var df, dr [2]float64
					check("orbit score", os.ScoreOrbit(x, g, &df), or.ScoreOrbit(x, g, &dr))
					check("orbit derivatives", df[0], dr[0])
					check("orbit derivatives", df[1], dr[1])
				}
			}
			all := make([]int, len(sites))
			for i := range all {
				all[i] = i
			}
			n := len(x)
			gf, hf, gr, hr := make([]float64, n), make([]float64, n*n), make([]float64, n), make([]float64, n*n)
			check("JointHessian", sf.(*scorer).JointHessian(x, all, gf, hf), sr.(*scorer).JointHessian(x, all, gr, hr))
			for p := range gf {
				check("JointHessian gradient", gf[p], gr[p])
			}
			checkHess("JointHessian Hessian", hf, hr, n)
		}
		t.Logf("%s: largest relative difference %.2g", mm.name, worst)
	}
}

// TestMixRowsDerivatives checks the models' scores against finite differences of
// the log joint (checkModelDerivs), with the mixture factors scored by rows.
func TestMixRowsDerivatives(t *testing.T) {
	for _, mm := range mixModels(t) {
		st := checkModelDerivs(t, mm.name, mm.fast, rand.New(rand.NewPCG(7, 9)), 4, 200)
		if st.points < 4 {
			t.Errorf("%s: %d acceptable points of 4", mm.name, st.points)
		}
	}
}

// TestMixRowsImpossible: a component scale that is negative (a Real latent used as
// σ) or θ outside [0, 1] makes the state impossible: −Inf in the site's score (with
// derivatives and without) and the log joint, scored by rows and element by element
// (where the failed expression's jet is a constant NaN, once skipped as an element
// that does not depend on the site: the score was finite, and a step could accept
// the impossible state).
func TestMixRowsImpossible(t *testing.T) {
	y := []float64{-1, 0.5, 2, 3}
	for _, off := range []bool{false, true} {
		b := New()
		b.noMixRows = off
		v := b.Vector("v", 3, Normal(C(0), C(1)))
		at := func(k int) *Node { return Index(v, []int{k}) }
		b.Factor("y", LogMix(at(2),
			LogDensity(Normal(at(0), C(1)), Data(y)),
			LogDensity(Normal(C(1), at(1)), Data(y))))
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		if got := m.numMix; got != map[bool]int{false: 1, true: 0}[off] {
			t.Fatalf("off %v: %d mixture factors", off, got)
		}
		sc := m.NewScorer()
		g, h := make([]float64, 3), make([]float64, 9)
		for _, x := range [][]float64{{0, -1, 0.5}, {0, 1, 1.5}, {0, 1, -0.5}} {
			lj := sc.LogJoint(x)
			f := sc.Score(x, 0, g, h)
			fv := sc.Score(x, 0, nil, nil)
			if !math.IsInf(lj, -1) || !math.IsInf(f, -1) || !math.IsInf(fv, -1) {
				t.Errorf("%s at %v: log joint %g, score %g, value %g; want −Inf", map[bool]string{false: "by rows", true: "element by element"}[off], x, lj, f, fv)
			}
		}
	}
}

// TestMixRowsChunked: a blanket of more than chunkedMinElems elements is scored in
// chunks on several goroutines (scoreChunked), each chunk's part of the mixture
// factor by rows; the scores equal the element-by-element path's.
func TestMixRowsChunked(t *testing.T) {
	y := mixNormalData(rand.New(rand.NewPCG(4, 4)), chunkedMinElems+1000, -1, 1)
	fast, ref := mixNormalModel(t, y, false), mixNormalModel(t, y, true)
	x := []float64{-1.1, 2.05, 0.9, 1.1, 0.35}
	sf, sr := fast.NewScorer(), ref.NewScorer()
	for i, s := range fast.Sites() {
		if len(fast.blanket[i]) < chunkedMinElems {
			t.Fatalf("site %s: blanket of %d elements is not chunked", s.Name, len(fast.blanket[i]))
		}
		g1, h1, g2, h2 := make([]float64, 1), make([]float64, 1), make([]float64, 1), make([]float64, 1)
		f1, f2 := sf.Score(x, i, g1, h1), sr.Score(x, i, g2, h2)
		for _, d := range [][2]float64{{f1, f2}, {g1[0], g2[0]}, {h1[0], h2[0]}} {
			if r := relDiff(d[0], d[1]); !(r <= 1e-10) {
				t.Errorf("site %s: by rows %.15g, element by element %.15g", s.Name, d[0], d[1])
			}
		}
	}
}

// TestMixRowsTermsReuse: scores that read the rows' terms kept for the last two
// states (mixrows_terms.go) equal, bit for bit, those of a scorer that computes
// them afresh, over a sequence of states that returns to earlier ones as a
// sampler's steps do (current, proposal, current, …) and leaves them.
func TestMixRowsTermsReuse(t *testing.T) {
	for _, mm := range mixModels(t) {
		sites := mm.fast.Sites()
		rng := rand.New(rand.NewPCG(8, 1))
		states := make([][]float64, 4)
		for i := range states {
			states[i] = make([]float64, nmc.Dim(sites))
			if err := mm.fast.Init(rng, states[i]); err != nil {
				t.Fatal(err)
			}
		}
		kept := mm.fast.NewScorer()
		for step, si := range []int{0, 1, 0, 2, 2, 1, 3, 0, 3, 3, 1, 2, 0} {
			x := states[si]
			i := step % len(sites)
			k := sites[i].Size
			g1, h1 := make([]float64, k), make([]float64, k*k)
			g2, h2 := make([]float64, k), make([]float64, k*k)
			var f1, f2 float64
			if step%3 == 2 {
				f1, f2 = kept.Score(x, i, nil, nil), mm.fast.NewScorer().Score(x, i, nil, nil)
			} else {
				f1, f2 = kept.Score(x, i, g1, h1), mm.fast.NewScorer().Score(x, i, g2, h2)
			}
			lj1, lj2 := kept.LogJoint(x), mm.fast.NewScorer().LogJoint(x)
			same := math.Float64bits(f1) == math.Float64bits(f2) && math.Float64bits(lj1) == math.Float64bits(lj2)
			for p := range g1 {
				same = same && math.Float64bits(g1[p]) == math.Float64bits(g2[p])
			}
			for p := range h1 {
				same = same && math.Float64bits(h1[p]) == math.Float64bits(h2[p])
			}
			if !same {
				t.Errorf("%s step %d (state %d, site %s): kept terms give %.17g %v %v (log joint %.17g), fresh %.17g %v %v (%.17g)",
					mm.name, step, si, sites[i].Name, f1, g1, h1, lj1, f2, g2, h2, lj2)
			}
		}
	}
}
