package models

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/nmc-go/nmc/nmc"
)

// regressionPair builds logistic or robust regression on generated data of n rows
// with the given prior (nil: the defaults; logistic regression uses its AlphaSD and
// BetaSD) and returns the hand-written model and the graph model it mirrors.
func regressionPair(t *testing.T, robust bool, n, k int, prior *RobustPrior) (*linearModel, nmc.Model) {
	t.Helper()
	rng := rand.New(rand.NewPCG(41, 7))
	var b *Built
	if robust {
		train, _, _, err := GenerateRobust(rng, n, k)
		if err != nil {
			t.Fatal(err)
		}
		if b, err = Robust(train, nil, prior); err != nil {
			t.Fatal(err)
		}
	} else {
		train, _, _, err := GenerateLogistic(rng, n, k)
		if err != nil {
			t.Fatal(err)
		}
		var lp *LogisticPrior
		if prior != nil {
			lp = &LogisticPrior{AlphaSD: prior.AlphaSD, BetaSD: prior.BetaSD}
		}
		if b, err = Logistic(train, nil, lp); err != nil {
			t.Fatal(err)
		}
	}
	lm, ok := b.Model.(*linearModel)
	if !ok {
		t.Fatalf("Built.Model is %T, want the hand-written *linearModel", b.Model)
	}
	return lm, b.Graph
}

func relDiff(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / max(math.Abs(a), math.Abs(b), 1)
}

// randomRobustPriors returns n random prior settings (every hyperparameter away
// from its default, over a wide range) from a fixed seed.
func randomRobustPriors(n int) []*RobustPrior {
	rng := rand.New(rand.NewPCG(2020, 5))
	u := func(lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }
	out := make([]*RobustPrior, n)
	for i := range out {
		out[i] = &RobustPrior{NuShape: u(0.5, 6), NuRate: u(0.02, 2), SigmaRate: u(0.02, 3), AlphaSD: u(0.3, 30), BetaSD: u(0.1, 8)}
	}
	return out
}

// TestLinearModelMatchesGraph compares the hand-written regression scorers with the
// graph engine's on random states: score differences between moves of one site,
// gradients, Hessians and log-joint differences agree to 1e-9. It does so at the
// default prior and at random ones, so that a prior one implementation handles
// differently (a hyperparameter ignored or hard-coded) fails.
func TestLinearModelMatchesGraph(t *testing.T) {
	priors := append([]*RobustPrior{nil}, randomRobustPriors(3)...)
	for _, robust := range []bool{false, true} {
		for pi, prior := range priors {
			name := map[bool]string{false: "logistic", true: "robust"}[robust]
			if prior == nil {
				name += "/default prior"
			} else {
				name += fmt.Sprintf("/random prior %d", pi)
			}
			t.Run(name, func(t *testing.T) {
				if prior != nil {
					t.Logf("prior %+v", *prior)
				}
				// The default prior on n = 18000 rows (9000 train: three chunks, the last
				// one partial); random priors on fewer rows, where the prior weighs more.
				n := 18000
				if prior != nil {
					n = 400
				}
				compareLinearWithGraph(t, robust, n, prior)
			})
		}
	}
}

// compareLinearWithGraph is one case of TestLinearModelMatchesGraph.
func compareLinearWithGraph(t *testing.T, robust bool, n int, prior *RobustPrior) {
	t.Helper()
	lm, gm := regressionPair(t, robust, n, 6, prior)
	if !reflect.DeepEqual(lm.Sites(), gm.Sites()) {
		t.Fatalf("sites differ: %v vs %v", lm.Sites(), gm.Sites())
	}
	fs, gs := lm.NewScorer(), gm.NewScorer()
	sites := gm.Sites()
	off := nmc.Offsets(sites)
	dim := nmc.Dim(sites)
	rng := rand.New(rand.NewPCG(3, 3))
	x, y := make([]float64, dim), make([]float64, dim)
	for trial := 0; trial < 20; trial++ {
		if err := gm.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		if trial%2 == 1 { // also states nearer the posterior: small coefficients
			for j := range x {
				if sites[siteOf(off, j)].Support == nmc.Real {
					x[j] *= 0.05
				}
			}
		}
		for i, s := range sites {
			k := s.Size
			g1, h1 := make([]float64, k), make([]float64, k*k)
			g2, h2 := make([]float64, k), make([]float64, k*k)
			f1 := fs.Score(x, i, g1, h1)
			f2 := gs.Score(x, i, g2, h2)
			copy(y, x)
			for j := 0; j < k; j++ {
				if s.Support == nmc.Positive {
					y[off[i]+j] = x[off[i]+j] * math.Exp(0.3*rng.NormFloat64())
				} else {
					y[off[i]+j] = x[off[i]+j] + 0.1*rng.NormFloat64()
				}
			}
			d1 := fs.Score(y, i, nil, nil) - f1
			d2 := gs.Score(y, i, nil, nil) - f2
			if relDiff(d1, d2) > 1e-9*max(1, math.Abs(f2)) {
				t.Errorf("trial %d site %s: score difference %.12g, graph %.12g", trial, s.Name, d1, d2)
			}
			for j := range g1 {
				if relDiff(g1[j], g2[j]) > 1e-9 {
					t.Errorf("trial %d site %s: grad[%d] = %.12g, graph %.12g", trial, s.Name, j, g1[j], g2[j])
				}
			}
			for j := range h1 {
				if relDiff(h1[j], h2[j]) > 1e-9 {
					t.Errorf("trial %d site %s: hess[%d] = %.12g, graph %.12g", trial, s.Name, j, h1[j], h2[j])
				}
			}
			if a, b := fs.LogJoint(x), gs.LogJoint(x); relDiff(a, b) > 1e-12*max(1, math.Abs(b)) {
				t.Errorf("trial %d: log joint %.12g, graph %.12g", trial, a, b)
			}
			lj1 := fs.LogJoint(y) - fs.LogJoint(x)
			lj2 := gs.LogJoint(y) - gs.LogJoint(x)
			if relDiff(lj1, lj2) > 1e-9*max(1, math.Abs(f2)) {
				t.Errorf("trial %d site %s: log-joint difference %.12g, graph %.12g", trial, s.Name, lj1, lj2)
			}
		}
	}
	if robust {
		copy(y, x)
		y[lm.offNu] = -1
		if v := fs.Score(y, lm.siteNu, nil, nil); !math.IsInf(v, -1) {
			t.Errorf("score at nu = -1 is %v, want -Inf", v)
		}
		y[lm.offNu], y[lm.offSigma] = 3, 0
		if v := fs.Score(y, lm.siteSigma, nil, nil); !math.IsInf(v, -1) {
			t.Errorf("score at sigma = 0 is %v, want -Inf", v)
		}
	}
}

func siteOf(off []int, j int) int {
	i := 0
	for i+1 < len(off) && off[i+1] <= j {
		i++
	}
	return i
}

// TestLinearModelWorkersIdentical checks that the chunked sums do not depend on the
// number of goroutines: one worker and three give bit-identical scores.
func TestLinearModelWorkersIdentical(t *testing.T) {
	lm, gm := regressionPair(t, true, 20000, 4, nil)
	sites := gm.Sites()
	x := make([]float64, nmc.Dim(sites))
	if err := gm.Init(rand.New(rand.NewPCG(5, 5)), x); err != nil {
		t.Fatal(err)
	}
	eval := func(workers int) []float64 {
		lm.workers = workers
		sc := lm.NewScorer()
		var out []float64
		for i, s := range sites {
			g, h := make([]float64, s.Size), make([]float64, s.Size*s.Size)
			out = append(out, sc.Score(x, i, g, h))
			out = append(out, g...)
			out = append(out, h...)
		}
		return append(out, sc.LogJoint(x))
	}
	a, b := eval(1), eval(3)
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("value %d: %v with 1 worker, %v with 3", i, a[i], b[i])
		}
	}
}

// TestLinearHeldOutChunked checks the chunked, parallel held-out likelihood of a test
// set larger than one chunk against the whole-set pointwise functions.
func TestLinearHeldOutChunked(t *testing.T) {
	for _, robust := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(12, 13))
		var train, test RegressionData
		var err error
		if robust {
			train, test, _, err = GenerateRobust(rng, 2*9000, 3)
		} else {
			train, test, _, err = GenerateLogistic(rng, 2*9000, 3)
		}
		if err != nil {
			t.Fatal(err)
		}
		var b *Built
		if robust {
			b, err = Robust(train, &test, nil)
		} else {
			b, err = Logistic(train, &test, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float64, nmc.Dim(b.Model.Sites()))
		if err := b.Model.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		got := make([]float64, b.HeldOut.Len())
		b.HeldOut.LogLik(x, got)
		want := make([]float64, len(got))
		h := b.HeldOut.(*linearHeldOut)
		beta := x[h.beta : h.beta+h.k]
		if robust {
			err = RobustPointwise(test, x[h.nu], x[h.sigma], x[h.alpha], beta, want)
		} else {
			err = LogisticPointwise(test, x[h.alpha], beta, want)
		}
		if err != nil {
			t.Fatal(err)
		}
		for j := range want {
			if relDiff(got[j], want[j]) > 1e-12 {
				t.Fatalf("robust=%v: point %d: %v, want %v", robust, j, got[j], want[j])
			}
		}
	}
}

// TestRobustStartInNuTail starts robust regression with the degrees of freedom far in
// their tail (nu = 80 on data generated with nu near 10), where nu's score is convex
// even on the log scale, so that neither the Gamma fit nor the log-scale Newton
// fallback applies. Start refinement must still move nu towards its mode (along the
// log-scale gradient) rather than leave the chain to diffuse down the tail: with
// refinement every chain's first draw has nu below 30, and without it (InitRefine −1)
// the chain stays above 40 for its first draws.
func TestRobustStartInNuTail(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 0x64617461))
	train, _, truth, err := GenerateRobust(rng, 20000, 10)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Robust(train, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := make([]float64, nmc.Dim(b.Model.Sites()))
	start[0], start[1], start[2] = 80, truth.Sigma, truth.Alpha
	copy(start[3:], truth.Beta)
	if truth.Nu > 20 {
		t.Fatalf("generated nu = %v; the test needs a start far above it", truth.Nu)
	}
	for _, refine := range []int{0, -1} {
		res, err := nmc.Sample(context.Background(), b.Model, &nmc.Options{Chains: 2, Draws: 5, Seed: 3, Init: [][]float64{start}, InitRefine: refine})
		if err != nil {
			t.Fatal(err)
		}
		nu := res.Draws.Column(0)
		for c := range nu {
			if refine == 0 && !(nu[c][0] < 30) {
				t.Errorf("chain %d: first nu draw %v after refinement, want below 30 (truth %v)", c, nu[c][0], truth.Nu)
			}
			if refine == -1 && !(nu[c][0] > 40) {
				t.Errorf("chain %d: first nu draw %v without refinement; the start is meant to be in the tail", c, nu[c][0])
			}
		}
	}
}
