package nmc

import (
	"math"
	"sync"

	"github.com/nmc-go/nmc/diagnostics"
)

// Automatic thinning (Options.Thin = 0 with the adaptive warm-up). A single-site
// sampler's sweep costs little, but where the posterior couples its sites in ways
// no move follows (a two-state HMM whose rates overlap, N = 100: bulk ESS about
// 0.06 per sweep) 1000 sweeps per chain leave about 60 effective draws per chain,
// and the draws' R-hat lands at 1.02–1.03 while Stan's NUTS, whose trajectories
// grow with the posterior's correlation length, passes with the same number of
// draws. The analogue for single-site moves is more sweeps per draw.
//
// The chains measure their mixing on their first sweeps after warm-up, the
// thinning pilot (thinPilot sweeps, the moves as they will stay): the least ESS
// per sweep of their continuous coordinates (see chooseThin), over the pilots of all chains
// that warmed up together (they meet at its end, as at the warm-up's windows;
// one chain's 250 sweeps alone gave thinnings from 1 to 10 on an HMM), or
// of its own with Options.WarmupPerChain. Each then keeps one sweep in
// thin = ceil(autoThinTarget / that), at most autoThinMax, so that its recorded
// draws carry about autoThinTarget effective draws each: the pilot's sweeps are
// recorded as they run, and at its end only those s with (s+1) mod thin = 0 are
// kept, as they would have been with that thinning from the start; the chain
// goes on. A chain that mixes at least that well keeps every sweep, and records
// exactly the draws it recorded without the rule. The warm-up's own sweeps cannot
// tell: the moves still adapt there, and on normal_mixture and garch11 they mix
// 5–10× worse than after it.
//
// Generated quantities (Generator) are drawn at every pilot sweep, so a thinned
// chain's differ from those of a run given that Thin from the start; its states,
// derived quantities and held-out log-likelihoods do not.

const (
	// autoThinTarget is the least ESS per recorded draw the automatic
	// thinning aims at: Stan's draws of the ported posteriors carry 0.15–1.
	autoThinTarget = 0.25
	// autoThinMax bounds the automatic thinning.
	autoThinMax = 10
	// autoThinPilot is the length of the thinning pilot, in sweeps (fewer when
	// the chain records fewer draws): on a Gibbs pair of ESS 0.04 per sweep,
	// 4 × 250 sweeps chose thinnings of 5 to 10 over six seeds.
	autoThinPilot = 500
	// autoThinLeast is the shortest pilot that chooses a thinning: a shorter run
	// keeps every sweep.
	autoThinLeast = 100
)

// autoThins reports whether the chains choose their thinning.
func (o *Options) autoThins() bool { return o.Thin == 0 && o.adaptive() }

// thinPilot returns the length of the thinning pilot of a run with options o
// that chooses its thinning.
func thinPilot(o *Options) int { return min(autoThinPilot, o.Draws) }

// endPilot ends the thinning pilot of n sweeps, all of them recorded: the chain
// chooses its thinning, with the other chains when they meet, and keeps the
// recorded sweeps s with (s+1) mod thin = 0 (in place: the pilot needs no memory
// of its own). It reports false if the run was cancelled while it waited.
func (c *Chain) endPilot(n int) bool {
	out, ncols := &c.out, c.run.ncols
	own := out.rows[:n*ncols]
	if m := c.run.thinMeet; m != nil {
		thin, perSweep, ok := m.meet(c, own)
		if !ok {
			return false
		}
		c.warm.thin, c.warm.pilotESS = thin, perSweep
	} else {
		c.warm.thin, c.warm.pilotESS = chooseThin(c.run.sites, c.run.off, ncols, [][]float64{own}, n)
	}
	k := c.warm.thin
	if k == 1 {
		return true
	}
	nHeld := c.run.nHeld
	out.n = 0
	for s := k - 1; s < n; s += k {
		copy(out.rows[out.n*ncols:(out.n+1)*ncols], out.rows[s*ncols:(s+1)*ncols])
		copy(out.held[out.n*nHeld:(out.n+1)*nHeld], out.held[s*nHeld:(s+1)*nHeld])
		out.n++
	}
	return true
}

// chooseThin returns the thinning for chains whose pilots are the n recorded
// draws in pilots[c] (rows of stride columns, the state first): one sweep in
// ceil(autoThinTarget / e) for e the least ESS per sweep of a coordinate of the
// model's continuous sites (the marginalised and other discrete sites are drawn
// exactly or enumerated, and follow the continuous ones), between 1 and
// autoThinMax; 1 for fewer than autoThinLeast draws. It returns that e too (NaN
// when nothing was measured). The ESS is
// diagnostics.ESSBasic's of the coordinate on its unconstrained scale (log,
// logit, the simplex's log), whose tails are light where the bounded scale's
// need not be: the bulk ESS ranks the draws, and sorting 4 × 500 draws of each of
// the Dawid-Skene model's 903 coordinates cost 0.4 s of a 2.6 s run.
func chooseThin(sites []Site, off []int, stride int, pilots [][]float64, n int) (thin int, perSweep float64) {
	if n < autoThinLeast || len(pilots) == 0 {
		return 1, math.NaN()
	}
	series := make([][]float64, len(pilots))
	for c := range series {
		series[c] = make([]float64, n)
	}
	least := math.Inf(1)
	for i, site := range sites {
		if site.Support == Discrete {
			continue
		}
		for j := range site.Size {
			for c, p := range pilots {
				for s := range n {
					series[c][s] = unconstrained(site, p[s*stride+off[i]+j])
				}
			}
			ess, err := diagnostics.ESSBasic(series)
			if err != nil || math.IsNaN(ess) {
				continue // a constant coordinate: nothing to measure
			}
			least = min(least, ess)
		}
	}
	if math.IsInf(least, 1) {
		return 1, math.NaN()
	}
	perSweep = least / float64(n*len(pilots))
	if perSweep >= autoThinTarget {
		return 1, perSweep
	}
	return min(int(math.Ceil(autoThinTarget/perSweep)), autoThinMax), perSweep
}

// thinMeeting is where the chains that warmed up together meet at the end of
// their thinning pilots to choose one thinning.
type thinMeeting struct {
	mu      sync.Mutex
	present []bool      // the chain has not stopped (cancelled, failed) before it
	pilots  [][]float64 // each arrived chain's pilot; nil until it arrives
	n       int         // the pilots' length in sweeps
	thin    int
	ess     float64       // the ESS per sweep measured
	done    chan struct{} // closed once thin is chosen
	decided bool
	sites   []Site
	off     []int
	stride  int // the pilots' columns
}

// newThinMeeting returns the meeting of a run whose chains warm up together
// and choose their thinning, or nil.
func newThinMeeting(run *sampling) *thinMeeting {
	o := run.opts
	if run.meet == nil || !o.autoThins() {
		return nil
	}
	m := &thinMeeting{present: make([]bool, o.Chains), pilots: make([][]float64, o.Chains), n: thinPilot(o),
		done: make(chan struct{}), sites: run.sites, off: run.off, stride: run.ncols}
	for c := range m.present {
		m.present[c] = true
	}
	return m
}

// meet brings chain c's pilot to the meeting, waits for the other chains and
// returns the thinning and the ESS per sweep measured; ok is false if the run
// was cancelled meanwhile.
func (m *thinMeeting) meet(c *Chain, pilot []float64) (thin int, perSweep float64, ok bool) {
	m.mu.Lock()
	m.pilots[c.local] = pilot
	m.decideIfAll()
	m.mu.Unlock()
	select {
	case <-m.done:
		return m.thin, m.ess, true
	case <-c.warm.done:
		c.warm.stopped = true
		return 1, math.NaN(), false
	}
}

// leave takes chain c out of the meeting (it stopped before reaching it, or it
// is done); the others decide without it.
func (m *thinMeeting) leave(c *Chain) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pilots[c.local] == nil {
		m.present[c.local] = false
		m.decideIfAll()
	}
}

// decideIfAll chooses the thinning once every present chain has arrived (and one
// has). The caller holds m.mu.
func (m *thinMeeting) decideIfAll() {
	if m.decided {
		return
	}
	var pilots [][]float64
	for c, p := range m.pilots {
		if m.present[c] && p == nil {
			return
		}
		if p != nil {
			pilots = append(pilots, p)
		}
	}
	if len(pilots) == 0 {
		return
	}
	m.thin, m.ess = chooseThin(m.sites, m.off, m.stride, pilots, m.n)
	m.decided = true
	close(m.done)
}

// unconstrained maps a coordinate's value v of site s to its unconstrained scale
// (per coordinate; a simplex's by its log).
func unconstrained(s Site, v float64) float64 {
	switch s.Support {
	case Positive:
		return math.Log(v - s.Lower)
	case Interval:
		u := (v - s.Lower) / (s.Upper - s.Lower)
		return math.Log(u) - math.Log1p(-u)
	case Simplex:
		return math.Log(v)
	}
	return v
}
