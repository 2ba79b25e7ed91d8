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
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/internal/fileio"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/paper"
	"github.com/nmc-go/nmc/viz"
)

var sampleCommand = &command{
	name:     "sample",
	args:     "-model NAME [-train FILE [-test FILE] | -data FILE | -n N -k K] [flags]",
	synopsis: "sample a model with Newtonian Monte Carlo",
	help: `Sample draws from the posterior of one of the paper's models by Newtonian
Monte Carlo and prints the posterior summary, the wall time, and the
acceptance rate and fallback count of every site family.

Models (-model): ` + strings.Join(models.Names(), ", ") + `.
The conjugate models (normal_known_sigma, gamma_poisson, beta_binomial,
dirichlet_categorical) use the hyperparameters of the shared data set
(testdata/conjugate/hyperparameters.csv in the repository), and their exact
posterior is printed next to the estimate with z = (mean − exact mean) / mcse_mean.

Data: -train (and optionally -test, the held-out data of the predictive
log-likelihood) read files in the shared schemas: y,x1,…,xK for blr and
robust; item,labeler,label for annotation (sizes from annotation_meta.csv
beside the train file, or -meta); the conjugate data files as they are.
Without -train the data are generated from the model's generative process
with -n, -k and -seed. The repository's testdata folder holds small files in
these schemas; from its root, for example:

  nmc sample -model gamma_poisson -train testdata/conjugate/gamma_poisson.csv
  nmc sample -model blr -train testdata/examples/blr_train_head1000.csv \
      -test testdata/examples/blr_test_head1000.csv

The models ported from Stan programs (` + strings.Join(stanModels(), ", ") + `)
read their data from a CmdStan JSON data file with -data, the file Stan reads;
nmc gen writes one with the Stan program beside it:

  nmc gen -model arma11 -seed 3 -out dir
  nmc sample -model arma11 -data dir/arma11.json

` + sizeHelp() + `

A run can be split over tasks (machines, job array tasks) that each sample a
few of its chains: chain c of a run draws all its random numbers from PCG
stream c of -seed, and -first-chain K gives a task chains K, K+1, …,
K+chains−1 of the run. With the same model, data, -seed, -draws and -warmup
they are bit for bit those chains of one run of all the chains, provided the
adaptive warm-up (-warmup auto, the default) runs per chain: give
-warmup-per-chain to every task and to the run they are compared with (without
it the chains meet at the end of every warm-up window and end their warm-up
together, so a chain's warm-up depends on the chains it runs with). The -out file
numbers a task's chains from 0 (its chain 0 is chain K of the run); give the
tasks' files to nmc summary in chain order: it reads them as the chains of one
run and numbers them 0, 1, … in the order given. Data generated without -train
depend on -n, -k and -seed only, so every task generates the same data.

-loglik adds to the -out draws the pointwise log-likelihood of the training
data at every draw, one column log_lik[0], log_lik[1], … per observation (the
input of nmc loo); -yrep adds replicated data drawn from each observation's
distribution at every draw, y_rep[0], y_rep[1], … (posterior predictive
draws, from PCG streams of a seed derived from -seed). They are not printed.
More than 2^27 values (observations × chains × draws) are refused.

With held-out data the running predictive log-likelihood (PLL) is computed
over the draws of all chains interleaved by draw, in the joint form
log mean_s exp(Σ_j log p(y_j | θ_s)); samples to convergence is the first
number of pooled draws after which the curve stays within 1% of its final
value.`,
	flags: sampleFlags,
}

// sampleFlags declares the flags of "nmc sample".
func sampleFlags(fs *flag.FlagSet) func(*env, []string) error {
	model := fs.String("model", "", "the model to sample (required; see above)")
	train := fs.String("train", "", "read the training data from `file` (default: generate data)")
	test := fs.String("test", "", "read held-out data from `file` (blr, robust, annotation)")
	stanData := fs.String("data", "", "read the data from a CmdStan JSON `file` (the models ported from Stan)")
	meta := fs.String("meta", "", "annotation only: the metadata `file` (default: annotation_meta.csv beside -train)")
	n := fs.Int("n", 0, "generated data: rows, items, observations or groups (0: the model's default)")
	k := fs.Int("k", 0, "generated data: predictors, labelers, categories or trials (0: the model's default)")
	seed := fs.Uint64("seed", 1, "seed of the generated data and of the sampler (chain c uses PCG stream c)")
	draws := fs.Int("draws", 1000, "recorded draws per chain")
	chains := fs.Int("chains", 4, "number of chains, run in parallel")
	firstChain := fs.Int("first-chain", 0, "sample chains `K` … K+chains−1 of a run split over tasks (see above)")
	warmup := &warmupFlag{auto: true}
	fs.Var(warmup, "warmup", "warm-up sweeps per chain before recording, or auto: the chains warm up until each one's log joint stops trending and they agree (R-hat of the log joint below 1.05), at least 200 sweeps (300 with a Hamiltonian block) and at most -warmup-max; 0: none (the paper's runs)")
	warmupMax := fs.Int("warmup-max", 0, "the most sweeps of -warmup auto (0: the default, 1000)")
	thin := fs.Int("thin", 0, "record every `N`-th sweep after warm-up (0: chosen by -warmup auto from the warm-up's ESS per sweep, at most 10, else 1)")
	warmupPerChain := fs.Bool("warmup-per-chain", false, "-warmup auto: each chain ends its warm-up on its own test, without comparing the chains (needed by runs split with -first-chain, see above)")
	start := nmc.DefaultStart
	fs.Func("start", "where the chains start: uniform (Stan's rule: uniform(−2, 2) on each continuous coordinate's unconstrained scale, discrete sites from the prior) or prior (a draw of the model's prior) (default prior)", func(v string) error {
		r, err := nmc.ParseStartRule(v)
		start = r
		return err
	})
	startCandidates := fs.Int("start-candidates", 0, "each chain draws `K` starts by -start and keeps the first whose log joint is not orders of magnitude below the best of them (0: the default, 8; 1: the first draw)")
	noGroups := fs.Bool("no-group-moves", false, "turn off the model's group moves and the automatic blocks (plain single-site NMC, as in the paper)")
	noBlocks := fs.Bool("no-blocks", false, "turn off the block Newton moves of the strongly coupled sites found from the curvature (nmc.Defaults.NoBlocks; -no-group-moves turns them off too)")
	explicitClasses := fs.Bool("explicit-classes", false, "annotation only: keep the classes z in the sweep as the paper has them (each updated by enumeration given pi and theta); default: z summed out of the scores of pi and theta, drawn exactly after each sweep and still recorded")
	leads := fs.String("leads", "", "make lead-and-follow moves of these comma-separated `sites` after warm-up (random walks in their unconstrained coordinates; default: the sites the model declares)")
	follow := fs.Float64("follow", 0, "lead-and-follow moves: the least shift (nats) of a site's fitted proposal that makes it follow the lead; 0: the lead moves alone, negative: every site that reads the lead follows")
	noJoint := fs.Bool("no-joint-moves", false, "turn off the lead-and-follow moves")
	noAugment := fs.Bool("no-augment", false, "turn off the data-augmentation steps (the annotation model's confusion rows then take summed-out steps)")
	augmentRounds := fs.Int("augment-rounds", 0, "data-augmentation rounds per sweep (0: the default, 2, or 1 with a Hamiltonian block)")
	noHMC := fs.Bool("no-hmc", false, "turn off the model's Hamiltonian block (the annotation model's joint HMC move of pi and theta with the classes summed out); its lead-and-follow moves and two augmentation rounds then come back")
	leapfrogs := fs.Int("leapfrogs", 0, "leapfrog steps of the Hamiltonian block's move (0: the default, 32)")
	out := fs.String("out", "", "write the draws to `file` (nmc draws CSV, full precision)")
	logLik := fs.Bool("loglik", false, "add to the -out draws the training data's pointwise log-likelihood, one column log_lik[i] per observation (the input of nmc loo)")
	yRep := fs.Bool("yrep", false, "add to the -out draws replicated data drawn at every draw, one column y_rep[i] per observed value (posterior predictive draws)")
	summary := fs.String("summary", "", "write the summary of every quantity to `file` (CSV)")
	pll := fs.String("pll", "", "write the running predictive log-likelihood curves to `file` (CSV; needs held-out data)")
	plots := fs.String("plots", "", "write PNG figures (traces, densities, acceptance, PLL) into `dir`")
	vars := fs.String("vars", "", "print only these comma-separated quantities (a family name such as beta selects all)")
	schedule := fs.Bool("schedule", false, "print the moves the sampler makes in every sweep of the model, one a line, and exit without sampling")
	return func(e *env, args []string) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q (sample takes flags only)", args[0])
		}
		if err := checkModel(*model); err != nil {
			return usage(err)
		}
		s := runSettings{chains: *chains, firstChain: *firstChain, draws: *draws, warmup: warmup.n, autoWarmup: warmup.auto, warmupMax: *warmupMax, warmupPerChain: *warmupPerChain, thin: *thin, start: start, startCandidates: *startCandidates, seed: *seed, noGroupMoves: *noGroups, noBlocks: *noBlocks, noJointMoves: *noJoint, noAugment: *noAugment, augmentRounds: *augmentRounds, follow: *follow, noHamiltonian: *noHMC, leapfrogs: *leapfrogs, logLik: *logLik, yRep: *yRep}
		if *leads != "" {
			s.leads = strings.Split(*leads, ",")
		}
		if err := s.check(); err != nil {
			return usage(err)
		}
		if (*logLik || *yRep) && *out == "" {
			return usagef("-loglik and -yrep add columns to the -out draws file: give -out")
		}
		var d *models.Dataset
		var err error
		spec, _ := models.Lookup(*model)
		switch {
		case *stanData != "":
			switch {
			case *train != "" || *test != "" || *meta != "":
				return usagef("-data reads a CmdStan JSON file; it cannot be used with -train, -test or -meta")
			case *n != 0 || *k != 0:
				return usagef("-n and -k generate data; they cannot be used with -data")
			case !spec.StanJSON():
				return usagef("-data: model %s reads CSV files in the shared schemas (-train)", *model)
			}
			d, err = models.LoadStanJSON(*model, *stanData)
		case *train != "" || *test != "":
			if *n != 0 || *k != 0 {
				return usagef("-n and -k generate data; they cannot be used with -train or -test")
			}
			if spec.StanJSON() {
				return usagef("-train: model %s reads a CmdStan JSON data file (-data)", *model)
			}
			d, err = loadData(*model, *train, *test, *meta)
		default:
			if *meta != "" {
				return usagef("-meta given without -train")
			}
			d, err = generateData(*model, *n, *k, *seed)
		}
		if err != nil {
			return err
		}
		if *explicitClasses {
			if d.Model != "annotation" {
				return usagef("-explicit-classes: model %s has no discrete classes (annotation only)", d.Model)
			}
			d.ExplicitClasses = true
		}
		if spec, _ := models.Lookup(d.Model); *pll != "" && !spec.HeldOut {
			return usagef("-pll: model %s has no held-out data", d.Model)
		}
		if *schedule {
			return printSchedule(e.stdout, d, s)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		var selected []string
		if *vars != "" {
			selected = splitNames(*vars)
		}
		s.pllCurve = *pll != ""
		r, err := execute(ctx, e, d, s, d.Model, func(b *models.Built, names []string) error {
			if err := checkVars(selected, names); err != nil {
				return usage(err)
			}
			return checkPredictiveSize(b, s)
		})
		if ie := (*interruptedError)(nil); errors.As(err, &ie) {
			return interrupted(ie, *out)
		}
		if err != nil {
			return err
		}
		if err := reportSample(e.stdout, r, s, sampleOutputs{draws: *out, summary: *summary, pll: *pll, plots: *plots, vars: *vars}); err != nil {
			return err // one line on stderr: the error, not the warnings besides it
		}
		printWarnings(e.stderr, "nmc sample: warning: ", r)
		return nil
	}
}

// printSchedule writes the schedule of moves the sampler would run on the model of
// d with settings s (nmc.Plan), one a line.
func printSchedule(w io.Writer, d *models.Dataset, s runSettings) error {
	b, _, err := d.Build()
	if err != nil {
		return err
	}
	moves, err := s.moves(b.Model)
	if err != nil {
		return fmt.Errorf("%s: %w", d.Model, err)
	}
	sched, err := nmc.Plan(b.Model, &nmc.Options{Chains: s.chains, Draws: s.draws, Warmup: s.optionsWarmup(), Seed: s.seed, Moves: moves})
	if err != nil {
		return fmt.Errorf("%s: %w", d.Model, err)
	}
	fmt.Fprintf(w, "model %s: %s; the moves of every sweep, in order:\n%s", d.Model, describeData(d), sched)
	return nil
}

// interrupted writes the draws completed before an interrupt to the -out file
// path (when given) and returns the error that reports the interrupt.
func interrupted(ie *interruptedError, path string) error {
	if path == "" {
		return ie
	}
	if err := frames.WriteCSVFile(path, ie.res.Draws); err != nil {
		return fmt.Errorf("%v; -out: %w", ie, err)
	}
	return fmt.Errorf("%v; the draws completed so far are in %s", ie, path)
}

// sampleOutputs are the output files and selections of nmc sample.
type sampleOutputs struct {
	draws, summary, pll, plots, vars string
}

// maxPrinted is the most summary rows printed; the -summary file holds them all.
const maxPrinted = 40

// reportSample prints the results of a sample run to w and writes the requested
// files.
func reportSample(w io.Writer, r *runResult, s runSettings, o sampleOutputs) error {
	res := r.res
	chains := "chains"
	if s.chains == 1 {
		chains = "chain"
	}
	fmt.Fprintf(w, "model %s: %s; %d %s × %d draws%s after %s, seed %d%s\n",
		r.data.Model, describeData(r.data), s.chains, chains, s.draws, describeThin(res), describeWarmup(s, res), s.seed, chainRange(s))
	var all []diagnostics.SummaryRow
	if o.summary != "" || r.exact != nil {
		var err error
		if all, err = diagnostics.Summarize(res.Draws, nil); err != nil {
			return err
		}
	}
	spec, err := models.Lookup(r.data.Model)
	if err != nil {
		return err
	}
	opts := &diagnostics.SummaryOptions{Variables: spec.SummaryVariables}
	if o.vars != "" {
		opts.Variables = splitNames(o.vars)
	}
	// Only the printed rows are summarized.
	names, err := diagnostics.SummaryVariables(res.Draws, opts.Variables)
	if err != nil {
		return err
	}
	more := 0
	if len(names) > maxPrinted {
		more = len(names) - maxPrinted
		opts.Variables = names[:maxPrinted]
	}
	printed, err := diagnostics.Summarize(res.Draws, opts)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, describeCost(res, s, printed))
	fmt.Fprintln(w)
	fmt.Fprint(w, diagnostics.FormatSummary(printed))
	if more > 0 {
		fmt.Fprintf(w, "… %d more rows (choose with -vars; -summary writes them all)\n", more)
	}
	fmt.Fprintln(w)
	printSites(w, res)
	printWarnings(w, "warning: ", r)

	if r.exact != nil {
		refs, err := r.exact.References()
		if err != nil {
			return err
		}
		cmp, err := diagnostics.CompareExact(all, refs)
		if err != nil {
			return fmt.Errorf("%s: %w", r.data.Model, err)
		}
		rows := make([]paper.ConjugateRow, len(cmp))
		for i, c := range cmp {
			rows[i] = paper.ConjugateRow{Model: r.data.Model, Comparison: c}
		}
		fmt.Fprintln(w, "\nexact posterior (closed form) against the estimate:")
		if err := paper.WriteComparisons(w, rows, false); err != nil {
			return err
		}
	}
	if r.joint != nil {
		fmt.Fprintf(w, "\nheld-out data: %d points; PLL: joint form, chains interleaved by draw\n", res.NumHeldOut)
		if r.hasPointwise {
			fmt.Fprintf(w, "final PLL %.6g (pointwise form %.6g)", r.joint[len(r.joint)-1], r.finalPointwise)
		} else {
			fmt.Fprintf(w, "final PLL %.6g (pointwise form not computed: too many held-out points to keep each one)", r.joint[len(r.joint)-1])
		}
		if n, err := diagnostics.SamplesToConvergence(r.joint); err == nil {
			fmt.Fprintf(w, "; samples to convergence %d of %d pooled draws", n, len(r.joint))
		}
		fmt.Fprintln(w)
	}

	if o.draws != "" {
		if err := frames.WriteCSVFile(o.draws, r.out); err != nil {
			return fmt.Errorf("-out: %w", err)
		}
	}
	if o.summary != "" {
		if err := writeSummaryFile("-summary", o.summary, all); err != nil {
			return err
		}
	}
	if o.pll != "" {
		if err := writePLLFile(o.pll, r.joint, r.pointwise); err != nil {
			return err
		}
	}
	if o.plots != "" {
		files, err := samplePlots(o.plots, r, printed)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\nfigures: %s\n", strings.Join(files, ", "))
	}
	return nil
}

// describeCost says what the run cost: its wall time, its CPU time (when the
// platform reports it, see nmc.Result.CPU), the sweeps per second of wall time over
// all chains, and the smallest bulk ESS of the printed quantities per second of
// wall time and per second of CPU time (the figure to compare across machines,
// which differ in the cores free):
// "wall time 1.2s, CPU time 2.3s (3100 sweeps/s over all chains; min bulk ESS 812
// (beta[3]): 677 per second, 353 per CPU second)".
func describeCost(res *nmc.Result, s runSettings, printed []diagnostics.SummaryRow) string {
	sweeps := 0
	for c, n := range res.WarmupSweeps {
		sweeps += n + s.draws*max(res.Thin[c], 1)
	}
	text := "wall time " + paper.FormatDuration(res.Wall)
	if res.CPU > 0 {
		text += ", CPU time " + paper.FormatDuration(res.CPU)
	}
	text += fmt.Sprintf(" (%.0f sweeps/s over all chains", float64(sweeps)/res.Wall.Seconds())
	low := -1
	for i, row := range printed {
		if !math.IsNaN(row.ESSBulk) && (low < 0 || row.ESSBulk < printed[low].ESSBulk) {
			low = i
		}
	}
	if low >= 0 {
		ess := printed[low].ESSBulk
		text += fmt.Sprintf("; min bulk ESS %.0f (%s): %.0f per second", ess, printed[low].Variable, ess/res.Wall.Seconds())
		if res.CPU > 0 {
			text += fmt.Sprintf(", %.0f per CPU second", ess/res.CPU.Seconds())
		}
	}
	return text + ")"
}

// describeWarmup says how long the chains warmed up: "100 warm-up sweeps", or for
// the adaptive warm-up "adaptive warm-up of 250 sweeps" (the chains' common
// length) or "adaptive warm-up of 200, 250, … sweeps" (chain by chain, with
// -warmup-per-chain).
func describeWarmup(s runSettings, res *nmc.Result) string {
	if !s.autoWarmup {
		return fmt.Sprintf("%d warm-up sweeps", s.warmup)
	}
	n := make([]string, len(res.WarmupSweeps))
	same := true
	for c, v := range res.WarmupSweeps {
		n[c] = strconv.Itoa(v)
		same = same && v == res.WarmupSweeps[0]
	}
	if same && len(n) > 0 {
		return "adaptive warm-up of " + n[0] + " sweeps"
	}
	return "adaptive warm-up of " + strings.Join(n, ", ") + " sweeps"
}

// describeThin says which sweeps the chains recorded: "" for every sweep, else
// " (every 4th sweep)" or, chain by chain, " (every 3rd, 4th, 4th, 5th sweep)".
func describeThin(res *nmc.Result) string {
	n := make([]string, len(res.Thin))
	same, all := true, true
	for c, v := range res.Thin {
		n[c] = ordinal(v)
		same = same && v == res.Thin[0]
		all = all && v <= 1
	}
	switch {
	case all:
		return ""
	case same:
		return " (every " + n[0] + " sweep)"
	}
	return " (every " + strings.Join(n, ", ") + " sweep)"
}

// ordinal writes n ≥ 1 as "1st", "2nd", "3rd", "4th", "11th", "22nd", ….
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}

// chainRange describes the run's chains in the run split over tasks that they
// belong to ("; chains 2–3 of the run"), or returns "" for a run that starts at
// chain 0.
func chainRange(s runSettings) string {
	switch {
	case s.firstChain == 0:
		return ""
	case s.chains == 1:
		return fmt.Sprintf("; chain %d of the run", s.firstChain)
	}
	return fmt.Sprintf("; chains %d–%d of the run", s.firstChain, s.firstChain+s.chains-1)
}

// checkVars returns an error naming the first selector of -vars that matches
// none of names: a selector is a name or the family of names sel[…].
func checkVars(selected, names []string) error {
	for _, sel := range selected {
		found := false
		for _, n := range names {
			if n == sel || strings.HasPrefix(n, sel+"[") {
				found = true
				break
			}
		}
		if !found {
			fams := []string{}
			seen := map[string]bool{}
			for _, n := range names {
				if i := strings.IndexByte(n, '['); i > 0 {
					n = n[:i]
				}
				if !seen[n] {
					seen[n] = true
					fams = append(fams, n)
				}
			}
			return fmt.Errorf("-vars: the model has no quantity %q (it has %s)", sel, strings.Join(fams, ", "))
		}
	}
	return nil
}

// describeData describes the data of d in one phrase.
func describeData(d *models.Dataset) string {
	switch {
	case d.Port != nil:
		return d.Port.Describe()
	case d.RegressionTrain != nil:
		n, k := d.RegressionTrain.Dims()
		s := fmt.Sprintf("%d train rows", n)
		if d.RegressionTest != nil {
			m, _ := d.RegressionTest.Dims()
			s += fmt.Sprintf(", %d test rows", m)
		}
		return s + fmt.Sprintf(", K = %d predictors", k)
	case d.AnnotationTrain != nil:
		s := fmt.Sprintf("%d train items (%d labels)", d.AnnotationTrain.NumItems, d.AnnotationTrain.NumLabels())
		if d.AnnotationTest != nil {
			s += fmt.Sprintf(", %d test items (%d labels)", d.AnnotationTest.NumItems, d.AnnotationTest.NumLabels())
		}
		return s + fmt.Sprintf(", %d labelers, %d classes", d.AnnotationTrain.NumLabelers, d.AnnotationTrain.NumClasses)
	case d.Trials != nil:
		return fmt.Sprintf("%d groups", len(d.Trials))
	case d.Size() > 0:
		return fmt.Sprintf("%d observations", d.Size())
	}
	return "no data"
}

// writePLLFile writes the PLL curves as CSV: draws (pooled, 1-based), pll_joint,
// pll_pointwise; without the pointwise curve (nil: only each draw's held-out total
// was kept) the last column is left out.
func writePLLFile(path string, joint, pointwise []float64) error {
	err := fileio.WriteFile(path, func(w io.Writer) error {
		header := "draws,pll_joint,pll_pointwise\n"
		if pointwise == nil {
			header = "draws,pll_joint\n"
		}
		if _, err := io.WriteString(w, header); err != nil {
			return err
		}
		for i := range joint {
			line := strconv.Itoa(i+1) + "," + strconv.FormatFloat(joint[i], 'g', -1, 64)
			if pointwise != nil {
				line += "," + strconv.FormatFloat(pointwise[i], 'g', -1, 64)
			}
			if _, err := io.WriteString(w, line+"\n"); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("-pll: %v", err)
	}
	return nil
}

// maxPlotted is the most quantities nmc sample draws traces and densities of.
const maxPlotted = 4

// samplePlots writes the figures of a sample run into dir and returns their paths:
// trace and density of the first printed quantities (with the exact density for
// conjugate models and for the funnel's z), acceptance rates, and the PLL curve.
func samplePlots(dir string, r *runResult, printed []diagnostics.SummaryRow) ([]string, error) {
	if err := makeDir("-plots", dir); err != nil {
		return nil, err
	}
	var files []string
	add := func(p *plot.Plot, name string, err error) error {
		if err != nil {
			return fmt.Errorf("-plots: %s: %w", name, err)
		}
		path, err := savePNG(p, dir, name)
		if err != nil {
			return fmt.Errorf("-plots: %w", err)
		}
		files = append(files, path)
		return nil
	}
	d := r.res.Draws
	for i, row := range printed {
		if i == maxPlotted {
			break
		}
		p, err := viz.Trace(d, row.Variable)
		if err := add(p, "trace_"+fileSafe(row.Variable), err); err != nil {
			return nil, err
		}
		var exactPDF func(float64) float64
		label := ""
		if r.exact != nil {
			if m, err := r.exact.Marginal(row.Variable); err == nil {
				exactPDF = func(x float64) float64 { return math.Exp(m.LogPDF(x)) }
				label = "exact posterior"
			}
		}
		if r.data.Model == "funnel" && row.Variable == "z" {
			p, err = paper.FunnelZPlot(d)
		} else {
			p, err = viz.Density(d, row.Variable, &viz.DensityOptions{KDE: exactPDF == nil, Exact: exactPDF, ExactLabel: label})
		}
		if err := add(p, "density_"+fileSafe(row.Variable), err); err != nil {
			return nil, err
		}
	}
	var sites []draws.SiteStats
	for _, g := range statsRows(r.res) {
		if g.Proposals > 0 || g.Unused != "" { // a site family that made no proposals has no rate to plot
			sites = append(sites, g)
		}
	}
	if len(sites) > 0 {
		p, err := viz.AcceptancePlot(sites)
		if err := add(p, "acceptance", err); err != nil {
			return nil, err
		}
	}
	if r.joint != nil {
		p, err := paper.PLLPlot(r.data.Model+": running predictive log-likelihood", []string{r.data.Model}, [][]float64{r.joint})
		if err := add(p, "pll", err); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// savePNG writes p as dir/name.png at the size of the paper's figures and returns
// the path.
func savePNG(p *plot.Plot, dir, name string) (string, error) {
	path := filepath.Join(dir, name+".png")
	if err := viz.SavePNG(p, path, paper.FigureWidth, paper.FigureHeight); err != nil {
		return "", err
	}
	return path, nil
}

// loadData reads the data of model from the files of -train, -test and -meta.
func loadData(model, train, test, meta string) (*models.Dataset, error) {
	spec, err := models.Lookup(model)
	if err != nil {
		return nil, err
	}
	switch {
	case !spec.HasData():
		return nil, usagef("-train: model %s has no data", model)
	case train == "":
		return nil, usagef("-test %s given without -train", test)
	case test != "" && !spec.HeldOut:
		return nil, usagef("-test: model %s has no held-out data", model)
	}
	return models.Load(model, train, test, meta)
}

// generateData generates the data of model with the sizes of -n and -k and the
// seed of -seed.
func generateData(model string, n, k int, seed uint64) (*models.Dataset, error) {
	d, err := models.Generate(model, n, k, seed)
	if se := (*models.SizeError)(nil); errors.As(err, &se) {
		// Generated data fail only for sizes (-n, -k) the model does not take.
		return nil, usagef("-%s = %d: %s", se.Size, se.Value, se.Reason)
	}
	return d, err
}
