package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// orbitAt writes into dst the point x(t) of group g's orbit through x.
func orbitAt(dst, x []float64, g nmc.Group, t float64) {
	copy(dst, x)
	for _, c := range g.Coords {
		if c.Kind == nmc.Shift {
			dst[c.Coord] = x[c.Coord] + c.Rate*t
			continue
		}
		a := 0.0
		if c.Anchor >= 0 {
			a = x[c.Anchor]
		}
		dst[c.Coord] = a + math.Exp(c.Rate*t)*(x[c.Coord]-a)
	}
}

// orbitErrors are the worst relative disagreements seen by compareOrbits.
type orbitErrors struct{ graph, fd1, fd2, diff float64 }

// compareOrbits checks every group of the hand-written regression lm against the
// graph model gm at random states: ScoreOrbit's derivatives against the graph
// engine's (relative 1e-9) and, at states near the posterior, against fourth-order
// central differences of the log joint along the orbit (relative 1e-6 plus the
// differences' rounding error), and orbit score differences between x and
// points x(t) against log-joint differences and the graph's (relative 1e-9 of the
// log joint).
func compareOrbits(t *testing.T, lm *linearModel, gm *graph.Model, trials int) orbitErrors {
	t.Helper()
	var worst orbitErrors
	groups := gm.Groups()
	if got := lm.Groups(); !reflect.DeepEqual(got, groups) {
		t.Fatalf("hand-written groups %+v, graph %+v", got, groups)
	}
	fs, gs := lm.NewScorer(), gm.NewScorer()
	fo, gor := fs.(nmc.OrbitScorer), gs.(nmc.OrbitScorer)
	sites := gm.Sites()
	off := nmc.Offsets(sites)
	dim := nmc.Dim(sites)
	rng := rand.New(rand.NewPCG(8, 21))
	x, xt := make([]float64, dim), make([]float64, dim)
	rel := func(a, b, scale float64) float64 { return math.Abs(a-b) / max(1, math.Abs(a), math.Abs(b), scale) }
	for trial := 0; trial < trials; trial++ {
		if err := gm.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		if trial%2 == 1 { // states nearer the posterior: small coefficients
			for j := range x {
				if sites[siteOf(off, j)].Support == nmc.Real {
					x[j] *= 0.05
				}
			}
		}
		lj0 := gs.LogJoint(x)
		for g, grp := range groups {
			var d1, d2 [2]float64
			f1 := fo.ScoreOrbit(x, g, &d1)
			f2 := gor.ScoreOrbit(x, g, &d2)
			if fv := fo.ScoreOrbit(x, g, nil); relDiff(fv, f1) > 1e-12 {
				t.Errorf("trial %d group %q: value with derivatives %.15g, without %.15g", trial, grp.Name, f1, fv)
			}
			for j := range d1 {
				e := rel(d1[j], d2[j], 0)
				worst.graph = max(worst.graph, e)
				if e > 1e-9 {
					t.Errorf("trial %d group %q: d[%d] = %.12g, graph %.12g", trial, grp.Name, j, d1[j], d2[j])
				}
			}
			// Finite differences of the log joint along the orbit.
			// Finite differences of the log joint along the orbit, at the states near
			// the posterior: at prior draws |η| reaches hundreds, and the logistic
			// likelihood along a dilation bends on a scale of t ~ 1/|η|, too short
			// for any finite-difference step.
			if trial%2 == 1 {
				fd1, fd2, r1, r2 := orbitFD(gs, x, xt, grp)
				e1 := math.Abs(d1[0]-fd1) / (1e-6*max(1, math.Abs(d1[0]), math.Abs(fd1)) + r1)
				e2 := math.Abs(d1[1]-fd2) / (1e-6*max(1, math.Abs(d1[1]), math.Abs(fd2)) + r2)
				worst.fd1, worst.fd2 = max(worst.fd1, rel(d1[0], fd1, 0)), max(worst.fd2, rel(d1[1], fd2, 0))
				if e1 > 1 || e2 > 1 {
					t.Errorf("trial %d group %q: d = (%.10g, %.10g), finite differences of the log joint (%.10g, %.10g) ± (%.2g, %.2g) rounding", trial, grp.Name, d1[0], d1[1], fd1, fd2, r1, r2)
				}
			}
			for _, tt := range []float64{0.2, -0.3} {
				orbitAt(xt, x, grp, tt)
				lj1 := gs.LogJoint(xt)
				df := fo.ScoreOrbit(xt, g, nil) - f1
				dg := gor.ScoreOrbit(xt, g, nil) - f2
				scale := max(1, math.Abs(lj0), math.Abs(lj1))
				e := max(math.Abs(df-(lj1-lj0)), math.Abs(df-dg)) / scale
				worst.diff = max(worst.diff, e)
				if e > 1e-9 {
					t.Errorf("trial %d group %q t = %v: orbit score difference %.15g, graph %.15g, log joint %.15g", trial, grp.Name, tt, df, dg, lj1-lj0)
				}
			}
		}
	}
	return worst
}

// TestLinearOrbitMatchesGraph checks the hand-written regressions' group move
// ("scale(alpha, beta)", declared by Logistic and Robust) against the graph model
// and finite differences, at the default prior on two chunks of rows and at random
// priors on fewer rows, where the prior weighs more.
func TestLinearOrbitMatchesGraph(t *testing.T) {
	priors := append([]*RobustPrior{nil}, randomRobustPriors(3)...)
	for _, robust := range []bool{false, true} {
		for pi, prior := range priors {
			name := map[bool]string{false: "logistic", true: "robust"}[robust]
			n := 400
			if prior == nil {
				name += "/default prior"
				n = 18000
			} else {
				name += fmt.Sprintf("/random prior %d", pi)
			}
			t.Run(name, func(t *testing.T) {
				lm, gm := regressionPair(t, robust, n, 6, prior)
				groups := gm.(*graph.Model).Groups()
				if len(groups) != 1 || groups[0].Name != "scale(alpha, beta)" || len(groups[0].Coords) != 7 {
					t.Fatalf("groups %+v, want scale(alpha, beta) over 7 coordinates", groups)
				}
				if lm.orbits[0].beta != betaDilated {
					t.Fatalf("the scale group is not scored from the cached X·beta")
				}
				w := compareOrbits(t, lm, gm.(*graph.Model), 10)
				t.Logf("worst relative error: vs graph %.2g; vs finite differences d[0] %.2g, d[1] %.2g; score differences %.2g", w.graph, w.fd1, w.fd2, w.diff)
			})
		}
	}
}

// TestLinearOrbitOtherGroups checks the hand-written orbit scores of groups the
// built-in models do not declare: other rates, shifts, beta alone, dilations about
// an anchor (scored with X·u and X·w), and groups that move nu or sigma (scored by
// the graph engine).
func TestLinearOrbitOtherGroups(t *testing.T) {
	for _, robust := range []bool{false, true} {
		name := map[bool]string{false: "logistic", true: "robust"}[robust]
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(4, 4))
			const k = 5
			var train RegressionData
			var err error
			if robust {
				train, _, _, err = GenerateRobust(rng, 600, k)
			} else {
				train, _, _, err = GenerateLogistic(rng, 600, k)
			}
			if err != nil {
				t.Fatal(err)
			}
			b := graph.New()
			var nu, sigma *graph.Node
			if robust {
				nu = b.Latent("nu", graph.Gamma(graph.C(2), graph.C(0.1)))
				sigma = b.Latent("sigma", graph.Exponential(graph.C(0.1)))
			}
			alpha := b.Latent("alpha", graph.Normal(graph.C(0), graph.C(10)))
			beta := b.Vector("beta", k, graph.Normal(graph.C(0), graph.C(2.5)))
			eta := graph.Add(alpha, graph.MatVec(train.X, beta))
			if robust {
				b.Observe("y", graph.StudentT(nu, eta, sigma), train.Y)
			} else {
				b.Observe("y", graph.BernoulliLogit(eta), train.Y)
			}
			b.Group("scale 0.6", graph.Dilate(alpha, 0.6), graph.Dilate(beta, 0.6))
			b.Group("mixed", graph.Dilate(alpha, 0.3), graph.Shift(beta, -0.7))
			b.Group("beta", graph.Dilate(beta, 1.5))
			b.Group("alpha", graph.Shift(alpha, 1))
			b.Group("beta about alpha", graph.DilateAbout(beta, alpha, 0.5))
			want := []betaOrbit{betaDilated, betaGeneral, betaDilated, betaFixed, betaGeneral}
			if robust {
				b.Group("noise", graph.Dilate(sigma, 1), graph.Dilate(nu, -0.5))
				b.Group("alpha about sigma", graph.DilateAbout(alpha, sigma, 1), graph.Dilate(beta, 1))
				want = append(want, betaFixed, betaDilated)
			}
			gm, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			lm := newLinearModel(gm, train, robust, 10, 2.5, 2, 0.1, 0.1)
			for g, o := range lm.orbits {
				if o.beta != want[g] || o.graph != (robust && g == 5) {
					t.Errorf("group %d classified %+v", g, o)
				}
			}
			w := compareOrbits(t, lm, gm, 10)
			t.Logf("worst relative error: vs graph %.2g; vs finite differences d[0] %.2g, d[1] %.2g; score differences %.2g", w.graph, w.fd1, w.fd2, w.diff)
			// Outside the support.
			x := make([]float64, nmc.Dim(gm.Sites()))
			if err := gm.Init(rng, x); err != nil {
				t.Fatal(err)
			}
			if robust {
				x[lm.offSigma] = -1
				if v := lm.NewScorer().(nmc.OrbitScorer).ScoreOrbit(x, 0, nil); !math.IsInf(v, -1) {
					t.Errorf("orbit score at sigma = -1 is %v, want -Inf", v)
				}
			}
			if v := lm.NewScorer().(nmc.OrbitScorer).ScoreOrbit(x, len(lm.orbits), nil); !math.IsNaN(v) {
				t.Errorf("orbit score of an unknown group is %v, want NaN", v)
			}
		})
	}
}

// orbitFD returns the first and second derivatives of the log joint along group
// g's orbit through x at t = 0 by fourth-order central differences (step 1e-3),
// with bounds on their rounding errors (from the largest |log joint| of the
// stencil): log joints of 10³–10⁴ lose about 1e-6 in a second difference.
func orbitFD(sc nmc.Scorer, x, xt []float64, g nmc.Group) (d1, d2, round1, round2 float64) {
	const h = 1e-3
	var lj [5]float64
	big := 0.0
	for i := range lj {
		orbitAt(xt, x, g, float64(i-2)*h)
		lj[i] = sc.LogJoint(xt)
		big = max(big, math.Abs(lj[i]))
	}
	d1 = (lj[0] - 8*lj[1] + 8*lj[3] - lj[4]) / (12 * h)
	d2 = (-lj[0] + 16*lj[1] - 30*lj[2] + 16*lj[3] - lj[4]) / (12 * h * h)
	// Each log joint is off by at most a few ulps of the largest (n terms summed
	// carry more: allow 8); the stencils' absolute coefficients sum to 18 and 64.
	const ulps = 8 * 0x1p-52
	return d1, d2, 18 * ulps * big / (12 * h), 64 * ulps * big / (12 * h * h)
}
