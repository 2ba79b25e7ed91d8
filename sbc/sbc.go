package sbc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/nmc"
)

// Simulator draws one simulated data set: parameters θ̃ from the prior and data ỹ
// from the likelihood given θ̃, using only rng. It returns the posterior model given
// ỹ and the simulated values of the parameters to rank, keyed by the model's draw
// column names ("mu", "beta[0]", "p[2]"). Parameters left out of truth are sampled
// but not ranked. Every simulation of a run must return the same parameter names.
type Simulator func(rng *rand.Rand) (model nmc.Model, truth map[string]float64, err error)

// Config configures Run. The zero value of every field but Simulator is its
// documented default.
type Config struct {
	// Simulator draws each simulation's parameters and data (required).
	Simulator Simulator
	// Sims is the number of simulations (default 200). Must not be negative.
	Sims int
	// Seed seeds every simulation: simulation i uses rand.NewPCG(Seed, i).
	Seed uint64
	// MaxRank is the number L of posterior draws each simulated value is ranked
	// among, so that ranks run from 0 to L (default 99: 100 rank values, 10 per bin
	// of a 10-bin histogram). It must be a multiple of Chains.
	MaxRank int
	// Chains is the number of chains per simulation (default 1); each records
	// MaxRank/Chains draws. Simulations already run in parallel, so more chains
	// mainly help models whose chains must be long.
	Chains int
	// Warmup is the number of warm-up sweeps per chain (default 100), or
	// nmc.AutoWarmup for the sampler's adaptive warm-up (start refinement repeated
	// at the end of every window: for models whose scale parameters can be left in
	// a convex tail of their conditional once the other sites move). Must be
	// nmc.AutoWarmup or not negative.
	Warmup int
	// Thin keeps every Thin-th sweep after warm-up (default 10), so that the MaxRank
	// ranked draws are roughly independent. Result.ESS shows whether they are.
	Thin int
	// Workers is the number of simulations run at once (default GOMAXPROCS). It
	// does not change the result.
	Workers int
	// Sampler holds the other options of nmc.Sample (the schedule of moves,
	// InitRefine, InitRetries); nil means the defaults. Its Chains, Draws, Warmup,
	// Thin, Seed, FirstChain, Init, HeldOut and Progress are set by Run.
	Sampler *nmc.Options
	// Progress, when non-nil, is called after each simulation with the number of
	// simulations done and their total; the calls are serialised.
	Progress func(done, total int)
}

// withDefaults validates c and returns a copy with the defaults filled in.
func (c *Config) withDefaults() (Config, error) {
	e := *c
	if e.Simulator == nil {
		return e, errors.New("sbc: Config.Simulator is nil")
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"Sims", e.Sims}, {"MaxRank", e.MaxRank}, {"Chains", e.Chains}, {"Warmup", e.Warmup}, {"Thin", e.Thin}, {"Workers", e.Workers}} {
		if f.v < 0 && !(f.name == "Warmup" && f.v == nmc.AutoWarmup) {
			return e, fmt.Errorf("sbc: Config.%s = %d is negative", f.name, f.v)
		}
	}
	if e.Sims == 0 {
		e.Sims = 200
	}
	if e.MaxRank == 0 {
		e.MaxRank = 99
	}
	if e.Chains == 0 {
		e.Chains = 1
	}
	if e.Warmup == 0 {
		e.Warmup = 100
	}
	if e.Thin == 0 {
		e.Thin = 10
	}
	if e.Workers == 0 {
		e.Workers = runtime.GOMAXPROCS(0)
	}
	if e.MaxRank%e.Chains != 0 {
		return e, fmt.Errorf("sbc: Config.MaxRank = %d is not a multiple of Config.Chains = %d", e.MaxRank, e.Chains)
	}
	return e, nil
}

// Result is the outcome of Run.
type Result struct {
	// Variables are the ranked parameters, in the order of the model's draw columns.
	Variables []string
	// MaxRank is the largest rank L: every rank is in 0 … MaxRank.
	MaxRank int
	// Ranks[i][v] is the rank of the simulated value of Variables[v] in simulation
	// i (0-based) among its MaxRank posterior draws.
	Ranks [][]int
	// Simulated[i][v] is the simulated (true) value of Variables[v] in simulation i.
	Simulated [][]float64
	// ESS[i][v] is the bulk effective sample size (diagnostics.ESSBulk) of the
	// ranked draws of Variables[v] in simulation i; near MaxRank when the thinned
	// draws are nearly independent, NaN when they are all equal.
	ESS [][]float64
	// Stats[i] holds the sampler's proposal statistics of simulation i, totals over
	// its chains: every site, then every group move (nmc.Result.AllStats).
	Stats [][]draws.SiteStats
	// Config is the effective configuration, defaults filled in.
	Config Config
}

// Run runs simulation-based calibration as Config describes (see the package
// documentation) and returns the ranks. It returns an error for an invalid Config,
// the first failing simulation's error (by index, naming it: the simulator's, the
// sampler's, a simulated value that is not finite or not a draw column, parameter
// names that differ between simulations) and ctx's error when ctx is cancelled.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	sims := make([]simulation, c.Sims)
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next atomic.Int64
		mu   sync.Mutex
		done int
		wg   sync.WaitGroup
	)
	for range min(c.Workers, c.Sims) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= c.Sims || ctx.Err() != nil {
					return
				}
				sims[i] = runOne(ctx, &c, i)
				if sims[i].err != nil {
					cancel() // a failed simulation stops the run
					return
				}
				if c.Progress != nil {
					mu.Lock()
					done++
					c.Progress(done, c.Sims)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if err := parent.Err(); err != nil {
		return nil, fmt.Errorf("sbc: stopped after %d of %d simulations: %w", countDone(sims), c.Sims, err)
	}
	for i := range sims {
		// A failed simulation, not one stopped by the cancellation it caused.
		if sims[i].err != nil && !errors.Is(sims[i].err, context.Canceled) {
			return nil, sims[i].err
		}
	}
	res := &Result{Variables: sims[0].names, MaxRank: c.MaxRank, Config: c,
		Ranks: make([][]int, c.Sims), Simulated: make([][]float64, c.Sims), ESS: make([][]float64, c.Sims), Stats: make([][]draws.SiteStats, c.Sims)}
	for i, s := range sims {
		if !slices.Equal(s.names, res.Variables) {
			return nil, fmt.Errorf("sbc: simulation %d ranks parameters %v, simulation 0 ranks %v", i, s.names, res.Variables)
		}
		res.Ranks[i], res.Simulated[i], res.ESS[i], res.Stats[i] = s.ranks, s.values, s.ess, s.stats
	}
	return res, nil
}

// countDone returns the number of simulations that completed.
func countDone(sims []simulation) int {
	n := 0
	for _, s := range sims {
		if s.names != nil {
			n++
		}
	}
	return n
}

// simulation is the outcome of one simulation.
type simulation struct {
	names  []string // ranked parameters, in draw-column order
	ranks  []int
	values []float64
	ess    []float64
	stats  []draws.SiteStats
	err    error
}

// runOne runs simulation i.
func runOne(ctx context.Context, c *Config, i int) simulation {
	fail := func(format string, a ...any) simulation {
		return simulation{err: fmt.Errorf("sbc: simulation %d: "+format, append([]any{i}, a...)...)}
	}
	rng := rand.New(rand.NewPCG(c.Seed, uint64(i)))
	samplerSeed := rng.Uint64()
	model, truth, err := c.Simulator(rng)
	if err != nil {
		return fail("simulator: %w", err)
	}
	if model == nil {
		return fail("simulator returned a nil model")
	}
	if len(truth) == 0 {
		return fail("simulator returned no parameter values to rank")
	}
	var opts nmc.Options
	if c.Sampler != nil {
		opts = *c.Sampler
	}
	opts.Chains, opts.Draws, opts.Warmup, opts.Thin = c.Chains, c.MaxRank/c.Chains, c.Warmup, c.Thin
	opts.Seed, opts.FirstChain, opts.Init, opts.HeldOut, opts.Progress = samplerSeed, 0, nil, nil, nil
	res, err := nmc.Sample(ctx, model, &opts)
	if err != nil {
		if ctx.Err() != nil {
			return simulation{err: ctx.Err()}
		}
		return fail("%w", err)
	}
	d := res.Draws
	s := simulation{stats: res.AllStats()}
	cols := make([]int, 0, len(truth))
	for p, name := range d.Names {
		if _, ok := truth[name]; ok {
			cols = append(cols, p)
			s.names = append(s.names, name)
		}
	}
	if len(cols) != len(truth) {
		for name := range sortedKeys(truth) {
			if !slices.Contains(s.names, name) {
				return fail("simulated parameter %q is not a draw column of the model (it has %d columns, the first %q)", name, len(d.Names), d.Names[0])
			}
		}
	}
	for _, name := range s.names {
		if v := truth[name]; math.IsNaN(v) || math.IsInf(v, 0) {
			return fail("simulated value of %q is %v, not finite", name, v)
		}
	}
	s.ranks = make([]int, len(cols))
	s.values = make([]float64, len(cols))
	s.ess = make([]float64, len(cols))
	for v, p := range cols {
		col := d.Column(p)
		theta := truth[s.names[v]]
		less, ties := 0, 0
		n := 0
		for _, ch := range col {
			for _, x := range ch {
				n++
				switch {
				case math.IsNaN(x):
					return fail("draw of %q is NaN", s.names[v])
				case x < theta:
					less++
				case x == theta:
					ties++
				}
			}
		}
		if n != c.MaxRank {
			return fail("%d draws of %q, want %d", n, s.names[v], c.MaxRank)
		}
		if ties > 0 {
			less += rng.IntN(ties + 1)
		}
		s.ranks[v], s.values[v] = less, theta
		if s.ess[v], err = diagnostics.ESSBulk(col); err != nil {
			return fail("ESS of %q: %w", s.names[v], err)
		}
	}
	return s
}

// sortedKeys yields the keys of m in sorted order, so that errors do not depend on
// map iteration.
func sortedKeys(m map[string]float64) func(func(string) bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return slices.Values(keys)
}

// index returns the position of variable in r.Variables.
func (r *Result) index(variable string) (int, error) {
	if v := slices.Index(r.Variables, variable); v >= 0 {
		return v, nil
	}
	return -1, fmt.Errorf("sbc: no ranked parameter %q (have %v)", variable, r.Variables)
}

// RanksOf returns the ranks of variable, one per simulation, in simulation order.
func (r *Result) RanksOf(variable string) ([]int, error) {
	v, err := r.index(variable)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(r.Ranks))
	for i, rk := range r.Ranks {
		out[i] = rk[v]
	}
	return out, nil
}

// Uniformity tests the ranks of every parameter for uniformity with Pearson's χ² on
// bins equal-width bins (diagnostics.RankChiSquare), in the order of Variables. Ten
// bins with 200 simulations expect 20 ranks per bin. It returns an error for bins
// outside 2 … MaxRank+1.
func (r *Result) Uniformity(bins int) ([]diagnostics.RankUniformity, error) {
	out := make([]diagnostics.RankUniformity, len(r.Variables))
	for v, name := range r.Variables {
		ranks, _ := r.RanksOf(name)
		u, err := diagnostics.RankChiSquare(ranks, r.MaxRank, bins)
		if err != nil {
			return nil, fmt.Errorf("sbc: %s: %w", name, err)
		}
		out[v] = u
	}
	return out, nil
}

// ECDF returns the ECDF of variable's ranks with its simultaneous band
// (diagnostics.RankECDFBand; opts nil means its defaults).
func (r *Result) ECDF(variable string, opts *diagnostics.RankECDFOptions) (*diagnostics.RankECDF, error) {
	ranks, err := r.RanksOf(variable)
	if err != nil {
		return nil, err
	}
	e, err := diagnostics.RankECDFBand(ranks, r.MaxRank, opts)
	if err != nil {
		return nil, fmt.Errorf("sbc: %s: %w", variable, err)
	}
	return e, nil
}
