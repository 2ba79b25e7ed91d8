package nmc

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/draws"
)

// TestPointwiseDrawsMatchesHeldOut checks that evaluating a HeldOut after sampling,
// from the draws (derived columns included), gives bit for bit what the sampler
// recorded with Options.HeldOut.
func TestPointwiseDrawsMatchesHeldOut(t *testing.T) {
	h := heldOutNormal{ys: []float64{0.5, 1, 3}}
	m := derivedMVN{newMVNModel()}
	r := sample(t, m, &Options{Chains: 3, Draws: 40, Warmup: 10, Seed: 9, HeldOut: h})
	got, err := PointwiseDraws(m, r.Draws, h)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(r.HeldOut) {
		t.Fatalf("%d chains, want %d", len(got), len(r.HeldOut))
	}
	for c := range got {
		if len(got[c]) != len(r.HeldOut[c]) || len(got[c]) != 40*3 {
			t.Fatalf("chain %d: %d values, want %d", c, len(got[c]), len(r.HeldOut[c]))
		}
		for i, v := range got[c] {
			if math.Float64bits(v) != math.Float64bits(r.HeldOut[c][i]) {
				t.Fatalf("chain %d value %d: %v, recorded %v", c, i, v, r.HeldOut[c][i])
			}
		}
	}
}

// shiftReplicator replicates y = x[0] + z, z standard normal; it fails at x[0] < -100.
type shiftReplicator struct{}

func (shiftReplicator) NumReplicated() int { return 2 }
func (shiftReplicator) Replicate(rng *rand.Rand, x, dst []float64) error {
	if x[0] < -100 {
		return errors.New("x[0] below -100")
	}
	for i := range dst {
		dst[i] = x[0] + rng.NormFloat64()
	}
	return nil
}

func TestPredictiveDraws(t *testing.T) {
	m := derivedMVN{newMVNModel()}
	r := sample(t, m, &Options{Chains: 2, Draws: 500, Warmup: 50, Seed: 4})
	a, err := PredictiveDraws(m, r.Draws, shiftReplicator{}, 7, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := PredictiveDraws(m, r.Draws, shiftReplicator{}, 7, 0)
	// Chain 1 alone, as the second chain of a split run, gets the same replicates.
	one := &draws.Draws{Names: r.Draws.Names, Chains: r.Draws.Chains[1:]}
	split, err := PredictiveDraws(m, one, shiftReplicator{}, 7, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range split[0] {
		if v != a[1][i] {
			t.Fatalf("split run: chain 1 value %d differs", i)
		}
	}
	w := len(r.Draws.Names)
	sum, n := 0.0, 0
	for c := range a {
		if len(a[c]) != 500*2 {
			t.Fatalf("chain %d: %d values", c, len(a[c]))
		}
		for i, v := range a[c] {
			if v != b[c][i] {
				t.Fatalf("chain %d value %d differs between runs with one seed", c, i)
			}
			sum += v - r.Draws.Chains[c][(i/2)*w]
			n++
		}
	}
	if mean, se := sum/float64(n), 1/math.Sqrt(float64(n)); math.Abs(mean) > 5*se {
		t.Errorf("replicate − x[0]: mean %v, want 0 ± %v", mean, 5*se)
	}
	r.Draws.Chains[1][3*w] = -200
	if _, err := PredictiveDraws(m, r.Draws, shiftReplicator{}, 7, 0); err == nil {
		t.Error("failing Replicate: no error")
	}
}
