package graph

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/nmc"
)

// compareJoint checks that sc (with tapes) and ref (without) give the same
// JointHessian of the listed sites at x, bit for bit, with derivatives and
// without.
func compareJoint(t *testing.T, sc, ref *scorer, x []float64, sites []int) {
	t.Helper()
	n := 0
	for _, i := range sites {
		n += sc.m.sites[i].Size
	}
	g1, h1, g2, h2 := make([]float64, n), make([]float64, n*n), make([]float64, n), make([]float64, n*n)
	f1, f2 := sc.JointHessian(x, sites, g1, h1), ref.JointHessian(x, sites, g2, h2)
	same := sameFloat(f1, f2)
	if !math.IsInf(f1, -1) && !math.IsNaN(f1) {
		for p := range g1 {
			same = same && sameFloat(g1[p], g2[p])
		}
		for p := range h1 {
			same = same && sameFloat(h1[p], h2[p])
		}
	}
	if !same {
		t.Fatalf("sites %v at %v: with tapes (%v, %v, %v), general path (%v, %v, %v)", sites, x, f1, g1, h1, f2, g2, h2)
	}
	if v1, v2 := sc.JointHessian(x, sites, nil, nil), ref.JointHessian(x, sites, nil, nil); !sameFloat(v1, v2) {
		t.Fatalf("sites %v at %v: values only, with tapes %v, general path %v", sites, x, v1, v2)
	}
}

// TestOrbitTapeMatchesGeneralPath checks that JointHessian with tapes (the site
// tapes for the diagonal blocks, the orbit tapes for the pair and union scores)
// gives the general path's value, gradient and Hessian bit for bit, for every
// pair of sites and for all of them, of tapeOpsModel, ARMA(1,1) and GARCH(1,1)
// at random states (and states outside the support); that the orbit tapes ran;
// and that ScoreOrbit of the groups of orbitModels matches the general path too.
func TestOrbitTapeMatchesGeneralPath(t *testing.T) {
	cases := tapeCases(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sc, ref := tc.m.newScorer(), tc.m.newScorer()
			ref.tape.off = true
			rng := rand.New(rand.NewPCG(7, 9))
			n := len(tc.m.Sites())
			var blocks [][]int
			all := make([]int, n)
			for a := range n {
				all[a] = a
				for b := a + 1; b < n; b++ {
					blocks = append(blocks, []int{a, b})
				}
			}
			blocks = append(blocks, all)
			for r := range 40 {
				x := tc.state(rng)
				if r%10 == 9 {
					x[rng.IntN(len(x))] = []float64{-1, 0, math.Inf(1), math.NaN(), 1e-170, 1e200}[r/10%6]
				}
				runs := sc.tape.runs
				for _, b := range blocks {
					compareJoint(t, sc, ref, x, b)
				}
				if r%10 != 9 && sc.tape.runs == runs {
					t.Fatalf("at %v: no tape ran", x)
				}
			}
			orbitRuns := 0
			for o, ot := range sc.tape.orbits {
				if ot.t == nil {
					t.Errorf("an orbit of %d elements has no tape", len(o.blanket))
				}
				orbitRuns++
			}
			if orbitRuns == 0 {
				t.Error("no orbit tape was made")
			}
		})
	}
	groupRuns := uint64(0)
	for name, m := range orbitModels(t) {
		t.Run("groups/"+name, func(t *testing.T) {
			sc, ref := m.newScorer(), m.newScorer()
			ref.tape.off = true
			rng := rand.New(rand.NewPCG(3, uint64(len(name))))
			x := make([]float64, nmc.Dim(m.Sites()))
			for range 10 {
				if err := m.Init(rng, x); err != nil {
					t.Fatal(err)
				}
				for g := range m.Groups() {
					var d1, d2 [2]float64
					f1, f2 := sc.ScoreOrbit(x, g, &d1), ref.ScoreOrbit(x, g, &d2)
					if !sameFloat(f1, f2) || !math.IsInf(f1, -1) && (!sameFloat(d1[0], d2[0]) || !sameFloat(d1[1], d2[1])) {
						t.Fatalf("group %d at %v: with tapes (%v, %v), general path (%v, %v)", g, x, f1, d1, f2, d2)
					}
					if v1, v2 := sc.ScoreOrbit(x, g, nil), ref.ScoreOrbit(x, g, nil); !sameFloat(v1, v2) {
						t.Fatalf("group %d at %v: values only, with tapes %v, general path %v", g, x, v1, v2)
					}
				}
			}
			groupRuns += sc.tape.runs
		})
	}
	if groupRuns == 0 {
		t.Error("no group's orbit score ran a tape")
	}
}

// TestOrbitTapeNoAllocation checks that a warm scorer's JointHessian of a
// recursion's block, run by tapes, does not allocate.
func TestOrbitTapeNoAllocation(t *testing.T) {
	for _, rc := range recursionCases(t, 50) {
		sc := rc.m.newScorer()
		x := rc.state(rand.New(rand.NewPCG(3, 5)))
		sites := []int{1, 3}
		g, h := make([]float64, 2), make([]float64, 4)
		sc.JointHessian(x, sites, g, h) // compile the tapes
		runs := sc.tape.runs
		if a := testing.AllocsPerRun(100, func() {
			sc.JointHessian(x, sites, g, h)
			sc.JointHessian(x, sites, nil, nil)
		}); a != 0 {
			t.Errorf("%s: %v allocations per JointHessian", rc.name, a)
		}
		if sc.tape.runs == runs {
			t.Errorf("%s: no tape ran", rc.name)
		}
	}
}
