package nmc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/nmc-go/nmc/draws"
)

// progressEvery is the least time between two progress reports of one chain.
const progressEvery = 50 * time.Millisecond

// Chain is one Markov chain as the moves see it: the state, the score caches,
// the random stream, the recorded draws and the moves of a sweep in their order
// (one Stepper per planned move). Everything a sweep needs is allocated before
// the first one; a running chain does not allocate. Its exported methods are what
// a user's move (Stepper) uses.
type Chain struct {
	run   *sampling    // what the chains of the run share
	local int          // the chain's index in this run, 0 … Chains−1
	sc    scorers      // the chain's Scorer and its optional interfaces
	rng   *rand.Rand   // the chain's random stream
	x     []float64    // the full state
	sites []siteState  // per site: proposer, derivative cache, statistics
	cache cacheState   // which sites' cached scores are valid
	orbit []orbitState // per group of the model: its statistics and last orbit score
	moves []Stepper    // the sweep's moves, in the schedule's order
	warm  warmupState  // where the chain is in its run, and the adaptive warm-up
	out   output       // the recorded draws
	at    where        // what the chain is doing, for panic messages
	// logits is the scratch of a finite Discrete site's enumeration.
	logits []float64
}

// thinnedEvery is the period, in sweeps after warm-up, of the site steps of a
// thinned site (siteState.thinned: a fitted block replaces them, see
// replaceSiteSteps).
const thinnedEvery = 8

// siteState is one site's part of a chain.
type siteState struct {
	prop  proposer        // the site's proposer; nil for a discrete site
	slots [2]slot         // the current and the proposed point (the cache)
	cur   uint8           // the index of the current slot
	stats draws.SiteStats // its proposals (counts only; named in the Result)
	// thinned reports that after warm-up a move replaces the site's own steps on
	// all but every thinnedEvery-th sweep (see replaceSiteSteps).
	thinned bool
}

// orbitState is one group's part of a chain, shared by the moves that use its
// orbit (GroupMoves steps along it, FittedSteps scores its block by it).
type orbitState struct {
	stats draws.SiteStats // the group move's proposals
	score orbitScore      // the orbit score at the state the last move left
}

// warmupState says where the chain is in its run, and holds the adaptive
// warm-up's state (see warmup.go).
type warmupState struct {
	warmup bool            // the current sweep is a warm-up sweep
	sweep  int             // the current sweep's number in its phase, from 0
	sweeps int             // the warm-up's length, once it is over
	done   <-chan struct{} // the run's cancellation
	// stopped reports that a move saw done closed in the current sweep.
	stopped bool
	// stable is the sweep where the current stationary period began; lj holds
	// the log joint of its latest 2·autoWindow sweeps, and recent that of the
	// latest 2·autoWindow warm-up sweeps, sweep s at s mod 2·autoWindow
	// (adaptive warm-up only).
	stable     int
	lj, recent []float64
	// own reports that the chain's own test passed at a window end since its
	// stationary period began.
	own bool
	// proposals, accepted (by the MH test), moved and unmoved (see
	// draws.SiteStats) are each site's step counts at the last window end.
	proposals, accepted, moved, unmoved []int
	// restarts are the chain's restarts from a fresh start; saved keeps the
	// state during one; from is the state at the start of the current window
	// (see frozenSpacings).
	restarts    []Restart
	saved, from []float64
	// thin is the chain's thinning (Options.Thin, or the one it chose, see
	// thin.go), pilotESS the ESS per sweep its thinning pilot measured (NaN
	// without one).
	thin     int
	pilotESS float64
}

// where is what the chain is doing, for panic messages: the site or the group
// being stepped (−1: none), else the phase.
type where struct {
	site, group int
	phase       string
}

// newChain returns the chain with local index local of the run.
func newChain(local int, run *sampling) *Chain {
	sites := run.sites
	num := run.opts.FirstChain + local
	c := &Chain{
		run:   run,
		local: local,
		rng:   rand.New(rand.NewPCG(run.opts.Seed, uint64(num))),
		x:     make([]float64, Dim(sites)),
		sites: make([]siteState, len(sites)),
		orbit: make([]orbitState, run.groups),
		at:    where{site: -1, group: -1},
	}
	c.cache = newCacheState(run)
	if run.opts.adaptive() {
		c.warm.lj, c.warm.recent = make([]float64, 2*autoWindow), make([]float64, 2*autoWindow)
		c.warm.proposals, c.warm.accepted = make([]int, len(sites)), make([]int, len(sites))
		c.warm.moved, c.warm.unmoved = make([]int, len(sites)), make([]int, len(sites))
		c.warm.saved, c.warm.from = make([]float64, len(c.x)), make([]float64, len(c.x))
	}
	maxValues := 0
	for i, s := range sites {
		c.sites[i].prop = newProposer(s, run.real)
		c.sites[i].slots = [2]slot{newSlot(s.Size), newSlot(s.Size)}
		maxValues = max(maxValues, s.NumValues)
	}
	c.logits = make([]float64, maxValues)
	c.out = newOutput(run, num)
	return c
}

// num returns the chain's global number FirstChain + local, which seeds it and
// names it.
func (c *Chain) num() int { return c.run.opts.FirstChain + c.local }

// run initialises the chain and samples. It returns on completion, cancellation
// (with the context's error) or a failure; a panic in model code is returned as an
// error naming the chain and the site, the group or the phase.
func (c *Chain) runChain(ctx context.Context) (err error) {
	defer func() {
		if r := recover(); r != nil {
			switch {
			case c.at.site >= 0:
				err = fmt.Errorf("nmc: chain %d, site %q: panic: %v", c.num(), c.run.sites[c.at.site].Name, r)
			case c.at.group >= 0:
				err = fmt.Errorf("nmc: chain %d, group %q: panic: %v", c.num(), c.run.groupNames[c.at.group], r)
			default:
				err = fmt.Errorf("nmc: chain %d, %s: panic: %v", c.num(), c.at.phase, r)
			}
		}
	}()
	defer c.leaveMeetings()
	defer c.run.thinMeet.leave(c)
	c.at.phase = "NewScorer"
	if err := c.startScorer(); err != nil {
		return err
	}
	c.at.phase = "initialisation"
	if err := c.init(); err != nil {
		return err
	}
	if err := c.startMoves(); err != nil {
		return err
	}
	c.at.phase = "sampling"
	o := c.run.opts
	c.warm.thin, c.warm.pilotESS = max(o.Thin, 1), math.NaN()
	sampling := o.Draws * c.warm.thin
	warmMax := o.fixedWarmup()
	if o.adaptive() {
		warmMax = o.WarmupMax
	}
	total := warmMax + sampling
	last := time.Now()
	done := ctx.Done()
	c.warm.done = done
	progress := func(sweep int) {
		if o.Progress != nil {
			if now := time.Now(); now.Sub(last) >= progressEvery {
				last = now
				o.Progress(Progress{Chain: c.local, Done: sweep + 1, Total: total})
			}
		}
	}
	sweep := 0
	c.warm.warmup = true
	copy(c.warm.from, c.x)
	for sweep < warmMax {
		select {
		case <-done:
			c.report(sweep, total)
			return ctx.Err()
		default:
		}
		c.warm.sweep = sweep
		if !c.sweep() {
			c.report(sweep, total)
			return ctx.Err()
		}
		complete := c.afterWarmupSweep(sweep)
		progress(sweep)
		sweep++
		if c.run.meet != nil {
			complete = false
			if sweep%autoWindow == 0 || sweep == warmMax {
				end, stopped := c.meet(sweep, c.warm.own)
				if stopped {
					c.report(sweep, total)
					return ctx.Err()
				}
				complete = end
			}
		}
		if complete {
			break
		}
	}
	c.leaveMeetings()
	c.endWarmup(sweep)
	total = sweep + sampling
	c.warm.warmup = false
	pilot := 0
	if o.autoThins() {
		pilot = thinPilot(o)
	}
	for s := 0; s < sampling; s++ {
		select {
		case <-done:
			c.report(sweep, total)
			return ctx.Err()
		default:
		}
		c.warm.sweep = s
		if !c.sweep() {
			c.report(sweep, total)
			return ctx.Err()
		}
		switch {
		case s < pilot:
			c.record()
			if s+1 == pilot {
				if !c.endPilot(pilot) {
					c.report(sweep, total)
					return ctx.Err()
				}
				sampling = o.Draws * c.warm.thin
				total = sweep + 1 + sampling - pilot
			}
		case (s+1)%c.warm.thin == 0:
			c.record()
		}
		progress(sweep)
		sweep++
	}
	c.report(total, total)
	return nil
}

func (c *Chain) report(done, total int) {
	if p := c.run.opts.Progress; p != nil {
		p(Progress{Chain: c.local, Done: done, Total: total})
	}
}

// startMoves starts the schedule's moves in this chain (Planned.Start), in order.
func (c *Chain) startMoves() error {
	c.moves = make([]Stepper, len(c.run.schedule))
	for k, p := range c.run.schedule {
		c.at.phase = fmt.Sprintf("start of move %q", p.Name())
		s, err := p.Start(c)
		if err != nil {
			return fmt.Errorf("nmc: chain %d: move %q: %w", c.num(), p.Name(), err)
		}
		c.moves[k] = s
	}
	return nil
}

// sweep makes every move of the schedule once, in order (see the package
// documentation), and reports false if the run was cancelled meanwhile (a move
// checks now and then, see Chain.cancelled; the partial sweep is not recorded).
func (c *Chain) sweep() bool {
	for _, m := range c.moves {
		m.Step(c)
		if c.warm.stopped {
			return false
		}
	}
	return true
}

// cancelled reports, and remembers for the sweep, whether the run was cancelled:
// a long move (the steps of many sites) checks it now and then and returns early.
func (c *Chain) cancelled() bool {
	select {
	case <-c.warm.done:
		c.warm.stopped = true
		return true
	default:
		return false
	}
}

// countAccepted counts an accepted proposal y of a continuous site from x in st:
// as Unmoved when y is x bit for bit, else as Accepted (see draws.SiteStats).
// The chain takes an unmoved proposal as any accepted one.
func countAccepted(st *draws.SiteStats, x, y []float64) {
	for j, v := range x {
		if math.Float64bits(v) != math.Float64bits(y[j]) {
			st.Accepted++
			return
		}
	}
	st.Unmoved++
}

// acceptedMH returns the proposals of st that the Metropolis-Hastings test
// accepted, those that did not move the site included: the warm-up's decisions
// (dislodge, wellMixed) read them.
func acceptedMH(st draws.SiteStats) int { return st.Accepted + st.Unmoved }
