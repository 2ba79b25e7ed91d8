package nmc

import (
	"fmt"
	"io"
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
	SitesPerChain [][]draws.SiteStats
	// Wall is the wall-clock time of the whole run.
	Wall time.Duration
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
	total = make([]draws.SiteStats, len(sites))
	for i, s := range sites {
		total[i] = draws.SiteStats{Name: s.Name, Proposer: proposerName(s, eff)}
	}
	perChain = make([][]draws.SiteStats, len(chains))
	for c, ch := range chains {
		perChain[c] = ch.stats
		for i := range ch.stats {
			st := &perChain[c][i]
			st.Name, st.Proposer, st.Sites = total[i].Name, total[i].Proposer, 1
			total[i].Add(*st)
		}
	}
	for i := range total {
		total[i].Sites = 1 // one site, counted over all chains (Add summed the chains' 1s)
	}
	return total, perChain
}

// AcceptRate returns the fraction of accepted proposals of the named site over all
// chains. It returns an error if no site has that name or it made no proposals.
func (r *Result) AcceptRate(site string) (float64, error) {
	for _, s := range r.Sites {
		if s.Name == site {
			if s.Proposals == 0 {
				return 0, fmt.Errorf("nmc: site %q made no proposals", site)
			}
			return s.AcceptRate(), nil
		}
	}
	return 0, fmt.Errorf("nmc: no site named %q", site)
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
