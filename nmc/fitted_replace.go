package nmc

import (
	"math"
	"math/rand/v2"
)

// Thinning site steps where the fitted step samples the block (FittedSteps). At the end of
// warm-up, after the fitted blocks are fitted, each chain estimates the acceptance
// rate its independence step would have at stationarity (see fittedAcceptance).
// When the estimate for the active block of a group is at least fittedReplaceRate,
// the Newton steps of the block's sites (those whose every coordinate is in the
// block) are made only on every thinnedEvery-th sweep after warm-up; the other
// sweeps move the block by its group move and FittedSteps.Steps independence steps.
// Every kernel leaves π invariant, the schedule is chosen once from the chain's
// warm-up and then fixed, so the chain stays exact; the site steps that remain keep a
// local kernel on every coordinate (an independence step alone mixes slowly in tails
// heavier than its Gaussian's: see TestFittedStepAlone's banana), and the group move
// runs in every sweep.
//
// An independence step that accepts a quarter of its proposals moves the whole block
// to a nearly independent point every few tries, which the local steps of its sites
// — each a draw from one site's conditional given the others — cannot match on a
// strongly correlated block, while a local step costs about as much as a fitted one.
// On a logistic regression with 10,000 train rows and K = 40 (4 × 1000 draws; the
// chains' estimates 0.37–0.59, the recorded acceptance 0.39–0.43, β's Newton step
// 7–13%, α's 99%) the minimum bulk ESS over α and β was 2635, 1945 and 2072 for
// seeds 1–3 (with every site step: 2757, 2708, 2450; max R-hat 1.003), and the
// whole nmc sample process took 12.9 s of CPU instead of 19.8 s (seed 1, medians of
// 3 interleaved runs): ESS per CPU second 139 → 204. With the site steps on every
// 4th sweep the sampler took about 8% more CPU for no more ESS (seeds 1 and 3: 2496
// and 1612). Dropping the site steps altogether (and without the condition of a
// group) made the banana of TestFittedStepWithSites fail: its x1 variance came out
// 5.6 MCSE low, the light tails of a Gaussian independence proposal (see
// TestFittedStepAlone). The other built-in models keep every site step: the funnel's
// block accepts 13.5%, centred eight schools' 3.4%, and a robust regression's block
// gets no fitted step (its local steps mix, see wellMixed).

const (
	// fittedReplaceRate is the estimated acceptance rate of a block's independence
	// step from which it replaces its sites' own steps.
	fittedReplaceRate = 0.25
	// fittedTrialPoints is the number of warm-up draws, and of proposals, the
	// acceptance rate is estimated from.
	fittedTrialPoints = 20
	// fittedTrialSeed is mixed into Options.Seed for the random numbers of the
	// estimate, so that the chain's own stream is left as it was.
	fittedTrialSeed = 0x6a09e667f3bcc909
)

// fittedAcceptance returns an estimate of the stationary acceptance rate of block
// b's independence step, from fittedTrialPoints of its latest m warm-up draws x (as
// draws of π) and as many proposals y ~ q: the mean over all pairs of
// min(1, w(y)/w(x)), w = π/q, the acceptance probability of the move from x to y.
// The proposals come from a stream of their own (Options.Seed mixed with
// fittedTrialSeed, the chain's number), and the state is restored and every cache
// invalidated afterwards, so the chain's draws do not depend on the estimate unless
// its outcome changes the sweep.
func fittedAcceptance(c *Chain, b *fittedBlock, m int) float64 {
	m = min(m, b.n)
	if !b.active || m < 1 {
		return 0
	}
	p := b.plan
	for k, j := range p.coords {
		b.keep[k] = c.x[j]
	}
	defer func() {
		for k, j := range p.coords {
			c.x[j] = b.keep[k]
		}
		c.invalidateAll()
	}()
	lw := func(v []float64) float64 {
		for k, j := range p.coords {
			c.x[j] = v[k]
		}
		c.invalidateAll()
		f := blockScore(c, p)
		if !isFinite(f) {
			return math.Inf(-1)
		}
		return f - b.logq(v)
	}
	npts := min(fittedTrialPoints, m)
	wx := make([]float64, 0, npts)
	for t := 0; t < npts; t++ {
		if w := lw(b.row(t * m / npts)); isFinite(w) {
			wx = append(wx, w)
		}
	}
	if len(wx) == 0 {
		return 0
	}
	rng := rand.New(rand.NewPCG(c.run.opts.Seed^fittedTrialSeed, uint64(c.num())))
	ax := make([]float64, len(wx))
	for range fittedTrialPoints {
		if !b.draw(rng, b.y) {
			continue
		}
		wy := lw(b.y)
		if !isFinite(wy) {
			continue
		}
		for k, w := range wx {
			ax[k] += math.Exp(min(0, wy-w)) / fittedTrialPoints
		}
	}
	sum := 0.0
	for _, a := range ax {
		sum += a
	}
	return sum / float64(len(wx))
}

// replaceSiteSteps thins, on all but every thinnedEvery-th sweep after warm-up,
// the steps of the sites of every active fitted block of a group whose estimated
// acceptance rate is at least fittedReplaceRate (see the comment above), unless
// FittedSteps.KeepSiteSteps. m is the number of warm-up draws the blocks were
// fitted to.
func (st *fittedStepper) replaceSiteSteps(c *Chain, m int) {
	if st.plan.cfg.KeepSiteSteps {
		return
	}
	sites, off := c.run.sites, c.run.off
	for _, b := range st.blocks {
		if !b.active || b.plan.group < 0 {
			continue
		}
		b.acceptance = fittedAcceptance(c, b, m)
		if !(b.acceptance >= fittedReplaceRate) {
			continue
		}
		in := make(map[int]bool, len(b.plan.coords))
		for _, j := range b.plan.coords {
			in[j] = true
		}
		for _, i := range b.plan.sites {
			whole := true
			for j := off[i]; j < off[i]+sites[i].Size; j++ {
				whole = whole && in[j]
			}
			if whole {
				c.sites[i].thinned = true
			}
		}
	}
	for i := range c.sites {
		if c.sites[i].thinned {
			st.replaced = append(st.replaced, sites[i].Name)
		}
	}
}

// wellMixed reports whether the local steps that move block b accepted at least
// fittedSkipRate of their warm-up proposals: the Newton steps of its sites
// together (each at least fittedSkipSiteRate) and, for a group's block, the group
// move. Such a block is already sampled by near-exact conditional draws (a
// Gaussian-like site's Newton fit is its conditional) plus the group move along
// the direction that couples its sites, and an independence step would cost score
// evaluations for little: on a robust regression with K = 40 (sites accepting
// 99–100%, the group 99.9%) three fitted steps per sweep added 21% wall time and
// no bulk ESS. The sites are taken together, not one by one: on a Poisson
// regression with 30 varying intercepts of 20 rows each (sites accepting 88–96%,
// the groups 99%) the fitted steps, made because a few sites fell below 90%,
// replaced the sites' Newton steps on most sweeps with independence steps
// accepting 30–66% and cost half the CPU time: least bulk ESS per CPU second 187
// with them, 362 without (and 90 against 422 in the model's non-centred form).
func wellMixed(c *Chain, b *fittedBlock) bool {
	high := func(acc, prop int, rate float64) bool { return prop > 0 && float64(acc) >= rate*float64(prop) }
	acc, prop := 0, 0
	for _, i := range b.plan.sites {
		st := c.sites[i].stats
		if !high(acceptedMH(st), st.Proposals, fittedSkipSiteRate) {
			return false
		}
		acc, prop = acc+acceptedMH(st), prop+st.Proposals
	}
	if !high(acc, prop, fittedSkipRate) {
		return false
	}
	if g := b.plan.group; g >= 0 {
		if st := c.orbit[g].stats; !high(st.Accepted, st.Proposals, fittedSkipRate) {
			return false
		}
	}
	return true
}
