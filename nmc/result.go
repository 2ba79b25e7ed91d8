package nmc

import (
	"fmt"
	"io"
	"math"
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
	// Groups holds per-group statistics of the group moves, totals over chains, in
	// the order of the model's Groups(), when the model is a Grouper and
	// Options.NoGroupMoves is off; nil otherwise. Name is the group's name, Proposer
	// "orbit-newton", Sites the number of sites the group moves; Fallbacks counts the
	// moves whose forward proposal was not the Newton fit (the second derivative
	// along the orbit was not negative, or not finite).
	Groups []draws.SiteStats
	// GroupsPerChain holds the same statistics chain by chain: GroupsPerChain[c][g]
	// counts group g of Groups in chain c.
	GroupsPerChain [][]draws.SiteStats
	// Fitted holds per-block statistics of the fitted independence step (see
	// FittedStep), totals over chains, when there are fitted blocks (Options.Fitted
	// on, a warm-up, and a Real block of at least two coordinates); nil otherwise. Name is
	// "fitted(" followed by the block's sites and ")", Proposer "fitted-gaussian" or
	// "fitted-t", Sites the number of sites in the block. Only the steps of the
	// recorded phase (after warm-up, with the frozen proposal) are counted; a chain
	// whose warm-up gave no fit, or whose local steps already sampled the block well
	// (every site's and the group's warm-up acceptance at least 90%), makes none,
	// and its entry in FittedPerChain says why in Unused (as does the total when
	// no chain made any).
	Fitted []draws.SiteStats
	// FittedPerChain holds the same statistics chain by chain.
	FittedPerChain [][]draws.SiteStats
	// ReplacedPerChain names, chain by chain, the sites whose own steps a fitted
	// block replaced on all but every 8th sweep after warm-up (see
	// FittedStep.KeepSiteSteps), in state order; nil when no chain replaced any.
	ReplacedPerChain [][]string
	// Joint holds per-lead statistics of the lead-and-follow moves (see JointMoves),
	// totals over chains, in the order of Options.Joint.Leads; nil without leads. Name
	// is "lead-follow(" followed by the lead's name and ")", Proposer "lead-follow",
	// Sites 1. Only the moves after warm-up are counted.
	Joint []draws.SiteStats
	// JointPerChain holds the same statistics chain by chain.
	JointPerChain [][]draws.SiteStats
	// Hamiltonian holds the statistics of the Hamiltonian block's moves (see
	// Options.Hamiltonian), totals over chains, when the model declares a block and
	// Options.Hamiltonian.Off is false; nil otherwise. It has one entry: Name
	// "hamiltonian", Proposer "hmc", Sites the number of sites of the block. Only
	// the moves after warm-up are counted.
	Hamiltonian []draws.SiteStats
	// HamiltonianPerChain holds the same statistics chain by chain.
	HamiltonianPerChain [][]draws.SiteStats
	// HamiltonianChains holds, chain by chain, the block's step size, mean
	// acceptance probability and divergent trajectories after warm-up; nil
	// without a block.
	HamiltonianChains []HamiltonianChain
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
	// recorded draws (after adaptation), when Options.Real.Step is a BetaStep; nil
	// otherwise.
	StepFractions []BetaStep
	// CrankNicolsonGammas holds, per chain and per site (in Sites() order), the γ used
	// for the recorded draws (after adaptation), when Options.Real.Step is a
	// CrankNicolson; NaN for sites that are not Real. Nil otherwise.
	CrankNicolsonGammas [][]float64
	// Options are the effective options, defaults filled in.
	Options Options
}

// siteStats returns the statistics of Result.Sites and Result.SitesPerChain: each
// chain's counts of every site, named, and their totals over the chains.
func siteStats(sites []Site, eff *Options, chains []*chain) (total []draws.SiteStats, perChain [][]draws.SiteStats) {
	augmented := make(map[int]bool, len(eff.augSites))
	for _, i := range eff.augSites {
		augmented[i] = true
	}
	name := func(i int) string {
		if augmented[i] {
			return proposerName(sites[i], eff) + augmentedSuffix
		}
		return proposerName(sites[i], eff)
	}
	return collectStats(len(sites), func(i int) (string, string, int) { return sites[i].Name, name(i), 1 },
		chains, func(ch *chain) []draws.SiteStats { return ch.stats })
}

// collectStats labels the per-chain counters of n sites, groups or fitted blocks
// (of(ch) gives a chain's) and totals them over the chains: label(i) gives the i-th
// one's name, proposer and number of sites, which stays the same in the total (the
// same sites in every chain, not one per chain).
func collectStats(n int, label func(i int) (name, proposer string, sites int), chains []*chain, of func(*chain) []draws.SiteStats) (total []draws.SiteStats, perChain [][]draws.SiteStats) {
	total = make([]draws.SiteStats, n)
	for i := range total {
		total[i].Name, total[i].Proposer, total[i].Sites = label(i)
	}
	perChain = make([][]draws.SiteStats, len(chains))
	for c, ch := range chains {
		perChain[c] = of(ch)
		for i := range perChain[c] {
			st := &perChain[c][i]
			st.Name, st.Proposer, st.Sites = total[i].Name, total[i].Proposer, total[i].Sites
			sites := total[i].Sites
			total[i].Add(*st)
			total[i].Sites = sites
		}
	}
	return total, perChain
}

// groupStats returns the statistics of Result.Groups and Result.GroupsPerChain; nil
// without groups.
func groupStats(groups []groupPlan, chains []*chain) (total []draws.SiteStats, perChain [][]draws.SiteStats) {
	if len(groups) == 0 {
		return nil, nil
	}
	return collectStats(len(groups), func(g int) (string, string, int) { return groups[g].name, orbitProposer, len(groups[g].sites) },
		chains, func(ch *chain) []draws.SiteStats { return ch.gstats })
}

// AllStats returns the statistics of every site (Sites) followed by those of every
// group (Groups), every fitted block (Fitted), every lead-and-follow move (Joint)
// and the Hamiltonian block (Hamiltonian), for the summary tables and the
// acceptance plot (viz.AcceptancePlot, nbutil.SiteStatsHTML). A move that made no
// proposals because no chain used it (a fitted block left to its sites' own
// steps) says why in Unused, not by an acceptance rate.
func (r *Result) AllStats() []draws.SiteStats {
	return append(append(append(append(append([]draws.SiteStats(nil), r.Sites...), r.Groups...), r.Fitted...), r.Joint...), r.Hamiltonian...)
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
// summary to print: every continuous site that did not move in the recorded draws
// of some chains (Stuck), with its proposals in those chains (warm-up included)
// and how many of them were its current point bit for bit. Nil when there is
// none.
func (r *Result) Warnings() []string {
	var out []string
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

// AcceptRate returns the fraction of accepted proposals of the named site over all
// chains, or, when no site has that name, of the named group. It returns an error if
// neither has that name or it made no proposals.
func (r *Result) AcceptRate(site string) (float64, error) {
	for _, s := range r.AllStats() {
		if s.Name == site {
			if s.Proposals == 0 {
				return 0, fmt.Errorf("nmc: site %q made no proposals", site)
			}
			return s.AcceptRate(), nil
		}
	}
	return 0, fmt.Errorf("nmc: no site or group named %q", site)
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
