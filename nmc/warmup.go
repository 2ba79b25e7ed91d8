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
// After every warm-up sweep each move that adapts (Adapter) learns from it, and at
// the end of the warm-up freezes what it learnt: the fitted independence steps
// (FittedSteps) are fitted to the stationary period without its first window.

// AutoWarmup as Options.Warmup asks for the adaptive warm-up (as 0 does): the
// chains warm up until their log joints have stopped trending and agree (see
// Options.Warmup).
const AutoWarmup = -1

// NoWarmup as Options.Warmup asks for no warm-up: every sweep is recorded, from
// the first (the paper's runs).
const NoWarmup = -2

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
	// which the block gets no fitted step, and fittedSkipSiteRate the least rate of
	// each of its sites' steps (see wellMixed).
	fittedSkipRate     = 0.9
	fittedSkipSiteRate = 0.75
	// trendTolerance bounds the difference of the log joint's means over the last two
	// windows, in standard deviations of the later window.
	trendTolerance = 1.0
)

// afterWarmupSweep does the warm-up bookkeeping after warm-up sweep number sweep
// (from 0): the moves adapt (Adapter), and, for the adaptive warm-up, the chain
// keeps the log joint, and at the end of a window restarts a frozen chain,
// dislodges, refines and runs its own test. It reports whether the chain's own
// test passed; c.warm.own keeps that it passed once, until a restart, dislodging
// or refinement move starts the stationary period again (the meetings wait for
// every chain to have passed, not for all to pass at the same window end: the
// test fails by chance now and then).
func (c *Chain) afterWarmupSweep(sweep int) bool {
	o := c.run.opts
	w := &c.warm
	info := c.warmupInfo(sweep + 1)
	for _, m := range c.moves {
		if a, ok := m.(Adapter); ok {
			a.Adapt(c, info)
		}
	}
	if !o.adaptive() {
		return false
	}
	c.at.phase = "LogJoint"
	lj := c.sc.sc.LogJoint(c.x)
	c.at.phase = "sampling"
	w.lj[(sweep-w.stable)%(2*autoWindow)] = lj
	w.recent[sweep%(2*autoWindow)] = lj
	n := sweep + 1
	if n%autoWindow != 0 {
		return false
	}
	passed := c.windowEnd(n)
	copy(w.from, c.x)
	w.own = w.own || passed
	return passed
}

// windowEnd runs the end of a window of the adaptive warm-up after n sweeps
// and returns the chain's own test.
func (c *Chain) windowEnd(n int) bool {
	w := &c.warm
	c.at.phase = "warm-up dislodging"
	dislodged, frozen := c.dislodge()
	restarted := false
	if frozen >= 0 {
		c.at.phase = "warm-up restart"
		restarted = c.restartFrozen(n, frozen)
	}
	c.at.phase = "sampling"
	c.countsAt()
	if restarted || dislodged {
		c.restartStationary(n)
		return false
	}
	if c.run.opts.InitRefine > 0 {
		c.at.phase = "warm-up refinement"
		moved := c.refine()
		c.at.phase = "sampling"
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
	return n >= c.run.minWarmup && trendless(older, newer)
}

// countsAt keeps every site's step counts at the end of the window, for the
// next window's restart and dislodging.
func (c *Chain) countsAt() {
	w := &c.warm
	for i := range c.run.sites {
		st := c.sites[i].stats
		w.proposals[i], w.accepted[i] = st.Proposals, acceptedMH(st)
		w.moved[i], w.unmoved[i] = st.Accepted, st.Unmoved
	}
}

// recentLogJoints appends to dst the chain's log joint over its last
// min(n, 2·autoWindow) sweeps of n, oldest first, and returns it.
func (w *warmupState) recentLogJoints(n int, dst []float64) []float64 {
	k := min(n, 2*autoWindow)
	for s := n - k; s < n; s++ {
		dst = append(dst, w.recent[s%(2*autoWindow)])
	}
	return dst
}

// warmupInfo describes the warm-up after n sweeps to the moves (Warmup).
func (c *Chain) warmupInfo(n int) Warmup {
	o := c.run.opts
	w := Warmup{Sweep: n, Adaptive: o.adaptive(), Stationary: c.warm.stable}
	if !w.Adaptive {
		w.Stationary = o.fixedWarmup() / 2
	}
	return w
}

// restartStationary starts the warm-up's stationary period anew after sweep n:
// the moves forget what they collected for their fits (restarter).
func (c *Chain) restartStationary(n int) {
	c.warm.stable, c.warm.own = n, false
	for _, m := range c.moves {
		if r, ok := m.(restarter); ok {
			r.restart()
		}
	}
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
//
// A site that made no progress in the window (see frozenSpacings) gets that draw
// too, while the chain may still be restarted (maxRestarts): when the draw lies
// within frozenSpacings of the point the site is frozen, dislodging stops and
// frozen is the site (else −1); the caller restarts the chain.
func (c *Chain) dislodge() (moved bool, frozen int) {
	w := &c.warm
	detect := w.from != nil && len(w.restarts) < maxRestarts
	frozen = -1
	for i, s := range c.run.sites {
		st := c.sites[i].stats
		prop, acc := st.Proposals-w.proposals[i], acceptedMH(st)-w.accepted[i]
		if s.Support == Discrete || s.Marginalised || prop < autoWindow/2 {
			continue
		}
		still := detect && c.madeNoProgress(i, prop)
		if acc > 0 && !still {
			continue
		}
		m, f := c.dislodgeSite(i, still, acc == 0)
		moved = moved || m
		if f {
			frozen = i
			break
		}
	}
	// A site only probed for freezing keeps its caches: fitAtCurrent rewrote its
	// current slot at the same point and drew into the other.
	if moved || frozen >= 0 {
		c.invalidateAll()
	}
	return moved, frozen
}

// dislodgeSite draws site i from its proposal fitted at the current point. With
// still (the site made no progress in the window), a draw within frozenSpacings
// of the point reports the site frozen, and it stays. Otherwise, with move, the
// site moves to the draw when the score there is finite and not too far below
// (dislodgeDrop); moved reports whether it did.
func (c *Chain) dislodgeSite(i int, still, move bool) (moved, frozen bool) {
	c.at.site = i
	defer func() { c.at.site = -1 }()
	p, cur, nxt, xs, ok := c.fitAtCurrent(i)
	if !ok {
		return false, false
	}
	p.draw(c.rng, cur, 1, nxt.x)
	if still && withinSpacings(nxt.x, cur.x, frozenSpacings) {
		return false, true
	}
	if !move || outsideSupport(c.run.sites[i], nxt.x) != "" {
		return false, false
	}
	f0 := c.sc.sc.Score(c.x, i, nil, nil)
	copy(xs, nxt.x)
	if f := c.sc.sc.Score(c.x, i, nil, nil); !isFinite(f) || f0-f > dislodgeDrop(freeDim(c.run.sites[i])) {
		copy(xs, cur.x)
		return false, false
	}
	return true, false
}

// dislodgeDrop is the most a dislodging draw may lower the score of a site of d
// free coordinates: a draw of a d-dimensional Gaussian lies χ²_d/2 below its
// mode in log density, and this is the 1 − 10⁻⁴ quantile of χ²_d/2
// (Wilson–Hilferty). A larger drop says the proposal does not fit the site's
// conditional there, and its draw would be no typical point: on blr (seed 11),
// with warm-ups lengthened by the chains' meetings, dislodging draws of beta
// took one chain's log joint from −32 to −107, and in a cascade of windows to
// −3·10⁷.
func dislodgeDrop(d int) float64 {
	const z = 3.719 // the standard normal's 1 − 10⁻⁴ quantile
	k := 2 / (9 * float64(d))
	q := float64(d) * math.Pow(1-k+z*math.Sqrt(k), 3)
	return q / 2
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

// endWarmup ends a warm-up of n sweeps: every move that adapted freezes what it
// learnt (Adapter.EndWarmup), in the schedule's order.
func (c *Chain) endWarmup(n int) {
	c.warm.sweeps = n
	info := c.warmupInfo(n)
	for _, m := range c.moves {
		if a, ok := m.(Adapter); ok {
			a.EndWarmup(c, info)
		}
	}
	c.at.phase = "sampling"
}
