package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"gonum.org/v1/plot"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/viz"
)

var paperCommand = &command{
	name:     "paper",
	args:     "[-out DIR] [-full] [flags]",
	synopsis: "reproduce the paper's experiments",
	help: `Paper reproduces the experiments of Arora et al. (2020) on generated data:
Neal's funnel, Bayesian logistic regression (blr), robust regression, the
annotation model, and recovery of the exact posterior of the four conjugate
models. It prints one table (model, N, K, chains × draws, wall time, draws per
second, samples to convergence, final PLL, min ESS, min ESS per second, max
R-hat, peak Go heap), the conjugate estimates next to their closed forms, and
writes into DIR:

  table.csv, conjugate.csv        the two tables
  pll_blr.png, pll_robust.png,    running predictive log-likelihood curves
  pll_annotation.png, pll_all.png
  funnel_z.png                    the funnel's z marginal with the exact N(0, 3)
  conjugate.png                   conjugate marginals with the exact densities

The chains start from prior draws with no warm-up, as in the paper. PLL is
the joint form, log mean_s exp(Σ_j log p(y_j | θ_s)) over the held-out half
of the data, with the draws of all chains interleaved by draw; samples to
convergence is the first number of pooled draws after which the curve stays
within 1% of its final value. min ESS (bulk) and max R-hat are over the
model's continuous parameters and the second half of each chain.

The default sizes are the paper's smaller ones, 1000 draws per chain: blr and
robust N = 20,000 rows with K = 40, annotation 10,000 items (half of each for
training, half held out); they finish in well under a minute on two cores.
-full uses the paper's large sizes: blr N = 2,000,000 (1,000,000 training
rows) and robust N = 1,000,000 (500,000 training rows), one chain each, and
annotation 100,000 items; it takes several minutes and a few GiB of memory.`,
	flags: paperFlags,
}

// experiment is one row of the paper's table.
type experiment struct {
	model  string
	n, k   int // data sizes for generate (0: none)
	draws  int // per chain
	chains int // 0: the -chains flag
}

// paperSizes returns the experiments at the default (the paper's smaller sizes),
// full (the paper's large sizes) or quick (test) sizes.
func paperSizes(full, quick bool) []experiment {
	conjugate := []experiment{
		{"normal_known_sigma", 0, 0, 2500, 0}, {"gamma_poisson", 0, 0, 2500, 0},
		{"beta_binomial", 0, 0, 2500, 0}, {"dirichlet_categorical", 0, 0, 2500, 0},
	}
	switch {
	case quick:
		return []experiment{
			{"funnel", 0, 0, 100, 0}, {"blr", 200, 5, 50, 0}, {"robust", 200, 5, 50, 0}, {"annotation", 100, 20, 30, 0},
			{"normal_known_sigma", 0, 0, 100, 0}, {"gamma_poisson", 0, 0, 100, 0},
			{"beta_binomial", 0, 0, 100, 0}, {"dirichlet_categorical", 0, 0, 100, 0},
		}
	case full:
		// Half of each data set is held out: 1,000,000 training rows for logistic
		// regression and 500,000 for robust regression, one chain each; 50,000
		// training items for the annotation model.
		return append([]experiment{
			{"funnel", 0, 0, 2500, 0}, {"blr", 2000000, 40, 1000, 1}, {"robust", 1000000, 40, 1000, 1},
			{"annotation", 100000, 100, 1000, 0},
		}, conjugate...)
	}
	return append([]experiment{
		{"funnel", 0, 0, 2500, 0}, {"blr", 20000, 40, 1000, 0}, {"robust", 20000, 40, 1000, 0},
		{"annotation", 10000, 100, 1000, 0},
	}, conjugate...)
}

// paperFlags declares the flags of "nmc paper".
func paperFlags(fs *flag.FlagSet) func(*env, []string) error {
	out := fs.String("out", "paper-out", "write the tables and figures into `dir` (created if missing)")
	full := fs.Bool("full", false, "use the paper's large sizes (1,000,000 and 500,000 training rows, 100,000 items; takes minutes)")
	quick := fs.Bool("quick", false, "tiny sizes, a smoke test that runs in seconds")
	draws := fs.Int("draws", 0, "draws per chain for every model (0: each model's default)")
	chains := fs.Int("chains", 4, "chains per model, run in parallel (the large regressions of -full run one)")
	seed := fs.Uint64("seed", 1, "seed of the generated data and of the sampler")
	only := fs.String("models", "", "run only these comma-separated models (default: all)")
	return func(e *env, args []string) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q (paper takes flags only)", args[0])
		}
		if *full && *quick {
			return usagef("-full and -quick cannot be used together")
		}
		if *draws < 0 {
			return usagef("-draws = %d, want at least 1 (or 0 for the defaults)", *draws)
		}
		if *chains < 1 {
			return usagef("-chains = %d, want at least 1", *chains)
		}
		exps := paperSizes(*full, *quick)
		if *only != "" {
			var sel []experiment
			for _, name := range strings.Split(*only, ",") {
				name = strings.TrimSpace(name)
				if err := checkModel(name); err != nil {
					return usagef("-models: %s", strings.TrimPrefix(err.Error(), "-model: "))
				}
				for _, x := range exps {
					if x.model == name {
						sel = append(sel, x)
					}
				}
				if len(sel) == 0 || sel[len(sel)-1].model != name {
					return usagef("-models: %s is not one of the paper's experiments", name)
				}
			}
			exps = sel
		}
		if err := makeDir("-out", *out); err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		return runPaper(ctx, e, exps, paperConfig{dir: *out, draws: *draws, chains: *chains, seed: *seed, full: *full})
	}
}

// paperConfig holds the settings of one nmc paper run.
type paperConfig struct {
	dir           string
	draws, chains int
	seed          uint64
	full          bool
}

// paperRow is one line of the paper's table.
type paperRow struct {
	model           string
	n, k            int
	chains, draws   int
	wall            time.Duration
	converge        int     // samples to convergence; 0 without held-out data
	finalPLL        float64 // NaN without held-out data
	minESS, maxRHat float64
	peakHeap        uint64 // largest Go heap in use while the experiment ran, bytes
}

// drawsPerSecond is the draws of all chains per second of wall time.
func (r paperRow) drawsPerSecond() float64 {
	return float64(r.chains*r.draws) / r.wall.Seconds()
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

// runPaper runs the experiments, prints the tables and writes the files.
func runPaper(ctx context.Context, e *env, exps []experiment, cfg paperConfig) error {
	start := time.Now()
	w := e.stdout
	size := "default sizes"
	if cfg.full {
		size = "the paper's large sizes"
	}
	chains := fmt.Sprintf("%d chains each", cfg.chains)
	if cfg.full {
		chains += " (one for the large regressions)"
	}
	fmt.Fprintf(w, "nmc paper: %d experiments at %s, %s, seed %d, no warm-up\n", len(exps), size, chains, cfg.seed)
	fmt.Fprintln(w, "PLL: joint form, chains interleaved by draw; samples to convergence in pooled draws (within 1% of the final PLL)")
	fmt.Fprintln(w, "min ESS (bulk) and max R-hat: continuous parameters, second half of each chain")
	fmt.Fprintln(w)

	var rows []paperRow
	var exact []exactRow
	var pllLabels []string
	var pllCurves [][]float64
	var conjPlots []*plot.Plot
	var figures []string
	for _, x := range exps {
		if err := ctx.Err(); err != nil {
			return err
		}
		d, err := generate(x.model, x.n, x.k, cfg.seed)
		if err != nil {
			return fmt.Errorf("%s: %w", x.model, err)
		}
		s := runSettings{chains: cfg.chains, draws: x.draws, seed: cfg.seed, heldOutTotal: true}
		if x.chains > 0 {
			s.chains = x.chains
		}
		if cfg.draws > 0 {
			s.draws = cfg.draws
		}
		mem := watchHeap()
		r, err := execute(ctx, e, d, s, x.model, nil)
		peak := mem.stop()
		if err != nil {
			return err
		}
		opts := &diagnostics.SummaryOptions{Variables: summaryVars(x.model)}
		half, err := diagnostics.Summarize(lastHalf(r.res.Draws), opts)
		if err != nil {
			return fmt.Errorf("%s: %w", x.model, err)
		}
		row := paperRow{model: x.model, n: d.size(), k: x.k, chains: s.chains, draws: s.draws, wall: r.res.Wall, finalPLL: math.NaN(), peakHeap: peak}
		if x.model == "dirichlet_categorical" || x.model == "normal_known_sigma" || x.model == "gamma_poisson" {
			row.k = 0
		}
		row.minESS, row.maxRHat = minESSMaxRHat(half)
		if r.joint != nil {
			row.finalPLL = r.joint[len(r.joint)-1]
			if row.converge, err = diagnostics.SamplesToConvergence(r.joint); err != nil {
				return fmt.Errorf("%s: %w", x.model, err)
			}
			pllLabels = append(pllLabels, x.model)
			pllCurves = append(pllCurves, r.joint)
			p, err := pllPlot(fmt.Sprintf("%s (N = %d, K = %d): running PLL", x.model, row.n, x.k), []string{"NMC, 4 chains interleaved"}, [][]float64{r.joint})
			if err != nil {
				return fmt.Errorf("%s: %w", x.model, err)
			}
			path, err := savePNG(p, cfg.dir, "pll_"+x.model)
			if err != nil {
				return err
			}
			figures = append(figures, path)
		}
		if x.model == "funnel" {
			p, err := funnelZPlot(r.res.Draws)
			if err != nil {
				return fmt.Errorf("funnel: %w", err)
			}
			path, err := savePNG(p, cfg.dir, "funnel_z")
			if err != nil {
				return err
			}
			figures = append(figures, path)
		}
		if r.exact != nil {
			all, err := diagnostics.Summarize(r.res.Draws, nil)
			if err != nil {
				return fmt.Errorf("%s: %w", x.model, err)
			}
			ex, err := compareExact(x.model, r.exact, all)
			if err != nil {
				return err
			}
			exact = append(exact, ex...)
			m, err := r.exact.Marginal(r.exact.Names[0])
			if err != nil {
				return err
			}
			p, err := exactDensityPlot(r.res.Draws, r.exact.Names[0], func(v float64) float64 { return math.Exp(m.LogPDF(v)) }, "exact posterior")
			if err != nil {
				return fmt.Errorf("%s: %w", x.model, err)
			}
			p.Title.Text = x.model + ": " + r.exact.Names[0]
			conjPlots = append(conjPlots, p)
		}
		rows = append(rows, row)
		// The table comes at the end; on a terminal, a line per finished experiment
		// shows progress.
		if showProgress(e.stderr) {
			fmt.Fprintf(e.stderr, "nmc paper: %s done (%d×%d draws in %s)\n", x.model, row.chains, row.draws, formatDuration(row.wall))
		}
	}
	printPaperTable(w, rows)
	if err := writePaperTable(filepath.Join(cfg.dir, "table.csv"), rows); err != nil {
		return err
	}
	if len(exact) > 0 {
		fmt.Fprintln(w, "\nconjugate recovery: estimate (all draws) against the exact posterior, z = (mean − exact)/mcse_mean")
		printExact(w, exact, true)
		if err := writeExactTable(filepath.Join(cfg.dir, "conjugate.csv"), exact); err != nil {
			return err
		}
	}
	if len(pllCurves) > 1 {
		// One figure of all the curves, each relative to its final value, so models of
		// very different scales share an axis.
		var rel [][]float64
		for _, c := range pllCurves {
			f := c[len(c)-1]
			r := make([]float64, len(c))
			for i, v := range c {
				r[i] = (v - f) / math.Abs(f)
			}
			rel = append(rel, r)
		}
		p, err := relativePLLPlot(pllLabels, rel)
		if err != nil {
			return err
		}
		path, err := savePNG(p, cfg.dir, "pll_all")
		if err != nil {
			return err
		}
		figures = append(figures, path)
	}
	if len(conjPlots) > 0 {
		grid := [][]*plot.Plot{{nil, nil}, {nil, nil}}
		for i, p := range conjPlots[:min(4, len(conjPlots))] {
			grid[i/2][i%2] = p
		}
		b, err := viz.Grid(grid, 11*72, 8*72)
		if err != nil {
			return err
		}
		path := filepath.Join(cfg.dir, "conjugate.png")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
		figures = append(figures, path)
	}
	fmt.Fprintf(w, "\nfigures: %s\ntables: %s\ntotal time %s\n", strings.Join(figures, ", "),
		filepath.Join(cfg.dir, "table.csv")+", "+filepath.Join(cfg.dir, "conjugate.csv"), formatDuration(time.Since(start)))
	return nil
}

// relativePLLPlot plots curves already scaled as (PLL − final)/|final|.
func relativePLLPlot(labels []string, rel [][]float64) (*plot.Plot, error) {
	var series []viz.PLLSeries
	hi := 0.0
	for i, c := range rel {
		x, y := curvePoints(c, 50)
		// Clip the start (it can be hundreds of times the final value away).
		for j := range y {
			y[j] = math.Max(y[j], -1)
			hi = math.Max(hi, y[j])
		}
		series = append(series, viz.PLLSeries{Label: labels[i], X: x, Y: y})
	}
	p, err := viz.PLL(series, viz.PLLOptions{LogX: true, Title: "Running PLL relative to its final value (clipped at −1)"})
	if err != nil {
		return nil, err
	}
	p.X.Label.Text = "draws, all chains interleaved (log scale)"
	p.Y.Label.Text = "(PLL − final PLL) / |final PLL|"
	// The curves end at 0, at the top right; the bottom right stays free.
	p.Legend.Top = false
	p.Legend.Left = false
	p.Y.Min, p.Y.Max = -1.05, hi+0.05
	return p, nil
}

// printPaperTable prints the paper's table.
func printPaperTable(w io.Writer, rows []paperRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tN\tK\tchains×draws\twall time\tdraws/s\tsamples to conv.\tfinal PLL\tmin ESS\tmin ESS/s\tmax R-hat\tpeak heap\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d×%d\t%s\t%.0f\t%s\t%s\t%.0f\t%.1f\t%.3f\t%s\t\n", r.model, dash(r.n), dash(r.k), r.chains, r.draws,
			formatDuration(r.wall), r.drawsPerSecond(), dash(r.converge), pllText(r.finalPLL), r.minESS, r.minESS/r.wall.Seconds(), r.maxRHat,
			formatBytes(r.peakHeap))
	}
	tw.Flush()
}

// formatBytes formats a byte count in MiB or GiB.
func formatBytes(b uint64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

// dash formats a count, "-" for 0.
func dash(n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

// pllText formats a final PLL, "-" for NaN.
func pllText(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// writePaperTable writes the table as CSV (NA for missing values).
func writePaperTable(path string, rows []paperRow) error {
	var b strings.Builder
	b.WriteString("model,N,K,chains,draws,wall_seconds,draws_per_second,samples_to_convergence,final_pll,min_ess_bulk,min_ess_per_second,max_rhat,peak_heap_bytes\n")
	na := func(v float64) string {
		if math.IsNaN(v) {
			return "NA"
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	for _, r := range rows {
		conv := "NA"
		if r.converge > 0 {
			conv = strconv.Itoa(r.converge)
		}
		fmt.Fprintf(&b, "%s,%d,%d,%d,%d,%s,%s,%s,%s,%s,%s,%s,%d\n", r.model, r.n, r.k, r.chains, r.draws,
			na(r.wall.Seconds()), na(r.drawsPerSecond()), conv, na(r.finalPLL), na(r.minESS), na(r.minESS/r.wall.Seconds()), na(r.maxRHat), r.peakHeap)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// writeExactTable writes the conjugate recovery table as CSV.
func writeExactTable(path string, rows []exactRow) error {
	var b strings.Builder
	b.WriteString("model,variable,mean,sd,mcse_mean,exact_mean,exact_sd,z\n")
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, r := range rows {
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s,%s,%s,%s\n", r.model, csvQuote(r.name), g(r.mean), g(r.sd), g(r.mcse), g(r.exactMean), g(r.exactSD), g(r.z()))
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// csvQuote quotes s for CSV when it holds a comma or a quote.
func csvQuote(s string) string {
	if !strings.ContainsAny(s, ",\"\n") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
