package nmc

import (
	"fmt"
	"math"

	"github.com/nmc-go/nmc/draws"
)

// The Hamiltonian block. Some posteriors couple many continuous sites along
// directions no single-site step follows, and the coupling runs through a blanket
// too large for a joint Newton fit: Dawid-Skene with the classes summed out, whose
// rare-class prevalence π₁ and the 100 confusion rows of that class pin each other
// (see the lead-and-follow moves, step_joint.go). A model declares such a block
// (Hamiltonian: the block's sites, continuous, not Marginalised) and its Scorer
// gives the gradient of the log joint with respect to all of them in one pass
// (JointGradienter; without it the gradient is assembled from the per-site scores,
// which is exact but costs one Markov-blanket score per site). Once per sweep, warm-up
// included, the chain then makes one static Hamiltonian Monte Carlo move of all the
// block's sites jointly:
//
//  1. Coordinates. Each site's coordinates x map to unconstrained ones u: Real the
//     identity; Positive u = log(x − Lower); Interval u = logit((x − Lower)/w), w =
//     Upper − Lower; Simplex (k coordinates) the additive log-ratio with coordinate 0
//     as reference, u_j = log(p_j/p_0), j = 1 … k−1, p = softmax(0, u). The target in
//     u is log p(x(u)) + log|J(u)|, where log|J| is Σ log(x − Lower) (Positive),
//     Σ log(w s(1−s)), s the logistic of u (Interval), and Σ_{i=0}^{k−1} log p_i
//     (Simplex: the Jacobian of u ↦ the first k−1 coordinates of p). From the
//     gradient g of log p in x (a simplex's homogeneous gradient, see
//     JointGradienter), the gradient in u is g·(x − Lower) + 1 (Positive),
//     g·w·s(1−s) + 1 − 2s (Interval) and p_j (g_j − Σ_i p_i g_i) + 1 − k p_j
//     (Simplex).
//  2. The move (static HMC): momentum r ~ N(0, M), M = diag(1/invMass); L leapfrog
//     steps (HamiltonianMove.Leapfrogs) of size ε jittered uniformly in
//     [0.9ε, 1.1ε]; the gradient alone inside the trajectory, the log density only
//     at its end (the start's is computed with the start's gradient: L + 1
//     gradients per move, two with the value); a non-finite value or gradient
//     ends the trajectory as a rejection (one reported by JointGrad at once; one
//     that is not makes the state, or the final kinetic energy, not finite).
//     Accepted with probability min(1, exp(H₀ − H₁)), H = −log target + ½ rᵀM⁻¹r.
//     Every site of the block is then reported changed; after a rejection the
//     state is put back and a StateKeeper Scorer told so.
//     A leapfrog step is two passes over runs of the block's sites (hamRun:
//     consecutive sites of one support and size, contiguous in the state; for
//     Dawid-Skene two, π and the 300 confusion rows) around the gradient:
//     hamDrift (the momentum's half step, the position's step and x(u)) and
//     hamKick (the chain rule and the second half step); log|J| only at the
//     trajectory's ends. A simplex's softmax is p_0 = 1/(1 + Σ_j e^{u_j}),
//     p_j = e^{u_j} p_0 (k − 1 exponentials by hamExp, one division) while every
//     u_j is in (−700, 300), shifted by the largest u_j otherwise.
//  3. Adaptation, per chain, in warm-up only (W sweeps: Options.Warmup, or with the
//     adaptive warm-up its minimum, 300 sweeps with a block, for the window positions). The
//     first move takes ε = 0.1, then dual averaging (Hoffman and Gelman 2014:
//     γ = 0.05, t₀ = 10, κ = 0.75, μ = log 10ε) drives the mean acceptance to
//     HamiltonianMove.Target. The diagonal inverse mass is the variance of u
//     over the sweeps [W/4, W/2), regularised as Stan's, (n/(n+5))·var +
//     10⁻³·5/(n+5); at W/2 dual averaging restarts with μ = log 10ε, ε its last
//     iterate (a window of fewer than 10 sweeps leaves the mass at 1 and dual
//     averaging running); at warm-up's end ε is frozen at exp(log ε̄), the
//     dual-averaging average (an adaptive warm-up adapts ε until it ends). Stan's
//     step-size heuristic (double or halve ε until one leapfrog step's acceptance
//     crosses 0.8, at the start and after the mass update) was tried and dropped:
//     on Dawid-Skene (seed 1, chains 0–7) it ended warm-up with step sizes 0.09–0.14
//     and π₁ bulk ESS 1193 and 1279, against 0.07–0.24 and 1714 and 1437 without.
//  4. Where (Defaults): after the site steps, the group moves, the fitted steps
//     and the extra augmentation rounds, before the lead-and-follow moves and the
//     final augmentation round (which draws the Marginalised sites given the moved
//     block, and is what is recorded). The block changes two rules of Defaults:
//     one augmentation round (AugmentRounds 0 means 1) and no lead-and-follow
//     moves (unless Defaults.Leads names leads).
//
// The defaults are the prototype's (H18/H22) measured winner on Dawid-Skene (5,000
// items, 100 labelers, 3 classes, 4 chains × 200 + 1000 sweeps; π = min bulk ESS of
// the prevalences, seeds 1 / 2): single-site steps with one augmentation round and
// no lead moves plus this move with 32 leapfrogs, target 0.65 and the mass window
// ending at half of warm-up gave π 1539–1999 / 2618–2806 and min θ 2040 at 1.47×
// main's CPU time (main alone: π 584 / 551); 24 leapfrogs gave π 1302–1361 at seed
// 1, 40 leapfrogs ≥ 1866 at 1.68×; with the window ending at 3/4 of warm-up some
// chains ended warm-up with ε 3× too small (π₁ 1174 once); NUTS instead of the
// static trajectory gave π 903 / 1024 at twice the cost. This move on the graph
// Dawid-Skene model (block: π and the 300 rows; per-site gradients) gave π₁ 1739
// and 1139 at seed 1 (chains 0–3, 4–7) and 3392 at seed 2, max R-hat 1.0036; with
// the graph's JointGrad, π₁ 1317–2076 over six sets of chains at seed 1 and
// 3211–3542 at seed 2, min θ ≥ 2094 (with Target 0.8: 1418–1892, min θ ≥ 2165).
//
// The engine's defaults since (session 8): Target 0.8, not the prototype's 0.65;
// the adaptive warm-up at least 300 sweeps with a block; a 3-simplex's reference
// coordinate its largest one when coordinate 0 is below a tenth of it
// (chooseRefs). Over seeds 1–10 of `nmc sample -model annotation -n 10000 -k 100`
// (min bulk ESS of π / of θ): Target 0.65, π 1257–3346 (3 seeds below 1500), θ
// 1469–3205; 0.8, π 1343–3789 (seed 3 below 1500), θ 1950–3322, R-hat ≤ 1.0037;
// 0.9, π 764–3531; 0.5, π 655–1726; 0.4, π 363–1083. The mean acceptance after
// warm-up runs above the target (0.83–0.93 at 0.8): the dual average of the step
// size is the cautious end of its iterates.

// HamiltonianMove is the move of the Hamiltonian block a model declares (see the
// Hamiltonian interface and above): one static Hamiltonian Monte Carlo move of all
// the block's sites per sweep, warm-up included, its step size and diagonal mass
// matrix adapted in warm-up (without a warm-up the step size stays 0.1 and the mass
// matrix the identity). A model without a block plans nothing. Its statistics are
// one entry of Result.Moves: Name "hamiltonian", Proposer "hmc", Sites the number
// of sites of the block; only the moves after warm-up are counted, and
// Result.HamiltonianChains holds each chain's step size, mean acceptance and
// divergent trajectories.
//
// The zero value is the default: 32 leapfrog steps, step size adapted to a mean
// acceptance of 0.8.
type HamiltonianMove struct {
	// Leapfrogs is the number of leapfrog steps per move (default 32). Must not be
	// negative.
	Leapfrogs int
	// Target is the mean acceptance probability the step size is adapted to in
	// warm-up (default 0.8). Must be in (0, 1); 0 means the default.
	Target float64
}

const (
	defaultLeapfrogs         = 32
	defaultHamiltonianTarget = 0.8
	// hamiltonianName and hamiltonianProposer name the block's statistics.
	hamiltonianName     = "hamiltonian"
	hamiltonianProposer = "hmc"
	// hamiltonianStartEps is the step size of the first move.
	hamiltonianStartEps = 0.1
	// minMassWindow is the fewest sweeps of the mass-matrix window that set the
	// inverse mass; a shorter window leaves it at 1.
	minMassWindow = 10
	// Dual averaging (Hoffman and Gelman 2014, Stan's values).
	daGamma, daT0, daKappa = 0.05, 10.0, 0.75
)

// withDefaults validates h and fills in its defaults.
func (h HamiltonianMove) withDefaults() (HamiltonianMove, error) {
	if h.Leapfrogs < 0 {
		return h, fmt.Errorf("nmc: HamiltonianMove.Leapfrogs = %d is negative", h.Leapfrogs)
	}
	if h.Leapfrogs == 0 {
		h.Leapfrogs = defaultLeapfrogs
	}
	if !(h.Target >= 0 && h.Target < 1) {
		return h, fmt.Errorf("nmc: HamiltonianMove.Target = %g, want in (0, 1) (0: the default %g)", h.Target, defaultHamiltonianTarget)
	}
	if h.Target == 0 {
		h.Target = defaultHamiltonianTarget
	}
	return h, nil
}

// Plan finds the model's block (Hamiltonian); none plans nothing.
func (hm HamiltonianMove) Plan(p *Planner) ([]Planned, error) {
	cfg, err := hm.withDefaults()
	if err != nil {
		return nil, err
	}
	sites, err := hamiltonianSites(p.run.m, p.run.sites)
	if err != nil || len(sites) == 0 {
		return nil, err
	}
	return []Planned{&hamPlan{cfg: cfg, sites: sites}}, nil
}

// hamPlan is the Hamiltonian move planned for a model's block.
type hamPlan struct {
	cfg   HamiltonianMove
	sites []int
}

func (hp *hamPlan) Name() string { return hamiltonianName }

// String says what the move does.
func (hp *hamPlan) String() string {
	return fmt.Sprintf("%s: one static HMC move of the %d sites of the block, %d leapfrog steps, step size adapted in warm-up to a mean acceptance of %g", hamiltonianName, len(hp.sites), hp.cfg.Leapfrogs, hp.cfg.Target)
}

// minWarmup is the fewest sweeps of an adaptive warm-up with the block (see
// hamMinWarmup).
func (hp *hamPlan) minWarmup() int { return hamMinWarmup }

// Start returns the block's state in chain c.
func (hp *hamPlan) Start(c *Chain) (Stepper, error) {
	h := newHamiltonianBlock(hp.sites, c.run.sites, c.run.off, hp.cfg, c.run.opts)
	h.jg, _ = c.sc.sc.(JointGradienter)
	return h, nil
}

// hamiltonianSites returns the sites of the model's Hamiltonian block, checked;
// nil when the model declares none.
func hamiltonianSites(m Model, sites []Site) ([]int, error) {
	hm, ok := m.(Hamiltonian)
	if !ok {
		return nil, nil
	}
	list := hm.HamiltonianSites()
	seen := make([]bool, len(sites))
	out := make([]int, 0, len(list))
	for n, i := range list {
		if i < 0 || i >= len(sites) {
			return nil, fmt.Errorf("nmc: the model's HamiltonianSites() lists site %d (entry %d); the model has sites 0 … %d", i, n, len(sites)-1)
		}
		s := sites[i]
		switch {
		case s.Marginalised:
			return nil, fmt.Errorf("nmc: the model's HamiltonianSites() lists site %q, which is Marginalised; the block's sites are continuous", s.Name)
		case s.Support == Discrete:
			return nil, fmt.Errorf("nmc: the model's HamiltonianSites() lists site %q, which is Discrete; the block's sites are continuous", s.Name)
		case seen[i]:
			return nil, fmt.Errorf("nmc: the model's HamiltonianSites() lists site %q twice", s.Name)
		}
		seen[i] = true
		out = append(out, i)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// HamiltonianChain describes one chain's Hamiltonian block (Result.HamiltonianChains).
type HamiltonianChain struct {
	// StepSize is the leapfrog step size ε of the moves after warm-up (each move
	// jitters it uniformly by ±10%).
	StepSize float64
	// MeanAccept is the mean acceptance probability min(1, exp(H₀ − H₁)) of the
	// moves after warm-up (NaN without any).
	MeanAccept float64
	// Divergent is the number of moves after warm-up whose trajectory ended at a
	// non-finite log density or gradient.
	Divergent int
}

// dualAveraging is the state of the step size's dual averaging.
type dualAveraging struct {
	mu, hbar, logEpsBar float64
	t                   int
}

// hamiltonianBlock is one chain's Hamiltonian block: its sites, buffers and
// adaptation. Everything is allocated in newHamiltonianBlock.
type hamiltonianBlock struct {
	sites     []int
	segs      []hamSeg        // per site, as the transforms read it
	ref       []uint8         // per site: a 3-simplex's reference coordinate (see chooseRefs)
	runs      []hamRun        // the segments' runs, as the leapfrog steps read them
	jg        JointGradienter // nil: per-site Score gradients
	hess      []float64       // the per-site gradients' Hessian scratch (largest site)
	leapfrogs int
	target    float64

	u, u0, gu, mom []float64 // unconstrained coordinates, their gradient, momentum
	gx, x0         []float64 // gradient in x, the block's coordinates before the move
	invMass        []float64
	sqrtInvMass    []float64 // √invMass, for the momentum's draws

	eps    float64
	window int // W, the warm-up length the window positions are fractions of
	moves  int // warm-up moves so far
	da     dualAveraging
	mean   []float64 // Welford's running mean and sum of squares of u in the window
	m2     []float64
	nvar   int

	stats     draws.SiteStats // moves after warm-up
	accSum    float64
	divergent int
}

func newHamiltonianBlock(blockSites []int, sites []Site, off []int, cfg HamiltonianMove, opts *Options) *hamiltonianBlock {
	h := &hamiltonianBlock{sites: blockSites, leapfrogs: cfg.Leapfrogs,
		target: cfg.Target, eps: hamiltonianStartEps}
	h.da = dualAveraging{mu: math.Log(10 * h.eps)}
	var du, dx int
	h.segs, du, dx = hamSegs(blockSites, sites, off)
	h.ref = make([]uint8, len(h.segs))
	for n := range h.segs {
		if sg := &h.segs[n]; sg.support == Simplex && sg.k == 3 {
			sg.ref = h.ref[n : n+1 : len(h.ref)]
		}
	}
	h.runs = hamRunsOf(h.segs)
	maxK := 0
	for _, i := range blockSites {
		maxK = max(maxK, sites[i].Size)
	}
	h.u, h.u0, h.gu, h.mom = make([]float64, du), make([]float64, du), make([]float64, du), make([]float64, du)
	h.gx, h.x0 = make([]float64, dx), make([]float64, dx)
	h.invMass, h.mean, h.m2 = make([]float64, du), make([]float64, du), make([]float64, du)
	h.sqrtInvMass = make([]float64, du)
	for j := range h.invMass {
		h.invMass[j], h.sqrtInvMass[j] = 1, 1
	}
	h.hess = make([]float64, maxK*maxK)
	h.window = opts.fixedWarmup()
	if opts.adaptive() {
		h.window = hamMinWarmup
	}
	return h
}

// hamEval computes, at the state x = x(u) of the block's coordinates, the gradient
// gu of the target in u, then, when kick is true, the momentum's half step
// mom += half·gu, and, when value is true, returns the target's log density, the
// log density in x plus logJ = log|J(u)|. It reports false when the log density or
// gradient is reported not finite (JointGrad's return value; a non-finite gradient
// that is not reported makes the momentum, and so the kinetic energy at the
// trajectory's end, not finite, or the next state outside the support).
func (h *hamiltonianBlock) hamEval(c *Chain, value bool, logJ float64, kick bool, half float64) (float64, bool) {
	var f float64
	if h.jg != nil {
		f = h.jg.JointGrad(c.x, h.sites, h.gx, value)
	} else {
		f = h.hamSiteGradients(c, value)
	}
	if !isFinite(f) {
		return f, false
	}
	var mom []float64
	if kick {
		mom = h.mom
	}
	hamKick(h.runs, h.u, c.x, h.gx, h.gu, mom, half)
	if !value {
		return 0, true
	}
	lp := f + logJ
	return lp, isFinite(lp)
}

// hamSiteGradients is JointGrad from the Scorer's per-site scores: the gradient of
// the log joint with respect to a site's coordinates is that of its score. Score
// is asked for the Hessian too (it computes derivatives only when given both). It
// returns LogJoint when value is true, else 0, or a score that is not finite.
func (h *hamiltonianBlock) hamSiteGradients(c *Chain, value bool) float64 {
	for n, i := range h.sites {
		sg := &h.segs[n]
		c.at.site = i
		f := c.sc.sc.Score(c.x, i, h.gx[sg.g:sg.g+sg.k], h.hess[:sg.k*sg.k])
		c.at.site = -1
		if !isFinite(f) {
			return f
		}
	}
	if !value {
		return 0
	}
	return c.sc.sc.LogJoint(c.x)
}

// kinetic returns ½ rᵀ M⁻¹ r.
func (h *hamiltonianBlock) kinetic() float64 {
	k := 0.0
	for j, r := range h.mom {
		k += r * r * h.invMass[j]
	}
	return 0.5 * k
}

// hamDrawMomentum draws r ~ N(0, M).
func (h *hamiltonianBlock) hamDrawMomentum(c *Chain) {
	for j := range h.mom {
		h.mom[j] = c.rng.NormFloat64() / h.sqrtInvMass[j]
	}
}

// hamTrajectory runs n leapfrog steps of size eps from (u, mom) with the gradient
// gu at u, evaluating the log density at the end only; it returns that log
// density, and false when a value or gradient was reported not finite on the way
// (see hamEval).
func (h *hamiltonianBlock) hamTrajectory(c *Chain, n int, eps float64) (float64, bool) {
	half := 0.5 * eps
	lp := 0.0
	for l := 0; l < n; l++ {
		last := l == n-1
		logJ := hamDrift(h.runs, half, eps, h.gu, h.mom, h.invMass, h.u, c.x, last)
		var ok bool
		if lp, ok = h.hamEval(c, last, logJ, true, half); !ok {
			return lp, false
		}
	}
	return lp, true
}

// Step makes the block's move (see the comment at the top), adapting in warm-up.
// A panic in model code is reported as in the move (not deferred: the chain's
// recover reads the phase).
func (h *hamiltonianBlock) Step(c *Chain) {
	c.at.phase = "Hamiltonian move"
	h.hamMove(c, c.warm.warmup)
	c.at.phase = "sampling"
}

// hamMove is Step's move.
func (h *hamiltonianBlock) hamMove(c *Chain, warmup bool) {
	for _, r := range h.runs {
		copy(h.x0[r.g:r.g+r.n*r.k], c.x[r.x:r.x+r.n*r.k])
	}
	if warmup && h.moves < h.window/4 {
		h.chooseRefs(c.x)
	}
	hamToFree(h.segs, c.x, h.u)
	lp0, ok := h.hamEval(c, true, hamFromFreeRuns(h.runs, h.u, c.x, true), false, 0)
	if !ok {
		// The start's own density or gradient is not finite (a coordinate rounded
		// to the support's edge through the transforms): no move, counted as a
		// rejected divergent one.
		h.hamPutBack(c)
		if !warmup {
			h.stats.Proposals++
			h.divergent++
		}
		return
	}
	copy(h.u0, h.u)
	h.hamDrawMomentum(c)
	k0 := h.kinetic()
	eps := h.eps * (0.9 + 0.2*c.rng.Float64())
	lp1, ok := h.hamTrajectory(c, h.leapfrogs, eps)
	k1 := h.kinetic()
	ok = ok && isFinite(k1)
	acc := 0.0
	if ok {
		acc = math.Exp(min(0, lp1-k1-(lp0-k0)))
		if math.IsNaN(acc) {
			acc = 0
		}
	}
	accept := c.rng.Float64() < acc
	if accept {
		for _, i := range h.sites {
			c.moved(i)
		}
	} else {
		copy(h.u, h.u0)
		h.hamPutBack(c)
	}
	if warmup {
		h.hamAdapt(acc)
		return
	}
	h.stats.Proposals++
	if accept {
		h.stats.Accepted++
	}
	h.accSum += acc
	if !ok {
		h.divergent++
	}
}

// hamPutBack writes the block's coordinates from before the move back into the
// state and tells a StateKeeper Scorer.
func (h *hamiltonianBlock) hamPutBack(c *Chain) {
	for _, r := range h.runs {
		copy(c.x[r.x:r.x+r.n*r.k], h.x0[r.g:r.g+r.n*r.k])
	}
	c.keep()
}

// hamAdapt adapts the step size and the mass matrix after warm-up move number
// h.moves, whose acceptance probability was acc.
func (h *hamiltonianBlock) hamAdapt(acc float64) {
	it := h.moves
	h.moves++
	d := &h.da
	d.t++
	t := float64(d.t)
	d.hbar = (1-1/(t+daT0))*d.hbar + (h.target-acc)/(t+daT0)
	logEps := d.mu - math.Sqrt(t)/daGamma*d.hbar
	eta := math.Pow(t, -daKappa)
	d.logEpsBar = eta*logEps + (1-eta)*d.logEpsBar
	h.eps = math.Exp(logEps)
	lo, hi := h.window/4, h.window/2
	if it >= lo && it < hi {
		h.nvar++
		inv := 1 / float64(h.nvar)
		for j, v := range h.u {
			dv := v - h.mean[j]
			h.mean[j] += dv * inv
			h.m2[j] += dv * (v - h.mean[j])
		}
	}
	if it == hi-1 && h.nvar >= minMassWindow {
		n := float64(h.nvar)
		for j := range h.invMass {
			v := h.m2[j] / (n - 1)
			h.invMass[j] = (n/(n+5))*v + 1e-3*(5/(n+5))
			h.sqrtInvMass[j] = math.Sqrt(h.invMass[j])
		}
		h.da = dualAveraging{mu: math.Log(10 * h.eps)} // from the last iterate
	}
}

// Adapt does nothing: the block adapts in its warm-up moves themselves.
func (h *hamiltonianBlock) Adapt(*Chain, Warmup) {}

// EndWarmup freezes the step size at the end of warm-up.
func (h *hamiltonianBlock) EndWarmup(*Chain, Warmup) {
	if h.da.t > 0 {
		h.eps = math.Exp(h.da.logEpsBar)
	}
}

// Stats returns the block's moves after warm-up.
func (h *hamiltonianBlock) Stats() []draws.SiteStats {
	s := h.stats
	s.Name, s.Proposer, s.Sites = hamiltonianName, hamiltonianProposer, len(h.sites)
	return []draws.SiteStats{s}
}

// report stores the chain's step size, mean acceptance and divergent
// trajectories after warm-up in Result.HamiltonianChains.
func (h *hamiltonianBlock) report(r *Result, c int) {
	if r.HamiltonianChains == nil {
		r.HamiltonianChains = make([]HamiltonianChain, len(r.Draws.Chains))
		for k := range r.HamiltonianChains {
			r.HamiltonianChains[k] = HamiltonianChain{StepSize: math.NaN(), MeanAccept: math.NaN()}
		}
	}
	hc := HamiltonianChain{StepSize: h.eps, MeanAccept: math.NaN(), Divergent: h.divergent}
	if h.stats.Proposals > 0 {
		hc.MeanAccept = h.accSum / float64(h.stats.Proposals)
	}
	r.HamiltonianChains[c] = hc
}
