package models

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/nmc-go/nmc/nmc"
)

func TestLogisticPointwise(t *testing.T) {
	t.Parallel()
	test := RegressionData{
		X: mat.NewDense(4, 2, []float64{1, 2, -1, 0.5, 400, 0, 400, 0}),
		Y: []float64{1, 0, 1, 0},
	}
	dst := make([]float64, 4)
	if err := LogisticPointwise(test, 0.5, []float64{0.25, -1}, dst); err != nil {
		t.Fatal(err)
	}
	// By hand: η = 0.5 + X·(0.25, −1) = −1.25, −0.25, 100.5, 100.5;
	// log p(1|η) = −log(1+e^{−η}), log p(0|η) = −log(1+e^{η}).
	want := []float64{
		-math.Log(1 + math.Exp(1.25)),
		-math.Log(1 + math.Exp(-0.25)),
		-math.Exp(-100.5), // log1p(e^{−100.5}) to double precision
		-100.5,            // −log(1+e^{100.5}) = −100.5 − log1p(e^{−100.5})
	}
	for i := range want {
		if !scalar.EqualWithinAbsOrRel(dst[i], want[i], 1e-300, 1e-14) {
			t.Errorf("row %d: %.17g, want %.17g", i, dst[i], want[i])
		}
	}
	bad := RegressionData{X: test.X, Y: []float64{1, 0.5, 0, 1}}
	if err := LogisticPointwise(bad, 0, []float64{0, 0}, dst); err == nil || !strings.Contains(err.Error(), "y[1] = 0.5") {
		t.Errorf("non-binary y: error %v", err)
	}
	if err := LogisticPointwise(test, 0, []float64{0}, dst); err == nil || !strings.Contains(err.Error(), "beta has 1 values, want 2") {
		t.Errorf("short beta: error %v", err)
	}
	if err := LogisticPointwise(test, 0, []float64{0, 0}, dst[:3]); err == nil || !strings.Contains(err.Error(), "dst has length 3") {
		t.Errorf("short dst: error %v", err)
	}
}

func TestRobustPointwise(t *testing.T) {
	t.Parallel()
	test := RegressionData{
		X: mat.NewDense(3, 2, []float64{1, 2, -1, 0.5, 3, -4}),
		Y: []float64{0.3, -7, 12},
	}
	alpha, beta, nu, sigma := -0.5, []float64{1.5, 0.75}, 3.5, 2.25
	dst := make([]float64, 3)
	if err := RobustPointwise(test, nu, sigma, alpha, beta, dst); err != nil {
		t.Fatal(err)
	}
	for i := range dst {
		eta := alpha + test.X.At(i, 0)*beta[0] + test.X.At(i, 1)*beta[1]
		want := distuv.StudentsT{Mu: eta, Sigma: sigma, Nu: nu}.LogProb(test.Y[i])
		if !scalar.EqualWithinRel(dst[i], want, 1e-13) {
			t.Errorf("row %d: %.17g, want %.17g", i, dst[i], want)
		}
	}
	if err := RobustPointwise(test, nu, -1, alpha, beta, dst); err == nil || !strings.Contains(err.Error(), "sigma = -1") {
		t.Errorf("negative sigma: error %v", err)
	}
	if err := RobustPointwise(RegressionData{}, nu, sigma, alpha, beta, dst); err == nil {
		t.Error("nil X: no error")
	}
}

// tinyAnnotation is a hand-checkable annotation test set: 2 classes, 2 labelers,
// 3 items; item 0 is labelled 1 by labeler 0 and 0 by labeler 1, item 1 is labelled 1
// by labeler 1, item 2 has no labels.
func tinyAnnotation() (AnnotationData, []float64, [][][]float64) {
	d := AnnotationData{NumItems: 3, NumLabelers: 2, NumClasses: 2,
		Item: []int{0, 0, 1}, Labeler: []int{0, 1, 1}, Label: []int{1, 0, 1}}
	pi := []float64{0.3, 0.7}
	theta := [][][]float64{
		{{0.8, 0.2}, {0.1, 0.9}},
		{{0.6, 0.4}, {0.25, 0.75}},
	}
	return d, pi, theta
}

func flatTheta(theta [][][]float64) []float64 {
	var f []float64
	for _, tl := range theta {
		for _, row := range tl {
			f = append(f, row...)
		}
	}
	return f
}

func TestAnnotationPointwise(t *testing.T) {
	t.Parallel()
	d, pi, theta := tinyAnnotation()
	// By hand: item 0: 0.3·θ0[0][1]·θ1[0][0] + 0.7·θ0[1][1]·θ1[1][0] = 0.3·0.2·0.6 + 0.7·0.9·0.25
	// = 0.036 + 0.1575; item 1: 0.3·0.4 + 0.7·0.75 = 0.645; item 2 (no labels): 1.
	want := []float64{math.Log(0.1935), math.Log(0.645), 0}
	dst := make([]float64, 3)
	if err := AnnotationPointwise(d, pi, theta, dst); err != nil {
		t.Fatal(err)
	}
	flat := flatTheta(theta)
	dstFlat := make([]float64, 3)
	if err := AnnotationPointwiseFlat(d, pi, flat, dstFlat); err != nil {
		t.Fatal(err)
	}
	for j := range want {
		if !scalar.EqualWithinAbsOrRel(dst[j], want[j], 1e-15, 1e-14) {
			t.Errorf("item %d: %.17g, want %.17g", j, dst[j], want[j])
		}
		if dstFlat[j] != dst[j] {
			t.Errorf("item %d: flat %.17g, nested %.17g", j, dstFlat[j], dst[j])
		}
	}
}

// TestAnnotationPointwiseUnderflow checks the log-sum-exp: 2000 identical labels make
// both class terms underflow to 0 in plain arithmetic, but
// log(0.3·0.8²⁰⁰⁰ + 0.7·0.1²⁰⁰⁰) = log 0.3 + 2000 log 0.8 + log1p((0.7/0.3)·0.125²⁰⁰⁰).
func TestAnnotationPointwiseUnderflow(t *testing.T) {
	t.Parallel()
	_, pi, theta := tinyAnnotation()
	const n = 2000
	d := AnnotationData{NumItems: 1, NumLabelers: 2, NumClasses: 2,
		Item: make([]int, n), Labeler: make([]int, n), Label: make([]int, n)}
	dst := make([]float64, 1)
	if err := AnnotationPointwise(d, pi, theta, dst); err != nil {
		t.Fatal(err)
	}
	want := math.Log(0.3) + n*math.Log(0.8)
	if !scalar.EqualWithinRel(dst[0], want, 1e-12) {
		t.Errorf("%.17g, want %.17g", dst[0], want)
	}
}

func TestAnnotationPointwiseErrors(t *testing.T) {
	t.Parallel()
	d, pi, theta := tinyAnnotation()
	dst := make([]float64, 3)
	split := d
	split.Item = []int{0, 1, 0} // item 0's rows are not contiguous
	badLabeler := d
	badLabeler.Labeler = []int{0, 2, 1}
	negTheta := [][][]float64{{{0.8, 0.2}, {0.1, 0.9}}, {{0.6, -0.4}, {0.25, 0.75}}}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"contiguous", AnnotationPointwise(split, pi, theta, dst), "row 2: rows of item 0 are not contiguous"},
		{"labeler", AnnotationPointwise(badLabeler, pi, theta, dst), "row 1: labeler 2 out of range"},
		{"pi length", AnnotationPointwise(d, []float64{1}, theta, dst), "pi has 1 values, want 2"},
		{"pi negative", AnnotationPointwise(d, []float64{-0.1, 1.1}, theta, dst), "pi[0] = -0.1"},
		{"dst", AnnotationPointwise(d, pi, theta, dst[:2]), "dst has length 2, want 3"},
		{"theta shape", AnnotationPointwise(d, pi, theta[:1], dst), "theta has 1 labelers, want 2"},
		// Item 1's label 1 by labeler 1 reaches the negative θ[1][0][1].
		{"theta negative", AnnotationPointwise(d, pi, negTheta, dst), "theta[1][0][1] = -0.4"},
		{"flat length", AnnotationPointwiseFlat(d, pi, make([]float64, 7), dst), "theta has 7 values, want 8"},
	}
	for _, c := range cases {
		if c.err == nil || !strings.HasPrefix(c.err.Error(), "models: annotation pointwise: ") || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, c.err, c.want)
		}
	}
}

// TestPointwiseAllocs checks that the held-out functions do not allocate (not parallel:
// AllocsPerRun needs the process to itself).
func TestPointwiseAllocs(t *testing.T) {
	reg := RegressionData{X: mat.NewDense(3, 2, []float64{1, 2, -1, 0.5, 3, -4}), Y: []float64{1, 0, 1}}
	beta := []float64{0.25, -1}
	dst := make([]float64, 3)
	if a := testing.AllocsPerRun(20, func() { LogisticPointwise(reg, 0.5, beta, dst) }); a != 0 {
		t.Errorf("LogisticPointwise: %v allocations per call, want 0", a)
	}
	if a := testing.AllocsPerRun(20, func() { RobustPointwise(reg, 3, 2, 0.5, beta, dst) }); a != 0 {
		t.Errorf("RobustPointwise: %v allocations per call, want 0", a)
	}
	d, pi, theta := tinyAnnotation()
	flat := flatTheta(theta)
	if a := testing.AllocsPerRun(20, func() { AnnotationPointwiseFlat(d, pi, flat, dst) }); a != 0 {
		t.Errorf("AnnotationPointwiseFlat: %v allocations per call, want 0", a)
	}
	if a := testing.AllocsPerRun(20, func() { AnnotationPointwise(d, pi, theta, dst) }); a != 0 {
		t.Errorf("AnnotationPointwise: %v allocations per call, want 0", a)
	}
	// The held-out likelihoods that the sampler evaluates at every recorded draw.
	for _, robust := range []bool{false, true} {
		var b *Built
		var err error
		if robust {
			b, err = Robust(reg, &reg, nil)
		} else {
			b, err = Logistic(reg, &reg, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float64, nmc.Dim(b.Model.Sites()))
		if err := b.Model.Init(rand.New(rand.NewPCG(1, 2)), x); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(20, func() { b.HeldOut.LogLik(x, dst) }); a != 0 {
			t.Errorf("%s held-out LogLik: %v allocations per call, want 0", b.Name, a)
		}
	}
}

// TestAnnotationProductHeldOut compares the annotation model's held-out likelihood
// (annotationProductHeldOut) with annotationHeldOut (AnnotationPointwiseFlat, log-sum-exp)
// at random states, at states whose products underflow (so the log-domain path is
// taken) and at invalid states (NaN everywhere in both), with 3 and 4 classes.
func TestAnnotationProductHeldOut(t *testing.T) {
	for _, classes := range []int{3, 4} { // unrolled and general loops
		train, test, _, err := GenerateAnnotation(rand.New(rand.NewPCG(15, 1)), AnnotationConfig{N: 400, Labelers: 8, Classes: classes, JLoc: 3, Gamma: 10, Rho: 0.5})
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
		b, err := Annotation(train, &test, nil)
		if err != nil {
			t.Fatal(err)
		}
		fast, ok := b.HeldOut.(*annotationProductHeldOut)
		if !ok {
			t.Fatalf("HeldOut is %T, want *annotationProductHeldOut", b.HeldOut)
		}
		slow, err := newAnnotationHeldOut(b.Graph, test)
		if err != nil {
			t.Fatal(err)
		}
		f := annotationLayoutOf(t, b, train)
		if fast.Len() != test.NumItems || slow.Len() != test.NumItems {
			t.Fatalf("Len %d and %d, want %d", fast.Len(), slow.Len(), test.NumItems)
		}
		rng := rand.New(rand.NewPCG(7, 8))
		x := make([]float64, nmc.Dim(b.Model.Sites()))
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
					t.Fatalf("%d classes, state %d, item %d: %.17g, annotationHeldOut %.17g", classes, state, j, got[j], want[j])
				}
			}
			if nan := math.IsNaN(got[0]); nan != (state == 3 || state == 4) {
				t.Errorf("%d classes, state %d: item 0 is %v", classes, state, got[0])
			}
		}
	}
}
