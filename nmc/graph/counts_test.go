package graph

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nmc-go/nmc/nmc"
)

// TestSelectionCountsFollowChanges walks a watched scorer of the explicit
// Dawid-Skene model through random changes of the state, reported as the sampler
// reports them (a class set to a value in range, out of range or not an integer and
// reported; several classes set then everything reported stale; an unchanged class
// reported; confusion rows and pi moved, which are not reported), and checks after
// each that its scores, gradients and Hessians of every continuous site equal a
// fresh scorer's bit for bit, at the watched state and at a copy of it.
func TestSelectionCountsFollowChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	ds := makeDS(rng, 40, 4, 3, 3)
	m := buildDS(t, ds, false)
	if m.countOf == nil {
		t.Fatal("no selection compiled with counts")
	}
	sites := m.Sites()
	off := nmc.Offsets(sites)
	var classes, rows []int
	for i, s := range sites {
		if s.Support == nmc.Discrete {
			classes = append(classes, i)
		} else {
			rows = append(rows, i)
		}
	}
	x := make([]float64, m.dim)
	if err := m.Init(rng, x); err != nil {
		t.Fatal(err)
	}
	watched := m.newScorer()
	watched.Watch(x)
	check := func(step int, at []float64) {
		if !sameScores(t, fmt.Sprintf("step %d (counted afresh: want)", step), watched, m.newScorer(), at, sites) {
			t.FailNow()
		}
	}
	for step := range 300 {
		switch r := rng.IntN(10); {
		case r < 5: // one class, reported
			i := classes[rng.IntN(len(classes))]
			x[off[i]] = []float64{0, 1, 2, 0, 1, 2, 7, 0.5}[rng.IntN(8)]
			watched.Changed(i)
		case r < 6: // several classes, then all reported stale
			for range 5 {
				x[off[classes[rng.IntN(len(classes))]]] = float64(rng.IntN(3))
			}
			watched.Changed(-1)
		case r < 7: // an unchanged class reported
			watched.Changed(classes[rng.IntN(len(classes))])
		default: // a confusion row or pi moved: not reported
			i := rows[rng.IntN(len(rows))]
			for c := range sites[i].Size {
				x[off[i]+c] = 0.05 + rng.Float64()
			}
		}
		check(step, x)
		if step%50 == 0 {
			check(step, slices.Clone(x))
		}
	}
	if watched.cs.n == nil {
		t.Fatal("the watched scorer never used its counts")
	}
}

// hiddenWatcher hides a graph scorer's DiscreteWatcher methods from the sampler,
// which then scores without the counts.
type hiddenWatcher struct{ m *Model }

func (h hiddenWatcher) Sites() []nmc.Site                      { return h.m.Sites() }
func (h hiddenWatcher) Init(rng *rand.Rand, x []float64) error { return h.m.Init(rng, x) }
func (h hiddenWatcher) NewScorer() nmc.Scorer                  { return hiddenScorer{h.m.newScorer()} }
func (h hiddenWatcher) Neighbors(i int) []int                  { return h.m.Neighbors(i) }
func (h hiddenWatcher) Leads() []string                        { return h.m.Leads() }
func (s hiddenScorer) Score(x []float64, i int, g, hs []float64) float64 {
	return s.s.Score(x, i, g, hs)
}
func (s hiddenScorer) LogJoint(x []float64) float64 { return s.s.LogJoint(x) }
func (s hiddenScorer) ScoreValues(x []float64, i int, dst []float64) {
	s.s.ScoreValues(x, i, dst)
}

type hiddenScorer struct{ s *scorer }

// TestSampleWithCountsSameDraws checks that the sampler's draws of the explicit
// Dawid-Skene model are the same bit for bit with the scorers' kept counts as
// without them, with and without lead-and-follow moves of pi whose followers are
// the classes (drawn, restored and reported inside the moves).
func TestSampleWithCountsSameDraws(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 5))
	ds := makeDS(rng, 60, 5, 3, 3)
	b, pi, _, _ := declareDS(ds)
	b.Lead(pi)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	// Without the lead moves, and with them, every site that reads pi following.
	follow, err := nmc.DefaultMoves(m, nmc.Defaults{})
	if err != nil {
		t.Fatal(err)
	}
	for _, mv := range follow {
		if l, ok := mv.(*nmc.LeadMoves); ok {
			l.Follow, l.Steps = -1, 3
		}
	}
	for _, joint := range [][]nmc.Move{{nmc.Defaults{NoLeadMoves: true}}, follow} {
		opts := &nmc.Options{Chains: 2, Draws: 150, Warmup: 100, Seed: 9, Moves: joint}
		a, err := nmc.Sample(context.Background(), m, opts)
		if err != nil {
			t.Fatal(err)
		}
		want, err := nmc.Sample(context.Background(), hiddenWatcher{m}, opts)
		if err != nil {
			t.Fatal(err)
		}
		for c := range a.Draws.Chains {
			if !slices.Equal(a.Draws.Chains[c], want.Draws.Chains[c]) {
				t.Errorf("schedule %v, chain %d: draws with the kept counts differ from those without", joint, c)
			}
		}
	}
}
