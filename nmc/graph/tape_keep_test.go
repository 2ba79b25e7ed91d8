package graph

import (
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/nmc"
)

// keepModel is a recursion whose steps a tape computes and the general path
// reads too: s_t = 2 + LogMix(0.3, s_{t−1}, s_{t−1}), s_{−1} = H, each step read
// by the next step's LogMix (a tGeneral) and by an observation, from the
// log-likelihood H of a two-state hidden Markov model (its jet dense) with
// Normal emissions of scale z, added as a Factor. Site 0 is z, sites 1 and 2
// the transition rows, site 3 the initial distribution.
func keepModel(tb testing.TB) (*Model, []*Node) {
	tb.Helper()
	b := New()
	z := b.Latent("z", Exponential(C(1)))
	y := Data([]float64{0.3, -1.2, 0.8, 2.1, -0.4})
	lo := Stack(LogDensity(Normal(C(0), z), y), LogDensity(Normal(C(1), z), y))
	gamma := b.Latent("gamma", Dirichlet(Vec(2, 3)), 2)
	rho := b.Latent("rho", Dirichlet(Vec(1.5, 1.5)))
	h := HMMMarginal(lo, gamma, rho)
	steps := make([]*Node, 6)
	prev := h
	for i := range steps {
		steps[i] = Add(C(2), LogMix(C(0.3), prev, prev))
		prev = steps[i]
	}
	b.Observe("s", Normal(Concat(steps...), C(0.5)), []float64{-1.5, -1.5, -1.5, -1.5, -1.5, -1.5})
	b.Factor("hmm", h) // after the steps: H's first reader is LogSumExp, by eval
	m, err := b.Build()
	if err != nil {
		tb.Fatal(err)
	}
	return m, steps
}

// TestTapeKeepsMemoisedElements checks that a site's tape leaves in the memo
// the jets the general path leaves there (evalScalar's unit jets) for the
// memoised elements it computes that an instruction by the general path reads:
// keepModel's steps, computed by the tape's Add instructions and read by the
// next step's LogMix. Without them eval computed a step again, its jet dense
// (H's is), and LogMix of it took its dense chain rule, a few ulps from the
// general path's structured one (FuzzModelFamilies' 86ef5faea0e21c8a and
// e8e1d81e1a4b56ce, a pair orbit's second derivative). It also checks that the
// scores, with tapes, equal the general path's bit for bit: the site's, and
// JointHessian's of every pair with z (orbit tapes) and of all the sites.
func TestTapeKeepsMemoisedElements(t *testing.T) {
	m, steps := keepModel(t)
	sc, ref := m.newScorer(), m.newScorer()
	ref.tape.off = true
	rng := rand.New(rand.NewPCG(5, 7))
	x := make([]float64, nmc.Dim(m.Sites()))
	for r := range 10 {
		if err := m.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		runs := sc.tape.runs
		g1, h1, g2, h2 := make([]float64, 1), make([]float64, 1), make([]float64, 1), make([]float64, 1)
		sc.exactSiteScore(x, 0, g1, h1)
		ref.exactSiteScore(x, 0, g2, h2)
		if sc.tape.runs == runs {
			t.Fatalf("at %v: z's score ran no tape", x)
		}
		for i, n := range steps[:len(steps)-1] { // (the last is read by its observation alone)
			if n.memo == 0 {
				t.Fatalf("step %d is not memoised", i)
			}
			kt, kr := &sc.memo[n.memo-1], &ref.memo[n.memo-1]
			if kr.stamp[0] != ref.gen {
				t.Fatalf("step %d: the general path kept no jet", i)
			}
			if kt.stamp[0] != sc.gen || !sameJet(&kt.jets[0], &kr.jets[0]) {
				t.Fatalf("state %d, step %d: the tape's memo holds %+v (kept in this context: %v), the general path's %+v",
					r, i, kt.jets[0], kt.stamp[0] == sc.gen, kr.jets[0])
			}
		}
		if !sameFloat(g1[0], g2[0]) || !sameFloat(h1[0], h2[0]) {
			t.Fatalf("at %v: z's derivatives with its tape (%v, %v), general path (%v, %v)", x, g1[0], h1[0], g2[0], h2[0])
		}
		for i, st := range m.Sites() {
			k := st.Size
			g1, h1, g2, h2 := make([]float64, k), make([]float64, k*k), make([]float64, k), make([]float64, k*k)
			f1, f2 := sc.Score(x, i, g1, h1), ref.Score(x, i, g2, h2)
			same := sameFloat(f1, f2)
			for p := range g1 {
				same = same && sameFloat(g1[p], g2[p])
			}
			for p := range h1 {
				same = same && sameFloat(h1[p], h2[p])
			}
			if !same {
				t.Fatalf("site %d at %v: with tapes (%v, %v, %v), general path (%v, %v, %v)", i, x, f1, g1, h1, f2, g2, h2)
			}
		}
		for _, b := range [][]int{{0, 1}, {0, 2}, {0, 3}, {0, 1, 2, 3}} {
			compareJoint(t, sc, ref, x, b)
		}
	}
}
