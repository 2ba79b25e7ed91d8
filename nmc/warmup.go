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
		}
		return false
	}
	w := &c.warm
	for _, b := range c.fitted {
		b.collect(c.x)
	}
	c.phase = "LogJoint"
	w.lj[(sweep-w.stable)%(2*autoWindow)] = c.sc.LogJoint(c.x)
	c.phase = "sampling"
	n := sweep + 1
	if n%autoWindow != 0 {
		return false
	}
	if o.InitRefine > 0 {
		c.phase = "warm-up refinement"
		moved := c.refine()
		c.phase = "sampling"
		if moved {
			w.stable = n
			for _, b := range c.fitted {
				b.reset()
			}
			for gi := range c.grates {
				c.grates[gi].probed = c.grates[gi].probed[:0]
			}
			return false
		}
	}
	if n-w.stable < 2*autoWindow {
		return false
	}
	k := (n - w.stable) / autoWindow
	older := w.lj[(k%2)*autoWindow : (k%2+1)*autoWindow]
	newer := w.lj[((k-1)%2)*autoWindow : ((k-1)%2+1)*autoWindow]
	return n >= autoMinWarmup && trendless(older, newer)
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
// at the end of a warm-up of n sweeps.
func (c *chain) endWarmup(n int) {
	c.warmupSweeps = n
	c.freezeRates()
	if c.opts.Warmup == AutoWarmup {
		c.fitBlocks(n - c.warm.stable - autoWindow)
	} else {
		c.fitBlocks(fittedRing)
	}
}

// fitBlocks fits every fitted block to its latest m warm-up draws, except the
// blocks that local steps already sample well (see wellMixed).
func (c *chain) fitBlocks(m int) {
	for _, b := range c.fitted {
		if c.wellMixed(b) {
			b.active = false
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
		if st := c.stats[i]; !high(st.Accepted, st.Proposals) {
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
