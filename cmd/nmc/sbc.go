package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"gonum.org/v1/plot"

	"github.com/nmc-go/nmc/internal/fileio"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/paper"
	"github.com/nmc-go/nmc/sbc"
	"github.com/nmc-go/nmc/viz"
)

var sbcCommand = &command{
	name:     "sbc",
	args:     "-model NAME [-sims N] [-seed S] [-out FILE] [-plots DIR] [flags]",
	synopsis: "check the sampler's calibration by simulation-based calibration",
	help: `Sbc runs simulation-based calibration (Talts et al. 2018) of the NMC sampler
on one of the built-in models: -sims times, it draws the parameters from the
model's prior and data from its likelihood, samples the posterior given those
data (-chains chains, -warmup warm-up sweeps, then -max-rank draws kept every
-thin sweeps), and ranks each parameter's simulated value among its draws.
For a calibrated sampler the ranks are uniform on 0 … max-rank. It prints, per
parameter, Pearson's χ² statistic of the ranks on -bins bins, its p-value, the
median effective sample size of the ranked draws (near max-rank when they are
nearly independent; raise -thin otherwise) and a verdict, "uniform" when
p > 0.001. The exit status is 0 whatever the verdict.

Models (-model): ` + strings.Join(models.SimulatorNames(), ", ") + `.
The conjugate models use the registry's hyperparameters and data sizes (-n,
-k as for nmc sample); blr and robust draw small data sets, -n rows [100] and
-k predictors [2] with X ~ N(0, 1) and the paper's priors; annotation draws a
small Dawid-Skene data set from the paper's prior, -n items [40] labelled by
about 2.5 of -k labelers [4] each, 3 classes, and samples it with the classes z
summed out (z is still ranked: drawn after each sweep, ties broken at random);
the funnel has no data. Group moves are on unless -no-group-moves.

Simulations run in parallel on all cores; simulation i draws all its random
numbers from PCG stream i of -seed, so the results do not depend on the number
of cores.

-out writes one row per simulation and parameter with the columns of the SBC
R package, sim_id,variable,simulated_value,rank,max_rank (sim_id from 1).
-plots writes, per parameter, the rank histogram (sbc_rank_NAME.png) and the
ECDF-difference plot with its 95% simultaneous band (sbc_ecdf_NAME.png).`,
	flags: sbcFlags,
}

// sbcThreshold is the p-value below which nmc sbc calls ranks not uniform.
const sbcThreshold = 0.001

// sbcFlags declares the flags of "nmc sbc".
func sbcFlags(fs *flag.FlagSet) func(*env, []string) error {
	model := fs.String("model", "", "the model to calibrate (required; see above)")
	sims := fs.Int("sims", 200, "number of simulations")
	seed := fs.Uint64("seed", 1, "seed (simulation i uses PCG stream i)")
	n := fs.Int("n", 0, "simulated data: rows, observations or groups (0: the model's default)")
	k := fs.Int("k", 0, "simulated data: predictors or trials (0: the model's default)")
	maxRank := fs.Int("max-rank", 99, "posterior draws ranked per simulation (ranks 0 … max-rank)")
	thin := fs.Int("thin", 10, "keep every `L`-th sweep after warm-up")
	warmup := fs.Int("warmup", 100, "warm-up sweeps per chain")
	chains := fs.Int("chains", 1, "chains per simulation (max-rank must be a multiple)")
	bins := fs.Int("bins", 10, "bins of the χ² test and the rank histogram")
	noGroups := fs.Bool("no-group-moves", false, "turn off the model's group moves (plain single-site NMC)")
	out := fs.String("out", "", "write the ranks to `file` (CSV)")
	plots := fs.String("plots", "", "write the rank histograms and ECDF-difference plots into `dir`")
	return func(e *env, args []string) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q (sbc takes flags only)", args[0])
		}
		if err := checkModel(*model); err != nil {
			return usage(err)
		}
		if !slices.Contains(models.SimulatorNames(), *model) {
			return usagef("-model: model %s has no simulator (models with one: %s)", *model, strings.Join(models.SimulatorNames(), ", "))
		}
		switch {
		case *sims < 1:
			return usagef("-sims = %d, want at least 1", *sims)
		case *maxRank < 1:
			return usagef("-max-rank = %d, want at least 1", *maxRank)
		case *thin < 1:
			return usagef("-thin = %d, want at least 1", *thin)
		case *warmup < 0:
			return usagef("-warmup = %d, want 0 or more", *warmup)
		case *chains < 1:
			return usagef("-chains = %d, want at least 1", *chains)
		case *maxRank%*chains != 0:
			return usagef("-max-rank = %d is not a multiple of -chains = %d", *maxRank, *chains)
		case *bins < 2 || *bins > *maxRank+1:
			return usagef("-bins = %d, want 2 … %d (max-rank + 1)", *bins, *maxRank+1)
		}
		sim, err := models.Simulator(*model, *n, *k)
		if se := (*models.SizeError)(nil); errors.As(err, &se) {
			return usagef("-%s = %d: %s", se.Size, se.Value, se.Reason)
		}
		if err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		bar := newProgress(e.stderr, "sbc "+*model, 1, *sims)
		cfg := sbc.Config{Simulator: sim, Sims: *sims, Seed: *seed, MaxRank: *maxRank, Thin: *thin, Warmup: *warmup, Chains: *chains,
			Sampler: &nmc.Options{Moves: []nmc.Move{nmc.Defaults{NoGroupMoves: *noGroups}}}}
		if bar != nil {
			cfg.Progress = func(done, _ int) { bar.update(nmc.Progress{Done: done}) }
		}
		start := time.Now()
		res, err := sbc.Run(ctx, cfg)
		bar.finish()
		if err != nil {
			return err
		}
		if err := reportSBC(e.stdout, *model, res, *bins, time.Since(start)); err != nil {
			return err
		}
		if *out != "" {
			if err := fileio.WriteFile(*out, res.WriteCSV); err != nil {
				return fmt.Errorf("-out: %v", err)
			}
		}
		if *plots != "" {
			files, err := sbcPlots(*plots, res, *bins)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "\nfigures: %s\n", strings.Join(files, ", "))
		}
		return nil
	}
}

// reportSBC prints the run's settings, the uniformity test of every parameter and
// the verdict.
func reportSBC(w io.Writer, model string, res *sbc.Result, bins int, wall time.Duration) error {
	c := res.Config
	chains := "chain"
	if c.Chains > 1 {
		chains = "chains"
	}
	fmt.Fprintf(w, "simulation-based calibration of %s: %d simulations, seed %d; each %d %s, %d warm-up sweeps, %d draws kept every %d sweeps (ranks 0 … %d)\n",
		model, len(res.Ranks), c.Seed, c.Chains, chains, c.Warmup, c.MaxRank, c.Thin, c.MaxRank)
	fmt.Fprintf(w, "wall time %s\n\n", paper.FormatDuration(wall))
	tests, err := res.Uniformity(bins)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "variable\tchi2\tdf\tp\tess_median\tverdict\t\n")
	var failed []string
	for v, name := range res.Variables {
		u := tests[v]
		verdict := "uniform"
		if !(u.PValue > sbcThreshold) {
			verdict = "NOT uniform"
			failed = append(failed, name)
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%d\t%.3g\t%.0f\t%s\t\n", name, u.ChiSquare, u.DF, u.PValue, medianESS(res, v), verdict)
	}
	tw.Flush()
	if len(failed) == 0 {
		fmt.Fprintf(w, "\nverdict: calibrated: the ranks of every parameter are uniform (χ² on %d bins, p > %g)\n", bins, sbcThreshold)
	} else {
		fmt.Fprintf(w, "\nverdict: NOT calibrated: the ranks of %s are not uniform (χ² on %d bins, p ≤ %g)\n", strings.Join(failed, ", "), bins, sbcThreshold)
	}
	return nil
}

// medianESS returns the median over simulations of the ESS of parameter v's ranked
// draws, NaN values (all draws equal) left out.
func medianESS(res *sbc.Result, v int) float64 {
	var ess []float64
	for _, e := range res.ESS {
		if !math.IsNaN(e[v]) {
			ess = append(ess, e[v])
		}
	}
	if len(ess) == 0 {
		return math.NaN()
	}
	slices.Sort(ess)
	n := len(ess)
	if n%2 == 1 {
		return ess[n/2]
	}
	return (ess[n/2-1] + ess[n/2]) / 2
}

// sbcPlots writes the rank histogram and the ECDF-difference plot of every ranked
// parameter into dir and returns their paths.
func sbcPlots(dir string, res *sbc.Result, bins int) ([]string, error) {
	if err := makeDir("-plots", dir); err != nil {
		return nil, err
	}
	var files []string
	for _, name := range res.Variables {
		ranks, err := res.RanksOf(name)
		if err != nil {
			return nil, err
		}
		hist, err := viz.RankHistogram(name, ranks, res.MaxRank, bins)
		if err != nil {
			return nil, fmt.Errorf("-plots: %w", err)
		}
		ecdf, err := viz.ECDFDiff(name, ranks, res.MaxRank, nil)
		if err != nil {
			return nil, fmt.Errorf("-plots: %w", err)
		}
		for _, f := range []struct {
			p    *plot.Plot
			name string
		}{{hist, "sbc_rank_"}, {ecdf, "sbc_ecdf_"}} {
			path, err := savePNG(f.p, dir, f.name+fileSafe(name))
			if err != nil {
				return nil, fmt.Errorf("-plots: %w", err)
			}
			files = append(files, path)
		}
	}
	return files, nil
}
