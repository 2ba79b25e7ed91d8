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

// annotationLayout says where the annotation model's sites and state coordinates
// are, as read from a built model: pi is one simplex site, z[0 … N−1] one discrete
// site each, theta[0,0 … L−1,C−1] one simplex site each, in that order.
type annotationLayout struct {
	numItems, numLabelers, numClasses int
	piOff, zOff, thetaOff             int // state offsets of pi, z[0] and theta[0,0]
	piSite, zSite, thetaSite          int // site indices of pi, z[0] and theta[0,0]
}

// annotationLayoutOf reads the layout of b, built by Annotation on train, and fails
// the test if the sites are not laid out as annotationLayout says.
func annotationLayoutOf(t *testing.T, b *Built, train AnnotationData) annotationLayout {
	t.Helper()
	n, l, c := train.NumItems, train.NumLabelers, train.NumClasses
	lay := annotationLayout{numItems: n, numLabelers: l, numClasses: c, piSite: -1, zSite: -1, thetaSite: -1}
	for _, f := range []struct {
		name string
		off  *int
	}{{"pi", &lay.piOff}, {"z", &lay.zOff}, {"theta", &lay.thetaOff}} {
		var err error
		if *f.off, _, err = b.Graph.Offset(f.name); err != nil {
			t.Fatal(err)
		}
	}
	sites := b.Model.Sites()
	off := nmc.Offsets(sites)
	for i, s := range sites {
		switch {
		case s.Name == "pi" && off[i] == lay.piOff:
			lay.piSite = i
		case s.Name == "z[0]" && off[i] == lay.zOff:
			lay.zSite = i
		case s.Name == "theta[0,0]" && off[i] == lay.thetaOff:
			lay.thetaSite = i
		}
	}
	if len(sites) != 1+n+l*c || lay.piSite != 0 || lay.zSite != 1 || lay.thetaSite != 1+n || nmc.Dim(sites) != c+n+l*c*c {
		t.Fatalf("unexpected layout: %d sites, dimension %d, pi at site %d, z[0] at %d, theta[0,0] at %d",
			len(sites), nmc.Dim(sites), lay.piSite, lay.zSite, lay.thetaSite)
	}
	return lay
}

// annotationReference is the Dawid-Skene log density with the classes explicit,
// written out term by term from the data and the prior without the graph engine:
// the independent reference for the built model's scores, derivatives and log
// joint, and (summed over every class vector) for the summed-out form.
//
//	pi ~ Dirichlet(conc); z[i] ~ Categorical(pi); theta[l,m] ~ Dirichlet(rows[m]);
//	label r ~ Categorical(theta[labeler_r, z[item_r]]).
//
// As in the model, the Categorical is the paper's homogeneous form (log
// theta[y], not divided by Σ theta) and the Dirichlet is evaluated without
// checking Σ x = 1; its normalisers are included.
type annotationReference struct {
	annotationLayout
	train AnnotationData
	conc  []float64   // pi's Dirichlet concentration
	rows  [][]float64 // theta[l,m]'s Dirichlet concentration is rows[m]
}

// newAnnotationReference returns the reference of the model Annotation builds on
// train with prior (nil: the defaults), laid out as lay. It computes the prior's
// concentrations from AnnotationPrior's documentation, not from the model.
func newAnnotationReference(lay annotationLayout, train AnnotationData, prior *AnnotationPrior) *annotationReference {
	var p AnnotationPrior
	if prior != nil {
		p = *prior
	}
	c := train.NumClasses
	pc, gamma, rho := 1/float64(c), 10.0, 0.5
	if p.PiConcentration != 0 {
		pc = p.PiConcentration
	}
	if p.Gamma != 0 {
		gamma = p.Gamma
	}
	if p.Rho != 0 {
		rho = p.Rho
	}
	r := &annotationReference{annotationLayout: lay, train: train, conc: make([]float64, c), rows: make([][]float64, c)}
	for m := range c {
		r.conc[m] = pc
		r.rows[m] = make([]float64, c)
		for n := range c {
			r.rows[m][n] = gamma * (1 - rho) / float64(c-1)
		}
		r.rows[m][m] = gamma * rho
	}
	return r
}

// logPositive returns log v for finite v > 0 and −Inf otherwise.
func logPositive(v float64) float64 {
	if v > 0 && !math.IsInf(v, 1) {
		return math.Log(v)
	}
	return math.Inf(-1)
}

// logDirichlet returns the Dirichlet(a) log density at y, normaliser included,
// without checking Σ y = 1; −Inf when an entry of y is not finite and > 0.
func logDirichlet(y, a []float64) float64 {
	total, sum := 0.0, 0.0
	for n, v := range y {
		lv := logPositive(v)
		if math.IsInf(lv, -1) {
			return lv
		}
		lg, _ := math.Lgamma(a[n])
		total += (a[n]-1)*lv - lg
		sum += a[n]
	}
	lg, _ := math.Lgamma(sum)
	return total + lg
}

// class returns z[i] at x, or −1 when it is not an integer in [0, C).
func (r *annotationReference) class(x []float64, i int) int {
	v := x[r.zOff+i]
	m := int(v)
	if float64(m) != v || m < 0 || m >= r.numClasses {
		return -1
	}
	return m
}

// row returns the coordinates of theta[l,m] in x.
func (r *annotationReference) row(x []float64, l, m int) []float64 {
	off := r.thetaOff + (l*r.numClasses+m)*r.numClasses
	return x[off : off+r.numClasses]
}

// logJoint returns the full log joint density at x.
func (r *annotationReference) logJoint(x []float64) float64 {
	c := r.numClasses
	total := logDirichlet(x[r.piOff:r.piOff+c], r.conc)
	for l := range r.numLabelers {
		for m := range c {
			total += logDirichlet(r.row(x, l, m), r.rows[m])
		}
	}
	for i := range r.numItems {
		m := r.class(x, i)
		if m < 0 {
			return math.Inf(-1)
		}
		total += logPositive(x[r.piOff+m])
	}
	for k, it := range r.train.Item {
		total += logPositive(r.row(x, r.train.Labeler[k], r.class(x, it))[r.train.Label[k]])
	}
	return total
}

// score returns the Markov-blanket score of site i at x (the terms of the log joint
// that read the site) and, for a simplex site with non-nil grad and hess, the
// gradient and Hessian of the score in the site's coordinates (those of the
// homogeneous extension off the simplex: ∂_n = a_n/y_n, ∂²_nn = −a_n/y_n², the other
// entries 0, where a_n is the concentration − 1 plus the count of data terms in y_n).
func (r *annotationReference) score(x []float64, i int, grad, hess []float64) float64 {
	c := r.numClasses
	var y, a []float64
	var total float64
	switch {
	case i >= r.zSite && i < r.zSite+r.numItems: // log pi[z_i] + the labels of item i
		item := i - r.zSite
		m := r.class(x, item)
		if m < 0 {
			return math.Inf(-1)
		}
		total = logPositive(x[r.piOff+m])
		for k, it := range r.train.Item {
			if it == item {
				total += logPositive(r.row(x, r.train.Labeler[k], m)[r.train.Label[k]])
			}
		}
		return total
	case i == r.piSite: // pi's prior + log pi[z_i] of every item
		y = x[r.piOff : r.piOff+c]
		total = logDirichlet(y, r.conc)
		a = make([]float64, c)
		for m := range c {
			a[m] = r.conc[m] - 1
		}
		for it := range r.numItems {
			m := r.class(x, it)
			if m < 0 {
				return math.Inf(-1)
			}
			total += logPositive(y[m])
			a[m]++
		}
	default: // theta[l,m]'s prior + the labels of l on items now in class m
		t := i - r.thetaSite
		l, m := t/c, t%c
		y = r.row(x, l, m)
		total = logDirichlet(y, r.rows[m])
		a = make([]float64, c)
		for n := range c {
			a[n] = r.rows[m][n] - 1
		}
		for k, it := range r.train.Item {
			if r.train.Labeler[k] == l && r.class(x, it) == m {
				total += logPositive(y[r.train.Label[k]])
				a[r.train.Label[k]]++
			}
		}
	}
	if grad != nil && hess != nil {
		clear(hess[:c*c])
		for n, v := range y {
			grad[n] = a[n] / v
			hess[n*c+n] = -a[n] / (v * v)
		}
	}
	return total
}

// explicitAnnotation builds the annotation model with the given prior (nil: the
// defaults) and the classes explicit on generated data (N items, half of them
// train) and returns it with its layout and its reference.
func explicitAnnotation(t *testing.T, seed uint64, cfg AnnotationConfig, prior *AnnotationPrior) (*Built, *annotationReference) {
	t.Helper()
	train, _, _, err := GenerateAnnotation(rand.New(rand.NewPCG(seed, 1)), cfg)
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
	return b, newAnnotationReference(annotationLayoutOf(t, b, train), train, prior)
}

// randomAnnotationState writes a random state: pi and every theta row from a flat
// Dirichlet, every class uniform.
func randomAnnotationState(rng *rand.Rand, f annotationLayout, x []float64) {
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
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= tol*max(1, math.Abs(a), math.Abs(b))
}

// TestAnnotationExplicitMatchesReference checks the model Annotation builds with
// the classes explicit (the graph model itself, from the majority-vote start)
// against annotationReference at many states: every site's score (values and
// differences over every value of a class, over random points of a simplex), the
// gradients and Hessians of the simplex sites, and the log joint. It does so at the
// default prior and at random ones (fixed seed), so that a concentration the model
// ignores or hard-codes fails. (With the classes summed out, the model is checked
// against the reference summed over every class vector in
// annotation_marginal_test.go.)
func TestAnnotationExplicitMatchesReference(t *testing.T) {
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
			compareAnnotationWithReference(t, prior)
		})
	}
}

// compareAnnotationWithReference is one case of TestAnnotationExplicitMatchesReference.
func compareAnnotationWithReference(t *testing.T, prior *AnnotationPrior) {
	t.Helper()
	const tol = 1e-9
	b, ref := explicitAnnotation(t, 11, AnnotationConfig{N: 300, Labelers: 10, Classes: 3, JLoc: 2.5, Gamma: 10, Rho: 0.5}, prior)
	m := b.Model
	if _, ok := m.(*annotationStart); !ok {
		t.Fatalf("Built.Model is %T, want the graph model (*annotationStart)", m)
	}
	if !reflect.DeepEqual(m.Sites(), b.Graph.Sites()) {
		t.Fatal("Sites() differ from the graph model's")
	}
	sites := m.Sites()
	off := nmc.Offsets(sites)
	rng := rand.New(rand.NewPCG(5, 6))
	sc := m.NewScorer()
	x := make([]float64, nmc.Dim(sites))
	var dir dist.Dirichlet
	ones := []float64{1, 1, 1}
	var lastM, lastR float64
	for state := 0; state < 6; state++ {
		if state < 2 {
			if err := m.Init(rng, x); err != nil {
				t.Fatal(err)
			}
		} else {
			randomAnnotationState(rng, ref.annotationLayout, x)
		}
		lm, lr := sc.LogJoint(x), ref.logJoint(x)
		if !closeRel(lm, lr, tol) {
			t.Errorf("state %d: LogJoint %.17g, reference %.17g", state, lm, lr)
		}
		if state > 0 && !closeRel(lm-lastM, lr-lastR, tol) {
			t.Errorf("state %d: LogJoint difference %.17g, reference %.17g", state, lm-lastM, lr-lastR)
		}
		lastM, lastR = lm, lr
		for i, s := range sites {
			xs := x[off[i] : off[i]+s.Size]
			saved := append([]float64(nil), xs...)
			if s.Support == nmc.Discrete {
				var m0, r0 float64
				for v := 0; v < s.NumValues; v++ {
					xs[0] = float64(v)
					mv, rv := sc.Score(x, i, nil, nil), ref.score(x, i, nil, nil)
					if !closeRel(mv, rv, tol) {
						t.Fatalf("state %d, site %s = %d: score %.17g, reference %.17g", state, s.Name, v, mv, rv)
					}
					if v == 0 {
						m0, r0 = mv, rv
					} else if !closeRel(mv-m0, rv-r0, tol) {
						t.Fatalf("state %d, site %s = %d: score difference %.17g, reference %.17g", state, s.Name, v, mv-m0, rv-r0)
					}
				}
				copy(xs, saved)
				continue
			}
			k := s.Size
			gm, hm := make([]float64, k), make([]float64, k*k)
			gr, hr := make([]float64, k), make([]float64, k*k)
			var m0, r0 float64
			for move := 0; move < 4; move++ {
				if move > 0 {
					dir.Rand(rng, ones, k, xs)
				}
				mv, rv := sc.Score(x, i, gm, hm), ref.score(x, i, gr, hr)
				if !closeRel(mv, rv, tol) {
					t.Fatalf("state %d, site %s, move %d: score %.17g, reference %.17g", state, s.Name, move, mv, rv)
				}
				if move == 0 {
					m0, r0 = mv, rv
				} else if !closeRel(mv-m0, rv-r0, tol) {
					t.Fatalf("state %d, site %s, move %d: score difference %.17g, reference %.17g", state, s.Name, move, mv-m0, rv-r0)
				}
				for n := range gm {
					if !closeRel(gm[n], gr[n], tol) {
						t.Fatalf("state %d, site %s, move %d: gradient[%d] %.17g, reference %.17g", state, s.Name, move, n, gm[n], gr[n])
					}
				}
				for n := range hm {
					if !closeRel(hm[n], hr[n], tol) {
						t.Fatalf("state %d, site %s, move %d: Hessian[%d] %.17g, reference %.17g", state, s.Name, move, n, hm[n], hr[n])
					}
				}
				// Without derivatives the score is the same.
				if mn := sc.Score(x, i, nil, nil); mn != mv {
					t.Fatalf("state %d, site %s, move %d: score without derivatives %.17g, with %.17g", state, s.Name, move, mn, mv)
				}
			}
			copy(xs, saved)
		}
	}
}

// TestAnnotationExplicitOutsideSupport checks that a state outside the support
// scores −Inf in the explicit form, as in the reference (see
// TestAnnotationMarginalOutsideSupport for the summed-out form): a class out of
// range or not an integer, a non-positive or non-finite simplex coordinate. (The
// model's pi score rounds a non-integer class when it tallies the classes, so for a
// class 0.5 only the class's own site is checked; the sampler never proposes such a
// class.)
func TestAnnotationExplicitOutsideSupport(t *testing.T) {
	b, f := explicitAnnotation(t, 12, AnnotationConfig{N: 40, Labelers: 4, Classes: 3, JLoc: 2, Gamma: 10, Rho: 0.5}, &AnnotationPrior{})
	sc := b.Model.NewScorer()
	x := make([]float64, nmc.Dim(b.Model.Sites()))
	rng := rand.New(rand.NewPCG(1, 2))
	theta1 := f.thetaOff + 1*f.numClasses // theta[0,1]
	cases := []struct {
		name  string
		at    int
		value float64
		sites []int
	}{
		{"z[0] = 3", f.zOff, 3, []int{f.zSite, f.piSite}},
		{"z[0] = 0.5", f.zOff, 0.5, []int{f.zSite}},
		{"z[0] = -1", f.zOff, -1, []int{f.zSite, f.piSite}},
		{"pi[1] = 0", f.piOff + 1, 0, []int{f.piSite}},
		{"pi[1] = -0.2", f.piOff + 1, -0.2, []int{f.piSite}},
		{"pi[1] = NaN", f.piOff + 1, math.NaN(), []int{f.piSite}},
		{"theta[0,1,2] = 0", theta1 + 2, 0, []int{f.thetaSite + 1}},
		{"theta[0,1,2] = +Inf", theta1 + 2, math.Inf(1), []int{f.thetaSite + 1}},
	}
	for _, tc := range cases {
		randomAnnotationState(rng, f.annotationLayout, x)
		x[tc.at] = tc.value
		if lm, lr := sc.LogJoint(x), f.logJoint(x); !math.IsInf(lm, -1) || !math.IsInf(lr, -1) {
			t.Errorf("%s: LogJoint %v, reference %v; want −Inf", tc.name, lm, lr)
		}
		for _, i := range tc.sites {
			if sm, sr := sc.Score(x, i, nil, nil), f.score(x, i, nil, nil); !math.IsInf(sm, -1) || !math.IsInf(sr, -1) {
				t.Errorf("%s: site %s scores %v, reference %v; want −Inf", tc.name, b.Model.Sites()[i].Name, sm, sr)
			}
		}
	}
}

// TestAnnotationDerivativesFD checks the gradient and Hessian of the simplex sites
// against central finite differences of the score (in the k coordinates of the
// homogeneous extension, off the simplex), with the classes explicit and summed out.
func TestAnnotationDerivativesFD(t *testing.T) {
	cfg := AnnotationConfig{N: 200, Labelers: 5, Classes: 3, JLoc: 2.5, Gamma: 10, Rho: 0.5}
	t.Run("explicit", func(t *testing.T) {
		b, f := explicitAnnotation(t, 13, cfg, nil)
		checkAnnotationDerivativesFD(t, b.Model, f.annotationLayout, false)
	})
	t.Run("marginalised", func(t *testing.T) {
		m, f := marginalAnnotation(t, 13, cfg)
		checkAnnotationDerivativesFD(t, m, f.annotationLayout, true)
	})
}

// checkAnnotationDerivativesFD is one case of TestAnnotationDerivativesFD: model
// m, laid out as f, its simplex sites' derivatives compared along the simplex only
// when marginal.
func checkAnnotationDerivativesFD(t *testing.T, m nmc.Model, f annotationLayout, marginal bool) {
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

// TestAnnotationBadInput checks that Annotation still rejects bad data with
// errors naming the problem.
func TestAnnotationBadInput(t *testing.T) {
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
	// An item without labels and a labeler without labels are fine, in both forms.
	d := mod(func(d *AnnotationData) { d.NumItems, d.NumLabelers = 3, 3 })
	for _, explicit := range []bool{false, true} {
		b, err := Annotation(d, nil, &AnnotationPrior{ExplicitClasses: explicit})
		if err != nil {
			t.Fatalf("unlabelled item and labeler, classes explicit %v: %v", explicit, err)
		}
		res, err := nmc.Sample(context.Background(), b.Model, &nmc.Options{Warmup: nmc.NoWarmup, Chains: 1, Draws: 20, Seed: 1})
		if err != nil {
			t.Fatalf("unlabelled item and labeler, classes explicit %v: Sample: %v", explicit, err)
		}
		if res.Draws.NumDraws(0) != 20 {
			t.Errorf("unlabelled item and labeler, classes explicit %v: %d draws, want 20", explicit, res.Draws.NumDraws(0))
		}
	}
}

// TestAnnotationExplicitScoreValues checks the batched class scores of the explicit
// form (nmc.ValuesScorer, the sampler's enumeration of a class) against Score at
// every class of every item, bit for bit, and that the state is left unchanged.
func TestAnnotationExplicitScoreValues(t *testing.T) {
	cfg := DefaultAnnotationConfig(300)
	cfg.Labelers = 10
	b, f := explicitAnnotation(t, 5, cfg, nil)
	sc := b.Model.NewScorer()
	vs, ok := sc.(nmc.ValuesScorer)
	if !ok {
		t.Fatalf("the annotation scorer %T does not implement nmc.ValuesScorer", sc)
	}
	rng := rand.New(rand.NewPCG(6, 6))
	x := make([]float64, nmc.Dim(b.Model.Sites()))
	dst := make([]float64, f.numClasses)
	for trial := 0; trial < 5; trial++ {
		randomAnnotationState(rng, f.annotationLayout, x)
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
