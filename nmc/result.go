package nmc

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/frames"
)

// Result is the outcome of Sample.
type Result struct {
	// Draws holds, per chain and recorded draw, every scalar coordinate (in the order
	// of Site.Coords over Sites()) followed by the derived quantities when the model
	// implements Deriver. After a cancelled or failed run a chain holds only its
	// completed draws. Its chains are numbered from 0; chain c is the chain with
	// global number FirstChain + c.
	Draws *draws.Draws
	// FirstChain is the global number of Draws' chain 0 (Options.FirstChain), for
	// files that carry the chains of a run split over machines.
	FirstChain int
	// Sites holds per-site proposal statistics, totals over chains, in Sites() order
	// (Sites is 1 in each; draws.GroupSites totals them by family).
	Sites []draws.SiteStats
	// SitesPerChain holds the same statistics chain by chain: SitesPerChain[c][i]
	// counts site i of Sites in chain c.
	//
	// A Marginalised site is not proposed but drawn from its exact conditional after
	// each sweep: its Proposer is "marginal-draw", and every draw counts as a proposal
	// and as accepted (Fallbacks counts the draws where no value had a finite score
	// and the site kept its value).
	SitesPerChain [][]draws.SiteStats
	// Moves holds the statistics of the schedule's moves other than the sites'
	// own steps, totals over chains, in the schedule's order: each move's entries
	// (Stepper.Stats: one per group of GroupMoves, per block of FittedSteps, per
	// lead of LeadMoves, one for HamiltonianMove), named by the move. An entry whose
	// move no chain used says why in Unused. Nil when no move keeps statistics.
	Moves []draws.SiteStats
	// MovesPerChain holds the same statistics chain by chain: MovesPerChain[c][k]
	// counts entry k of Moves in chain c.
	MovesPerChain [][]draws.SiteStats
	// ReplacedPerChain names, chain by chain, the sites whose own steps a fitted
	// block replaced on all but every 8th sweep after warm-up (see
	// FittedSteps.KeepSiteSteps), in state order; nil when no chain replaced any.
	ReplacedPerChain [][]string
	// HamiltonianChains holds, chain by chain, the Hamiltonian block's step size,
	// mean acceptance probability and divergent trajectories after warm-up (see
	// HamiltonianMove); nil without a block.
	HamiltonianChains []HamiltonianChain
	// Schedule is the schedule the chains ran (see Plan).
	Schedule Schedule
	// Stuck lists, in state order, the continuous sites whose value was the same
	// bit for bit in every recorded draw of some chain (with at least two draws),
	// with those chains: a continuous posterior is never constant, so the site's
	// steps did not move it (see draws.SiteStats.Unmoved); nil when every
	// continuous site moved in every chain. Warnings describes them.
	Stuck []StuckSite
	// WarmupSweeps holds each chain's number of warm-up sweeps (Options.Warmup, or the
	// length the adaptive warm-up chose; for a cancelled or failed chain, the sweeps
	// it ran before stopping, 0 if it stopped in its warm-up).
	WarmupSweeps []int
	// Thin holds each chain's thinning: it recorded every Thin[c]-th sweep after
	// warm-up (Options.Thin, or the thinning the adaptive warm-up chose; see
	// Options.Thin).
	Thin []int
	// PilotESS holds, for each chain that chose its thinning, the least ESS per
	// sweep of a continuous coordinate its thinning pilot measured (pooled over
	// the chains that chose together); NaN for the others. An estimate from a
	// few hundred sweeps, low where the chains mix slowly: on the
	// pharmacokinetic port (seed 3) 0.0071, against 0.023 in the 40,000 sweeps
	// that followed (the recorded draws' own ESS is what to read).
	PilotESS []float64
	// WarmupCheck is the adaptive warm-up's check across chains at its end:
	// whether the chains' log joints agreed, and how far apart they lay when they
	// did not (its Warning, also in Warnings). Nil when the chains warmed up alone
	// (no adaptive warm-up, Options.WarmupPerChain, one chain) or the run stopped
	// in its warm-up.
	WarmupCheck *WarmupCheck
	// Restarts lists the restarts of chains from a fresh start in the adaptive
	// warm-up (a site frozen: its proposals' spread below the spacing of float64), chain by
	// chain, in order; nil when there was none. Warnings describes them.
	Restarts []Restart
	// Wall is the wall-clock time of the whole run.
	Wall time.Duration
	// CPU is the CPU time, user plus system, that the process used during the run
	// (getrusage(RUSAGE_SELF) before the chains start and after they end): the
	// chains' work plus whatever else the process did meanwhile — the garbage
	// collector, a progress display, other goroutines (two runs at the same time
	// each count both). It is the run's own cost when nothing else runs, and
	// measures it across machines better than Wall, which depends on the cores
	// free. 0 where the platform does not report it (not Linux, macOS or a BSD).
	CPU time.Duration
	// HeldOut holds, per chain, the pointwise held-out log-likelihoods row-major,
	// draws × NumHeldOut, when Options.HeldOut is set; nil otherwise.
	HeldOut [][]float64
	// NumHeldOut is the number of held-out points (0 without Options.HeldOut).
	NumHeldOut int
	// StepFractions holds, per chain, the Beta(A, B) of the step fraction used for the
	// recorded draws (after adaptation), when SiteSteps.Real.Step is a BetaStep; nil
	// otherwise.
	StepFractions []BetaStep
	// CrankNicolsonGammas holds, per chain and per site (in Sites() order), the γ used
	// for the recorded draws (after adaptation), when SiteSteps.Real.Step is a
	// CrankNicolson; NaN for sites that are not Real. Nil otherwise.
	CrankNicolsonGammas [][]float64
	// Options are the effective options, defaults filled in.
	Options Options
}

// siteStats returns the statistics of Result.Sites and Result.SitesPerChain: each
// chain's counts of every site, named with its proposer, and their totals over the
// chains.
func siteStats(run *sampling, chains []*Chain) (total []draws.SiteStats, perChain [][]draws.SiteStats) {
	total = make([]draws.SiteStats, len(run.sites))
	for i, s := range run.sites {
		total[i] = draws.SiteStats{Name: s.Name, Proposer: run.siteProposers[i], Sites: 1}
	}
	perChain = make([][]draws.SiteStats, len(chains))
	for c, ch := range chains {
		perChain[c] = make([]draws.SiteStats, len(run.sites))
		for i := range ch.sites {
			st := ch.sites[i].stats
			st.Name, st.Proposer, st.Sites = total[i].Name, total[i].Proposer, 1
			perChain[c][i] = st
			total[i].Add(st)
			total[i].Sites = 1
		}
	}
	return total, perChain
}

// moveStats returns the statistics of Result.Moves and Result.MovesPerChain: each
// chain's entries of every move of the schedule (Stepper.Stats), in order, and
// their totals over the chains. A chain that stopped before its moves started
// counts nothing; nil when no chain started them or no move keeps statistics.
func moveStats(run *sampling, chains []*Chain) (total []draws.SiteStats, perChain [][]draws.SiteStats) {
	var names []draws.SiteStats // the entries' names, from a chain that started
	for _, ch := range chains {
		if ch.moves != nil && len(ch.moves) == len(run.schedule) {
			for _, st := range ch.moves {
				for _, e := range st.Stats() {
					names = append(names, draws.SiteStats{Name: e.Name, Proposer: e.Proposer, Sites: e.Sites})
				}
			}
			break
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	perChain = make([][]draws.SiteStats, len(chains))
	for c, ch := range chains {
		if ch.moves == nil || len(ch.moves) != len(run.schedule) {
			perChain[c] = append([]draws.SiteStats(nil), names...)
			continue
		}
		for _, st := range ch.moves {
			perChain[c] = append(perChain[c], st.Stats()...)
		}
	}
	total = append([]draws.SiteStats(nil), names...)
	for k := range total {
		for c := range perChain {
			total[k].Add(perChain[c][k])
		}
		total[k].Sites = names[k].Sites
		total[k].Unused = unusedTotal(perChain, k)
	}
	return total, perChain
}

// unusedTotal returns the Unused of the total of entry i of perChain: "" when
// some chain made proposals, else the chains' reasons, distinct ones joined by
// "; ".
func unusedTotal(perChain [][]draws.SiteStats, i int) string {
	var reasons []string
	for _, st := range perChain {
		if st[i].Proposals > 0 || st[i].Unused == "" {
			return ""
		}
		if !slices.Contains(reasons, st[i].Unused) {
			reasons = append(reasons, st[i].Unused)
		}
	}
	return strings.Join(reasons, "; ")
}

// StuckSite is a continuous site that did not move in the recorded draws of some
// chains (Result.Stuck).
type StuckSite struct {
	// Site is the site's index in the model's Sites(); Name its name.
	Site int
	Name string
	// Chains are the chains (0-based, as in Result.Draws) in which it did not move.
	Chains []int
}

// stuckSites returns the continuous sites whose coordinates are the same bit for
// bit in every row of a chain with at least two rows; rows[c] holds chain c's
// draws, ncols values each, the state's coordinates first.
func stuckSites(sites []Site, rows [][]float64, ncols int) []StuckSite {
	var out []StuckSite
	off := Offsets(sites)
	for i, s := range sites {
		if s.Support == Discrete {
			continue
		}
		var chains []int
		for c, r := range rows {
			n := len(r) / ncols
			if n < 2 || !constantColumns(r, ncols, off[i], off[i]+s.Size) {
				continue
			}
			chains = append(chains, c)
		}
		if chains != nil {
			out = append(out, StuckSite{Site: i, Name: s.Name, Chains: chains})
		}
	}
	return out
}

// constantColumns reports whether columns lo … hi−1 of the rows r (ncols values
// each) hold the same bits in every row.
func constantColumns(r []float64, ncols, lo, hi int) bool {
	for k := ncols; k < len(r); k += ncols {
		for j := lo; j < hi; j++ {
			if math.Float64bits(r[k+j]) != math.Float64bits(r[j]) {
				return false
			}
		}
	}
	return true
}

// Warnings returns one sentence for each problem the run's statistics show, for a
// summary to print: an adaptive warm-up that ended without the chains agreeing
// (WarmupCheck), each restart of a chain from a fresh start (Restarts), and
// every continuous site that did not move in the recorded draws of some chains
// (Stuck), with its proposals in those chains (warm-up included) and how many of
// them were its current point bit for bit. Nil when there is none.
func (r *Result) Warnings() []string {
	var out []string
	if r.WarmupCheck != nil {
		if msg := r.WarmupCheck.Warning(); msg != "" {
			out = append(out, msg)
		}
	}
	for _, rs := range r.Restarts {
		out = append(out, rs.String())
	}
	for _, s := range r.Stuck {
		var st draws.SiteStats
		chains := make([]string, len(s.Chains))
		for k, c := range s.Chains {
			chains[k] = strconv.Itoa(c)
			if c < len(r.SitesPerChain) && s.Site < len(r.SitesPerChain[c]) {
				st.Add(r.SitesPerChain[c][s.Site])
			}
		}
		which := "chain " + chains[0]
		if len(chains) > 1 {
			which = "chains " + strings.Join(chains, ", ")
		}
		msg := fmt.Sprintf("site %q did not move in the recorded draws of %s", s.Name, which)
		if st.Proposals > 0 {
			msg += fmt.Sprintf(": of its %d proposals there (warm-up included) %d moved it and %d were its current point bit for bit", st.Proposals, st.Accepted, st.Unmoved)
			if st.Unmoved > 0 {
				msg += " (a proposal whose spread is below the spacing of float64 at the point)"
			}
		}
		out = append(out, msg)
	}
	return out
}

// AllStats returns the statistics of every site (Sites) followed by those of the
// schedule's other moves (Moves), for the summary tables and the acceptance plot
// (viz.AcceptancePlot, nbutil.SiteStatsHTML). A move that made no proposals
// because no chain used it (a fitted block left to its sites' own steps) says why
// in Unused, not by an acceptance rate.
func (r *Result) AllStats() []draws.SiteStats {
	return append(append([]draws.SiteStats(nil), r.Sites...), r.Moves...)
}

// AcceptRate returns the fraction of accepted proposals of the named site over all
// chains, or, when no site has that name, of the named entry of Moves (a group, a
// fitted block). It returns an error if none has that name or it made no
// proposals.
func (r *Result) AcceptRate(site string) (float64, error) {
	for _, s := range r.AllStats() {
		if s.Name == site {
			if s.Proposals == 0 {
				return 0, fmt.Errorf("nmc: site %q made no proposals", site)
			}
			return s.AcceptRate(), nil
		}
	}
	return 0, fmt.Errorf("nmc: no site or move named %q", site)
}

// DataFrame returns the draws as a gota DataFrame: an int column "chain" and an int
// column "draw" (both 0-based), then one float column per coordinate and derived
// quantity, one row per draw, chain after chain (see frames.DataFrame).
func (r *Result) DataFrame() (frames.Frame, error) {
	return frames.DataFrame(r.Draws)
}

// WriteCSV writes the draws to w as CSV with the columns of DataFrame (see
// frames.WriteCSV). It returns the first write error.
func (r *Result) WriteCSV(w io.Writer) error {
	return frames.WriteCSV(w, r.Draws)
}
