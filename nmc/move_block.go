package nmc

import (
	"fmt"
	"math"
	"strings"

	"github.com/nmc-go/nmc/draws"
)

// BlockNewton moves a block of continuous sites jointly: one Metropolis-Hastings
// step per sweep from the Newton-fitted Gaussian of the block's joint log density
// in unconstrained coordinates — NMC's Real proposal (paper, section 3) for all the
// block's coordinates at once. The coordinates are those of the Hamiltonian block
// (identity for Real sites, u = log(x − Lower) for Positive ones, the logit of
// (x − Lower)/(Upper − Lower) for Interval ones, the additive log-ratio with
// coordinate 0 as reference for a simplex), and the target is the joint density
// in them, log p(x(u)) + log|J(u)| with the exact log-Jacobian. At the current
// point u the proposal is N(u + A⁻¹g, A⁻¹), g and −A the gradient and Hessian of
// the target there (from the Scorer's JointHessianer); where A is not positive
// definite its eigenvalues are replaced by SoftAbs's smooth absolute values, and
// where the derivatives are not finite the proposal is the random walk
// N(u, diag(0.1·(1 + |u_j|))²), as for a Real site (the run's Real proposal,
// SiteSteps.Real, applies: its Cauchy and Robust forms; the full Newton step). The proposal's reverse density
// is computed at the proposed point from the fit there, so the step is exact. The
// block's sites leave the site steps (Planner.Take).
//
// The move is useful where the posterior couples sites so strongly that steps of
// one site at a time crawl — an intercept and a slope of uncentred data, say —
// and where a multi-coordinate Positive or Interval site's coordinates are
// correlated (their own proposals are Gamma or Beta per coordinate). Defaults finds
// such blocks itself (see AutoBlocks); BlockNewton declares one by hand.
type BlockNewton struct {
	// Sites names the block's sites: a site's name ("alpha", "theta[2]"), or a
	// family's ("theta": every site theta[0], theta[1], …). Each must be
	// continuous and not Marginalised, and appear once.
	Sites []string
}

const (
	// blockProposer names the block moves' proposal in their statistics.
	blockProposer = "block-newton"
)

// Plan resolves the block's sites, checks them and the model's Scorer (a
// JointHessianer), and takes the sites from the site steps.
func (bn BlockNewton) Plan(p *Planner) ([]Planned, error) {
	if len(bn.Sites) == 0 {
		return nil, fmt.Errorf("nmc: BlockNewton: no sites given")
	}
	var sites []int
	seen := make([]bool, len(p.run.sites))
	for _, name := range bn.Sites {
		found := false
		for i, s := range p.run.sites {
			fam, _, _ := strings.Cut(s.Name, "[")
			if s.Name != name && fam != name {
				continue
			}
			found = true
			switch {
			case s.Support == Discrete:
				return nil, fmt.Errorf("nmc: BlockNewton: site %q is Discrete; a block's sites are continuous", s.Name)
			case s.Marginalised:
				return nil, fmt.Errorf("nmc: BlockNewton: site %q is Marginalised; a block's sites are continuous", s.Name)
			case seen[i]:
				return nil, fmt.Errorf("nmc: BlockNewton: site %q is given twice", s.Name)
			}
			seen[i] = true
			sites = append(sites, i)
		}
		if !found {
			return nil, fmt.Errorf("nmc: BlockNewton: the model has no site or family %q", name)
		}
	}
	if _, ok := p.run.m.NewScorer().(JointHessianer); !ok {
		return nil, fmt.Errorf("nmc: BlockNewton: the model's Scorer does not implement JointHessianer (the joint derivatives of several sites)")
	}
	for _, i := range sites {
		if err := p.Take(i); err != nil {
			return nil, err
		}
	}
	return []Planned{newNewtonBlockPlan(p.run.sites, sites, "", 0)}, nil
}

// newtonBlockPlan is a block Newton move planned for a model.
type newtonBlockPlan struct {
	sites []int
	names []string
	name  string
	// how says how the block was found ("" for a declared one), coupling its
	// measured coupling (automatic blocks).
	how      string
	coupling float64
}

func newNewtonBlockPlan(all []Site, sites []int, how string, coupling float64) *newtonBlockPlan {
	bp := &newtonBlockPlan{sites: sites, how: how, coupling: coupling}
	for _, i := range sites {
		bp.names = append(bp.names, all[i].Name)
	}
	bp.name = "block(" + familyList(bp.names) + ")"
	return bp
}

func (bp *newtonBlockPlan) Name() string { return bp.name }

// String says what the move does.
func (bp *newtonBlockPlan) String() string {
	s := fmt.Sprintf("%s: a Newton step of the %d sites jointly, in unconstrained coordinates", bp.name, len(bp.sites))
	if len(bp.sites) == 1 {
		s = fmt.Sprintf("%s: a Newton step of the site's coordinates jointly, in unconstrained coordinates", bp.name)
	}
	if bp.how != "" {
		s += fmt.Sprintf(" (%s, coupling %.3g)", bp.how, bp.coupling)
	}
	return s
}

// Start returns the block's state in chain c.
func (bp *newtonBlockPlan) Start(c *Chain) (Stepper, error) {
	jh, ok := c.sc.sc.(JointHessianer)
	if !ok {
		return nil, fmt.Errorf("nmc: %s: the chain's Scorer does not implement JointHessianer", bp.name)
	}
	coords := newBlockCoords(bp.sites, c.run.sites, c.run.off)
	st := &blockStepper{plan: bp, coords: coords, eval: newBlockEval(coords, bp.sites, jh),
		prop: newRealProposer(coords.du, RealProposal{Cauchy: c.run.real.Cauchy, Robust: c.run.real.Robust}),
		cur:  newSlot(coords.du), nxt: newSlot(coords.du),
		xb: make([]float64, coords.dx), xb0: make([]float64, coords.dx), xb1: make([]float64, coords.dx)}
	return st, nil
}

// blockStepper is a block's state in one chain: the target's fit at the current
// point (cur, in unconstrained coordinates), valid while the chain's state has not
// changed since (edits).
type blockStepper struct {
	plan     *newtonBlockPlan
	coords   *blockCoords
	eval     *blockEval
	prop     *realProposer
	cur, nxt slot
	xb       []float64 // the block's coordinates (compact) at cur
	xb0, xb1 []float64 // scratch: before the move, at the proposal
	valid    bool
	edits    uint64
	stats    draws.SiteStats
}

// Step makes the block's move.
func (st *blockStepper) Step(c *Chain) {
	c.at.phase = "block move"
	st.step(c)
	c.at.phase = "sampling"
}

func (st *blockStepper) step(c *Chain) {
	b := st.coords
	cur, nxt := &st.cur, &st.nxt
	if !st.valid || st.edits != c.cache.edits {
		b.gather(c.x, st.xb)
		b.toFree(st.xb, cur.x)
		cur.f = st.eval.at(c.x, st.xb, cur.x, cur.g, cur.h)
		if !(cur.f > math.Inf(-1)) || math.IsNaN(cur.f) {
			// Not finite at the current point (a coordinate at its support's edge
			// through the maps): no move.
			st.valid = false
			return
		}
		st.prop.fit(cur)
		st.valid, st.edits = true, c.cache.edits
	}
	st.stats.Proposals++
	if cur.fb || cur.mode == realFallback {
		st.stats.Fallbacks++
	}
	st.prop.draw(c.rng, cur, 1, nxt.x)
	uu := c.rng.Float64()
	copy(st.xb0, st.xb)
	b.fromFree(nxt.x, st.xb1)
	b.scatter(st.xb1, c.x)
	nxt.f = st.eval.at(c.x, st.xb1, nxt.x, nxt.g, nxt.h)
	if !(nxt.f > math.Inf(-1)) || math.IsNaN(nxt.f) {
		b.scatter(st.xb0, c.x)
		c.keep()
		return
	}
	st.prop.fit(nxt)
	logr := nxt.f - cur.f + st.prop.logq(nxt, 1, cur.x) - st.prop.logq(cur, 1, nxt.x)
	if !(math.Log(uu) < logr) {
		b.scatter(st.xb0, c.x)
		c.keep()
		return
	}
	countAccepted(&st.stats, st.xb0, st.xb1)
	st.cur, st.nxt = st.nxt, st.cur
	copy(st.xb, st.xb1)
	for _, i := range st.plan.sites {
		c.moved(i)
	}
	st.edits = c.cache.edits
}

// Stats returns the block's counts: Name the block's, Proposer "block-newton",
// Sites its number of sites.
func (st *blockStepper) Stats() []draws.SiteStats {
	s := st.stats
	s.Name, s.Proposer, s.Sites = st.plan.name, blockProposer, len(st.plan.sites)
	return []draws.SiteStats{s}
}
