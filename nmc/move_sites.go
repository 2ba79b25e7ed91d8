package nmc

import (
	"fmt"
	"math"
	"strings"

	"github.com/nmc-go/nmc/draws"
)

// SiteSteps is the move of Newtonian Monte Carlo itself: one Metropolis-Hastings
// step of every site, in a fresh random order each sweep, from the proposer its
// support chooses (see the package documentation): a Newton-fitted Gaussian of a
// Real site, a Gamma, Beta or Dirichlet fit, the exact conditional of a finite
// Discrete site (enumeration), a folded geometric walk of an unbounded one. It
// steps every site that is not Marginalised and that no other move of the schedule
// takes over (Planner.Take: the augmented sites of an AugmentRound). After warm-up
// the sites whose steps a fitted block replaces (see FittedSteps.KeepSiteSteps)
// are stepped on every 8th sweep only. Its counts are the sites' own statistics
// (Result.Sites); it reports none of its own.
//
// The zero value is the paper's NMC.
type SiteSteps struct {
	// Real configures the proposal of Real sites; the zero value is the paper's
	// Newton–Gaussian proposal with the full Newton step. It is the proposal of
	// Real sites wherever the sampler fits one: in these steps, in start
	// refinement and in the fits other moves make (the augmented steps, the
	// followers of a lead), so a schedule sets it once.
	Real RealProposal
}

// sitesName names the site steps in the schedule.
const sitesName = "sites"

// Plan validates the Real proposal and plans the steps of the sites that no other
// move takes (known once every entry is planned).
func (s SiteSteps) Plan(p *Planner) ([]Planned, error) {
	real, err := s.Real.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := p.setReal(real); err != nil {
		return nil, err
	}
	return []Planned{&sitesPlan{real: real}}, nil
}

// sitesPlan is SiteSteps planned for a model.
type sitesPlan struct {
	real  RealProposal
	sites []int // the sites stepped, in state order
	names []string
}

func (sp *sitesPlan) Name() string { return sitesName }

// String lists the sites stepped, their families shortened ("theta[0] … theta[9]").
func (sp *sitesPlan) String() string {
	if len(sp.sites) == 1 {
		return fmt.Sprintf("%s: an NMC step of %s", sitesName, sp.names[0])
	}
	return fmt.Sprintf("%s: an NMC step of each of %d sites, in a fresh random order (%s)", sitesName, len(sp.sites), familyList(sp.names))
}

// finish plans the sites: every site not Marginalised and not taken by another
// move. A schedule whose other moves take every site keeps no site steps.
func (sp *sitesPlan) finish(p *Planner) (bool, error) {
	for i, s := range p.run.sites {
		if !s.Marginalised && !p.taken[i] {
			sp.sites = append(sp.sites, i)
			sp.names = append(sp.names, s.Name)
		}
	}
	return len(sp.sites) > 0, nil
}

func (sp *sitesPlan) Start(c *Chain) (Stepper, error) {
	st := &sitesStepper{plan: sp, perm: append(make([]int, 0, len(sp.sites)), sp.sites...)}
	if sp.real.Step != nil {
		st.fractions = sp.real.Step.newFractions(c.run.sites)
	}
	return st, nil
}

// sitesStepper is the site steps' state in one chain.
type sitesStepper struct {
	plan *sitesPlan
	perm []int // the sites in the order of the last sweep (shuffled in place)
	// sampledPerm, once set after warm-up, replaces perm except on every
	// thinnedEvery-th sweep: the sites a move thinned (siteState.thinned) left
	// out (see replaceSiteSteps); nil when no site is thinned.
	sampledPerm []int
	thinChecked bool
	// fractions gives the Newton step fraction γ of Real sites and adapts it
	// during warm-up; nil means the full step γ = 1.
	fractions fractions
}

func (st *sitesStepper) Stats() []draws.SiteStats { return nil }

// report stores the step fractions used for the recorded draws.
func (st *sitesStepper) report(r *Result, c int) {
	if st.fractions != nil {
		st.fractions.report(r, c)
	}
}

// Step steps every site of the sweep once, in a fresh random order (after
// warm-up, on all but every thinnedEvery-th sweep, without the thinned sites).
// It checks for cancellation every 256 sites.
func (st *sitesStepper) Step(c *Chain) {
	perm := st.perm
	if !c.warm.warmup {
		if !st.thinChecked {
			st.thinChecked = true
			st.sampledPerm = thinnedPerm(c, st.perm)
		}
		if st.sampledPerm != nil && c.warm.sweep%thinnedEvery != 0 {
			perm = st.sampledPerm
		}
	}
	for i := len(perm) - 1; i > 0; i-- {
		j := c.rng.IntN(i + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	for n, i := range perm {
		if n&255 == 255 && c.cancelled() {
			c.at.site = -1
			return
		}
		c.at.site = i
		s := &c.run.sites[i]
		switch {
		case s.Support != Discrete:
			st.stepContinuous(c, i)
		case s.NumValues > 0:
			c.stepEnumerate(i)
		default:
			c.stepDiscreteMH(i)
		}
	}
	c.at.site = -1
}

// thinnedPerm returns perm without the thinned sites, in perm's order, or nil
// when no site of the chain is thinned.
func thinnedPerm(c *Chain, perm []int) []int {
	any := false
	for i := range c.sites {
		any = any || c.sites[i].thinned
	}
	if !any {
		return nil
	}
	out := make([]int, 0, len(perm))
	for _, i := range perm {
		if !c.sites[i].thinned {
			out = append(out, i)
		}
	}
	return out
}

// stepContinuous is one Metropolis-Hastings step of the continuous site i.
func (st *sitesStepper) stepContinuous(c *Chain, i int) {
	ss := &c.sites[i]
	p := ss.prop
	ci := ss.cur
	cur, nxt := &ss.slots[ci], &ss.slots[1-ci]
	warmup := c.warm.warmup
	kc, choosing := p.(kindChooser)
	if !c.isValid(i) {
		off := c.run.off[i]
		copy(cur.x, c.x[off:off+len(cur.x)])
		cur.f = c.sc.sc.Score(c.x, i, cur.g, cur.h)
		if choosing {
			kc.nextKind(warmup)
			choosing = false
		}
		p.fit(cur)
		c.setValid(i)
	}
	if choosing && kc.nextKind(warmup) {
		p.fit(cur) // the proposal kind changed: refit at the cached point
	}
	// The step rule gives γ of Real sites (the other proposers ignore it) and
	// adapts to warm-up steps.
	stepped := st.fractions != nil && c.run.sites[i].Support == Real
	gamma := 1.0
	if stepped {
		gamma = st.fractions.gamma(c.rng, i)
	}
	stats := &ss.stats
	stats.Proposals++
	if cur.fb {
		stats.Fallbacks++
	}
	logr, valid, accept := c.proposeStep(c.sc.sc, p, i, cur, nxt, gamma)
	if !valid {
		if kc != nil && warmup {
			kc.record(math.Inf(-1))
		}
		return
	}
	if stepped && warmup {
		st.fractions.adapt(i, gamma, logr, accept)
	}
	if kc != nil && warmup {
		kc.record(logr)
	}
	if !accept {
		return
	}
	countAccepted(stats, cur.x, nxt.x)
	ss.cur = 1 - ci
	c.changed(i)
	c.setValid(i)
}

// familyList lists names for a schedule's line, runs of one family shortened:
// "alpha, beta[0] … beta[39]".
func familyList(names []string) string {
	var parts []string
	for k := 0; k < len(names); {
		fam, _, indexed := strings.Cut(names[k], "[")
		e := k + 1
		for indexed && e < len(names) && strings.HasPrefix(names[e], fam+"[") {
			e++
		}
		switch {
		case e-k > 2:
			parts = append(parts, names[k]+" … "+names[e-1])
		default:
			parts = append(parts, names[k:e]...)
		}
		k = e
	}
	return strings.Join(parts, ", ")
}
