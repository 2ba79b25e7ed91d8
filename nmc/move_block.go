package nmc

import (
	"fmt"
	"math"
	"math/rand/v2"
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
// the target there (from the Scorer's JointHessianer). Where A is not positive
// definite and the block has Interval coordinates, A without the terms that the
// logit maps' curvature adds to its diagonal (g_j·∂²x_j/∂u_j², of either sign
// with the gradient) is tried next: on garch11 (posteriordb's GARCH(1, 1), T =
// 200) the Hessian of the block of α₀ and β₁'s raw coordinate is indefinite at
// 17% of the posterior draws of its seed-1 data, 7% without those terms, and the
// least bulk ESS of 4 × 1000 draws went from 785–1441 to 1025–1546 over sampler
// seeds 1–5. (The same for the log maps of Positive coordinates lowered the
// least ESS of a Michaelis-Menten block, TestAutoBlocksPositiveSite, on seed 4
// from 477 to 232.) Failing that, the proposal falls back to a Newton step per
// coordinate, N(u_j + g_j/A_jj, 1/A_jj), and to the random walk
// N(u_j, (0.1·(1 + |u_j|))²) for a
// coordinate whose A_jj is not positive (all of them where the derivatives are
// not finite). (SoftAbs, the Real sites' regularisation, was tried first: at an
// indefinite point of a Michaelis-Menten posterior its near-zero eigenvalue made
// the proposal so wide that every reverse density was below e⁻³⁰⁰ and four chains
// of four stayed at their starts.) The proposal's reverse density
// is computed at the proposed point from the fit there, so the step is exact.
//
// The block's sites keep their own NMC steps (SiteSteps) in warm-up: far from the
// posterior's bulk, where the block's target is seldom concave, a
// Michaelis-Menten posterior's chains reached the bulk with them and stayed apart
// without them. After warm-up a chain makes the sites' own steps on every 8th sweep
// only (as FittedSteps thins the sites of its blocks) when the block's Newton steps
// accepted at least blockThinAccept of their warm-up proposals or its fitted steps
// are on (see block_fitted.go); a chain without warm-up keeps them every sweep.
// A chain whose block's Newton steps moved the block's coordinates less in
// warm-up than the rest of the sweeps did (squared distances, each coordinate in
// units of its warm-up variance) leaves the block out after warm-up: its step
// costs about as much as its sites' own steps and gains little, or nothing
// where it never moves (blockStepper.judge); its statistics then say so. (Not a
// block of sites the model names together, BlockHinter.)
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
	// blockProposerName names the block moves' proposal in their statistics.
	blockProposerName = "block-newton"
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
		prop: newBlockProposer(coords.du),
		cur:  newSlot(coords.du), nxt: newSlot(coords.du),
		xb: make([]float64, coords.dx), xb0: make([]float64, coords.dx), xb1: make([]float64, coords.dx),
		fit: newBlockFit(coords.du)}
	return st, nil
}

// blockStepper is a block's state in one chain: the target's fit at the current
// point (cur, in unconstrained coordinates), valid while the chain's state has not
// changed since (edits).
type blockStepper struct {
	plan     *newtonBlockPlan
	coords   *blockCoords
	eval     *blockEval
	prop     *blockNewtonProposer
	cur, nxt slot
	xb       []float64 // the block's coordinates (compact) at cur
	xb0, xb1 []float64 // scratch: before the move, at the proposal
	valid    bool
	// pending: cur was reached by a fitted step, which scores it without
	// derivatives; its gradient and Hessian (and the Newton proposal's fit) are
	// made when the next Newton step reads them, unless another move changes the
	// state first and cur is made again from it.
	pending bool
	edits   uint64
	stats   draws.SiteStats
	fit     *blockFit
}

// Step makes the block's move.
func (st *blockStepper) Step(c *Chain) {
	if st.fit.off && !c.warm.warmup {
		return
	}
	if st.fit.newtonOff && !c.warm.warmup {
		st.fittedOnly(c)
		return
	}
	c.at.phase = "block move"
	st.step(c)
	if !c.warm.warmup && st.fit.on && st.valid && st.edits == c.cache.edits {
		st.fittedSteps(c)
	}
	c.at.phase = "sampling"
}

func (st *blockStepper) step(c *Chain) {
	b := st.coords
	cur, nxt := &st.cur, &st.nxt
	if !st.valid || st.edits != c.cache.edits {
		b.gather(c.x, st.xb)
		b.toFree(st.xb, cur.x)
		cur.f = st.eval.at(c.x, st.xb, cur.x, cur.g, cur.h)
		if !isFinite(cur.f) || !allFinite(cur.x) {
			// Not finite at the current point (a coordinate at its support's edge
			// through the maps): no move.
			st.valid = false
			st.fit.haveAfter = false
			return
		}
		st.prop.fit(cur, st.coords.mapCurv)
		st.valid, st.edits, st.pending = true, c.cache.edits, false
	} else if st.pending {
		st.pending = false
		if v := st.eval.at(c.x, st.xb, cur.x, cur.g, cur.h); isFinite(v) {
			cur.f = v
		}
		st.prop.fit(cur, st.coords.mapCurv)
	}
	f := st.fit
	if c.warm.warmup && f.haveAfter {
		addSquares(f.rest, f.after, cur.x)
	}
	f.haveAfter = c.warm.warmup
	copy(f.after, cur.x)
	st.stats.Proposals++
	if c.warm.warmup {
		st.fit.props++
	}
	if cur.fb {
		st.stats.Fallbacks++
	}
	st.prop.draw(c.rng, cur, nxt.x)
	uu := c.rng.Float64()
	copy(st.xb0, st.xb)
	b.fromFree(nxt.x, st.xb1)
	b.scatter(st.xb1, c.x)
	nxt.f = math.Inf(-1)
	if b.inBox(nxt.x, st.xb1) {
		nxt.f = st.eval.at(c.x, st.xb1, nxt.x, nxt.g, nxt.h)
	}
	if !isFinite(nxt.f) {
		b.scatter(st.xb0, c.x)
		c.keep()
		return
	}
	st.prop.fit(nxt, st.coords.mapCurv)
	logr := nxt.f - cur.f + st.prop.logq(nxt, cur.x) - st.prop.logq(cur, nxt.x)
	if !(math.Log(uu) < logr) {
		b.scatter(st.xb0, c.x)
		c.keep()
		return
	}
	if c.warm.warmup {
		st.fit.accs++
		addSquares(f.moves, cur.x, nxt.x)
		copy(f.after, nxt.x)
	}
	countAccepted(&st.stats, st.xb0, st.xb1)
	st.cur, st.nxt = st.nxt, st.cur
	copy(st.xb, st.xb1)
	for _, i := range st.plan.sites {
		c.moved(i)
	}
	st.edits = c.cache.edits
}

// Stats returns the block's counts: its Newton steps (Name the block's, Proposer
// "block-newton", Sites its number of sites) and its fitted steps after warm-up
// (Name the block's followed by " fitted", Proposer "fitted-gaussian"; Unused
// says why a chain made none).
func (st *blockStepper) Stats() []draws.SiteStats {
	s := st.stats
	s.Name, s.Proposer, s.Sites = st.plan.name, blockProposerName, len(st.plan.sites)
	f := st.fit.stats
	f.Name, f.Proposer, f.Sites = st.plan.name+" fitted", blockFittedProposer, len(st.plan.sites)
	if st.fit.newtonOff {
		s.Unused = "its Newton steps moved its coordinates less than the rest of the sweeps did in warm-up"
		if st.fit.off {
			f.Unused = "its Newton steps were left out, and no proposal could be fitted to its warm-up draws"
		}
	} else if !st.fit.on {
		f.Unused = "its Newton steps accepted at least 90% of their warm-up proposals, or too few warm-up draws to fit"
	}
	return []draws.SiteStats{s, f}
}

// fittedOnly makes the fitted steps of a block whose Newton steps the judge left
// out, from the value of the block's target at the current point (its
// derivatives are not needed).
func (st *blockStepper) fittedOnly(c *Chain) {
	b := st.coords
	cur := &st.cur
	if !st.valid || st.edits != c.cache.edits {
		b.gather(c.x, st.xb)
		b.toFree(st.xb, cur.x)
		cur.f = st.eval.value(c.x, cur.x)
		if !isFinite(cur.f) || !allFinite(cur.x) {
			st.valid = false
			return
		}
		st.valid, st.edits, st.pending = true, c.cache.edits, true
	}
	c.at.phase = "block move"
	st.fittedSteps(c)
	c.at.phase = "sampling"
}

// addSquares adds (b_j − a_j)² to d_j.
func addSquares(d, a, b []float64) {
	for j, v := range b {
		d[j] += (v - a[j]) * (v - a[j])
	}
}

// blockNewtonProposer is the block's proposal in unconstrained coordinates (see
// BlockNewton): the Newton-fitted Gaussian where the negated Hessian is positive
// definite (mode blockChol: s.l its Cholesky factor, s.d the Newton step, s.c
// Σ log L_jj), else independent coordinates (mode blockDiag: s.w the precisions,
// s.d the steps, s.c ½Σ log w_j; s.fb set).
type blockNewtonProposer struct {
	k    int
	z, v []float64
}

const (
	blockChol = iota
	blockDiag
)

func newBlockProposer(k int) *blockNewtonProposer {
	return &blockNewtonProposer{k: k, z: make([]float64, k), v: make([]float64, k)}
}

// fit fits the proposal at s.x from s.g and s.h; mapCurv holds the terms
// blockCoords.derivs added to the diagonal of s.h for the logit maps' curvature
// (blockCoords.mapCurv): where −s.h is not positive definite, the Gaussian of
// −(s.h − diag(mapCurv)) is tried before the per-coordinate fallback (both
// count as fallbacks in the statistics).
func (p *blockNewtonProposer) fit(s *slot, mapCurv []float64) {
	k := p.k
	s.fb = false
	finite := allFinite(s.g) && allFinite(s.h)
	if finite {
		for i, v := range s.h {
			s.l[i] = -v
		}
		if p.newton(s) {
			return
		}
		if anyNonzero(mapCurv) {
			for i, v := range s.h {
				s.l[i] = -v
			}
			for j, v := range mapCurv {
				s.l[j*k+j] += v
			}
			if p.newton(s) {
				s.fb = true
				return
			}
		}
	}
	s.mode, s.fb = blockDiag, true
	c := 0.0
	for j := range k {
		a := -s.h[j*k+j]
		if finite && a > 0 && isFinite(a) && isFinite(s.g[j]/a) {
			s.w[j], s.d[j] = a, s.g[j]/a
		} else {
			sd := rwRel * (1 + math.Abs(s.x[j]))
			s.w[j], s.d[j] = 1/(sd*sd), 0
		}
		c += 0.5 * math.Log(s.w[j])
	}
	s.c = c
}

// newton fits the Newton proposal N(x + A⁻¹g, A⁻¹) with A the matrix in s.l
// (overwritten by its Cholesky factor) and reports whether A is positive
// definite and the fit finite.
func (p *blockNewtonProposer) newton(s *slot) bool {
	k := p.k
	if !cholesky(s.l, k) {
		return false
	}
	copy(s.d, s.g)
	solveLower(s.l, k, s.d)
	solveLowerT(s.l, k, s.d)
	c := 0.0
	for i := range k {
		c += math.Log(s.l[i*k+i])
	}
	if !allFinite(s.d) || !isFinite(c) {
		return false
	}
	s.mode, s.c = blockChol, c
	return true
}

// anyNonzero reports whether some entry of v is not 0.
func anyNonzero(v []float64) bool {
	for _, x := range v {
		if x != 0 {
			return true
		}
	}
	return false
}

// draw writes a draw of the proposal fitted in s into dst.
func (p *blockNewtonProposer) draw(rng *rand.Rand, s *slot, dst []float64) {
	for j := range p.z {
		p.z[j] = rng.NormFloat64()
	}
	if s.mode == blockChol {
		solveLowerT(s.l, p.k, p.z)
		for j := range dst {
			dst[j] = s.x[j] + s.d[j] + p.z[j]
		}
		return
	}
	for j := range dst {
		dst[j] = s.x[j] + s.d[j] + p.z[j]/math.Sqrt(s.w[j])
	}
}

// logq returns the log density at y of the proposal fitted in s.
func (p *blockNewtonProposer) logq(s *slot, y []float64) float64 {
	for j := range p.v {
		p.v[j] = y[j] - s.x[j] - s.d[j]
	}
	m := 0.0
	if s.mode == blockChol {
		mulLowerT(s.l, p.k, p.v, p.z)
		for _, v := range p.z {
			m += v * v
		}
	} else {
		for j, v := range p.v {
			m += v * v * s.w[j]
		}
	}
	return s.c - float64(p.k)*logSqrt2Pi - 0.5*m
}
