package nmc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/nmc-go/nmc/draws"
)

// Neighborer is an optional interface of a Model: Neighbors(i) lists the sites whose
// values enter site i's score (its Markov blanket, site i itself excluded or not).
// With it, the sampler keeps a site's cached derivatives until one of those sites
// changes; without it, any change of another site invalidates the cache. (A site
// whose score reads very many sites is kept only until any change, which is cheaper
// to track and, with so many reads, almost always the same.)
type Neighborer interface {
	Neighbors(i int) []int
}

// Sample draws from the posterior of m by Newtonian Monte Carlo, running
// opts.Chains chains in parallel goroutines (nil opts means all defaults: 4 chains
// of 1000 draws after the adaptive warm-up, from plausible prior draws; see
// Options.Warmup and Options.Start; Result.Warnings says what went wrong). The chains
// are numbered globally from opts.FirstChain (see Options.FirstChain); a chain's
// random numbers depend on its global number only, and errors name chains by it.
//
// It returns an error, and no result, for an invalid model description or invalid
// options, naming the site or the field. Once chains run it always returns a result:
// if ctx is cancelled the chains stop and the result holds the draws completed so far
// together with an error wrapping ctx.Err(); if one chain fails (no finite starting
// point, a panic in model code, named by chain and site as in
// `nmc: chain 2, site "beta": panic: …`), the other chains finish, their draws are
// kept, and the error reports the failure.
//
// m.NewScorer and m.Init are called from the chain goroutines, one chain each, so
// they must be safe for concurrent use (Sites is called once, before).
func Sample(ctx context.Context, m Model, opts *Options) (*Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	run, err := newSampling(m, opts)
	if err != nil {
		return nil, err
	}
	sites, eff := run.sites, *run.opts
	var names []string
	for _, s := range sites {
		names = append(names, s.Coords()...)
	}
	run.genAt = len(names)
	if d, ok := m.(Deriver); ok {
		// Only a model that records derived quantities needs the call: Derive may
		// cost more than the draw's copy (a graph model makes a value scorer for it).
		if dn := d.DerivedNames(); len(dn) > 0 {
			names = append(names, dn...)
			run.deriver, run.genAt = d, len(names)
		}
	}
	if g, ok := m.(Generator); ok {
		if gn := g.GeneratedNames(); len(gn) > 0 {
			names = append(names, gn...)
			run.gen = g
		}
	}
	run.ncols = len(names)
	draws := &draws.Draws{Names: names, Chains: make([][]float64, eff.Chains)}
	if err := draws.Validate(); err != nil {
		return nil, fmt.Errorf("nmc: coordinate names: %w", err)
	}
	if eff.HeldOut != nil {
		run.nHeld = eff.HeldOut.Len()
		if run.nHeld < 0 {
			return nil, fmt.Errorf("nmc: Options.HeldOut.Len() = %d is negative", run.nHeld)
		}
	}

	run.meet = newWarmupMeeting(run.opts)
	run.thinMeet = newThinMeeting(run)
	start := time.Now()
	cpu0, cpuOK := processCPU()
	chains := make([]*Chain, eff.Chains)
	errs := make([]error, eff.Chains)
	var wg sync.WaitGroup
	for c := range chains {
		chains[c] = newChain(c, run)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[c] = chains[c].runChain(ctx)
		}()
	}
	wg.Wait()

	res := &Result{Draws: draws, FirstChain: eff.FirstChain, Wall: time.Since(start), Options: eff, NumHeldOut: run.nHeld, Schedule: run.schedule}
	if cpu1, ok := processCPU(); ok && cpuOK {
		res.CPU = cpu1 - cpu0
	}
	res.Sites, res.SitesPerChain = siteStats(run, chains)
	res.Moves, res.MovesPerChain = moveStats(run, chains)
	res.WarmupSweeps = make([]int, eff.Chains)
	res.Thin = make([]int, eff.Chains)
	res.PilotESS = make([]float64, eff.Chains)
	if eff.HeldOut != nil {
		res.HeldOut = make([][]float64, eff.Chains)
	}
	for c, ch := range chains {
		draws.Chains[c] = ch.out.rows[:ch.out.n*run.ncols]
		res.WarmupSweeps[c] = ch.warm.sweeps
		res.Thin[c], res.PilotESS[c] = ch.warm.thin, ch.warm.pilotESS
		res.Restarts = append(res.Restarts, ch.warm.restarts...)
		if res.HeldOut != nil {
			res.HeldOut[c] = ch.out.held[:ch.out.n*run.nHeld]
		}
		for _, st := range ch.moves {
			if r, ok := st.(reporter); ok {
				r.report(res, c)
			}
		}
	}
	if run.meet != nil {
		res.WarmupCheck = run.meet.check
	}
	res.Stuck = stuckSites(sites, draws.Chains, run.ncols)
	var failed []error
	for _, e := range errs {
		if e != nil && !errors.Is(e, ctx.Err()) {
			failed = append(failed, e)
		}
	}
	if ctx.Err() != nil {
		failed = append(failed, fmt.Errorf("nmc: sampling stopped: %w", ctx.Err()))
	}
	return res, errors.Join(failed...)
}

// checkSites validates the model's site descriptions.
func checkSites(sites []Site) error {
	if len(sites) == 0 {
		return errors.New("nmc: model has no sites")
	}
	seen := make(map[string]int, len(sites))
	for i, s := range sites {
		if s.Name == "" {
			return fmt.Errorf("nmc: site %d has an empty name", i)
		}
		if j, ok := seen[s.Name]; ok {
			return fmt.Errorf("nmc: site name %q is used by sites %d and %d", s.Name, j, i)
		}
		seen[s.Name] = i
		if s.Size < 1 {
			return fmt.Errorf("nmc: site %q has Size %d, want at least 1", s.Name, s.Size)
		}
		if s.CoordNames != nil && len(s.CoordNames) != s.Size {
			return fmt.Errorf("nmc: site %q has %d CoordNames for Size %d", s.Name, len(s.CoordNames), s.Size)
		}
		finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
		switch s.Support {
		case Real:
		case Positive:
			if !finite(s.Lower) {
				return fmt.Errorf("nmc: site %q: Positive Lower = %g is not finite", s.Name, s.Lower)
			}
		case Interval:
			if !finite(s.Lower) || !finite(s.Upper) || !(s.Lower < s.Upper) {
				return fmt.Errorf("nmc: site %q: Interval (%g, %g) needs finite Lower < Upper", s.Name, s.Lower, s.Upper)
			}
		case Simplex:
			if s.Size < 2 {
				return fmt.Errorf("nmc: site %q: Simplex has Size %d, want at least 2", s.Name, s.Size)
			}
		case Discrete:
			if s.Size != 1 {
				return fmt.Errorf("nmc: site %q: Discrete has Size %d, want 1", s.Name, s.Size)
			}
			if s.NumValues < 0 {
				return fmt.Errorf("nmc: site %q: NumValues = %d is negative", s.Name, s.NumValues)
			}
			if s.Marginalised && s.NumValues == 0 {
				return fmt.Errorf("nmc: site %q is Marginalised but has no finite NumValues (only a finite Discrete site can be summed out)", s.Name)
			}
		default:
			return fmt.Errorf("nmc: site %q has unknown Support %d", s.Name, int(s.Support))
		}
		if s.Marginalised && s.Support != Discrete {
			return fmt.Errorf("nmc: site %q is Marginalised but %v, not Discrete (only a finite Discrete site can be summed out)", s.Name, s.Support)
		}
	}
	return nil
}

// neighborhoods returns, when m is a Neighborer, dependents[j] = the sites whose score
// reads site j and is cached; nil otherwise. A finite Discrete site is scored afresh
// at every step (by enumeration) and keeps no cache, so it is nobody's dependent: in
// a model where every label reads its item's class, a labeler's confusion row would
// otherwise invalidate hundreds of classes at each change.
func neighborhoods(m Model, n int) ([][]int, error) {
	nb, ok := m.(Neighborer)
	if !ok {
		return nil, nil
	}
	sites := m.Sites()
	dep := make([][]int, n)
	for i := 0; i < n; i++ {
		if i < len(sites) && sites[i].Support == Discrete && sites[i].NumValues > 0 {
			continue
		}
		for _, j := range nb.Neighbors(i) {
			if j < 0 || j >= n {
				return nil, fmt.Errorf("nmc: Neighbors(%d) lists site %d, want 0 … %d", i, j, n-1)
			}
			if j != i {
				dep[j] = append(dep[j], i)
			}
		}
	}
	return dep, nil
}
