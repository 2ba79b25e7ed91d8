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
// opts.Chains chains in parallel goroutines (nil opts means all defaults). The chains
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
	if m == nil {
		return nil, errors.New("nmc: nil model")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	sites := m.Sites()
	if err := checkSites(sites); err != nil {
		return nil, err
	}
	eff, err := opts.withDefaults(Dim(sites))
	if err != nil {
		return nil, err
	}
	dependents, err := neighborhoods(m, len(sites))
	if err != nil {
		return nil, err
	}
	groups, err := modelGroups(m, sites, &eff)
	if err != nil {
		return nil, err
	}
	if eff.hamSites, err = hamiltonianSites(m, sites); err != nil {
		return nil, err
	}
	if eff.Hamiltonian.Off {
		eff.hamSites = nil
	}
	if len(eff.hamSites) > 0 {
		// The block's defaults (see Options.Hamiltonian): one augmentation round, no
		// lead-and-follow moves unless asked for.
		if opts == nil || opts.AugmentRounds == 0 {
			eff.AugmentRounds = 1
		}
		if opts == nil || (opts.Joint.Leads == nil && opts.Joint.Steps == 0) {
			eff.Joint.Off = true
		}
	}
	if eff.jointLeads, err = jointLeads(m, sites, eff.Joint); err != nil {
		return nil, err
	}
	if eff.augSites, err = augmentedSites(m, sites, &eff); err != nil {
		return nil, err
	}
	var blocks []blockPlan
	if !eff.Fitted.Off && eff.Warmup != 0 { // without warm-up there is nothing to fit
		blocks = fittedBlocks(sites, groups)
	}
	var names []string
	for _, s := range sites {
		names = append(names, s.Coords()...)
	}
	if d, ok := m.(Deriver); ok {
		names = append(names, d.DerivedNames()...)
	}
	if g, ok := m.(Generator); ok {
		names = append(names, g.GeneratedNames()...)
	}
	draws := &draws.Draws{Names: names, Chains: make([][]float64, eff.Chains)}
	if err := draws.Validate(); err != nil {
		return nil, fmt.Errorf("nmc: coordinate names: %w", err)
	}
	nHeld := 0
	if eff.HeldOut != nil {
		nHeld = eff.HeldOut.Len()
		if nHeld < 0 {
			return nil, fmt.Errorf("nmc: Options.HeldOut.Len() = %d is negative", nHeld)
		}
	}

	start := time.Now()
	cpu0, cpuOK := processCPU()
	chains := make([]*chain, eff.Chains)
	errs := make([]error, eff.Chains)
	var wg sync.WaitGroup
	for c := range chains {
		chains[c] = newChain(c, m, sites, dependents, groups, blocks, &eff, len(names), nHeld)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[c] = chains[c].run(ctx)
		}()
	}
	wg.Wait()

	res := &Result{Draws: draws, FirstChain: eff.FirstChain, Wall: time.Since(start), Options: eff, NumHeldOut: nHeld}
	if cpu1, ok := processCPU(); ok && cpuOK {
		res.CPU = cpu1 - cpu0
	}
	res.Sites, res.SitesPerChain = siteStats(sites, &eff, chains)
	res.Groups, res.GroupsPerChain = groupStats(groups, chains)
	res.Fitted, res.FittedPerChain = fittedStats(blocks, &eff, chains)
	res.Joint, res.JointPerChain = jointStats(sites, chains)
	res.Hamiltonian, res.HamiltonianPerChain, res.HamiltonianChains = hamiltonianStats(eff.hamSites, chains)
	res.WarmupSweeps = make([]int, eff.Chains)
	if eff.HeldOut != nil {
		res.HeldOut = make([][]float64, eff.Chains)
	}
	for c, ch := range chains {
		draws.Chains[c] = ch.out[:ch.nrec*len(names)]
		res.WarmupSweeps[c] = ch.warmupSweeps
		if len(ch.replaced) > 0 {
			if res.ReplacedPerChain == nil {
				res.ReplacedPerChain = make([][]string, eff.Chains)
			}
			for _, i := range ch.replaced {
				res.ReplacedPerChain[c] = append(res.ReplacedPerChain[c], sites[i].Name)
			}
		}
		if res.HeldOut != nil {
			res.HeldOut[c] = ch.held[:ch.nrec*nHeld]
		}
		if ch.step != nil {
			ch.step.report(res, c)
		}
	}
	res.Stuck = stuckSites(sites, draws.Chains, len(names))
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
