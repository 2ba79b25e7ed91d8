package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/paper"
)

var paperCommand = &command{
	name:     "paper",
	args:     "[-out DIR] [-full] [flags]",
	synopsis: "reproduce the paper's experiments",
	help: `Paper reproduces the experiments of Arora et al. (2020) on generated data:
Neal's funnel, Bayesian logistic regression (blr), robust regression, the
annotation model, and recovery of the exact posterior of the four conjugate
models. It prints one table (model, N, K, chains × draws, wall time, CPU time,
draws per second, samples to convergence, final PLL, min ESS, min ESS per second
of wall time and of CPU time, max R-hat, peak Go heap), the conjugate estimates
next to their closed forms, and
writes into DIR:

  table.csv, conjugate.csv        the two tables
  pll_blr.png, pll_robust.png,    running predictive log-likelihood curves
  pll_annotation.png, pll_all.png
  funnel_z.png                    the funnel's z marginal with the exact N(0, 3)
  conjugate.png                   conjugate marginals with the exact densities

The chains start from prior draws and warm up adaptively before the recorded
draws (the warm-up column: the longest chain's sweeps); with -no-group-moves
they record from the first sweep and the annotation model keeps its classes in
the sweep, as in the paper. PLL is
the joint form, log mean_s exp(Σ_j log p(y_j | θ_s)) over the held-out half
of the data, with the draws of all chains interleaved by draw; samples to
convergence is the first number of pooled draws after which the curve stays
within 1% of its final value. min ESS (bulk) and max R-hat are over the
model's continuous parameters and all recorded draws, as nmc sample reports
them; with -no-group-moves (no warm-up) over the second half of each chain.

The default sizes are the paper's smaller ones, 1000 draws per chain: blr and
robust N = 20,000 rows with K = 40, annotation 10,000 items (half of each for
training, half held out); they finish in well under a minute on two cores.
-full uses the paper's large sizes: blr N = 2,000,000 (1,000,000 training
rows) and robust N = 1,000,000 (500,000 training rows), one chain each, and
annotation 100,000 items; it takes several minutes and a few GiB of memory.`,
	flags: paperFlags,
}

// paperFlags declares the flags of "nmc paper".
func paperFlags(fs *flag.FlagSet) func(*env, []string) error {
	out := fs.String("out", "paper-out", "write the tables and figures into `dir` (created if missing)")
	full := fs.Bool("full", false, "use the paper's large sizes (1,000,000 and 500,000 training rows, 100,000 items; takes minutes)")
	quick := fs.Bool("quick", false, "tiny sizes, a smoke test that runs in seconds")
	draws := fs.Int("draws", 0, "draws per chain for every model (0: each model's default)")
	chains := fs.Int("chains", paper.DefaultChains, "chains per model, run in parallel (the large regressions of -full run one)")
	seed := fs.Uint64("seed", 1, "seed of the generated data and of the sampler")
	noGroups := fs.Bool("no-group-moves", false, "turn off the models' group moves and the warm-up, and keep the annotation model's classes explicit (the paper's plain single-site NMC)")
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
		cfg := paper.Config{Chains: *chains, Draws: *draws, Seed: *seed, NoGroupMoves: *noGroups}
		switch {
		case *full:
			cfg.Sizes = paper.Full
		case *quick:
			cfg.Sizes = paper.Quick
		}
		if *only != "" {
			exps := paper.Experiments(cfg.Sizes)
			for _, name := range strings.Split(*only, ",") {
				name = strings.TrimSpace(name)
				if err := checkModel(name); err != nil {
					return usagef("-models: %s", strings.TrimPrefix(err.Error(), "-model: "))
				}
				if !slices.ContainsFunc(exps, func(x paper.Experiment) bool { return x.Model == name }) {
					return usagef("-models: %s is not one of the paper's experiments", name)
				}
				cfg.Models = append(cfg.Models, name)
			}
		}
		if err := makeDir("-out", *out); err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		return runPaper(ctx, e, cfg, *out)
	}
}

// runPaper runs the experiments of cfg, prints the tables and writes the files
// into dir.
func runPaper(ctx context.Context, e *env, cfg paper.Config, dir string) error {
	start := time.Now()
	exps, err := cfg.Plan()
	if err != nil {
		return err
	}
	w := e.stdout
	size := "default sizes"
	if cfg.Sizes == paper.Full {
		size = "the paper's large sizes"
	}
	chains := fmt.Sprintf("%d chains each", cfg.Chains)
	if cfg.Sizes == paper.Full {
		chains += " (one for the large regressions)"
	}
	warm := "adaptive warm-up"
	if cfg.NoGroupMoves {
		warm = "no warm-up"
	}
	fmt.Fprintf(w, "nmc paper: %d experiments at %s, %s, seed %d, %s\n", len(exps), size, chains, cfg.Seed, warm)
	fmt.Fprintln(w, "PLL: joint form, chains interleaved by draw; samples to convergence in pooled draws (within 1% of the final PLL)")
	kept := "all draws after the warm-up"
	if cfg.NoGroupMoves {
		kept = "second half of each chain (no warm-up)"
	}
	fmt.Fprintf(w, "min ESS (bulk) and max R-hat: continuous parameters, %s\n", kept)
	fmt.Fprintln(w)

	cfg.SamplerProgress = func(model string, chains, sweeps int) (func(nmc.Progress), func()) {
		bar := newProgress(e.stderr, model, chains, sweeps)
		return bar.callback(), bar.finish
	}
	// The table comes at the end; on a terminal, a line per finished experiment
	// shows progress.
	if showProgress(e.stderr) {
		cfg.ExperimentDone = func(r paper.Row) {
			fmt.Fprintf(e.stderr, "nmc paper: %s done (%d×%d draws in %s)\n", r.Model, r.Chains, r.Draws, paper.FormatDuration(r.Wall))
		}
	}
	rep, err := paper.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if err := rep.WriteTable(w); err != nil {
		return err
	}
	if len(rep.Conjugate) > 0 {
		fmt.Fprintln(w, "\nconjugate recovery: estimate (all draws) against the exact posterior, z = (mean − exact)/mcse_mean")
		if err := rep.WriteConjugateTable(w); err != nil {
			return err
		}
	}
	figures, tables, err := rep.WriteFiles(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nfigures: %s\ntables: %s\ntotal time %s\n", strings.Join(figures, ", "),
		strings.Join(tables, ", "), paper.FormatDuration(time.Since(start)))
	return nil
}
