package nmc

import (
	"slices"
	"testing"
)

// leadTrace is what a hook after the lead moves saw of the lead's stepper at
// every sweep of one chain: the warm-up's move count and walk (nil before its
// first fit), then the count and walk after warm-up.
type leadTrace struct {
	warmMoves []int
	warmWalk  [][]float64
	moves     []int
	walk      [][]float64
}

// leadStepperOf returns chain c's stepper of the lead moves; it panics (an
// error of the run) when there is none.
func leadStepperOf(c *Chain) *leadStepper {
	for _, m := range c.moves {
		if st, ok := m.(*leadStepper); ok {
			return st
		}
	}
	panic("no lead stepper in the chain's moves")
}

// TestLeadMovesInWarmup: the lead moves run in warm-up, from the first window end
// at which the warm-up's stationary part (without the adaptive warm-up's first
// window) holds enough draws of the lead, by a walk refitted at every window end
// and fixed within a window; after warm-up by the walk fitted at its end, frozen,
// and only those moves are counted in the statistics. A restart of the
// stationary period stops the warm-up's moves until the next fit.
func TestLeadMovesInWarmup(t *testing.T) {
	t.Parallel()
	const steps = 2
	for _, c := range []struct {
		name   string
		warmup int
		first  int // the first warm-up sweep (from 0) with moves
	}{
		{"fixed 300", 300, 200},                // draws from sweep 151: 50 at the end of sweep 200
		{"fixed 60", 60, 50},                   // draws from sweep 31: 20 (minLeadDraws) at 50
		{"adaptive", AutoWarmup, 100},          // draws from sweep 51 (after the first window)
		{"adaptive, restart", AutoWarmup, 100}, // the stationary period restarted after 120 sweeps
	} {
		var tr leadTrace
		restart := c.name == "adaptive, restart"
		hook := hookMove{fn: func(ch *Chain, sweep int) {
			st := leadStepperOf(ch)
			tr.warmMoves = append(tr.warmMoves, st.warmStats.Proposals)
			var l []float64
			if st.warmFit {
				l = slices.Clone(st.warm.l)
			}
			tr.warmWalk = append(tr.warmWalk, l)
			if restart && sweep == 120 {
				ch.restartStationary(sweep) // as a window end after 120 sweeps would
			}
		}}
		after := hookMove{sampling: true, fn: func(ch *Chain, sweep int) {
			st := leadStepperOf(ch)
			if len(tr.warmMoves) == 0 {
				panic("a sweep after warm-up with no warm-up sweep seen")
			}
			tr.moves = append(tr.moves, st.stats.Proposals)
			tr.walk = append(tr.walk, slices.Clone(st.move.l))
			if st.warmStats.Proposals != tr.warmMoves[len(tr.warmMoves)-1] {
				t.Errorf("%s: warm-up moves at sweep %d after warm-up", c.name, sweep)
			}
		}}
		o := &Options{Chains: 1, Draws: 200, Thin: 1, Warmup: c.warmup, Seed: 511, InitRefine: -1,
			Moves: []Move{SiteSteps{}, LeadMoves{Follow: -1, Steps: steps}, hook, after}}
		r := sample(t, dirichletGamma{}, o)
		n := len(tr.warmMoves)
		if n != r.WarmupSweeps[0] {
			t.Fatalf("%s: %d warm-up sweeps seen, %d made", c.name, n, r.WarmupSweeps[0])
		}
		for s := range n {
			want := steps * max(0, s-c.first+1)
			if restart && s > 120 {
				// The moments restart after sweep 120 and leave out the new
				// period's first window: 30 draws at the end of sweep 200, its
				// first fit.
				want = steps * (121 - c.first + max(0, s-200+1))
			}
			if tr.warmMoves[s] != want {
				t.Fatalf("%s: %d warm-up moves after sweep %d, want %d", c.name, tr.warmMoves[s], s, want)
			}
			// The walk is refitted at window ends only.
			if s > 0 && s%autoWindow != 0 && !slices.Equal(tr.warmWalk[s], tr.warmWalk[s-1]) && !(restart && s == 121) {
				t.Fatalf("%s: the warm-up's walk changed at sweep %d, within a window", c.name, s)
			}
			if s >= c.first+autoWindow && s%autoWindow == 0 && tr.warmWalk[s] != nil && slices.Equal(tr.warmWalk[s], tr.warmWalk[s-1]) {
				t.Fatalf("%s: the warm-up's walk was not refitted at sweep %d", c.name, s)
			}
		}
		for s := range tr.moves {
			if tr.moves[s] != steps*(s+1) || !slices.Equal(tr.walk[s], tr.walk[0]) {
				t.Fatalf("%s: sweep %d after warm-up: %d moves, walk %v (first %v)", c.name, s, tr.moves[s], tr.walk[s], tr.walk[0])
			}
		}
		if got := movesOf(r, "lead")[0].Proposals; got != steps*200 {
			t.Errorf("%s: %d moves counted, want the %d after warm-up", c.name, got, steps*200)
		}
	}
}
