package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/models"
	_ "github.com/nmc-go/nmc/models/ports" // registers the models ported from Stan
	"github.com/nmc-go/nmc/nmc"
)

// runSettings are the sampler settings of nmc sample.
type runSettings struct {
	chains, draws, warmup int
	// autoWarmup asks for the adaptive warm-up (-warmup auto); warmup is then unused.
	// warmupMax bounds it (-warmup-max, 0: nmc.DefaultWarmupMax); warmupPerChain
	// makes each chain end it on its own (-warmup-per-chain).
	autoWarmup     bool
	warmupMax      int
	warmupPerChain bool
	// thin is nmc.Options.Thin (-thin; 0: chosen by the adaptive warm-up).
	thin int
	// start is the chains' start rule (-start); startCandidates the number of
	// starts each chain draws by it, keeping the highest log joint
	// (-start-candidates, 0: the default).
	start           nmc.StartRule
	startCandidates int
	// firstChain is the global number of the run's first chain (-first-chain): the
	// run samples chains firstChain … firstChain+chains−1 of a run split over tasks.
	firstChain int
	seed       uint64
	// noGroupMoves turns the model's group moves off (-no-group-moves): plain
	// single-site NMC, as in the paper.
	noGroupMoves bool
	// noBlocks leaves out the blocks found from the curvature (-no-blocks).
	noBlocks bool
	// noAugment turns the model's data-augmentation steps off (-no-augment);
	// augmentRounds is nmc.Defaults.AugmentRounds (-augment-rounds).
	noAugment     bool
	augmentRounds int
	// leads names the lead sites of the lead-and-follow moves (-leads; nil: the
	// model's); noJointMoves turns the moves off (-no-joint-moves).
	leads        []string
	noJointMoves bool
	// follow is nmc.LeadMoves.Follow (-follow).
	follow float64
	// noHamiltonian turns the model's Hamiltonian block off (-no-hmc); leapfrogs is
	// nmc.HamiltonianMove.Leapfrogs (-leapfrogs).
	noHamiltonian bool
	leapfrogs     int
	// heldOutTotal keeps only each draw's summed held-out log-likelihood (the joint
	// curve's input) instead of every point: a million points × 1000 draws would be
	// 8 GB. pointwise is then nil.
	heldOutTotal bool
	// pllCurve asks for the whole pointwise PLL curve (-pll writes it); otherwise
	// only its last value, which the report prints, is computed.
	pllCurve bool
	// logLik and yRep add the training data's pointwise log-likelihood (log_lik[i])
	// and replicated data (y_rep[i]) at every draw to the -out draws (-loglik, -yrep).
	logLik, yRep bool
}

// check returns an error naming the flag of a setting out of range.
func (s runSettings) check() error {
	switch {
	case s.chains < 1:
		return fmt.Errorf("-chains = %d, want at least 1", s.chains)
	case s.draws < 1:
		return fmt.Errorf("-draws = %d, want at least 1", s.draws)
	case s.warmup < 0:
		return fmt.Errorf("-warmup = %d, want 0 or more", s.warmup)
	case s.startCandidates < 0:
		return fmt.Errorf("-start-candidates = %d, want 0 or more (0: the default)", s.startCandidates)
	case s.warmupMax < 0:
		return fmt.Errorf("-warmup-max = %d, want 0 or more (0: the default, %d)", s.warmupMax, nmc.DefaultWarmupMax)
	case s.firstChain < 0:
		return fmt.Errorf("-first-chain = %d, want 0 or more", s.firstChain)
	case math.IsNaN(s.follow) || math.IsInf(s.follow, 0):
		return fmt.Errorf("-follow = %g, want a finite number", s.follow)
	case s.augmentRounds < 0:
		return fmt.Errorf("-augment-rounds = %d, want 0 or more (0: the default)", s.augmentRounds)
	case s.leapfrogs < 0:
		return fmt.Errorf("-leapfrogs = %d, want 0 or more (0: the default)", s.leapfrogs)
	}
	return nil
}

// moves returns the schedule of the sampler flags for model m: the model's
// default moves (nmc.DefaultMoves) with the kinds the flags leave out left out,
// and the Hamiltonian block's leapfrogs and the lead moves' followers set.
func (s runSettings) moves(m nmc.Model) ([]nmc.Move, error) {
	moves, err := nmc.DefaultMoves(m, nmc.Defaults{NoGroupMoves: s.noGroupMoves, NoBlocks: s.noBlocks, NoAugment: s.noAugment, AugmentRounds: s.augmentRounds,
		NoHamiltonian: s.noHamiltonian, NoLeadMoves: s.noJointMoves, Leads: s.leads})
	if err != nil {
		return nil, err
	}
	for _, mv := range moves {
		switch mv := mv.(type) {
		case *nmc.HamiltonianMove:
			mv.Leapfrogs = s.leapfrogs
		case *nmc.LeadMoves:
			mv.Follow = s.follow
		}
	}
	return moves, nil
}

// maxWarmup is the most warm-up sweeps a chain runs: -warmup, or the bound of the
// adaptive warm-up.
func (s runSettings) maxWarmup() int {
	if s.autoWarmup {
		if s.warmupMax > 0 {
			return s.warmupMax
		}
		return nmc.DefaultWarmupMax
	}
	return s.warmup
}

// optionsWarmup returns nmc.Options.Warmup for the settings: nmc.AutoWarmup for
// -warmup auto, nmc.NoWarmup for -warmup 0, else the number of sweeps.
func (s runSettings) optionsWarmup() int {
	switch {
	case s.autoWarmup:
		return nmc.AutoWarmup
	case s.warmup == 0:
		return nmc.NoWarmup
	}
	return s.warmup
}

// warmupFlag is the value of -warmup: a number of sweeps, or "auto".
type warmupFlag struct {
	n    int
	auto bool
}

func (f *warmupFlag) String() string {
	if f.auto {
		return "auto"
	}
	return strconv.Itoa(f.n)
}

func (f *warmupFlag) Set(v string) error {
	if v == "auto" {
		f.auto, f.n = true, 0
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("want a number of sweeps or auto")
	}
	f.auto, f.n = false, n
	return nil
}

// maxPointwiseHeldOut is the most held-out log-likelihood values (points × chains ×
// draws, 1 GiB) kept for the pointwise PLL curve; above it only each draw's total
// is kept, and the pointwise curve is not computed. A variable for the tests.
var maxPointwiseHeldOut int64 = 1 << 27

// runResult is one sampled model with what nmc sample reports.
type runResult struct {
	data  *models.Dataset
	built *models.Built
	exact *models.Posterior // conjugate models only
	res   *nmc.Result
	// out are the draws written by -out: res.Draws, with the log_lik and y_rep
	// columns of -loglik and -yrep appended.
	out *draws.Draws
	// joint and pointwise are the running predictive log-likelihood curves of the
	// held-out data over the draws of all chains interleaved by draw (draw 0 of
	// every chain, then draw 1, …); nil without held-out data, pointwise also
	// without runSettings.pllCurve. finalPointwise is the pointwise curve's last
	// value when hasPointwise (not with runSettings.heldOutTotal).
	joint, pointwise []float64
	finalPointwise   float64
	hasPointwise     bool
	// warned holds warnings() once computed.
	warned *[]string
}

// execute builds and samples the model of d with settings s, showing a progress
// bar labelled desc on stderr when it is a terminal. check, if not nil, is
// called with the built model and the names of its quantities before sampling starts.
func execute(ctx context.Context, e *env, d *models.Dataset, s runSettings, desc string, check func(b *models.Built, names []string) error) (*runResult, error) {
	b, exact, err := d.Build()
	if err != nil {
		return nil, err
	}
	if check != nil {
		var names []string
		for _, site := range b.Model.Sites() {
			names = append(names, site.Coords()...)
		}
		if dv, ok := b.Model.(nmc.Deriver); ok {
			names = append(names, dv.DerivedNames()...)
		}
		if err := check(b, names); err != nil {
			return nil, err
		}
	}
	moves, err := s.moves(b.Model)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Model, err)
	}
	bar := newProgress(e.stderr, desc, s.chains, s.maxWarmup()+s.draws)
	opts := &nmc.Options{
		Chains:          s.chains,
		FirstChain:      s.firstChain,
		Draws:           s.draws,
		Warmup:          s.optionsWarmup(),
		WarmupMax:       s.warmupMax,
		WarmupPerChain:  s.warmupPerChain,
		Thin:            s.thin,
		Start:           s.start,
		StartCandidates: s.startCandidates,
		Seed:            s.seed,
		HeldOut:         b.HeldOut,
		Moves:           moves,
		Progress:        bar.callback(),
	}
	if b.HeldOut != nil && int64(b.HeldOut.Len())*int64(s.chains)*int64(s.warmup+s.draws) > maxPointwiseHeldOut {
		s.heldOutTotal = true // every point at every draw would not fit comfortably in memory
	}
	if s.heldOutTotal && b.HeldOut != nil {
		opts.HeldOut = nmc.HeldOutTotal(b.HeldOut)
	}
	res, err := nmc.Sample(ctx, b.Model, opts)
	bar.finish()
	if err != nil {
		if ctx.Err() != nil && res != nil {
			// Interrupted: the draws completed so far are whole and can be kept.
			return &runResult{data: d, built: b, exact: exact, res: res}, &interruptedError{res: res, total: s.draws}
		}
		return nil, fmt.Errorf("%s: %w", d.Model, err)
	}
	r := &runResult{data: d, built: b, exact: exact, res: res, out: res.Draws}
	if r.out, err = predictiveColumns(b, res, s); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Model, err)
	}
	if res.NumHeldOut > 0 {
		if s.pllCurve {
			r.joint, r.pointwise, err = diagnostics.PLLInterleaved(res.HeldOut, res.NumHeldOut)
			if err == nil {
				r.finalPointwise = r.pointwise[len(r.pointwise)-1]
			}
		} else {
			r.joint, r.finalPointwise, err = diagnostics.PLLInterleavedFinal(res.HeldOut, res.NumHeldOut)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.Model, err)
		}
		r.hasPointwise = !s.heldOutTotal
		if s.heldOutTotal {
			r.pointwise = nil
		}
	}
	return r, nil
}

// checkPredictiveSize returns an error naming the size when the values of -loglik
// (observations × chains × draws) or -yrep would exceed maxPointwiseHeldOut, the
// limit of the held-out values.
func checkPredictiveSize(b *models.Built, s runSettings) error {
	check := func(flag, what string, n int) error {
		if v := int64(n) * int64(s.chains) * int64(s.draws); v > maxPointwiseHeldOut {
			return fmt.Errorf("%s: %d %s × %d chains × %d draws = %d values, more than the %d the draws file may hold; use fewer draws or chains", flag, n, what, s.chains, s.draws, v, maxPointwiseHeldOut)
		}
		return nil
	}
	if s.logLik {
		if err := check("-loglik", "observations", b.Graph.NumObserved()); err != nil {
			return err
		}
	}
	if s.yRep {
		return check("-yrep", "replicated values", b.Graph.NumReplicated())
	}
	return nil
}

// yRepSeed turns -seed into the seed of the replicated data, so that their random
// numbers are not the chains' own.
const yRepSeed = 0x9e3779b97f4a7c15

// predictiveColumns returns res.Draws with the columns of -loglik (log_lik[i], the
// training observations' log-likelihoods) and -yrep (y_rep[i], replicated data)
// appended, or res.Draws itself without them.
func predictiveColumns(b *models.Built, res *nmc.Result, s runSettings) (*draws.Draws, error) {
	if !s.logLik && !s.yRep {
		return res.Draws, nil
	}
	var names []string
	var extra [][][]float64 // per block: per chain, draws × width
	var widths []int
	if s.logLik {
		h := b.LogLik()
		ll, err := nmc.PointwiseDraws(b.Model, res.Draws, h)
		if err != nil {
			return nil, err
		}
		for i := range h.Len() {
			names = append(names, fmt.Sprintf("log_lik[%d]", i))
		}
		extra, widths = append(extra, ll), append(widths, h.Len())
	}
	if s.yRep {
		rep := b.Replicator()
		yr, err := nmc.PredictiveDraws(b.Model, res.Draws, rep, s.seed^yRepSeed, s.firstChain)
		if err != nil {
			return nil, err
		}
		names = append(names, b.Graph.ReplicatedNames("y_rep")...)
		extra, widths = append(extra, yr), append(widths, rep.NumReplicated())
	}
	in := res.Draws
	w := len(in.Names)
	out := &draws.Draws{Names: append(append([]string(nil), in.Names...), names...), Chains: make([][]float64, len(in.Chains))}
	ow := len(out.Names)
	for c := range in.Chains {
		nd := in.NumDraws(c)
		rows := make([]float64, 0, nd*ow)
		for i := range nd {
			rows = append(rows, in.Chains[c][i*w:(i+1)*w]...)
			for bi, blk := range extra {
				rows = append(rows, blk[c][i*widths[bi]:(i+1)*widths[bi]]...)
			}
		}
		out.Chains[c] = rows
	}
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("-loglik/-yrep columns: %w", err)
	}
	return out, nil
}

// interruptedError reports a run stopped by an interrupt (SIGINT) before every
// chain completed its draws; res holds the draws completed so far.
type interruptedError struct {
	res   *nmc.Result
	total int // draws per chain requested
}

func (e *interruptedError) Error() string {
	lo, hi := e.total, 0
	for c := range e.res.Draws.NumChains() {
		n := e.res.Draws.NumDraws(c)
		lo, hi = min(lo, n), max(hi, n)
	}
	if lo == hi {
		return fmt.Sprintf("interrupted after %d of %d draws per chain", lo, e.total)
	}
	return fmt.Sprintf("interrupted after %d to %d of %d draws per chain", lo, hi, e.total)
}

// statsRows returns the rows of the acceptance table and plot: the sites totalled
// by family (draws.GroupSites), then the statistics of the schedule's other moves,
// as each reports them (nmc.Result.Moves).
func statsRows(res *nmc.Result) []draws.SiteStats {
	return append(draws.GroupSites(res.Sites), res.Moves...)
}

// printSites writes the acceptance and fallback counts per site family, then one
// row per other move (see statsRows); a move that was planned but not used (a
// fitted block left to its sites' own steps) says "not used" instead of a rate,
// and why below the table. When some proposals were the current point bit for bit
// (draws.SiteStats.Unmoved), a last column counts them.
func printSites(w io.Writer, res *nmc.Result) {
	groups := statsRows(res)
	width := len("site")
	for _, g := range groups {
		width = max(width, len(g.Name))
	}
	unmoved := false // a column of unmoved proposals, when there are any
	for _, g := range groups {
		unmoved = unmoved || g.Unmoved > 0
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tproposer\tsites\tproposals\taccept rate\tfallbacks\t", width, "site")
	if unmoved {
		fmt.Fprint(tw, "unmoved\t")
	}
	fmt.Fprintln(tw)
	var unused []draws.SiteStats
	for _, g := range groups {
		rate := "NA"
		switch {
		case g.Proposals > 0:
			rate = fmt.Sprintf("%.3f", g.AcceptRate())
		case g.Unused != "":
			rate = "not used"
			unused = append(unused, g)
		}
		fmt.Fprintf(tw, "%-*s\t%s\t%d\t%d\t%s\t%d\t", width, g.Name, g.Proposer, g.Sites, g.Proposals, rate, g.Fallbacks)
		if unmoved {
			fmt.Fprintf(tw, "%d\t", g.Unmoved)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	for _, g := range unused {
		fmt.Fprintf(w, "%s: not used, %s\n", g.Name, g.Unused)
	}
}

// warnings returns the run's warnings: the sampler's (nmc.Result.Warnings: sites
// that did not move, chains that did not agree at the end of the warm-up, restarts)
// and the draws' (diagnostics.ConvergenceWarnings over every recorded quantity: an
// R-hat of 1.01 or more, a bulk ESS below 100 per chain).
func (r *runResult) warnings() []string {
	if r.warned != nil {
		return *r.warned
	}
	msgs := r.res.Warnings()
	if rows, err := diagnostics.Convergence(r.res.Draws, nil); err == nil {
		msgs = append(msgs, diagnostics.ConvergenceWarnings(rows, r.res.Draws.NumChains())...)
	}
	r.warned = &msgs
	return msgs
}

// printWarnings writes each of the run's warnings (runResult.warnings) on a line of
// its own after prefix.
func printWarnings(w io.Writer, prefix string, r *runResult) {
	for _, msg := range r.warnings() {
		fmt.Fprintf(w, "%s%s\n", prefix, msg)
	}
}

// checkModel returns an error unless name is a model of the registry.
func checkModel(name string) error {
	if name == "" {
		return fmt.Errorf("-model is required (one of %s)", strings.Join(models.Names(), ", "))
	}
	if _, err := models.Lookup(name); err != nil {
		return fmt.Errorf("-model: unknown model %q (want one of %s)", name, strings.Join(models.Names(), ", "))
	}
	return nil
}

// makeDir creates dir (and its parents) for output files.
func makeDir(flagName, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: %v", flagName, err)
	}
	return nil
}

// fileSafe turns a quantity name into a file name part: "theta[0,1]" is "theta_0_1".
func fileSafe(name string) string {
	r := strings.NewReplacer("[", "_", "]", "", ",", "_", " ", "")
	return r.Replace(name)
}
