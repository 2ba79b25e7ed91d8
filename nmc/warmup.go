package nmc

import "math"

// The adaptive warm-up (Options.Warmup = AutoWarmup). Each chain runs its warm-up in
// windows of autoWindow sweeps and decides on its own, from its own state only (so a
// chain's draws never depend on the other chains, and runs split with FirstChain stay
// bit-identical), when it is done:
//
//   - At the end of every window the chain applies start refinement (see refine): a
//     continuous site sitting where its own fitted proposal says it is atypical is
//     moved towards the proposal's centre. Chains can sit for hundreds of sweeps at
//     such points — on a logistic regression with 10,000 rows and K = 40, a chain
//     whose β Newton proposal accepts nothing for 375 sweeps at a log density 50 below
//     the typical set — and a trend test cannot see them, since nothing moves. A
//     refinement that moved anything restarts the chain's stationary period.
//   - The log joint of every warm-up sweep is kept; once the stationary period holds
//     two whole windows, their means are compared: the trend test passes when they
//     differ by at most trendTolerance standard deviations of the later window.
//   - The warm-up ends at the first window end after at least autoMinWarmup sweeps
//     where the trend test passes, or after Options.WarmupMax sweeps.
//
// At the end of the warm-up the fitted independence step (FittedStep) is fitted to
// the stationary period without its first window, and frozen.

// AutoWarmup as Options.Warmup asks for the adaptive warm-up: each chain warms up
// until its log joint has stopped trending (see Options.Warmup).
const AutoWarmup = -1

// DefaultWarmupMax is the default of Options.WarmupMax, the most sweeps of the
// adaptive warm-up.
const DefaultWarmupMax = 1000

const (
	// autoWindow is the length of a window of the adaptive warm-up, in sweeps.
	autoWindow = 50
	// autoMinWarmup is the fewest sweeps of the adaptive warm-up.
	autoMinWarmup = 200
	// hamMinWarmup is the fewest sweeps of the adaptive warm-up of a chain with a
	// Hamiltonian block, whose step size and mass are adapted in fixed windows of
	// it (see step_hamiltonian.go): on Dawid-Skene (seeds 1–5 of `nmc sample
	// -model annotation -n 10000 -k 100`) 200 sweeps left some chains with step
	// sizes 3× too small and π's min bulk ESS at 1263–3034; 300 gave 1521–2933,
	// for 8% more sweeps.
	hamMinWarmup = 300
	// fittedSkipRate is the warm-up acceptance rate of a block's local steps above
	// which the block gets no fitted step (see wellMixed).
	fittedSkipRate = 0.9
	// trendTolerance bounds the difference of the log joint's means over the last two
	// windows, in standard deviations of the later window.
	trendTolerance = 1.0
)

// warmupState is the adaptive warm-up's state in one chain.
type warmupState struct {
	stable int       // the sweep where the current stationary period began
	lj     []float64 // 2·autoWindow: the log joint of the stationary period's latest sweeps
	// proposals and accepted are each site's step counts at the last window end.
	proposals, accepted []int
}

// afterWarmupSweep does the warm-up bookkeeping after warm-up sweep number sweep
// (from 0): it collects the draws of the fitted blocks and, for the adaptive warm-up,
// the log joint, and at the end of a window refines, refits and tests. It reports
// whether the adaptive warm-up is complete.
func (c *chain) afterWarmupSweep(sweep int) bool {
	o := c.opts
	if o.Warmup != AutoWarmup {
		if sweep >= o.Warmup/2 {
			for _, b := range c.fitted {
				b.collect(c.x)
			}
			c.collectJoint()
		}
		return false
	}
	w := &c.warm
	for _, b := range c.fitted {
		b.collect(c.x)
	}
	if sweep >= w.stable+autoWindow {
		c.collectJoint()
	}
	c.phase = "LogJoint"
	w.lj[(sweep-w.stable)%(2*autoWindow)] = c.sc.LogJoint(c.x)
	c.phase = "sampling"
	n := sweep + 1
	if n%autoWindow != 0 {
		return false
	}
	c.phase = "warm-up dislodging"
	if c.dislodge() {
		c.phase = "sampling"
		c.restartStationary(n)
		return false
	}
	c.phase = "sampling"
	if o.InitRefine > 0 {
		c.phase = "warm-up refinement"
		moved := c.refine()
		c.phase = "sampling"
		if moved {
			c.restartStationary(n)
			return false
		}
	}
	if n-w.stable < 2*autoWindow {
		return false
	}
	k := (n - w.stable) / autoWindow
	older := w.lj[(k%2)*autoWindow : (k%2+1)*autoWindow]
	newer := w.lj[((k-1)%2)*autoWindow : ((k-1)%2+1)*autoWindow]
	return n >= c.minWarmup() && trendless(older, newer)
}

// restartStationary starts the warm-up's stationary period anew after sweep n: the
// draws collected for the fitted blocks, the probed rates of the group moves and the
// leads' warm-up moments (lead-and-follow moves) are forgotten.
func (c *chain) restartStationary(n int) {
	c.warm.stable = n
	for _, b := range c.fitted {
		b.reset()
	}
	for gi := range c.grates {
		c.grates[gi].probed = c.grates[gi].probed[:0]
	}
	c.resetJoint()
}

// dislodge moves every continuous site whose steps accepted none of the last
// window's proposals (at least half a window of them) to a draw of its own proposal
// at the current point, and reports whether it moved any. Such a chain sits where
// the site's MH steps cannot leave: on a logistic regression with 10,000 rows and
// K = 40 (seed 2), start refinement took one chain's β to its conditional mode,
// where the Newton fit is much sharper than at the points it proposes, so that
// every reverse proposal density was tiny (log ratio below −4.5 at 99% of the
// proposals): 0 of 1200 β steps accepted, the chain's β frozen for the whole run,
// R-hat 1.15. Its proposal's draws are typical points (the proposal is fitted to
// the site's conditional), so a draw taken without the MH test, in warm-up, starts
// the site again where its steps move. Like start refinement, it only chooses the
// state the recorded draws start from.
func (c *chain) dislodge() bool {
	w := &c.warm
	moved := false
	for i, s := range c.sites {
		st := c.stats[i]
		prop, acc := st.Proposals-w.proposals[i], acceptedMH(st)-w.accepted[i]
		w.proposals[i], w.accepted[i] = st.Proposals, acceptedMH(st)
		if s.Support == Discrete || s.Marginalised || prop < autoWindow/2 || acc > 0 {
			continue
		}
		if c.dislodgeSite(i) {
			moved = true
		}
	}
	if moved {
		c.invalidateAll()
	}
	return moved
}

// dislodgeSite moves site i to a draw of its proposal fitted at the current point,
// when the score there is finite, and reports whether it moved.
func (c *chain) dislodgeSite(i int) bool {
	c.site = i
	defer func() { c.site = -1 }()
	p, cur, nxt, xs, ok := c.fitAtCurrent(i)
	if !ok {
		return false
	}
	p.draw(c.rng, cur, 1, nxt.x)
	if outsideSupport(c.sites[i], nxt.x) != "" {
		return false
	}
	copy(xs, nxt.x)
	if f := c.sc.Score(c.x, i, nil, nil); !isFinite(f) {
		copy(xs, cur.x)
		return false
	}
	return true
}

// trendless reports whether the means of two windows of the log joint differ by at
// most trendTolerance standard deviations of the later one (and both are finite).
func trendless(older, newer []float64) bool {
	ma, mb := 0.0, 0.0
	for k := range older {
		ma += older[k]
		mb += newer[k]
	}
	n := float64(len(older))
	ma, mb = ma/n, mb/n
	v := 0.0
	for _, x := range newer {
		v += (x - mb) * (x - mb)
	}
	sd := math.Sqrt(v / (n - 1))
	d := math.Abs(mb - ma)
	return isFinite(d) && d <= trendTolerance*sd
}

// endWarmup freezes the fitted proposals and the group moves' rates (see orbitRate)
// at the end of a warm-up of n sweeps, and leaves out of the sweeps the site steps
// that a fitted block replaces (see replaceSiteSteps).
func (c *chain) endWarmup(n int) {
	c.warmupSweeps = n
	c.freezeRates()
	m := fittedRing
	if c.opts.Warmup == AutoWarmup {
		m = n - c.warm.stable - autoWindow
	}
	c.fitBlocks(m)
	c.replaceSiteSteps(m)
	c.startJoint()
}

// fitBlocks fits every fitted block to its latest m warm-up draws, except the
// blocks that local steps already sample well (see wellMixed).
func (c *chain) fitBlocks(m int) {
	for _, b := range c.fitted {
		if c.wellMixed(b) {
			b.active, b.unused = false, unusedMixed
			continue
		}
		c.fitBlock(b, m)
	}
}

// wellMixed reports whether every local step that moves block b — the Newton step
// of each of its sites and, for a group's block, the group move — accepted at least
// fittedSkipRate of its warm-up proposals. Such a block is already sampled by
// near-exact conditional draws (a Gaussian-like site's Newton fit is its
// conditional) plus the group move along the direction that couples its sites, and
// an independence step would cost score evaluations for little: on a robust
// regression with K = 40 (sites accepting 99–100%, the group 99.9%) three fitted
// steps per sweep added 21% wall time and no bulk ESS.
func (c *chain) wellMixed(b *fittedBlock) bool {
	high := func(acc, prop int) bool { return prop > 0 && float64(acc) >= fittedSkipRate*float64(prop) }
	for _, i := range b.plan.sites {
		if st := c.stats[i]; !high(acceptedMH(st), st.Proposals) {
			return false
		}
	}
	if g := b.plan.group; g >= 0 {
		if st := c.gstats[g]; !high(st.Accepted, st.Proposals) {
			return false
		}
	}
	return true
}

// minWarmup is the fewest sweeps of the chain's adaptive warm-up: hamMinWarmup
// with a Hamiltonian block, else autoMinWarmup.
func (c *chain) minWarmup() int {
	if c.ham != nil {
		return hamMinWarmup
	}
	return autoMinWarmup
}
