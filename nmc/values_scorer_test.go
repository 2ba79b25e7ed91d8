package nmc

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
)

// mixtureValues is mixtureModel whose scorer also implements ValuesScorer; calls
// counts the ScoreValues calls.
type mixtureValues struct {
	*mixtureModel
	calls *atomic.Int64
}

func (m mixtureValues) NewScorer() Scorer { return m }

// ScoreValues writes the score of every k at the given theta and checks that x is
// left as it was.
func (m mixtureValues) ScoreValues(x []float64, i int, dst []float64) {
	m.calls.Add(1)
	old := x[0]
	for v := range dst {
		r := x[1] - m.mu[v]
		dst[v] = math.Log(m.pi[v]) - 0.5*r*r
	}
	if x[0] != old {
		panic("x changed")
	}
}

// TestValuesScorer checks that enumeration through ScoreValues gives bit-identical
// draws to enumeration through Score, value by value, and that it is used.
func TestValuesScorer(t *testing.T) {
	base := &mixtureModel{pi: [3]float64{0.2, 0.3, 0.5}, mu: [3]float64{-3, 0, 4}}
	var calls atomic.Int64
	opts := func() *Options { return &Options{Warmup: NoWarmup, Chains: 2, Draws: 300, Seed: 17} }
	a, err := Sample(context.Background(), base, opts())
	if err != nil {
		t.Fatal(err)
	}
	b, err := Sample(context.Background(), mixtureValues{base, &calls}, opts())
	if err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 2*300 {
		t.Fatalf("ScoreValues called %d times, want one per draw and chain", n)
	}
	for p := range a.Draws.Names {
		ca, cb := a.Draws.Column(p), b.Draws.Column(p)
		for c := range ca {
			for d := range ca[c] {
				if math.Float64bits(ca[c][d]) != math.Float64bits(cb[c][d]) {
					t.Fatalf("%s chain %d draw %d: %v with Score, %v with ScoreValues", a.Draws.Names[p], c, d, ca[c][d], cb[c][d])
				}
			}
		}
	}
}
