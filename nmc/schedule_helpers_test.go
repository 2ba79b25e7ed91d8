package nmc

import (
	"testing"

	"github.com/nmc-go/nmc/draws"
)

// Test support for schedules: a chain made as Sample makes it, and a wrapper that
// makes a move in warm-up only.

// newTestChain returns chain 0 of model m with options o (nil: all defaults) as
// Sample makes it before its first sweep: its schedule planned, its Scorer made,
// its start set (Options.Init, or m.Init refined unless InitRefine < 0) and its
// moves started. It records nothing.
func newTestChain(t testing.TB, m Model, o *Options) *Chain {
	t.Helper()
	run, err := newSampling(m, o)
	if err != nil {
		t.Fatal(err)
	}
	run.opts.Draws, run.ncols = 0, Dim(run.sites)
	c := newChain(0, run)
	if err := c.startScorer(); err != nil {
		t.Fatal(err)
	}
	if err := c.init(); err != nil {
		t.Fatal(err)
	}
	if err := c.startMoves(); err != nil {
		t.Fatal(err)
	}
	c.at.phase = "sampling"
	return c
}

// testSweep makes one sweep of c, a warm-up sweep (number n of its phase) or a
// recorded one.
func (c *Chain) testSweep(warmup bool, n int) {
	c.warm.warmup, c.warm.sweep = warmup, n
	c.sweep()
}

// stepperOf returns the first of c's moves of type T.
func stepperOf[T Stepper](t testing.TB, c *Chain) T {
	t.Helper()
	for _, s := range c.moves {
		if st, ok := s.(T); ok {
			return st
		}
	}
	var zero T
	t.Fatalf("the chain has no move of type %T", zero)
	return zero
}

// warmupOnly is a move that makes the moves of Move in warm-up only: its
// schedules give the old test hooks (site steps in warm-up only, so that a fitted
// or lead move alone makes the recorded sweeps).
type warmupOnly struct{ Move }

func (w warmupOnly) Plan(p *Planner) ([]Planned, error) {
	ps, err := w.Move.Plan(p)
	for k, pm := range ps {
		ps[k] = warmupOnlyPlanned{pm}
	}
	return ps, err
}

// warmupOnlyPlanned forwards the planner's hooks to the move it wraps.
type warmupOnlyPlanned struct{ Planned }

func (w warmupOnlyPlanned) finish(p *Planner) (bool, error) {
	if f, ok := w.Planned.(finisher); ok {
		return f.finish(p)
	}
	return true, nil
}

func (w warmupOnlyPlanned) orbitGroup() (int, []OrbitCoord) {
	if o, ok := w.Planned.(orbitMover); ok {
		return o.orbitGroup()
	}
	return -1, nil
}

func (w warmupOnlyPlanned) Start(c *Chain) (Stepper, error) {
	s, err := w.Planned.Start(c)
	return warmupOnlyStepper{s}, err
}

// warmupOnlyStepper steps in warm-up only, and forwards the chain's hooks.
type warmupOnlyStepper struct{ Stepper }

func (w warmupOnlyStepper) Step(c *Chain) {
	if c.warm.warmup {
		w.Stepper.Step(c)
	}
}

func (w warmupOnlyStepper) Stats() []draws.SiteStats { return w.Stepper.Stats() }

func (w warmupOnlyStepper) Adapt(c *Chain, wu Warmup) {
	if a, ok := w.Stepper.(Adapter); ok {
		a.Adapt(c, wu)
	}
}

func (w warmupOnlyStepper) EndWarmup(c *Chain, wu Warmup) {
	if a, ok := w.Stepper.(Adapter); ok {
		a.EndWarmup(c, wu)
	}
}

func (w warmupOnlyStepper) restart() {
	if r, ok := w.Stepper.(restarter); ok {
		r.restart()
	}
}

// groupsOnly is the schedule of sweeps of group moves only (and the draws of
// Marginalised sites).
var groupsOnly = []Move{GroupMoves{}, AugmentRound{}}

// fittedOnly returns the schedule whose recorded sweeps make only the fitted
// steps f (and the draws of Marginalised sites); the warm-up makes the site steps
// and group moves too.
func fittedOnly(f FittedSteps) []Move {
	return []Move{warmupOnly{SiteSteps{}}, warmupOnly{GroupMoves{}}, f, AugmentRound{}}
}

// leadsOnly returns the schedule whose recorded sweeps make only the lead moves l
// (and the augmentation rounds); the warm-up makes the site steps and group moves
// too.
func leadsOnly(l LeadMoves) []Move {
	return []Move{warmupOnly{SiteSteps{}}, warmupOnly{GroupMoves{}}, l, AugmentRound{}}
}

// hamiltonianOnly returns the schedule of the Hamiltonian move h alone (and the
// augmentation round).
func hamiltonianOnly(h HamiltonianMove) []Move { return []Move{h, AugmentRound{}} }

// kindOf returns the kind of move a statistics entry of Result.Moves counts, by
// its proposer: "group", "fitted", "lead" or "hamiltonian".
func kindOf(s draws.SiteStats) string {
	switch s.Proposer {
	case orbitProposer:
		return "group"
	case fittedProposerGaussian, fittedProposerT:
		return "fitted"
	case jointProposer:
		return "lead"
	case hamiltonianProposer:
		return "hamiltonian"
	}
	return ""
}

// movesOf returns the entries of r.Moves of one kind (see kindOf), nil when
// there are none.
func movesOf(r *Result, kind string) []draws.SiteStats {
	var out []draws.SiteStats
	for _, s := range r.Moves {
		if kindOf(s) == kind {
			out = append(out, s)
		}
	}
	return out
}

// movesOfPerChain returns, chain by chain, the entries of r.MovesPerChain of one
// kind; nil when there are none.
func movesOfPerChain(r *Result, kind string) [][]draws.SiteStats {
	var out [][]draws.SiteStats
	for _, pc := range r.MovesPerChain {
		var row []draws.SiteStats
		for _, s := range pc {
			if kindOf(s) == kind {
				row = append(row, s)
			}
		}
		if row != nil {
			out = append(out, row)
		}
	}
	return out
}

// withReal returns the default schedule of a model without a Hamiltonian block,
// leads or augmented sites, with the proposal rp of Real sites.
func withReal(rp RealProposal) []Move {
	return []Move{SiteSteps{Real: rp}, GroupMoves{}, FittedSteps{}, AugmentRound{}}
}
