package graph_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// annotationJoint returns the CLI's Dawid-Skene model (models.Generate("annotation",
// 10000, 100, 1): 5,000 train items, 100 labelers, 3 classes, 12,971 labels; the
// classes summed out), its continuous sites (pi and the 300 confusion rows, 903
// coordinates) and two states: the majority-vote start and the same with every
// listed site moved a little, as consecutive leapfrog steps see them.
func annotationJoint(tb testing.TB) (m *graph.Model, sites []int, xs [2][]float64) {
	tb.Helper()
	d, err := models.Generate("annotation", 10000, 100, 1)
	if err != nil {
		tb.Fatal(err)
	}
	built, err := models.Annotation(*d.AnnotationTrain, nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	m = built.Graph
	all := m.Sites()
	off := nmc.Offsets(all)
	rng := rand.New(rand.NewPCG(24, 0))
	for p := range xs {
		xs[p] = make([]float64, nmc.Dim(all))
		if err := built.Model.Init(rand.New(rand.NewPCG(1, 0)), xs[p]); err != nil {
			tb.Fatal(err)
		}
	}
	for i, s := range all {
		if s.Support != nmc.Simplex {
			continue
		}
		sites = append(sites, i)
		xi := xs[1][off[i] : off[i]+s.Size]
		sum := 0.0
		for c := range xi {
			xi[c] *= math.Exp(0.05 * rng.NormFloat64())
			sum += xi[c]
		}
		for c := range xi {
			xi[c] /= sum
		}
	}
	return m, sites, xs
}

// BenchmarkJointGradAnnotation times JointGrad on the CLI's Dawid-Skene model with
// the classes summed out (annotationJoint), alternating between two states so that
// no cache of the scorer is current: "fast", the gradient alone (the fast path, as
// each leapfrog step of the Hamiltonian block asks); "fast+value", with LogJoint
// (a trajectory's ends); "general", the general path (one score per site), which the
// fast path replaces. Reports ns per call.
//
//	go test -run '^$' -bench JointGradAnnotation -count 6 ./nmc/graph/
func BenchmarkJointGradAnnotation(b *testing.B) {
	m, sites, xs := annotationJoint(b)
	n := 0
	for _, i := range sites {
		n += m.Sites()[i].Size
	}
	grad := make([]float64, n)
	sc := m.NewScorer()
	jg := sc.(nmc.JointGradienter)
	b.Run("fast", func(b *testing.B) {
		for i := range b.N {
			jg.JointGrad(xs[i&1], sites, grad, false)
		}
	})
	b.Run("fast+value", func(b *testing.B) {
		for i := range b.N {
			jg.JointGrad(xs[i&1], sites, grad, true)
		}
	})
	b.Run("general", func(b *testing.B) {
		for i := range b.N {
			graph.JointGradGeneral(sc, xs[i&1], sites, grad)
		}
	})
}

// TestJointGradAnnotationData checks JointGrad against its general path and its
// value against LogJoint, within 1e-12 relative, on the CLI's Dawid-Skene data
// (annotationJoint) at both states, where the fast path must apply.
func TestJointGradAnnotationData(t *testing.T) {
	m, sites, xs := annotationJoint(t)
	n := 0
	for _, i := range sites {
		n += m.Sites()[i].Size
	}
	if len(sites) != 301 || n != 903 {
		t.Fatalf("%d sites, %d coordinates; want 301 and 903", len(sites), n)
	}
	sc := m.NewScorer()
	jg := sc.(nmc.JointGradienter)
	g, gGen := make([]float64, n), make([]float64, n)
	for p, x := range xs {
		if !graph.JointGradFast(sc, x, sites, g) {
			t.Errorf("state %d: the fast path did not apply", p)
		}
		v := jg.JointGrad(x, sites, g, true)
		lj := sc.LogJoint(x)
		if d := math.Abs(v-lj) / math.Abs(lj); !(d <= 1e-12) {
			t.Errorf("state %d: value %.17g, LogJoint %.17g", p, v, lj)
		}
		t.Logf("state %d: value %.17g, LogJoint %.17g", p, v, lj)
		if f := graph.JointGradGeneral(sc, x, sites, gGen); f != 0 {
			t.Fatalf("state %d: general path returned %g", p, f)
		}
		worst := 0.0
		for c := range g {
			worst = max(worst, math.Abs(g[c]-gGen[c])/max(1, math.Abs(gGen[c])))
		}
		if worst > 1e-12 {
			t.Errorf("state %d: fast and general gradients differ by %.3g relative", p, worst)
		}
		t.Logf("state %d: fast vs general, largest relative difference %.3g", p, worst)
	}
}
