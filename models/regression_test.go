package models

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/nmc"
)

func relDiff(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / max(math.Abs(a), math.Abs(b), 1)
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
		res, err := nmc.Sample(context.Background(), b.Model, &nmc.Options{Warmup: nmc.NoWarmup, Chains: 2, Draws: 5, Seed: 3, Init: [][]float64{start}, InitRefine: refine})
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
