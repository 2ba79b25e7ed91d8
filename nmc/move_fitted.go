package nmc

import (
	"fmt"
	"math"
	"strings"

	"github.com/nmc-go/nmc/draws"
)

// The fitted independence step. During warm-up each chain collects the values of
// every fitted block (below); at the end of warm-up it fits a Gaussian N(m, S) to the
// block (see fitBlock: S from the block's curvature at a few warm-up draws, m their
// mean corrected by a Newton step) and freezes it as the proposal q = N(m, c·S),
// c = FittedSteps.Inflate (or the multivariate t with that location and scale
// matrix). Every FittedSteps.Every-th sweep after warm-up then adds FittedSteps.Steps
// Metropolis-Hastings independence steps per block:
//
//	log α = f(x′) − f(x) + log q(x) − log q(x′),
//
// where f is the log density of the block's coordinates given the rest of the state
// (the Markov-blanket score of a site, or the orbit score of a group). The proposal
// does not depend on the current point and is fixed for the recorded draws, so the
// step is an exact Metropolis-Hastings kernel for π, and a fixed schedule of exact
// kernels is exact. The global fit complements NMC's local steps: the Newton steps
// follow the non-Gaussian parts, the independence step makes large jumps along
// directions a local step crosses slowly (the β block of a logistic regression,
// whose conditional Newton proposal accepts ~13%).
//
// Blocks: the Real coordinates of every group (when group moves are on and the group
// has at least two of them, not all in the block of an earlier group) form one block, scored with the group's orbit score: the
// joint fit over, e.g., (α, β) of a regression follows their correlation, which
// single-site blocks cannot. Every Real site with at least two coordinates, none of
// them in a group block, forms a block of its own, scored with its Markov-blanket
// score. Scalar Real sites get no step of their own: NMC's one-dimensional Newton
// step already fits their conditional, which a marginal fit cannot beat. Blocks with
// more than maxFittedDim coordinates are left out (the dense covariance would cost
// more than the step gains), and so, chain by chain, are the blocks whose local
// steps accepted at least 90% of their warm-up proposals (see wellMixed).

// FittedSteps is the move of the fitted independence steps (see above): after a
// warm-up, each chain fits a Gaussian to the warm-up draws of every fitted block —
// the Real coordinates of each group the schedule moves along (GroupMoves), and
// each Real site with at least two coordinates outside those — and makes Steps
// independence Metropolis-Hastings steps per block from it every Every-th sweep.
// A block whose local steps (its sites' Newton steps and its group move) accepted
// at least 90% of their warm-up proposals is left to them, and a group's block
// whose step would accept at least 25% (estimated at the end of warm-up) steps its
// sites only on every 8th sweep (KeepSiteSteps keeps them in every sweep). Without
// a warm-up (or without blocks) it plans nothing. Every block's statistics are an
// entry of Result.Moves: Name "fitted(" followed by the block's sites and ")"
// (three or more of one plate shortened to the first and last, "a[0] … a[84]", as
// BlockNewton's),
// Proposer "fitted-gaussian" or "fitted-t", Sites the number of sites in the block;
// only the steps after warm-up are counted, and a block a chain left to its own
// steps, or could not fit, says why in Unused.
//
// The zero value is the default: three steps every sweep, Gaussian proposal with
// covariance inflated by 1.1.
type FittedSteps struct {
	// Every makes the steps on every Every-th sweep after warm-up (default 1, every
	// sweep). Must not be negative.
	Every int
	// Steps is the number of independence steps per block in a row on such a sweep
	// (default 3). A step costs two evaluations of the block's score (one when the
	// previous step is carried over), far less than a Newton step of a large site;
	// on a logistic regression with K = 40 three steps per sweep instead of one
	// raised the minimum bulk ESS of 4 × 1000 draws from 711–1237 to 985–2181 over
	// three seeds, for about 25% more wall time. Must not be negative.
	Steps int
	// Inflate is the factor c of the proposal's covariance c·S, S the fitted
	// covariance (default 1.1): a proposal a little wider than the target keeps the
	// importance ratio bounded in the tails, but in d dimensions the acceptance falls
	// about like c^(−d/2) (on a logistic regression with K = 40, from 53% at c = 1 to
	// 41% at 1.3 and 7% at 2, with the posterior's own covariance). Must be positive
	// and finite (0 means the default).
	Inflate float64
	// KeepSiteSteps keeps the Newton steps of a block's sites in every sweep. By
	// default a chain whose group block's independence step would accept at least
	// 25% of its proposals (estimated at the end of warm-up from the warm-up draws,
	// see fittedAcceptance) steps the block's sites only on every 8th sweep after
	// warm-up (see replaceSiteSteps): on a logistic regression with 10,000 train
	// rows and K = 40 (seed 1) that cut the CPU time of nmc sample from 19.8 s to
	// 12.9 s and raised the minimum bulk ESS per CPU second from 139 to 204.
	KeepSiteSteps bool
	// DF, when positive, replaces the Gaussian by the multivariate Student t with DF
	// degrees of freedom and the same location and scale matrix c·S (heavier tails).
	// 0 means Gaussian. Must not be negative.
	DF float64
}

// Why a fitted block made no steps (draws.SiteStats.Unused).
const (
	unusedMixed   = "left to its sites' own steps, which accepted at least 90% of their warm-up proposals together"
	unusedNoFit   = "no fit: too few warm-up draws, or no positive-definite scale"
	unusedStopped = "the chain stopped before its warm-up ended"
)

const (
	defaultFittedInflate = 1.1
	defaultFittedSteps   = 3
	// maxFittedDim is the largest block given a fitted step.
	maxFittedDim = 200
	// fittedRing is the most warm-up draws per block kept for the fit (the latest).
	fittedRing = 1000
	// minFittedDraws is the fewest warm-up draws a fit is made from (and at least
	// twice the block's dimension).
	minFittedDraws = 20
	// fittedRidge is the relative ridge added to the variances of a sample
	// covariance.
	fittedRidge = 1e-9
	// fittedCurvaturePoints is the number of warm-up draws whose curvature the
	// proposal's scale is fitted to.
	fittedCurvaturePoints = 20
	// fittedDiffStep is the relative step of the central differences of the cross
	// curvature between two sites.
	fittedDiffStep = 1e-5
	// fittedProposerGaussian and fittedProposerT are the proposers' names in
	// the blocks' statistics.
	fittedProposerGaussian = "fitted-gaussian"
	fittedProposerT        = "fitted-t"
)

// withDefaults validates f and returns it with its defaults filled in.
func (f FittedSteps) withDefaults() (FittedSteps, error) {
	if f.Every < 0 {
		return f, fmt.Errorf("nmc: FittedSteps.Every = %d is negative", f.Every)
	}
	if f.Steps < 0 {
		return f, fmt.Errorf("nmc: FittedSteps.Steps = %d is negative", f.Steps)
	}
	if f.Steps == 0 {
		f.Steps = defaultFittedSteps
	}
	if f.Inflate < 0 || math.IsNaN(f.Inflate) || math.IsInf(f.Inflate, 0) {
		return f, fmt.Errorf("nmc: FittedSteps.Inflate = %g, want positive and finite (0: the default %g)", f.Inflate, defaultFittedInflate)
	}
	if f.DF < 0 || math.IsNaN(f.DF) || math.IsInf(f.DF, 0) {
		return f, fmt.Errorf("nmc: FittedSteps.DF = %g, want 0 (Gaussian) or positive and finite", f.DF)
	}
	if f.Every == 0 {
		f.Every = 1
	}
	if f.Inflate == 0 {
		f.Inflate = defaultFittedInflate
	}
	return f, nil
}

// proposerName is the name of the fitted step's proposal in SiteStats.
func (f FittedSteps) proposerName() string {
	if f.DF > 0 {
		return fittedProposerT
	}
	return fittedProposerGaussian
}

// fittedName names the fitted steps in the schedule.
const fittedName = "fitted"

// Plan validates the settings; the blocks are known once every entry is planned
// (the groups moved).
func (f FittedSteps) Plan(p *Planner) ([]Planned, error) {
	eff, err := f.withDefaults()
	if err != nil {
		return nil, err
	}
	return []Planned{&fittedPlan{cfg: eff}}, nil
}

// fittedPlan is FittedSteps planned for a model.
type fittedPlan struct {
	cfg    FittedSteps
	blocks []blockPlan
}

func (fp *fittedPlan) Name() string { return fittedName }

// String lists the blocks.
func (fp *fittedPlan) String() string {
	names := make([]string, len(fp.blocks))
	for k, b := range fp.blocks {
		names[k] = b.name
	}
	every := "every sweep"
	if fp.cfg.Every > 1 {
		every = fmt.Sprintf("every %d sweeps", fp.cfg.Every)
	}
	return fmt.Sprintf("%s: after warm-up, %s, %d independence steps (%s) of each block: %s", fittedName, every, fp.cfg.Steps, fp.cfg.proposerName(), strings.Join(names, ", "))
}

// finish plans the blocks: those of the groups the schedule moves along and of
// the Real sites with several coordinates; none without a warm-up.
func (fp *fittedPlan) finish(p *Planner) (bool, error) {
	if p.run.opts.noWarmup() { // without warm-up there is nothing to fit
		return false, nil
	}
	var groups []orbitBlock
	for _, pm := range p.planned {
		if o, ok := pm.(orbitMover); ok {
			if gi, coords := o.orbitGroup(); gi >= 0 {
				groups = append(groups, orbitBlock{gi, coords})
			}
		}
	}
	fp.blocks = fittedBlocks(p.run.sites, groups)
	return len(fp.blocks) > 0, nil
}

func (fp *fittedPlan) Start(c *Chain) (Stepper, error) {
	st := &fittedStepper{plan: fp, stats: make([]draws.SiteStats, len(fp.blocks))}
	for bi := range fp.blocks {
		st.blocks = append(st.blocks, newFittedBlock(&fp.blocks[bi], c.run.sites, fp.cfg.DF))
	}
	return st, nil
}

// fittedStepper is the fitted steps' state in one chain.
type fittedStepper struct {
	plan   *fittedPlan
	blocks []*fittedBlock
	stats  []draws.SiteStats // per block, recorded sweeps only
	// replaced names the sites whose own steps the blocks replaced on all but
	// every thinnedEvery-th sweep (siteState.thinned), in state order.
	replaced []string
}

// Stats returns every block's statistics after warm-up, and why a block made no
// steps.
func (st *fittedStepper) Stats() []draws.SiteStats {
	name := st.plan.cfg.proposerName()
	out := make([]draws.SiteStats, len(st.blocks))
	for bi, b := range st.blocks {
		out[bi] = st.stats[bi]
		out[bi].Name, out[bi].Proposer, out[bi].Sites, out[bi].Unused = b.plan.name, name, len(b.plan.sites), b.unused
	}
	return out
}

// report names the sites whose steps the blocks replaced.
func (st *fittedStepper) report(r *Result, c int) {
	if len(st.replaced) == 0 {
		return
	}
	if r.ReplacedPerChain == nil {
		r.ReplacedPerChain = make([][]string, len(r.Draws.Chains))
	}
	r.ReplacedPerChain[c] = st.replaced
}

// Adapt collects the blocks' values of the warm-up's stationary part.
func (st *fittedStepper) Adapt(c *Chain, w Warmup) {
	if w.Sweep > w.Stationary {
		for _, b := range st.blocks {
			b.collect(c.x)
		}
	}
}

// restart forgets the collected draws.
func (st *fittedStepper) restart() {
	for _, b := range st.blocks {
		b.reset()
	}
}

// EndWarmup fits every block to its latest warm-up draws — all of a fixed
// warm-up's second half, the adaptive warm-up's stationary period without its
// first window — except the blocks that local steps already sample well (see
// wellMixed), and thins the site steps the blocks replace (replaceSiteSteps).
func (st *fittedStepper) EndWarmup(c *Chain, w Warmup) {
	m := fittedRing
	if w.Adaptive {
		m = w.Sweep - w.Stationary - autoWindow
	}
	for _, b := range st.blocks {
		if wellMixed(c, b) {
			b.active, b.unused = false, unusedMixed
			continue
		}
		b.fit(c, m, st.plan.cfg.Inflate)
	}
	st.replaceSiteSteps(c, m)
}

// Step makes the independence steps of every block, on every Every-th sweep
// after warm-up.
func (st *fittedStepper) Step(c *Chain) {
	if c.warm.warmup || c.warm.sweep%st.plan.cfg.Every != 0 {
		return
	}
	for bi, b := range st.blocks {
		st.stepBlock(c, b, &st.stats[bi])
	}
}

// stepBlock makes FittedSteps.Steps independence Metropolis-Hastings steps of
// block b in a row, counted in stats. The block's score at the current point is
// computed once (or taken from the group step that just scored the same state,
// see orbitScore) and carried from step to step.
func (st *fittedStepper) stepBlock(c *Chain, b *fittedBlock, stats *draws.SiteStats) {
	if !b.active {
		return
	}
	p := b.plan
	f0 := math.NaN()
	moved := false
	for n := 0; n < st.plan.cfg.Steps; n++ {
		stats.Proposals++
		if !b.draw(c.rng, b.y) {
			c.rng.Float64() // keep the chain's random numbers in step
			continue
		}
		u := c.rng.Float64()
		if math.IsNaN(f0) {
			if f0 = currentBlockScore(c, p); !isFinite(f0) {
				break
			}
		}
		for k, j := range p.coords {
			b.old[k] = c.x[j]
			c.x[j] = b.y[k]
		}
		f1 := blockScore(c, p)
		if f1 > math.Inf(-1) && !math.IsNaN(f1) && math.Log(u) < f1-f0+b.logq(b.old)-b.logq(b.y) {
			f0, moved = f1, true
			stats.Accepted++
			continue
		}
		for k, j := range p.coords {
			c.x[j] = b.old[k]
		}
		c.keep()
	}
	if moved {
		for _, i := range p.sites {
			c.moved(i)
		}
	}
	if p.group >= 0 && isFinite(f0) {
		c.orbit[p.group].score = orbitScore{f: f0, at: c.cache.edits}
	}
}

// currentBlockScore is blockScore at the chain's current state, known without an
// evaluation when the block's group was just scored there.
func currentBlockScore(c *Chain, p *blockPlan) float64 {
	if p.group >= 0 {
		if f, ok := c.knownOrbitScore(p.group); ok {
			return f
		}
	}
	return blockScore(c, p)
}

// blockScore returns the log density of block p's coordinates at the current state,
// up to terms that do not depend on them.
func blockScore(c *Chain, p *blockPlan) float64 {
	if p.group >= 0 {
		c.at.group = p.group
		f := c.sc.orb.ScoreOrbit(c.x, p.group, nil)
		c.at.group = -1
		return f
	}
	c.at.site = p.site
	f := c.sc.sc.Score(c.x, p.site, nil, nil)
	c.at.site = -1
	return f
}
