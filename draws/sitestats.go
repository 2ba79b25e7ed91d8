package draws

import (
	"fmt"
	"math"
	"strings"
)

// SiteStats counts the Metropolis-Hastings steps of one sampled site, or of a group
// of sites: how many proposals were made, accepted, and fell back to a simpler
// proposal. The sampler (package nmc) reports one per site, in total and chain by
// chain; the summary tables (frames.WithSamplerStats, nbutil.SiteStatsHTML) and the
// acceptance plot (viz.AcceptancePlot) read them.
type SiteStats struct {
	// Name is the site's name ("alpha", "z[3]"); for a group total (GroupSites) the
	// family name ("z"); for a summary row (frames.WithSamplerStats) the name of a
	// scalar quantity.
	Name string
	// Proposer names the proposal used: "newton-gaussian", "newton-cauchy", "gamma",
	// "dirichlet", "beta", "enumerate" or "discrete-mh", ending in "-augmented"
	// for a site stepped given the drawn marginalised sites (nmc.Augmenter);
	// "marginal-draw" for a marginalised site drawn from its exact conditional
	// after each sweep; for the other moves of a sampler's schedule
	// (nmc.Result.Moves) the move's own, such as "orbit-newton" for the group
	// moves of a group of sites, "fitted-gaussian", "hmc" or "lead-follow".
	Proposer string
	// Sites is the number of sites counted: 1 for one site, the size of the group
	// for a group total.
	Sites int
	// Proposals is the number of steps, warm-up included.
	Proposals int
	// Accepted is the number of accepted proposals that moved the site (every
	// enumeration step counts as accepted).
	Accepted int
	// Unmoved is the number of proposals of a continuous site equal to its current
	// point bit for bit, as when the proposal's spread is below the spacing of
	// float64 there. The Metropolis-Hastings test accepts such a proposal (its
	// ratio is 1), but the chain stays where it was: it is counted in Proposals,
	// not in Accepted, so that a site whose steps never move it shows an
	// acceptance rate of 0, not of 1.
	Unmoved int
	// Fallbacks is the number of steps whose forward proposal was a fallback (for
	// sites with several coordinates: at least one coordinate used one), for
	// example because −H was not positive definite.
	Fallbacks int
	// Unused, when not empty, says why a move the sampler planned made no
	// proposals: a fitted block left to its sites' own steps because they already
	// mixed in warm-up, or one with no fit. Its acceptance rate is then not a rate
	// but "not used" (AcceptRate is NaN). A total over chains says it only when no
	// chain used the move.
	Unused string
}

// AcceptRate returns Accepted / Proposals, or NaN when there were no proposals.
func (s SiteStats) AcceptRate() float64 {
	if s.Proposals == 0 {
		return math.NaN()
	}
	return float64(s.Accepted) / float64(s.Proposals)
}

// Add adds the counts of o (Sites, Proposals, Accepted, Unmoved, Fallbacks) to s.
func (s *SiteStats) Add(o SiteStats) {
	s.Sites += o.Sites
	s.Proposals += o.Proposals
	s.Accepted += o.Accepted
	s.Unmoved += o.Unmoved
	s.Fallbacks += o.Fallbacks
}

// Check returns an error naming s if a count is negative, more proposals were
// accepted (or accepted and unmoved) or fell back than were made, or the name is
// empty.
func (s SiteStats) Check() error {
	switch {
	case s.Name == "":
		return fmt.Errorf("draws: site stats with an empty name")
	case s.Sites < 0 || s.Proposals < 0 || s.Accepted < 0 || s.Unmoved < 0 || s.Fallbacks < 0:
		return fmt.Errorf("draws: site %q: negative count (sites %d, proposals %d, accepted %d, unmoved %d, fallbacks %d)",
			s.Name, s.Sites, s.Proposals, s.Accepted, s.Unmoved, s.Fallbacks)
	case s.Accepted > s.Proposals:
		return fmt.Errorf("draws: site %q: %d accepted of %d proposals", s.Name, s.Accepted, s.Proposals)
	case s.Accepted+s.Unmoved > s.Proposals:
		return fmt.Errorf("draws: site %q: %d accepted and %d unmoved of %d proposals", s.Name, s.Accepted, s.Unmoved, s.Proposals)
	case s.Fallbacks > s.Proposals:
		return fmt.Errorf("draws: site %q: %d fallbacks in %d proposals", s.Name, s.Fallbacks, s.Proposals)
	}
	return nil
}

// GroupSites totals stats by family and proposer, in order of first appearance: the
// family of a site is its name up to the first '[' ("z" for z[0], z[1], …), and
// sites of one family sampled by different proposers are kept apart. Each total
// has the family as Name and counts its sites in Sites.
func GroupSites(stats []SiteStats) []SiteStats {
	var out []SiteStats
	index := map[[2]string]int{}
	for _, s := range stats {
		name := s.Name
		if i := strings.IndexByte(name, '['); i > 0 {
			name = name[:i]
		}
		key := [2]string{name, s.Proposer}
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, SiteStats{Name: name, Proposer: s.Proposer})
		}
		out[i].Add(s)
	}
	return out
}
