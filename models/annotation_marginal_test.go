package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/internal/simplexfit"
	"github.com/nmc-go/nmc/internal/special"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/dist"
)

// annotationPair builds the annotation model on train with the classes summed out
// (the default) and returns Built.Model (the graph model) with the reference of the
// explicit form (annotationReference, whose layout fields describe both forms).
func annotationPair(t *testing.T, train AnnotationData) (marg nmc.Model, ref *annotationReference) {
	t.Helper()
	bm, err := Annotation(train, nil, &AnnotationPrior{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := bm.Model.(*annotationStart); !ok {
		t.Fatalf("marginalised form: Built.Model is %T, want the graph model (*annotationStart)", bm.Model)
	}
	return bm.Model, newAnnotationReference(annotationLayoutOf(t, bm, train), train, nil)
}

// marginalAnnotation is annotationPair on the train data explicitAnnotation generates.
func marginalAnnotation(t *testing.T, seed uint64, cfg AnnotationConfig) (marg nmc.Model, ref *annotationReference) {
	t.Helper()
	train, _, _, err := GenerateAnnotation(rand.New(rand.NewPCG(seed, 1)), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return annotationPair(t, train)
}

// tinyAnnotationSets returns small data sets for brute-force enumeration: two
// generated ones (4 items, 3 labelers, 2 and 3 classes) and a hand-written one with
// an item without labels, a labeler without labels and a labeler who labelled one
// item twice.
func tinyAnnotationSets(t *testing.T) map[string]AnnotationData {
	t.Helper()
	out := map[string]AnnotationData{}
	for _, c := range []int{2, 3} {
		train, _, _, err := GenerateAnnotation(rand.New(rand.NewPCG(uint64(40+c), 1)),
			AnnotationConfig{N: 8, Labelers: 3, Classes: c, JLoc: 2.5, Gamma: 10, Rho: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		out[fmt.Sprintf("generated, %d classes", c)] = train
	}
	out["hand-written"] = AnnotationData{
		NumItems: 4, NumLabelers: 4, NumClasses: 3,
		Item:    []int{0, 0, 1, 1, 1, 2, 0},
		Labeler: []int{0, 2, 0, 1, 0, 2, 1},
		Label:   []int{1, 1, 2, 0, 2, 0, 1},
	}
	return out
}

// bruteForceMarginal returns log Σ_z exp(explicit log joint) over all C^N class
// vectors, at the pi and theta of x (x's classes are used as scratch and restored),
// the explicit log joint that of the reference.
func bruteForceMarginal(ref *annotationReference, x []float64) float64 {
	n, c := ref.numItems, ref.numClasses
	saved := append([]float64(nil), x[ref.zOff:ref.zOff+n]...)
	defer copy(x[ref.zOff:], saved)
	total := 1
	for range n {
		total *= c
	}
	terms := make([]float64, total)
	for code := range terms {
		v := code
		for i := 0; i < n; i++ {
			x[ref.zOff+i] = float64(v % c)
			v /= c
		}
		terms[code] = ref.logJoint(x)
	}
	return special.LogSumExp(terms)
}

// TestAnnotationMarginalSites checks that the default form marks exactly the class
// sites Marginalised and that the explicit form has the graph model's sites.
func TestAnnotationMarginalSites(t *testing.T) {
	train, _, _, err := GenerateAnnotation(rand.New(rand.NewPCG(3, 1)), AnnotationConfig{N: 20, Labelers: 3, Classes: 3, JLoc: 2, Gamma: 10, Rho: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	marg, ref := annotationPair(t, train)
	be, err := Annotation(train, nil, &AnnotationPrior{ExplicitClasses: true})
	if err != nil {
		t.Fatal(err)
	}
	graphSites := be.Model.Sites()
	for i, s := range marg.Sites() {
		isZ := i >= ref.zSite && i < ref.thetaSite
		if s.Marginalised != isZ {
			t.Errorf("marginalised form: site %s: Marginalised = %v, want %v", s.Name, s.Marginalised, isZ)
		}
		g := graphSites[i]
		g.Marginalised = s.Marginalised
		if s.Name != g.Name || s.Size != g.Size || s.Support != g.Support || s.NumValues != g.NumValues {
			t.Errorf("marginalised form: site %d is %+v, explicit form %+v", i, s, graphSites[i])
		}
	}
	for _, s := range graphSites {
		if s.Marginalised {
			t.Errorf("explicit form: site %s is Marginalised", s.Name)
		}
	}
}

// TestAnnotationMarginalBruteForce checks the marginalised log joint against
// brute-force enumeration of every class vector of the explicit log joint on tiny
// models, and the marginalised scores of pi and every theta row by their
// differences between two values of the site (a score differs from the log joint by
// a term that does not depend on the site). The class sites' scores are those of
// the explicit form. The explicit log joint and scores are annotationReference's.
func TestAnnotationMarginalBruteForce(t *testing.T) {
	const tol = 1e-10
	for name, train := range tinyAnnotationSets(t) {
		t.Run(name, func(t *testing.T) {
			marg, ref := annotationPair(t, train)
			ms := marg.NewScorer()
			sites := marg.Sites()
			off := nmc.Offsets(sites)
			rng := rand.New(rand.NewPCG(9, 9))
			x := make([]float64, nmc.Dim(sites))
			var dir dist.Dirichlet
			ones := make([]float64, ref.numClasses)
			for m := range ones {
				ones[m] = 1
			}
			for state := 0; state < 5; state++ {
				randomAnnotationState(rng, ref.annotationLayout, x)
				lm, lb := ms.LogJoint(x), bruteForceMarginal(ref, x)
				if !closeRel(lm, lb, tol) {
					t.Errorf("state %d: marginal LogJoint %.17g, brute force %.17g", state, lm, lb)
				}
				for i, s := range sites {
					if s.Support == nmc.Discrete {
						if got, want := ms.Score(x, i, nil, nil), ref.score(x, i, nil, nil); !closeRel(got, want, tol) {
							t.Errorf("state %d, site %s: marginalised form scores %v, explicit %v", state, s.Name, got, want)
						}
						continue
					}
					xs := x[off[i] : off[i]+s.Size]
					saved := append([]float64(nil), xs...)
					f0, b0 := ms.Score(x, i, nil, nil), bruteForceMarginal(ref, x)
					dir.Rand(rng, ones, s.Size, xs)
					f1, b1 := ms.Score(x, i, nil, nil), bruteForceMarginal(ref, x)
					if !closeRel(f1-f0, b1-b0, tol) {
						t.Errorf("state %d, site %s: score difference %.17g, brute force %.17g", state, s.Name, f1-f0, b1-b0)
					}
					copy(xs, saved)
				}
			}
		})
	}
}

// TestAnnotationMarginalCache drives one scorer through a random sequence of state
// changes (theta rows, pi, classes, and returns to earlier states, as rejected
// proposals make) and score calls, and checks every value, gradient and Hessian bit
// for bit against a new scorer at the same state: the cache of the item-class terms
// is never stale and its values do not depend on the history.
func TestAnnotationMarginalCache(t *testing.T) {
	cfg := AnnotationConfig{N: 300, Labelers: 6, Classes: 3, JLoc: 2.5, Gamma: 10, Rho: 0.5}
	m, f := marginalAnnotation(t, 31, cfg)
	sites := m.Sites()
	off := nmc.Offsets(sites)
	rng := rand.New(rand.NewPCG(32, 1))
	x := make([]float64, nmc.Dim(sites))
	randomAnnotationState(rng, f.annotationLayout, x)
	sc := m.NewScorer()
	var dir dist.Dirichlet
	ones := []float64{1, 1, 1}
	k := f.numClasses
	g1, h1 := make([]float64, k), make([]float64, k*k)
	g2, h2 := make([]float64, k), make([]float64, k*k)
	var saved []float64
	for step := 0; step < 400; step++ {
		switch rng.IntN(5) {
		case 0, 1: // a new theta row, remembered for a return
			t0 := f.thetaSite + rng.IntN(f.numLabelers*k)
			xs := x[off[t0] : off[t0]+k]
			saved = append(saved[:0], x...)
			dir.Rand(rng, ones, k, xs)
		case 2:
			saved = append(saved[:0], x...)
			dir.Rand(rng, ones, k, x[f.piOff:f.piOff+k])
		case 3:
			x[f.zOff+rng.IntN(f.numItems)] = float64(rng.IntN(k))
		case 4: // back to the state before the last change
			if saved != nil {
				copy(x, saved)
			}
		}
		fresh := m.NewScorer()
		if rng.IntN(10) == 0 {
			if got, want := sc.LogJoint(x), fresh.LogJoint(x); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("step %d: LogJoint %v, new scorer %v", step, got, want)
			}
			continue
		}
		var i int
		switch rng.IntN(3) {
		case 0:
			i = f.piSite
		case 1:
			i = f.thetaSite + rng.IntN(f.numLabelers*k)
		default:
			i = f.zSite + rng.IntN(f.numItems)
		}
		if sites[i].Support == nmc.Discrete {
			if got, want := sc.Score(x, i, nil, nil), fresh.Score(x, i, nil, nil); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("step %d, site %s: %v, new scorer %v", step, sites[i].Name, got, want)
			}
			continue
		}
		got := sc.Score(x, i, g1, h1)
		want := fresh.Score(x, i, g2, h2)
		plain := sc.Score(x, i, nil, nil)
		if math.Float64bits(got) != math.Float64bits(want) || math.Float64bits(plain) != math.Float64bits(got) {
			t.Fatalf("step %d, site %s: %v (without derivatives %v), new scorer %v", step, sites[i].Name, got, plain, want)
		}
		for n := range g1 {
			if math.Float64bits(g1[n]) != math.Float64bits(g2[n]) {
				t.Fatalf("step %d, site %s: gradient[%d] %v, new scorer %v", step, sites[i].Name, n, g1[n], g2[n])
			}
		}
		for n := range h1 {
			if math.Float64bits(h1[n]) != math.Float64bits(h2[n]) {
				t.Fatalf("step %d, site %s: Hessian[%d] %v, new scorer %v", step, sites[i].Name, n, h1[n], h2[n])
			}
		}
	}
}

// TestAnnotationMarginalOutsideSupport checks the marginalised form outside the
// support: an invalid pi or theta entry gives −Inf for its own site and the log
// joint; a class out of range gives −Inf for its own site only (the log joint and
// the other scores do not read the classes).
func TestAnnotationMarginalOutsideSupport(t *testing.T) {
	m, f := marginalAnnotation(t, 12, AnnotationConfig{N: 40, Labelers: 4, Classes: 3, JLoc: 2, Gamma: 10, Rho: 0.5})
	sc := m.NewScorer()
	x := make([]float64, nmc.Dim(m.Sites()))
	rng := rand.New(rand.NewPCG(1, 2))
	theta1 := f.thetaOff + 1*f.numClasses // theta[0,1]
	cases := []struct {
		name      string
		at        int
		value     float64
		site      int
		jointInf  bool
		otherSite int // a site whose score stays finite (−1: none checked)
	}{
		{"z[0] = 3", f.zOff, 3, f.zSite, false, f.piSite},
		{"z[0] = 0.5", f.zOff, 0.5, f.zSite, false, f.thetaSite},
		{"pi[1] = 0", f.piOff + 1, 0, f.piSite, true, -1},
		{"pi[1] = -0.2", f.piOff + 1, -0.2, f.piSite, true, -1},
		{"pi[1] = NaN", f.piOff + 1, math.NaN(), f.piSite, true, -1},
		{"theta[0,1,2] = 0", theta1 + 2, 0, f.thetaSite + 1, true, -1},
		{"theta[0,1,2] = +Inf", theta1 + 2, math.Inf(1), f.thetaSite + 1, true, -1},
	}
	for _, tc := range cases {
		randomAnnotationState(rng, f.annotationLayout, x)
		x[tc.at] = tc.value
		if lj := sc.LogJoint(x); math.IsInf(lj, -1) != tc.jointInf || math.IsNaN(lj) {
			t.Errorf("%s: LogJoint %v", tc.name, lj)
		}
		if s := sc.Score(x, tc.site, nil, nil); !math.IsInf(s, -1) {
			t.Errorf("%s: site %s scores %v; want −Inf", tc.name, m.Sites()[tc.site].Name, s)
		}
		if tc.otherSite >= 0 {
			if s := sc.Score(x, tc.otherSite, nil, nil); math.IsInf(s, 0) || math.IsNaN(s) {
				t.Errorf("%s: site %s scores %v; want a finite value", tc.name, m.Sites()[tc.otherSite].Name, s)
			}
		}
	}
}

// TestSteerSimplexHessian checks the steered Hessians the summed-out scores of pi and
// theta report (2 to 5 classes; simplexfit's own tests cover a Dirichlet score):
// when steered, the proposer's fit is a Dirichlet with the score's gradient along
// the simplex, (α_n − 1)/x_n − g_n the same for every n, with every α_n ≥ 1.
func TestSteerSimplexHessian(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 1))
	for k := 2; k <= 5; k++ {
		cfg := AnnotationConfig{N: 200, Labelers: 4, Classes: k, JLoc: 2.5, Gamma: 10, Rho: 0.5}
		m, f := marginalAnnotation(t, uint64(80+k), cfg)
		sites := m.Sites()
		off := nmc.Offsets(sites)
		xs := make([]float64, nmc.Dim(sites))
		if err := m.Init(rng, xs); err != nil {
			t.Fatal(err)
		}
		sc := m.NewScorer()
		steered := 0
		for _, i := range []int{f.piSite, f.thetaSite, f.thetaSite + k + 1, len(sites) - 1} {
			y := xs[off[i] : off[i]+k]
			g, h := make([]float64, k), make([]float64, k*k)
			sc.Score(xs, i, g, h)
			// (The tangent parts are checked by TestAnnotationDerivativesFD.)
			a := simplexfit.DirichletFit(y, h)
			lam := (a[0]-1)/y[0] - g[0]
			consistent := true
			for n := 1; n < k; n++ {
				if d := (a[n]-1)/y[n] - g[n]; math.Abs(d-lam) > 1e-6*max(1, math.Abs(g[n]), math.Abs(lam)) {
					consistent = false
				}
			}
			if consistent {
				steered++
				for n := range a {
					if !(a[n] >= 1-1e-9) {
						t.Errorf("k = %d, site %s: steered fit α = %v has an entry below 1", k, sites[i].Name, a)
					}
				}
			}
		}
		if steered == 0 {
			t.Errorf("k = %d: no site's fit has the score's gradient", k)
		}
	}
}

// TestAnnotationMarginalSamplesLikeExplicit samples a small Dawid-Skene model (60
// train items, 5 labelers, 3 classes) with the classes summed out and kept
// explicit, and checks that the posterior means of pi, theta and of every item's
// class indicators agree within 4 Monte Carlo standard errors of the difference,
// and that the marginalised run records the classes.
func TestAnnotationMarginalSamplesLikeExplicit(t *testing.T) {
	t.Parallel()
	train, _, _, err := GenerateAnnotation(rand.New(rand.NewPCG(90, 1)), AnnotationConfig{N: 120, Labelers: 5, Classes: 3, JLoc: 2.5, Gamma: 10, Rho: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	bm, err := Annotation(train, nil, &AnnotationPrior{})
	if err != nil {
		t.Fatal(err)
	}
	be, err := Annotation(train, nil, &AnnotationPrior{ExplicitClasses: true})
	if err != nil {
		t.Fatal(err)
	}
	opts := &nmc.Options{Chains: 4, Draws: 4000, Warmup: 200, Seed: 91}
	resM, resE := sample(t, bm, opts), sample(t, be, opts)
	c := train.NumClasses
	var names []string
	for m := 0; m < c; m++ {
		names = append(names, fmt.Sprintf("pi[%d]", m))
	}
	for l := 0; l < train.NumLabelers; l++ {
		for m := 0; m < c; m++ {
			for n := 0; n < c; n++ {
				names = append(names, fmt.Sprintf("theta[%d,%d,%d]", l, m, n))
			}
		}
	}
	for _, name := range names {
		em := estimate(t, name, paramDraws(t, resM.Draws, name))
		ee := estimate(t, name, paramDraws(t, resE.Draws, name))
		checkZ(t, name+" marginalised vs explicit", em.mean, ee.mean, math.Hypot(em.mcseMean, ee.mcseMean), 4)
	}
	// Class frequencies: the indicator of z[i] = m.
	indicator := func(x [][]float64, m int) [][]float64 {
		out := make([][]float64, len(x))
		for ch, v := range x {
			out[ch] = make([]float64, len(v))
			for d, z := range v {
				if z == float64(m) {
					out[ch][d] = 1
				}
			}
		}
		return out
	}
	for i := 0; i < train.NumItems; i++ {
		name := fmt.Sprintf("z[%d]", i)
		zm, ze := paramDraws(t, resM.Draws, name), paramDraws(t, resE.Draws, name)
		for m := 0; m < c; m++ {
			fm, fe := indicator(zm, m), indicator(ze, m)
			mm, me := meanAndMCSE(t, fm), meanAndMCSE(t, fe)
			se := math.Hypot(mm[1], me[1])
			if se == 0 {
				if mm[0] != me[0] {
					t.Errorf("%s = %d: frequency %v marginalised, %v explicit, both constant", name, m, mm[0], me[0])
				}
				continue
			}
			checkZ(t, fmt.Sprintf("%s = %d frequency marginalised vs explicit", name, m), mm[0], me[0], se, 4)
		}
	}
	for _, s := range resM.Sites {
		if s.Name == "pi" || s.Name == "theta[0,0]" || s.Name == "z[0]" {
			t.Logf("marginalised: site %s (%s): accepted %d of %d, fallbacks %d", s.Name, s.Proposer, s.Accepted, s.Proposals, s.Fallbacks)
		}
	}
}

// meanAndMCSE returns the mean of x ([chain][draw]) and its Monte Carlo standard
// error, 0 when every draw is the same.
func meanAndMCSE(t *testing.T, x [][]float64) [2]float64 {
	t.Helper()
	first, constant := x[0][0], true
	for _, v := range x {
		for _, y := range v {
			constant = constant && y == first
		}
	}
	if constant {
		return [2]float64{first, 0}
	}
	m := estimate(t, "indicator", x)
	return [2]float64{m.mean, m.mcseMean}
}
