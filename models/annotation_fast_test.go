package models

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/dist"
)

// fastAnnotation builds the annotation model with the given prior (nil: the
// defaults) and the classes explicit on generated data (N items, half of them
// train) and returns it with its hand-written model.
func fastAnnotation(t *testing.T, seed uint64, cfg AnnotationConfig, prior *AnnotationPrior) (*Built, *annotationFast, AnnotationTruth) {
	t.Helper()
	train, _, truth, err := GenerateAnnotation(rand.New(rand.NewPCG(seed, 1)), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var p AnnotationPrior
	if prior != nil {
		p = *prior
	}
	p.ExplicitClasses = true
	b, err := Annotation(train, nil, &p)
	if err != nil {
		t.Fatal(err)
	}
	f, ok := b.Model.(*annotationFast)
	if !ok {
		t.Fatalf("Annotation: Model is %T, want *annotationFast", b.Model)
	}
	return b, f, truth
}

// randomAnnotationState writes a random state: pi and every theta row from a flat
// Dirichlet, every class uniform.
func randomAnnotationState(rng *rand.Rand, f *annotationFast, x []float64) {
	c := f.numClasses
	ones := make([]float64, c)
	for m := range ones {
		ones[m] = 1
	}
	var dir dist.Dirichlet
	dir.Rand(rng, ones, c, x[f.piOff:f.piOff+c])
	for i := 0; i < f.numItems; i++ {
		x[f.zOff+i] = float64(rng.IntN(c))
	}
	for t := 0; t < f.numLabelers*c; t++ {
		off := f.thetaOff + t*c
		dir.Rand(rng, ones, c, x[off:off+c])
	}
}

// closeRel reports whether a and b agree to tol relative to max(1, |a|, |b|).
func closeRel(a, b, tol float64) bool {
	if math.IsInf(a, -1) && math.IsInf(b, -1) {
		return true
	}
	return math.Abs(a-b) <= tol*max(1, math.Abs(a), math.Abs(b))
}

// TestAnnotationFastMatchesGraph compares the hand-written model with the graph
// model (classes explicit; with AnnotationPrior.ExplicitClasses false Built.Model is the
// graph model itself, checked against enumeration in annotation_marginal_test.go),
// at many states: sites, every site's score (values and
// differences over every value of a class, over random points of a simplex), the
// gradients and Hessians of the simplex sites, and the log joint. It does so at the
// default prior and at random ones (fixed seed), so that a prior one implementation
// handles differently (a concentration ignored or hard-coded) fails.
func TestAnnotationFastMatchesGraph(t *testing.T) {
	rng := rand.New(rand.NewPCG(2020, 6))
	u := func(lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }
	priors := []*AnnotationPrior{{}}
	for range 4 {
		priors = append(priors, &AnnotationPrior{PiConcentration: u(0.05, 5), Gamma: u(0.5, 40), Rho: u(0.05, 0.95)})
	}
	for i, prior := range priors {
		name := "default prior"
		if i > 0 {
			name = fmt.Sprintf("random prior %d", i)
		}
		t.Run(name, func(t *testing.T) {
			t.Logf("prior %+v", *prior)
			compareAnnotationWithGraph(t, prior)
		})
	}
}

// compareAnnotationWithGraph is one case of TestAnnotationFastMatchesGraph.
func compareAnnotationWithGraph(t *testing.T, prior *AnnotationPrior) {
	t.Helper()
	const tol = 1e-9
	b, f, _ := fastAnnotation(t, 11, AnnotationConfig{N: 300, Labelers: 10, Classes: 3, JLoc: 2.5, Gamma: 10, Rho: 0.5}, prior)
	g := b.Graph
	if !reflect.DeepEqual(f.Sites(), g.Sites()) {
		t.Fatal("Sites() differ from the graph model's")
	}
	sites := f.Sites()
	off := nmc.Offsets(sites)
	rng := rand.New(rand.NewPCG(5, 6))
	fs, gs := f.NewScorer(), g.NewScorer()
	x := make([]float64, nmc.Dim(sites))
	var dir dist.Dirichlet
	ones := []float64{1, 1, 1}
	var lastF, lastG float64
	for state := 0; state < 6; state++ {
		if state < 2 {
			if err := f.Init(rng, x); err != nil {
				t.Fatal(err)
			}
		} else {
			randomAnnotationState(rng, f, x)
		}
		lf, lg := fs.LogJoint(x), gs.LogJoint(x)
		if !closeRel(lf, lg, tol) {
			t.Errorf("state %d: LogJoint %.17g, graph %.17g", state, lf, lg)
		}
		if state > 0 && !closeRel(lf-lastF, lg-lastG, tol) {
			t.Errorf("state %d: LogJoint difference %.17g, graph %.17g", state, lf-lastF, lg-lastG)
		}
		lastF, lastG = lf, lg
		for i, s := range sites {
			xs := x[off[i] : off[i]+s.Size]
			saved := append([]float64(nil), xs...)
			if s.Support == nmc.Discrete {
				var f0, g0 float64
				for v := 0; v < s.NumValues; v++ {
					xs[0] = float64(v)
					fv, gv := fs.Score(x, i, nil, nil), gs.Score(x, i, nil, nil)
					if !closeRel(fv, gv, tol) {
						t.Fatalf("state %d, site %s = %d: score %.17g, graph %.17g", state, s.Name, v, fv, gv)
					}
					if v == 0 {
						f0, g0 = fv, gv
					} else if !closeRel(fv-f0, gv-g0, tol) {
						t.Fatalf("state %d, site %s = %d: score difference %.17g, graph %.17g", state, s.Name, v, fv-f0, gv-g0)
					}
				}
				copy(xs, saved)
				continue
			}
			k := s.Size
			gf, hf := make([]float64, k), make([]float64, k*k)
			gg, hg := make([]float64, k), make([]float64, k*k)
			var f0, g0 float64
			for move := 0; move < 4; move++ {
				if move > 0 {
					dir.Rand(rng, ones, k, xs)
				}
				fv, gv := fs.Score(x, i, gf, hf), gs.Score(x, i, gg, hg)
				if !closeRel(fv, gv, tol) {
					t.Fatalf("state %d, site %s, move %d: score %.17g, graph %.17g", state, s.Name, move, fv, gv)
				}
				if move == 0 {
					f0, g0 = fv, gv
				} else if !closeRel(fv-f0, gv-g0, tol) {
					t.Fatalf("state %d, site %s, move %d: score difference %.17g, graph %.17g", state, s.Name, move, fv-f0, gv-g0)
				}
				for n := range gf {
					if !closeRel(gf[n], gg[n], tol) {
						t.Fatalf("state %d, site %s, move %d: gradient[%d] %.17g, graph %.17g", state, s.Name, move, n, gf[n], gg[n])
					}
				}
				for n := range hf {
					if !closeRel(hf[n], hg[n], tol) {
						t.Fatalf("state %d, site %s, move %d: Hessian[%d] %.17g, graph %.17g", state, s.Name, move, n, hf[n], hg[n])
					}
				}
				// Without derivatives the score is the same.
				if fn := fs.Score(x, i, nil, nil); fn != fv {
					t.Fatalf("state %d, site %s, move %d: score without derivatives %.17g, with %.17g", state, s.Name, move, fn, fv)
				}
			}
			copy(xs, saved)
		}
	}
}

// TestAnnotationFastOutsideSupport checks that a state outside the support scores
// −Inf in both models (the hand-written one in its explicit form; see
// TestAnnotationMarginalOutsideSupport for the marginalised one): a class out of range or not an integer, a non-positive or
// non-finite simplex coordinate. (The graph model's pi score rounds a non-integer
// class when it tallies the classes, so for a class 0.5 only the hand-written pi
// score is checked; the sampler never proposes such a class.)
func TestAnnotationFastOutsideSupport(t *testing.T) {
	b, f, _ := fastAnnotation(t, 12, AnnotationConfig{N: 40, Labelers: 4, Classes: 3, JLoc: 2, Gamma: 10, Rho: 0.5}, &AnnotationPrior{})
	fs, gs := f.NewScorer(), b.Graph.NewScorer()
	x := make([]float64, nmc.Dim(f.Sites()))
	rng := rand.New(rand.NewPCG(1, 2))
	theta1 := f.thetaOff + 1*f.numClasses // theta[0,1]
	cases := []struct {
		name  string
		at    int
		value float64
		sites []int
		fast  []int // sites checked in the hand-written model only
	}{
		{"z[0] = 3", f.zOff, 3, []int{f.zSite, f.piSite}, nil},
		{"z[0] = 0.5", f.zOff, 0.5, []int{f.zSite}, []int{f.piSite}},
		{"z[0] = -1", f.zOff, -1, []int{f.zSite, f.piSite}, nil},
		{"pi[1] = 0", f.piOff + 1, 0, []int{f.piSite}, nil},
		{"pi[1] = -0.2", f.piOff + 1, -0.2, []int{f.piSite}, nil},
		{"pi[1] = NaN", f.piOff + 1, math.NaN(), []int{f.piSite}, nil},
		{"theta[0,1,2] = 0", theta1 + 2, 0, []int{f.thetaSite + 1}, nil},
		{"theta[0,1,2] = +Inf", theta1 + 2, math.Inf(1), []int{f.thetaSite + 1}, nil},
	}
	for _, tc := range cases {
		randomAnnotationState(rng, f, x)
		x[tc.at] = tc.value
		if lf, lg := fs.LogJoint(x), gs.LogJoint(x); !math.IsInf(lf, -1) || !math.IsInf(lg, -1) {
			t.Errorf("%s: LogJoint %v, graph %v; want −Inf", tc.name, lf, lg)
		}
		for _, i := range tc.sites {
			if sf, sg := fs.Score(x, i, nil, nil), gs.Score(x, i, nil, nil); !math.IsInf(sf, -1) || !math.IsInf(sg, -1) {
				t.Errorf("%s: site %s scores %v, graph %v; want −Inf", tc.name, f.Sites()[i].Name, sf, sg)
			}
		}
		for _, i := range tc.fast {
			if sf := fs.Score(x, i, nil, nil); !math.IsInf(sf, -1) {
				t.Errorf("%s: site %s scores %v; want −Inf", tc.name, f.Sites()[i].Name, sf)
			}
		}
	}
}

// TestAnnotationFastDerivativesFD checks the gradient and Hessian of the simplex
// sites against central finite differences of the score (in the k coordinates of the
// homogeneous extension, off the simplex), in the explicit form (the hand-written
// model) and the marginalised one (the graph model, Built.Model with
// AnnotationPrior.ExplicitClasses false).
func TestAnnotationFastDerivativesFD(t *testing.T) {
	cfg := AnnotationConfig{N: 200, Labelers: 5, Classes: 3, JLoc: 2.5, Gamma: 10, Rho: 0.5}
	t.Run("explicit", func(t *testing.T) {
		_, f, _ := fastAnnotation(t, 13, cfg, nil)
		checkAnnotationDerivativesFD(t, f, f, false)
	})
	t.Run("marginalised", func(t *testing.T) {
		m, f := marginalAnnotation(t, 13, cfg)
		checkAnnotationDerivativesFD(t, m, f, true)
	})
}

// checkAnnotationDerivativesFD is one case of TestAnnotationFastDerivativesFD: model
// m, laid out as f, its simplex sites' derivatives compared along the simplex only
// when marginal.
func checkAnnotationDerivativesFD(t *testing.T, m nmc.Model, f *annotationFast, marginal bool) {
	t.Helper()
	sites := m.Sites()
	off := nmc.Offsets(sites)
	sc := m.NewScorer()
	x := make([]float64, nmc.Dim(sites))
	if err := m.Init(rand.New(rand.NewPCG(3, 4)), x); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{f.piSite, f.thetaSite, f.thetaSite + 4, len(sites) - 1} {
		s := sites[i]
		k := s.Size
		xs := x[off[i] : off[i]+k]
		y0 := append([]float64(nil), xs...)
		fn := func(y []float64) float64 {
			copy(xs, y)
			v := sc.Score(x, i, nil, nil)
			copy(xs, y0)
			return v
		}
		grad, hess := make([]float64, k), make([]float64, k*k)
		sc.Score(x, i, grad, hess)
		gfd := fd.Gradient(nil, fn, y0, &fd.Settings{Formula: fd.Central})
		hfd := mat.NewSymDense(k, nil)
		fd.Hessian(hfd, fn, y0, &fd.Settings{Formula: fd.Central, Step: 1e-4})
		if marginal {
			// Only the parts along the simplex are the score's (the Hessian is
			// steered, see graph.Builder.Marginalise): compare P g and P H P,
			// P = I − 11ᵀ/k.
			projectTangent(grad, hess, k)
			hd := make([]float64, k*k)
			for n := 0; n < k; n++ {
				for m := 0; m < k; m++ {
					hd[n*k+m] = hfd.At(n, m)
				}
			}
			projectTangent(gfd, hd, k)
			hfd = mat.NewSymDense(k, hd)
		}
		// Projected entries can cancel to near zero: tolerances are relative to the
		// largest entry.
		scaleG, scaleH := 0.0, 0.0
		for n := 0; n < k; n++ {
			scaleG = max(scaleG, math.Abs(grad[n]))
			for m := 0; m < k; m++ {
				scaleH = max(scaleH, math.Abs(hess[n*k+m]))
			}
		}
		for n := 0; n < k; n++ {
			if math.Abs(grad[n]-gfd[n]) > 1e-5*max(1, math.Abs(grad[n]), math.Abs(gfd[n]), scaleG) {
				t.Errorf("site %s: gradient[%d] %.10g, finite differences %.10g", s.Name, n, grad[n], gfd[n])
			}
			for m := 0; m < k; m++ {
				if math.Abs(hess[n*k+m]-hfd.At(n, m)) > 1e-4*max(1, math.Abs(hess[n*k+m]), math.Abs(hfd.At(n, m)), scaleH) {
					t.Errorf("site %s: Hessian[%d,%d] %.10g, finite differences %.10g", s.Name, n, m, hess[n*k+m], hfd.At(n, m))
				}
			}
		}
	}
}

// TestAnnotationFastBadInput checks that Annotation still rejects bad data with
// errors naming the problem.
func TestAnnotationFastBadInput(t *testing.T) {
	ok := AnnotationData{NumItems: 2, NumLabelers: 2, NumClasses: 2, Item: []int{0, 1}, Labeler: []int{0, 1}, Label: []int{1, 0}}
	if _, err := Annotation(ok, nil, nil); err != nil {
		t.Fatalf("valid data: %v", err)
	}
	mod := func(f func(d *AnnotationData)) AnnotationData {
		d := ok
		d.Item, d.Labeler, d.Label = append([]int(nil), ok.Item...), append([]int(nil), ok.Labeler...), append([]int(nil), ok.Label...)
		f(&d)
		return d
	}
	for _, tc := range []struct {
		d    AnnotationData
		want string
	}{
		{mod(func(d *AnnotationData) { d.Label[1] = 2 }), "row 1: label 2 out of range"},
		{mod(func(d *AnnotationData) { d.Labeler[0] = -1 }), "row 0: labeler -1 out of range"},
		{mod(func(d *AnnotationData) { d.Item[1] = 5 }), "row 1: item 5 out of range"},
		{mod(func(d *AnnotationData) { d.NumItems, d.Item, d.Labeler, d.Label = 0, nil, nil, nil }), "no items"},
	} {
		_, err := Annotation(tc.d, nil, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "models: annotation") {
			t.Errorf("got error %v, want one containing %q", err, tc.want)
		}
	}
	// An item without labels and a labeler without labels are fine.
	d := mod(func(d *AnnotationData) { d.NumItems, d.NumLabelers = 3, 3 })
	b, err := Annotation(d, nil, nil)
	if err != nil {
		t.Fatalf("unlabelled item and labeler: %v", err)
	}
	res, err := nmc.Sample(context.Background(), b.Model, &nmc.Options{Chains: 1, Draws: 20, Seed: 1})
	if err != nil {
		t.Fatalf("unlabelled item and labeler: Sample: %v", err)
	}
	if res.Draws.NumDraws(0) != 20 {
		t.Errorf("unlabelled item and labeler: %d draws, want 20", res.Draws.NumDraws(0))
	}
}

// TestAnnotationFastSamplesLikeGraph samples the hand-written model in its explicit
// form and the graph model (with the same majority-vote start) on one data set and checks that their
// posterior means of pi agree within the Monte Carlo error of both.
func TestAnnotationFastSamplesLikeGraph(t *testing.T) {
	b, f, _ := fastAnnotation(t, 14, AnnotationConfig{N: 300, Labelers: 10, Classes: 3, JLoc: 2.5, Gamma: 10, Rho: 0.5}, &AnnotationPrior{})
	opts := &nmc.Options{Chains: 4, Draws: 1000, Seed: 21}
	resF := sample(t, b, opts)
	graphStart := &Built{Name: "annotation (graph)", Model: f.start, Graph: b.Graph}
	resG := sample(t, graphStart, opts)
	c := f.numClasses
	z := sidakZ(0.001, c)
	for m := 0; m < c; m++ {
		name := fmt.Sprintf("pi[%d]", m)
		mf := estimate(t, name, paramDraws(t, resF.Draws, name))
		mg := estimate(t, name, paramDraws(t, resG.Draws, name))
		checkZ(t, name+" fast vs graph", mf.mean, mg.mean, math.Hypot(mf.mcseMean, mg.mcseMean), z)
	}
}

// TestAnnotationFastHeldOut compares the held-out likelihood with annotationHeldOut
// at random states, at states whose products underflow (so the log-domain path is
// taken) and at invalid states (NaN everywhere in both).
func TestAnnotationFastHeldOut(t *testing.T) {
	train, test, _, err := GenerateAnnotation(rand.New(rand.NewPCG(15, 1)), AnnotationConfig{N: 400, Labelers: 8, Classes: 3, JLoc: 3, Gamma: 10, Rho: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	// An unlabelled test item and a test item with many labels.
	test.NumItems++
	for r := 0; r < 200; r++ {
		test.Item = append(test.Item, test.NumItems-1)
		test.Labeler = append(test.Labeler, r%test.NumLabelers)
		test.Label = append(test.Label, r%test.NumClasses)
	}
	test.NumItems++
	test.Z = nil
	b, err := Annotation(train, &test, &AnnotationPrior{ExplicitClasses: true})
	if err != nil {
		t.Fatal(err)
	}
	fast, ok := b.HeldOut.(*annotationFastHeldOut)
	if !ok {
		t.Fatalf("HeldOut is %T, want *annotationFastHeldOut", b.HeldOut)
	}
	slow, err := newAnnotationHeldOut(b.Graph, test)
	if err != nil {
		t.Fatal(err)
	}
	f := b.Model.(*annotationFast)
	if fast.Len() != test.NumItems || slow.Len() != test.NumItems {
		t.Fatalf("Len %d and %d, want %d", fast.Len(), slow.Len(), test.NumItems)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	x := make([]float64, nmc.Dim(f.Sites()))
	got, want := make([]float64, test.NumItems), make([]float64, test.NumItems)
	for state := 0; state < 8; state++ {
		randomAnnotationState(rng, f, x)
		switch state {
		case 1: // underflow for every labelled item
			for j := f.thetaOff; j < len(x); j++ {
				x[j] *= 1e-120
			}
		case 2: // one class with a zero weight
			x[f.piOff] = 0
		case 3: // invalid: a negative theta entry
			x[f.thetaOff+4] = -0.1
		case 4: // invalid: pi NaN
			x[f.piOff+1] = math.NaN()
		}
		fast.LogLik(x, got)
		slow.LogLik(x, want)
		for j := range got {
			if math.IsNaN(want[j]) != math.IsNaN(got[j]) || !math.IsNaN(want[j]) && !closeRel(got[j], want[j], 1e-12) {
				t.Fatalf("state %d, item %d: %.17g, annotationHeldOut %.17g", state, j, got[j], want[j])
			}
		}
		if nan := math.IsNaN(got[0]); nan != (state == 3 || state == 4) {
			t.Errorf("state %d: item 0 is %v", state, got[0])
		}
	}
}

// TestAnnotationFastScoreValues checks the batched class scores against Score at
// every class of every item, bit for bit, and that the state is left unchanged.
func TestAnnotationFastScoreValues(t *testing.T) {
	cfg := DefaultAnnotationConfig(300)
	cfg.Labelers = 10
	_, f, _ := fastAnnotation(t, 5, cfg, nil)
	sc := f.NewScorer()
	vs, ok := sc.(nmc.ValuesScorer)
	if !ok {
		t.Fatalf("the annotation scorer %T does not implement nmc.ValuesScorer", sc)
	}
	rng := rand.New(rand.NewPCG(6, 6))
	x := make([]float64, nmc.Dim(f.Sites()))
	dst := make([]float64, f.numClasses)
	for trial := 0; trial < 5; trial++ {
		randomAnnotationState(rng, f, x)
		before := append([]float64(nil), x...)
		for item := 0; item < f.numItems; item++ {
			i := f.zSite + item
			vs.ScoreValues(x, i, dst)
			for m := range dst {
				y := append([]float64(nil), x...)
				y[f.zOff+item] = float64(m)
				if want := sc.Score(y, i, nil, nil); math.Float64bits(dst[m]) != math.Float64bits(want) {
					t.Fatalf("trial %d item %d class %d: ScoreValues %v, Score %v", trial, item, m, dst[m], want)
				}
			}
		}
		for j := range x {
			if math.Float64bits(x[j]) != math.Float64bits(before[j]) {
				t.Fatalf("trial %d: ScoreValues changed x[%d]", trial, j)
			}
		}
	}
}

// projectTangent replaces g by P g and the k×k h by P h P, P = I − 11ᵀ/k: the parts
// along the simplex.
func projectTangent(g, h []float64, k int) {
	mean := 0.0
	for _, v := range g {
		mean += v
	}
	mean /= float64(k)
	for n := range g {
		g[n] -= mean
	}
	for n := 0; n < k; n++ { // rows
		mean := 0.0
		for m := 0; m < k; m++ {
			mean += h[n*k+m]
		}
		mean /= float64(k)
		for m := 0; m < k; m++ {
			h[n*k+m] -= mean
		}
	}
	for m := 0; m < k; m++ { // columns
		mean := 0.0
		for n := 0; n < k; n++ {
			mean += h[n*k+m]
		}
		mean /= float64(k)
		for n := 0; n < k; n++ {
			h[n*k+m] -= mean
		}
	}
}
