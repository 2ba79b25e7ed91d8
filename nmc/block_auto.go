package nmc

import (
	"fmt"
	"math"
	"slices"
)

// AutoBlocks finds the blocks of strongly coupled continuous sites from the exact
// curvature of the log joint and moves each by a block Newton step (BlockNewton);
// Defaults plans it unless NoBlocks. Without a Scorer that implements
// JointHessianer it plans nothing.
//
// The coupling of two coordinates a and b (in the unconstrained coordinates of
// BlockNewton, log-Jacobians included) at a state is the normalised
// cross-curvature H_ab/√(H_aa·H_bb), H the Hessian of the log joint there: minus
// the partial correlation of a Gaussian with precision −H, 0 for coordinates no
// factor reads together, near ±1 where one coordinate is pinned given the other
// (an intercept and the slope of uncentred data: 1 − 10⁻⁴ and more). Two
// coordinates' coupling over a set of states is the absolute value of its mean
// over those where both diagonals are negative (see meanCouplings: a coupling
// whose sign changes across the posterior, as a scale's with the locations it
// scales, averages out), two sites' the largest of their coordinates', and they
// are coupled when it is at least Threshold.
//
// It is measured at warm-up states of 2 pilot chains, each started as a chain is,
// from a random stream of its own (the chains' draws do not depend on them but
// through the blocks found), at 6 states of each in a round of 30 sweeps (2 in the
// first): a first round of single-site NMC steps, then up to 2 rounds that also
// make the block steps of the blocks the round before kept, until a round finds
// those blocks again; a round keeps each block it moved that it found again or
// found within a larger block, and the blocks of the last round are planned.
// (The first round's single-site steps crawl along the couplings they are to find,
// to states far from the bulk: on a 20-row regression σ looked coupled with α
// and β there, and the block of the three mixed with R-hat up to 1.99.)
//
//   - When the model's candidate sites (continuous, not Marginalised, not
//     augmented, not in the Hamiltonian block, not taken by an earlier move) have
//     at most MaxCoords unconstrained coordinates together, the couplings of every
//     pair of them are measured at the pilot states (one JointHessian of all
//     of them per state), and the coupled pairs are joined into blocks, strongest
//     first, as long as a block stays within MaxCoords coordinates (Kruskal's rule
//     with a size cap).
//   - Sites a model names together (BlockHinter: a Gaussian process's kernel
//     hyperparameters) are coupled pairs whatever their measured coupling,
//     provided they are candidates and no declared group moves them together.
//   - A Positive or Interval site of two to MaxCoords coordinates, not in such a
//     block, whose own coordinates are coupled, is a block of its own: its site
//     step fits a Gamma or Beta per coordinate, which ignores their correlation.
//     (A simplex's Dirichlet fit already follows the negative dependence every
//     simplex has, and a Real site's Newton fit its whole Hessian.)
//
// The schedule prints each block with its coupling (that of its strongest pair);
// its sites' own steps are thinned after warm-up, and a chain leaves out a block
// whose steps moved its coordinates less than the rest of the sweeps in warm-up,
// as BlockNewton says.
type AutoBlocks struct {
	// Threshold is the coupling at which two sites are blocked (default 0.3: the
	// partial correlation at which single-site steps need about 1/(1 − 0.3²) ≈ 1.1
	// times as many sweeps as joint ones on a Gaussian, and more above it; the
	// coupling is measured at a few states and can understate a curved
	// dependence. 0.5 left σ₀ out of an overlapping mixture's block (μ₀, gap, θ)
	// and its R-hat at 1.013 and 1.012 on seeds 2 and 3 of the ported posterior,
	// thinned 10×; 0.3 joins it, R-hat 1.004 and 1.001, least ESS 569 → 1149 and
	// 578 → 2100; garch11 seed 2 1164 → 3235, arma11 seeds 1–3 1141–1386 →
	// 2441–2796, the other ports and the paper's models as before, see
	// BENCHMARKS.md). Must be in [0, 1]; 0 means the default.
	Threshold float64
	// MaxCoords caps a block's unconstrained coordinates, and the candidate sites'
	// for the search between sites (default 64). Must not be negative.
	MaxCoords int
}

// A BlockHinter is a model that names sets of continuous sites to move by one
// block Newton step although their coupling, as AutoBlocks measures it, may be
// small: where single-site steps mix slowly for another reason than a linear
// coupling. The graph models name the sites a multivariate normal's covariance
// reads (a Gaussian process regression's length scale, amplitude and noise: its
// coupling measured 0.14, yet the block moved alpha with 6 times the bulk ESS of
// its single-site steps, 3969 against 648 of 4000 draws).
type BlockHinter interface {
	// BlockHints returns the sets of sites, each a list of site indices.
	BlockHints() [][]int
}

const (
	defaultBlockThreshold = 0.3
	defaultBlockMaxCoords = 64
	// The couplings are measured at autoPilotStates states of each of autoPilots
	// pilot chains per round of autoPilotSweeps sweeps, autoFirstStates in the
	// first round (see pilots): one JointHessian of all the candidates per state,
	// which costs as much as hundreds of site steps on a large model, in every
	// run of a model with candidates (the first round), and the later rounds,
	// which judge the blocks found, only in runs that find some.
	autoPilots      = 2
	autoFirstStates = 2
	autoPilotStates = 6
	autoPilotSweeps = 30
	// autoRounds is the most rounds of pilots (see pilots): the blocks are those
	// of the last round, which ends when a round finds the blocks of the one
	// before or none.
	autoRounds = 3
	// autoBlockSeed is mixed into Options.Seed for the states' draws.
	autoBlockSeed = 0x9e3779b97f4a7c15
	// autoStrongCoupling is the coupling at which a block a round finds within a
	// larger block the round before moved is kept (withinStrong): the partial
	// correlation at which single-site steps need about 1/(1 − 0.7²) ≈ 2 times as
	// many sweeps as joint ones on a Gaussian.
	autoStrongCoupling = 0.7
	// autoFound says how an automatic block was found, in the schedule.
	autoFound = "found from the curvature"
	// autoHinted says so of a block that holds sites the model names together.
	autoHinted = "named by the model, measured"
)

// Plan measures the couplings and plans a BlockNewton move per block found.
func (ab AutoBlocks) Plan(p *Planner) ([]Planned, error) {
	thr, maxc := ab.Threshold, ab.MaxCoords
	if !(thr >= 0 && thr <= 1) {
		return nil, fmt.Errorf("nmc: AutoBlocks.Threshold = %g, want in [0, 1] (0: the default %g)", thr, defaultBlockThreshold)
	}
	if maxc < 0 {
		return nil, fmt.Errorf("nmc: AutoBlocks.MaxCoords = %d is negative", maxc)
	}
	if thr == 0 {
		thr = defaultBlockThreshold
	}
	if maxc == 0 {
		maxc = defaultBlockMaxCoords
	}
	run := p.run
	jh, ok := run.m.NewScorer().(JointHessianer)
	if !ok {
		return nil, nil
	}
	cand := autoCandidates(p)
	du := 0
	for _, i := range cand {
		du += freeDim(run.sites[i])
	}
	// What can be measured: pairs of candidates not moved together by a declared
	// group, and multi-coordinate Positive and Interval sites.
	hinted := hintedPairs(run, cand)
	pairs := false
	if len(cand) >= 2 && du <= maxc {
		for _, g := range groupedPairs(run, cand) {
			pairs = pairs || !g
		}
	}
	var own []int
	for _, i := range cand {
		if s := run.sites[i]; s.Size >= 2 && s.Size <= maxc && (s.Support == Positive || s.Support == Interval) {
			own = append(own, i)
		}
	}
	if !pairs && len(own) == 0 {
		return nil, nil
	}
	pilots := newPilots(run)
	states := pilots.advance(nil)
	if len(states) == 0 {
		return nil, nil
	}
	find := func(states [][]float64) []autoBlock {
		var blocks []autoBlock
		in := map[int]bool{}
		if pairs {
			cs := siteCouplings(run, jh, cand, states)
			blocks = joinCoupled(run, cand, cs, hinted, thr, maxc)
			for _, b := range blocks {
				for _, i := range b.sites {
					in[i] = true
				}
			}
		}
		for _, i := range own {
			if in[i] {
				continue
			}
			if c, ok := ownCoupling(run, jh, i, states, thr); ok {
				blocks = append(blocks, autoBlock{sites: []int{i}, coupling: c})
			}
		}
		return blocks
	}
	// Measured again at states of pilots that move the blocks found: the first
	// pilots' single-site steps crawl along the couplings they are to find, and
	// their states, far from the posterior's bulk, show couplings it does not
	// have. A round keeps the blocks it moved that it found again, alone or
	// within a larger block.
	blocks := find(states)
	for round := 1; round < autoRounds && len(blocks) > 0; round++ {
		moved := blocks
		if states = pilots.advance(moved); len(states) == 0 {
			break
		}
		blocks = find(states)
		if sameBlocks(blocks, moved) {
			break
		}
		blocks = withinStrong(confirmed(moved, blocks), moved, blocks)
	}
	var out []Planned
	for _, b := range blocks {
		how := autoFound
		if b.hinted {
			how = autoHinted
		}
		out = append(out, newNewtonBlockPlan(run.sites, b.sites, how, b.coupling))
	}
	return out, nil
}

// autoBlock is a block found: its sites in state order, its coupling, and
// whether it joins sites the model names together (BlockHinter).
type autoBlock struct {
	sites    []int
	coupling float64
	hinted   bool
}

// hintedPairs reports, for the candidate sites cand, the pairs (a*len(cand)+b)
// that a set of the model's BlockHints holds both of.
func hintedPairs(run *sampling, cand []int) []bool {
	nc := len(cand)
	out := make([]bool, nc*nc)
	h, ok := run.m.(BlockHinter)
	if !ok {
		return out
	}
	at := map[int]int{}
	for a, i := range cand {
		at[i] = a
	}
	for _, set := range h.BlockHints() {
		for _, i := range set {
			for _, j := range set {
				a, okA := at[i]
				b, okB := at[j]
				if okA && okB && a < b {
					out[a*nc+b] = true
				}
			}
		}
	}
	return out
}

// autoCandidates returns the sites AutoBlocks may block, in state order.
func autoCandidates(p *Planner) []int {
	run := p.run
	skip := make([]bool, len(run.sites))
	if a, ok := run.m.(Augmenter); ok {
		for _, i := range a.AugmentedSites() {
			if i >= 0 && i < len(skip) {
				skip[i] = true
			}
		}
	}
	if ham, err := hamiltonianSites(run.m, run.sites); err == nil {
		for _, i := range ham {
			skip[i] = true
		}
	}
	var out []int
	for i, s := range run.sites {
		if s.Support != Discrete && !s.Marginalised && !skip[i] && !p.taken[i] {
			out = append(out, i)
		}
	}
	return out
}

// pilots are the pilot chains whose warm-up states the couplings are measured
// at: autoPilots chains, each started as a chain is (Options.Init, or Model.Init
// and start refinement) from a stream of its own (Options.Seed mixed with
// autoBlockSeed), run autoPilotSweeps sweeps per round and measured after every
// autoPilotSweeps/autoPilotStates sweeps of a round (autoFirstStates in the
// first). The first round makes
// single-site NMC steps; a later one the site steps and the block steps of the
// blocks found in the round before (so its states are those of a chain that
// moves along the couplings found). The chains' draws do not depend on them but
// through the blocks found. A pilot that fails (no valid start, a panic in model
// code) gives no more states.
type pilots struct {
	run    *sampling
	chains []*Chain
	steps  []*sitesStepper
}

// newPilots starts the pilot chains of run.
func newPilots(run *sampling) *pilots {
	pr := *run
	po := *run.opts
	po.Draws, po.Warmup, po.Seed = 0, 0, run.opts.Seed^autoBlockSeed
	// The pilots are the same in every task of a run split with FirstChain: their
	// streams are those of global chains 0, 1, … of their own seed.
	po.FirstChain = 0
	pr.opts, pr.ncols, pr.nHeld, pr.gen = &po, 0, 0, nil
	var sites []int
	for i, s := range run.sites {
		if !s.Marginalised {
			sites = append(sites, i)
		}
	}
	plan := &sitesPlan{sites: sites}
	ps := &pilots{run: &pr}
	for k := range autoPilots {
		c, ok := startPilot(&pr, k)
		if !ok {
			continue
		}
		ps.chains = append(ps.chains, c)
		ps.steps = append(ps.steps, &sitesStepper{plan: plan, perm: slices.Clone(plan.sites)})
	}
	return ps
}

// startPilot starts pilot chain k.
func startPilot(run *sampling, k int) (c *Chain, ok bool) {
	defer func() {
		if recover() != nil {
			c, ok = nil, false
		}
	}()
	c = newChain(k, run)
	if c.startScorer() != nil || c.init() != nil {
		return nil, false
	}
	c.warm.warmup = true
	return c, true
}

// advance runs a round of every pilot chain with the block steps of blocks and
// returns the states measured.
func (ps *pilots) advance(blocks []autoBlock) [][]float64 {
	var out [][]float64
	for k, c := range ps.chains {
		if c == nil {
			continue
		}
		xs, ok := ps.round(c, ps.steps[k], blocks)
		if !ok {
			ps.chains[k] = nil
		}
		out = append(out, xs...)
	}
	return out
}

// round runs one round of pilot chain c.
func (ps *pilots) round(c *Chain, st *sitesStepper, blocks []autoBlock) (xs [][]float64, ok bool) {
	defer func() {
		if recover() != nil {
			xs, ok = nil, false
		}
	}()
	var moves []Stepper
	for _, b := range blocks {
		m, err := newNewtonBlockPlan(ps.run.sites, b.sites, autoFound, b.coupling).Start(c)
		if err != nil {
			return nil, false
		}
		moves = append(moves, m)
	}
	every := autoPilotSweeps / autoPilotStates
	if blocks == nil {
		every = autoPilotSweeps / autoFirstStates
	}
	for sweep := 1; sweep <= autoPilotSweeps; sweep++ {
		st.Step(c)
		for _, m := range moves {
			m.Step(c)
		}
		if sweep%every == 0 && isFinite(c.sc.sc.LogJoint(c.x)) {
			xs = append(xs, slices.Clone(c.x))
		}
	}
	return xs, true
}

// confirmed returns the blocks of moved that found confirms: found again, or
// within a block found, its pilots' states still show their sites coupled. (A
// mixture's ordered means, moved, showed them coupled with a scale and the weight
// too; kept only when found again alone, they were dropped: least bulk ESS 573
// without their block, 1671 with it.)
func confirmed(moved, found []autoBlock) []autoBlock {
	var out []autoBlock
	for _, m := range moved {
		if slices.ContainsFunc(found, func(f autoBlock) bool { return containsAll(f.sites, m.sites) }) {
			out = append(out, m)
		}
	}
	return out
}

// withinStrong returns kept followed by the blocks of found coupled at least
// autoStrongCoupling that lie within a larger block of moved and within no block
// of kept: a coupling near the threshold can join a site to a strongly coupled
// pair in one round and not in the next, and the pair, coupled in both, is kept.
// (garch11 on its seed-3 data: α₀, α₁ and β₁'s raw coordinate in the first round,
// α₁ with α₀ at 0.60, then α₀ and β₁ alone, coupled 0.89, and no block at all
// without this: least bulk ESS 173 of 4000 draws against 1500 with the pair.)
func withinStrong(kept, moved, found []autoBlock) []autoBlock {
	for _, f := range found {
		if f.coupling < autoStrongCoupling || slices.ContainsFunc(kept, func(k autoBlock) bool { return containsAll(k.sites, f.sites) }) {
			continue
		}
		if slices.ContainsFunc(moved, func(m autoBlock) bool { return len(m.sites) > len(f.sites) && containsAll(m.sites, f.sites) }) {
			kept = append(kept, f)
		}
	}
	return kept
}

// containsAll reports whether every site of sub is in sites.
func containsAll(sites, sub []int) bool {
	for _, i := range sub {
		if !slices.Contains(sites, i) {
			return false
		}
	}
	return true
}

// sameBlocks reports whether a and b are the same blocks (of the same sites, in
// the same order).
func sameBlocks(a, b []autoBlock) bool {
	return slices.EqualFunc(a, b, func(x, y autoBlock) bool { return slices.Equal(x.sites, y.sites) })
}

// unconstrainedHessian returns the Hessian (du×du) of the log joint in the
// unconstrained coordinates of the listed sites at x, with the block's maps, or
// nil where it is not finite.
func unconstrainedHessian(run *sampling, jh JointHessianer, sites []int, x []float64) (*blockCoords, []float64) {
	coords := newBlockCoords(sites, run.sites, run.off)
	ev := newBlockEval(coords, sites, jh)
	xb, u := make([]float64, coords.dx), make([]float64, coords.du)
	gu, hu := make([]float64, coords.du), make([]float64, coords.du*coords.du)
	coords.gather(x, xb)
	coords.toFree(xb, u)
	if f := ev.at(x, xb, u, gu, hu); !isFinite(f) || !allFinite(hu) {
		return coords, nil
	}
	return coords, hu
}

// meanCouplings returns the couplings of every pair of coordinates (du×du, both
// triangles) from the Hessians hs (du×du each; nil: not measured): the absolute
// value of the mean over the states of the signed normalised cross-curvature
// H_pq/√(H_pp·H_qq), over the states where both diagonals are negative (NaN
// where there is none). A state where it is beyond ±1 (the pair's Hessian is not
// negative definite there, as often far from the bulk) adds ±1: coupled at least
// that strongly, that way.
//
// The sign matters: the block's Newton step gains on single-site steps where the
// coordinates are correlated the same way across the posterior, as an intercept
// and a slope of uncentred data are at every state. A scale and the locations it
// scales are coupled at a state by the mean of the residuals there (for a normal
// likelihood H_{α, log σ} = −2σ⁻²Σr), whose sign changes across the posterior:
// locally strongly coupled in its tails, on average not, and single-site steps
// mix them well (a linear regression on 20 rows with σ blocked with α and β mixed
// with R-hat up to 1.99, from a block whose joint Hessian was indefinite at a
// third of its states).
func meanCouplings(hs [][]float64, du int) []float64 {
	out := make([]float64, du*du)
	for p := range du {
		for q := p + 1; q < du; q++ {
			sum, n := 0.0, 0
			for _, h := range hs {
				if h == nil {
					continue
				}
				hpp, hqq := h[p*du+p], h[q*du+q]
				if !(hpp < 0 && hqq < 0) {
					continue
				}
				n++
				sum += max(-1, min(1, h[p*du+q]/math.Sqrt(hpp*hqq)))
			}
			c := math.NaN()
			if n > 0 {
				c = math.Abs(sum / float64(n))
			}
			out[p*du+q], out[q*du+p] = c, c
		}
	}
	return out
}

// siteCouplings returns, for the candidate sites cand, the coupling of each pair
// (indices into cand, a*len(cand)+b with a < b): the largest of their
// coordinates' couplings over the states (see meanCouplings; NaN where none was
// measured).
func siteCouplings(run *sampling, jh JointHessianer, cand []int, states [][]float64) []float64 {
	nc := len(cand)
	var coords *blockCoords
	hs := make([][]float64, len(states))
	for s, x := range states {
		coords, hs[s] = unconstrainedHessian(run, jh, cand, x)
	}
	mc := meanCouplings(hs, coords.du)
	out := make([]float64, nc*nc)
	for a := range nc {
		for b := a + 1; b < nc; b++ {
			sa, sb := coords.segs[a], coords.segs[b]
			best := math.NaN()
			for p := sa.u; p < sa.u+freeDim(run.sites[cand[a]]); p++ {
				for q := sb.u; q < sb.u+freeDim(run.sites[cand[b]]); q++ {
					if c := mc[p*coords.du+q]; c > best || math.IsNaN(best) {
						best = c
					}
				}
			}
			out[a*nc+b] = best
		}
	}
	return out
}

// joinCoupled joins the coupled pairs of cand (cs from siteCouplings; the pairs
// hinted, from hintedPairs, whatever their coupling) into blocks (see AutoBlocks).
func joinCoupled(run *sampling, cand []int, cs []float64, hinted []bool, thr float64, maxc int) []autoBlock {
	nc := len(cand)
	grouped := groupedPairs(run, cand)
	type edge struct {
		a, b int
		c    float64
	}
	var edges []edge
	for a := range nc {
		for b := a + 1; b < nc; b++ {
			c := cs[a*nc+b]
			if !grouped[a*nc+b] && (c >= thr || hinted[a*nc+b]) {
				if math.IsNaN(c) {
					c = 0
				}
				edges = append(edges, edge{a, b, c})
			}
		}
	}
	slices.SortStableFunc(edges, func(x, y edge) int {
		switch {
		case x.c > y.c:
			return -1
		case x.c < y.c:
			return 1
		}
		return 0
	})
	root := make([]int, nc)
	size := make([]int, nc)
	best := make([]float64, nc) // per root: the block's strongest coupling
	hint := make([]bool, nc)    // per root: whether the block joins a hinted pair
	for a := range root {
		root[a], size[a] = a, freeDim(run.sites[cand[a]])
	}
	find := func(a int) int {
		for root[a] != a {
			root[a] = root[root[a]]
			a = root[a]
		}
		return a
	}
	for _, e := range edges {
		ra, rb := find(e.a), find(e.b)
		if ra == rb || size[ra]+size[rb] > maxc {
			continue
		}
		root[rb] = ra
		size[ra] += size[rb]
		best[ra] = max(best[ra], best[rb], e.c)
		hint[ra] = hint[ra] || hint[rb] || hinted[e.a*nc+e.b]
	}
	var out []autoBlock
	members := map[int][]int{}
	var order []int
	for a := range nc {
		r := find(a)
		if _, ok := members[r]; !ok {
			order = append(order, r)
		}
		members[r] = append(members[r], cand[a])
	}
	for _, r := range order {
		if len(members[r]) >= 2 {
			out = append(out, autoBlock{sites: members[r], coupling: best[r], hinted: hint[r]})
		}
	}
	return out
}

// ownCoupling returns the largest coupling of site i's own coordinates over the
// states (see meanCouplings), and whether it is at least thr.
func ownCoupling(run *sampling, jh JointHessianer, i int, states [][]float64, thr float64) (float64, bool) {
	var coords *blockCoords
	hs := make([][]float64, len(states))
	for s, x := range states {
		coords, hs[s] = unconstrainedHessian(run, jh, []int{i}, x)
	}
	mc := meanCouplings(hs, coords.du)
	best := math.NaN()
	for p := range coords.du {
		for q := p + 1; q < coords.du; q++ {
			if c := mc[p*coords.du+q]; c > best || math.IsNaN(best) {
				best = c
			}
		}
	}
	return best, best >= thr
}

// groupedPairs reports, for the candidate sites cand, the pairs (a*len(cand)+b)
// whose sites one of the model's declared groups (Grouper) moves together: their
// coupling is left to the group's orbit, as the model declares.
func groupedPairs(run *sampling, cand []int) []bool {
	nc := len(cand)
	out := make([]bool, nc*nc)
	g, ok := run.m.(Grouper)
	if !ok {
		return out
	}
	siteOf := make([]int, Dim(run.sites))
	for i, s := range run.sites {
		for c := range s.Size {
			siteOf[run.off[i]+c] = i
		}
	}
	at := map[int]int{}
	for a, i := range cand {
		at[i] = a
	}
	for _, gr := range g.Groups() {
		var in []int
		for _, oc := range gr.Coords {
			if oc.Coord < 0 || oc.Coord >= len(siteOf) {
				continue
			}
			if a, ok := at[siteOf[oc.Coord]]; ok && !slices.Contains(in, a) {
				in = append(in, a)
			}
		}
		for _, a := range in {
			for _, b := range in {
				out[a*nc+b] = true
			}
		}
	}
	return out
}
