package paper

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"gonum.org/v1/plot"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc"
)

// Sizes selects the data sizes and draws of the experiments.
type Sizes int

const (
	// Default is the paper's smaller sizes, 1000 draws per chain: blr and robust
	// N = 20,000 rows with K = 40, annotation 10,000 items; 2500 draws for the
	// funnel and the conjugate models. Well under a minute on two cores.
	Default Sizes = iota
	// Full is the paper's large sizes: blr N = 2,000,000 rows and robust N =
	// 1,000,000, one chain each, annotation 100,000 items. Several minutes and a
	// few GiB of memory.
	Full
	// Quick is tiny sizes for a smoke test that runs in about a second; robust
	// regression gets 1000 draws per chain, enough to converge (max R-hat about
	// 1.01 with 4 chains).
	Quick
)

// Experiment is one row of the paper's table.
type Experiment struct {
	// Model is the registry name of the model (models.Lookup).
	Model string
	// N and K are the data sizes given to models.Generate (0: none or the
	// default). Half of the rows (items) of blr, robust and annotation are held out.
	N, K int
	// Draws is the number of draws per chain.
	Draws int
	// Chains is the number of chains; 0 means Config.Chains.
	Chains int
}

// Experiments returns the experiments at the given sizes, in the order of the
// paper's table: funnel, blr, robust, annotation, then the four conjugate models.
func Experiments(s Sizes) []Experiment {
	conjugate := []Experiment{
		{"normal_known_sigma", 0, 0, 2500, 0}, {"gamma_poisson", 0, 0, 2500, 0},
		{"beta_binomial", 0, 0, 2500, 0}, {"dirichlet_categorical", 0, 0, 2500, 0},
	}
	switch s {
	case Quick:
		return []Experiment{
			{"funnel", 0, 0, 100, 0}, {"blr", 200, 5, 50, 0}, {"robust", 200, 5, 1000, 0}, {"annotation", 100, 20, 30, 0},
			{"normal_known_sigma", 0, 0, 100, 0}, {"gamma_poisson", 0, 0, 100, 0},
			{"beta_binomial", 0, 0, 100, 0}, {"dirichlet_categorical", 0, 0, 100, 0},
		}
	case Full:
		// Half of each data set is held out: 1,000,000 training rows for logistic
		// regression and 500,000 for robust regression, one chain each; 50,000
		// training items for the annotation model.
		return append([]Experiment{
			{"funnel", 0, 0, 2500, 0}, {"blr", 2000000, 40, 1000, 1}, {"robust", 1000000, 40, 1000, 1},
			{"annotation", 100000, 100, 1000, 0},
		}, conjugate...)
	}
	return append([]Experiment{
		{"funnel", 0, 0, 2500, 0}, {"blr", 20000, 40, 1000, 0}, {"robust", 20000, 40, 1000, 0},
		{"annotation", 10000, 100, 1000, 0},
	}, conjugate...)
}

// DefaultChains is the number of chains of an experiment when neither it nor
// Config.Chains sets one.
const DefaultChains = 4

// Config holds the settings of one run of the paper's experiments. The zero value
// runs every experiment at the Default sizes with DefaultChains chains and seed 0.
type Config struct {
	// Sizes selects the experiments' data sizes and draws.
	Sizes Sizes
	// Models, when not nil, runs only these experiments of Sizes, in the order
	// given; each must be one of Experiments(Sizes).
	Models []string
	// Experiments, when not nil, are run instead of those of Sizes and Models:
	// any registry model at any size.
	Experiments []Experiment
	// Chains is the number of chains of each experiment that does not set its own
	// (the large regressions of Full run one); 0 means DefaultChains.
	Chains int
	// Draws, when positive, replaces every experiment's draws per chain.
	Draws int
	// Seed seeds the generated data and the sampler.
	Seed uint64
	// NoGroupMoves turns the models' group moves off (nmc.Defaults.NoGroupMoves) and
	// the warm-up with them, and keeps the annotation model's classes in the sweep
	// (models.Dataset.ExplicitClasses): the paper's plain single-site NMC, recording
	// from the first sweep as in the paper, for comparison.
	NoGroupMoves bool

	// SamplerProgress, when not nil, is called as each experiment starts sampling
	// with its model and the chains and sweeps per chain to come; it returns the
	// sampler's progress callback (nmc.Options.Progress; may be nil) and a function
	// called when sampling ends (may be nil).
	SamplerProgress func(model string, chains, sweeps int) (update func(nmc.Progress), finish func())
	// ExperimentDone, when not nil, is called with each experiment's row as soon as
	// the experiment finished.
	ExperimentDone func(Row)
}

// Plan returns the experiments c runs: c.Experiments when set, otherwise
// Experiments(c.Sizes) restricted to c.Models when given. It returns an error for
// an unknown model or one that is not among the paper's experiments.
func (c Config) Plan() ([]Experiment, error) {
	if c.Experiments != nil {
		for _, x := range c.Experiments {
			if _, err := models.Lookup(x.Model); err != nil {
				return nil, err
			}
			if x.Draws < 1 && c.Draws < 1 {
				return nil, fmt.Errorf("paper: experiment %s: %d draws, want at least 1", x.Model, x.Draws)
			}
			if x.Chains < 0 {
				return nil, fmt.Errorf("paper: experiment %s: %d chains, want at least 1 (or 0 for Config.Chains)", x.Model, x.Chains)
			}
		}
		return slices.Clone(c.Experiments), nil
	}
	exps := Experiments(c.Sizes)
	if c.Models == nil {
		return exps, nil
	}
	var sel []Experiment
	for _, name := range c.Models {
		if _, err := models.Lookup(name); err != nil {
			return nil, err
		}
		i := slices.IndexFunc(exps, func(x Experiment) bool { return x.Model == name })
		if i < 0 {
			return nil, fmt.Errorf("paper: %s is not one of the paper's experiments", name)
		}
		sel = append(sel, exps[i])
	}
	return sel, nil
}

// Row is one line of the paper's table.
type Row struct {
	// Model is the registry name of the model.
	Model string
	// N is the number of observations, training and held-out (rows, items; groups
	// for beta_binomial), 0 without data; K is the second size (predictors,
	// labelers, trials), 0 for models with one size.
	N, K int
	// Chains and Draws are the chains and draws per chain sampled.
	Chains, Draws int
	// Wall is the sampling time, warm-up included.
	Wall time.Duration
	// CPU is the CPU time of the sampling (nmc.Result.CPU); 0 where the platform
	// does not report it.
	CPU time.Duration
	// WarmupSweeps is the longest warm-up of the chains, in sweeps before the first
	// recorded draw (0 with NoGroupMoves, as in the paper).
	WarmupSweeps int
	// SamplesToConvergence is the first number of pooled recorded draws (after the
	// warm-up) after which the joint PLL curve stays within 1% of its final value;
	// 0 without held-out data.
	SamplesToConvergence int
	// FinalPLL is the joint PLL after all draws; NaN without held-out data.
	FinalPLL float64
	// MinESS (bulk) and MaxRHat are over the model's continuous parameters
	// (models.Spec.SummaryVariables) and the recorded draws of every chain, as
	// nmc sample reports them; without warm-up (NoGroupMoves) over the second half
	// of each chain, the first half serving as the warm-up.
	MinESS, MaxRHat float64
	// PeakHeap is the largest Go heap in use while the experiment ran, in bytes.
	PeakHeap uint64
}

// DrawsPerSecond is the draws of all chains per second of wall time.
func (r Row) DrawsPerSecond() float64 {
	return float64(r.Chains*r.Draws) / r.Wall.Seconds()
}

// ConjugateRow compares the estimate of one parameter of a conjugate model with
// its exact posterior.
type ConjugateRow struct {
	Model string
	diagnostics.Comparison
}

// Curve is the running predictive log-likelihood of one experiment with held-out
// data.
type Curve struct {
	Model string
	// Joint is the joint PLL curve over the draws of all chains interleaved by
	// draw (diagnostics.PLLInterleaved): Joint[i] after i+1 pooled draws.
	Joint []float64
}

// Report is what a run of the paper's experiments computes.
type Report struct {
	// Experiments are the experiments run, in order.
	Experiments []Experiment
	// Rows is the table, one row per experiment.
	Rows []Row
	// Conjugate compares the conjugate models' estimates (all draws) with their
	// exact posteriors.
	Conjugate []ConjugateRow
	// Curves are the PLL curves of the experiments with held-out data.
	Curves []Curve
	// Figures are the figures, in the order they are written: the funnel's z
	// marginal, one PLL curve per experiment with held-out data, all the curves
	// relative to their final values, the conjugate marginals.
	Figures []Figure
}

// heapWatch samples the Go heap in use while an experiment runs.
type heapWatch struct {
	done chan struct{}
	peak chan uint64
}

// watchHeap collects the garbage of earlier experiments, then samples
// runtime.MemStats.HeapInuse every 100 ms.
func watchHeap() *heapWatch {
	runtime.GC()
	h := &heapWatch{done: make(chan struct{}), peak: make(chan uint64)}
	go func() {
		var ms runtime.MemStats
		peak := uint64(0)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-h.done:
				h.peak <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return h
}

// stop ends the sampling and returns the largest heap seen.
func (h *heapWatch) stop() uint64 {
	close(h.done)
	return <-h.peak
}

// Run runs the experiments of cfg one after the other, each on generated data
// with the chains in parallel, starting from prior draws, and returns the table, the conjugate comparison, the PLL curves and the
// figures. The chains warm up adaptively before the recorded draws
// (nmc.AutoWarmup: without a warm-up, the group moves and fitted steps leave
// logistic regression's chains unconverged, R-hat 1.56); with cfg.NoGroupMoves
// they record from the first sweep, as in the paper. Only each draw's total
// held-out log-likelihood is kept (the joint PLL's
// input), so the large sizes fit in memory. It returns an error for settings out
// of range, a failed experiment (naming it) or a cancelled ctx.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	switch {
	case cfg.Chains < 0:
		return nil, fmt.Errorf("paper: Chains = %d, want at least 1 (or 0 for %d)", cfg.Chains, DefaultChains)
	case cfg.Draws < 0:
		return nil, fmt.Errorf("paper: Draws = %d, want at least 1 (or 0 for each experiment's)", cfg.Draws)
	}
	if cfg.Chains == 0 {
		cfg.Chains = DefaultChains
	}
	exps, err := cfg.Plan()
	if err != nil {
		return nil, err
	}
	rep := &Report{Experiments: exps}
	var conjPlots []*plot.Plot
	for _, x := range exps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := rep.run(ctx, cfg, x, &conjPlots); err != nil {
			return nil, fmt.Errorf("%s: %w", x.Model, err)
		}
		if cfg.ExperimentDone != nil {
			cfg.ExperimentDone(rep.Rows[len(rep.Rows)-1])
		}
	}
	if len(rep.Curves) > 1 {
		// One figure of all the curves, each relative to its final value, so models of
		// very different scales share an axis.
		var labels []string
		var rel [][]float64
		for _, c := range rep.Curves {
			f := c.Joint[len(c.Joint)-1]
			r := make([]float64, len(c.Joint))
			for i, v := range c.Joint {
				r[i] = (v - f) / math.Abs(f)
			}
			labels = append(labels, c.Model)
			rel = append(rel, r)
		}
		p, err := relativePLLPlot(labels, rel)
		if err != nil {
			return nil, err
		}
		rep.Figures = append(rep.Figures, Figure{Name: "pll_all", Plot: p, Width: FigureWidth, Height: FigureHeight})
	}
	if len(conjPlots) > 0 {
		grid := [][]*plot.Plot{{nil, nil}, {nil, nil}}
		for i, p := range conjPlots[:min(4, len(conjPlots))] {
			grid[i/2][i%2] = p
		}
		rep.Figures = append(rep.Figures, Figure{Name: "conjugate", Grid: grid, Width: 11 * 72, Height: 8 * 72})
	}
	return rep, nil
}

// run runs one experiment and adds its row, comparison, curve and figures to rep;
// the conjugate marginal plots go to conjPlots for the grid.
func (rep *Report) run(ctx context.Context, cfg Config, x Experiment, conjPlots *[]*plot.Plot) error {
	d, err := models.Generate(x.Model, x.N, x.K, cfg.Seed)
	if err != nil {
		return err
	}
	spec, err := models.Lookup(x.Model)
	if err != nil {
		return err
	}
	d.ExplicitClasses = cfg.NoGroupMoves
	b, exact, err := d.Build()
	if err != nil {
		return err
	}
	chains, nDraws := cfg.Chains, x.Draws
	if x.Chains > 0 {
		chains = x.Chains
	}
	if cfg.Draws > 0 {
		nDraws = cfg.Draws
	}
	// The reproduction keeps the settings its numbers were recorded with: each
	// chain's adaptive warm-up on its own test (WarmupPerChain) and one start
	// drawn by the model's Init (PriorStart), or no warm-up at all for plain NMC,
	// and every sweep recorded (Thin 1: samples to convergence counts sweeps).
	opts := &nmc.Options{Chains: chains, Draws: nDraws, Seed: cfg.Seed, Warmup: nmc.AutoWarmup, WarmupPerChain: true, Thin: 1,
		Start: nmc.PriorStart, StartCandidates: 1, Moves: []nmc.Move{nmc.Defaults{NoGroupMoves: cfg.NoGroupMoves}}}
	if cfg.NoGroupMoves {
		opts.Warmup = nmc.NoWarmup
	}
	if b.HeldOut != nil {
		opts.HeldOut = nmc.HeldOutTotal(b.HeldOut)
	}
	var finish func()
	if cfg.SamplerProgress != nil {
		sweeps := nDraws
		if opts.Warmup == nmc.AutoWarmup {
			sweeps += nmc.DefaultWarmupMax
		}
		opts.Progress, finish = cfg.SamplerProgress(x.Model, chains, sweeps)
	}
	mem := watchHeap()
	res, err := nmc.Sample(ctx, b.Model, opts)
	peak := mem.stop()
	if finish != nil {
		finish()
	}
	if err != nil {
		return err
	}
	summary, err := diagnostics.Convergence(diagnosedDraws(res.Draws, opts.Warmup != nmc.NoWarmup), &diagnostics.SummaryOptions{Variables: spec.SummaryVariables})
	if err != nil {
		return err
	}
	row := Row{Model: x.Model, N: d.Size(), K: x.K, Chains: chains, Draws: nDraws, Wall: res.Wall, CPU: res.CPU, FinalPLL: math.NaN(), PeakHeap: peak}
	if x.Model == "dirichlet_categorical" || x.Model == "normal_known_sigma" || x.Model == "gamma_poisson" {
		row.K = 0
	}
	row.MinESS, row.MaxRHat = minESSMaxRHat(summary)
	for _, n := range res.WarmupSweeps {
		row.WarmupSweeps = max(row.WarmupSweeps, n)
	}
	if res.NumHeldOut > 0 {
		joint, _, err := diagnostics.PLLInterleaved(res.HeldOut, res.NumHeldOut)
		if err != nil {
			return err
		}
		row.FinalPLL = joint[len(joint)-1]
		if row.SamplesToConvergence, err = diagnostics.SamplesToConvergence(joint); err != nil {
			return err
		}
		rep.Curves = append(rep.Curves, Curve{Model: x.Model, Joint: joint})
		p, err := PLLPlot(fmt.Sprintf("%s (N = %d, K = %d): running PLL", x.Model, row.N, x.K), []string{"NMC, 4 chains interleaved"}, [][]float64{joint})
		if err != nil {
			return err
		}
		rep.Figures = append(rep.Figures, Figure{Name: "pll_" + x.Model, Plot: p, Width: FigureWidth, Height: FigureHeight})
	}
	if x.Model == "funnel" {
		p, err := FunnelZPlot(res.Draws)
		if err != nil {
			return err
		}
		rep.Figures = append(rep.Figures, Figure{Name: "funnel_z", Plot: p, Width: FigureWidth, Height: FigureHeight})
	}
	if exact != nil {
		all, err := diagnostics.Summarize(res.Draws, nil)
		if err != nil {
			return err
		}
		refs, err := exact.References()
		if err != nil {
			return err
		}
		cmp, err := diagnostics.CompareExact(all, refs)
		if err != nil {
			return err
		}
		for _, c := range cmp {
			rep.Conjugate = append(rep.Conjugate, ConjugateRow{Model: x.Model, Comparison: c})
		}
		m, err := exact.Marginal(exact.Names[0])
		if err != nil {
			return err
		}
		p, err := ExactDensityPlot(res.Draws, exact.Names[0], func(v float64) float64 { return math.Exp(m.LogPDF(v)) }, "exact posterior")
		if err != nil {
			return err
		}
		p.Title.Text = x.Model + ": " + exact.Names[0]
		*conjPlots = append(*conjPlots, p)
	}
	rep.Rows = append(rep.Rows, row)
	return nil
}

// lastHalf returns the draws of d from draw n/2 of each chain on (sharing storage).
// diagnosedDraws returns the draws the table's ESS and R-hat are computed from:
// all of them after a warm-up, else the second half of each chain (lastHalf).
func diagnosedDraws(d *draws.Draws, warmedUp bool) *draws.Draws {
	if warmedUp {
		return d
	}
	return lastHalf(d)
}

func lastHalf(d *draws.Draws) *draws.Draws {
	out := &draws.Draws{Names: d.Names, Chains: make([][]float64, len(d.Chains))}
	p := len(d.Names)
	for c, ch := range d.Chains {
		n := len(ch) / max(p, 1)
		out.Chains[c] = ch[(n/2)*p:]
	}
	return out
}

// minESSMaxRHat returns the smallest bulk ESS and the largest R-hat over rows,
// ignoring NaN (a constant quantity); NaN if every value is NaN.
func minESSMaxRHat(rows []diagnostics.ConvergenceRow) (minESS, maxRHat float64) {
	minESS, maxRHat = math.NaN(), math.NaN()
	for _, r := range rows {
		if !math.IsNaN(r.ESSBulk) && !(r.ESSBulk >= minESS) {
			minESS = r.ESSBulk
		}
		if !math.IsNaN(r.RHat) && !(r.RHat <= maxRHat) {
			maxRHat = r.RHat
		}
	}
	return minESS, maxRHat
}
