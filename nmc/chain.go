package nmc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/nmc-go/nmc/draws"
)

// progressEvery is the least time between two progress reports of one chain.
const progressEvery = 50 * time.Millisecond

// chain is the state of one Markov chain. Everything a step needs is allocated in
// newChain; a running chain does not allocate.
type chain struct {
	local int // the chain's index in this run, 0 … Chains−1
	num   int // its global number FirstChain + local, which seeds it and names it
	m     Model
	sc    Scorer
	vs    ValuesScorer    // sc when it implements ValuesScorer, else nil
	dw    DiscreteWatcher // sc when it implements DiscreteWatcher, else nil
	aug   *augmentation   // the augmented steps (Augmenter), or nil
	opts  *Options
	sites []Site
	off   []int
	rng   *rand.Rand
	x     []float64 // the full state

	props  []proposer // per site; nil for discrete sites
	slots  [][2]slot  // per site: current and proposed point
	cur    []uint8    // per site: index of the current slot
	logits []float64  // enumeration scratch

	// Cache validity. Without a Neighborer, a site's cache is valid while its stamp
	// equals changes (the number of state changes so far). With one, dependents[j]
	// lists the sites whose score reads site j; a site that reads at most
	// trackedReads others is tracked (valid holds its flag, cleared through
	// tracked[j], the tracked sites among dependents[j]), and one that reads more
	// is stamped (broad[i]) and made stale by every change of a site that a
	// stamped site reads (bumps[j]); see cacheTracking.
	dependents [][]int
	tracked    [][]int
	broad      []bool
	bumps      []bool
	valid      []bool
	stamp      []uint64
	changes    uint64
	// edits counts the changes of the state (changed and invalidateAll calls), so
	// that a score computed at one state is known to hold while edits stays the same.
	edits uint64

	perm []int // the sites of the sweep (all but the Marginalised ones)
	// sampledPerm, when not nil, replaces perm after warm-up except on every
	// fittedSiteEvery-th sweep: the sites whose steps a fitted block replaced
	// (replaced, in state order) are left out (see replaceSiteSteps).
	sampledPerm []int
	replaced    []int
	sampled     int // the number of sweeps after warm-up before the current one
	stats       []draws.SiteStats

	// Group moves (nil without them) and Marginalised sites.
	groups []groupPlan
	orb    OrbitScorer       // sc as an OrbitScorer when there are groups
	keeper StateKeeper       // sc as a StateKeeper, or nil
	gstats []draws.SiteStats // per group
	gold   []float64         // scratch: the old values of a group's coordinates
	gnew   []float64         // scratch: the proposed values of a group's coordinates
	gd     [2]float64        // scratch: the derivatives along an orbit
	grates []orbitRate       // per group: the rate of its log-Gamma fit (see orbitRate)
	gscore []orbitScore      // per group: its orbit score at the state its last step left
	marg   []int             // the Marginalised sites, in state order
	margNV []int             // per Marginalised site: its number of values
	// vw is sc when it implements ValuesWeigher and there are Marginalised sites;
	// margW and margOK are its buffers (ValuesWeigher.WeighValues over marg).
	vw     ValuesWeigher
	margW  []float64
	margOK []bool
	// keepRates says whether the group steps of the current sweep keep their probed
	// rates (warm-up).
	keepRates bool

	// The fitted independence step (nil without fitted blocks) and the warm-up.
	fitted       []*fittedBlock
	fstats       []draws.SiteStats // per fitted block, recorded sweeps only
	joint        []*jointMove      // the lead-and-follow moves, one per lead (after warm-up)
	jmom         []*siteMoments    // per site: warm-up moments of a lead candidate, else nil; nil without the moves
	jstats       []draws.SiteStats // per site, the moves it led (recorded sweeps only)
	ham          *hamiltonianBlock // the Hamiltonian block's move (nil without a block)
	warm         warmupState
	warmupSweeps int // the warm-up's length, once it is over

	// step gives the Newton step fraction γ of Real sites and adapts it during
	// warm-up; nil means the full step γ = 1.
	step stepper

	// Output.
	ncols   int
	out     []float64 // draws × ncols
	nrec    int
	deriver Deriver
	gen     Generator  // nil: no generated quantities
	genRng  *rand.Rand // the generated quantities' stream (Generator)
	genAt   int        // the first generated column of a row
	heldOut HeldOut
	nHeld   int
	held    []float64 // draws × nHeld

	site  int    // the site being stepped, for panic messages (−1: none)
	group int    // the group being stepped, for panic messages (−1: none)
	phase string // what the chain is doing outside site steps, for panic messages
}

// newChain returns the chain with local index local (global number
// opts.FirstChain + local).
func newChain(local int, m Model, sites []Site, dependents [][]int, groups []groupPlan, blocks []blockPlan, opts *Options, ncols, nHeld int) *chain {
	dim := Dim(sites)
	num := opts.FirstChain + local
	c := &chain{
		local: local, num: num, m: m, opts: opts, sites: sites, off: Offsets(sites),
		rng:        rand.New(rand.NewPCG(opts.Seed, uint64(num))),
		x:          make([]float64, dim),
		props:      make([]proposer, len(sites)),
		slots:      make([][2]slot, len(sites)),
		cur:        make([]uint8, len(sites)),
		dependents: dependents,
		perm:       make([]int, 0, len(sites)),
		stats:      make([]draws.SiteStats, len(sites)),
		ncols:      ncols,
		out:        make([]float64, opts.Draws*ncols),
		heldOut:    opts.HeldOut,
		nHeld:      nHeld,
		held:       make([]float64, opts.Draws*nHeld),
		site:       -1,
		group:      -1,
		groups:     groups,
		gstats:     make([]draws.SiteStats, len(groups)),
	}
	if opts.Warmup == AutoWarmup {
		c.warm.lj = make([]float64, 2*autoWindow)
		c.warm.proposals, c.warm.accepted = make([]int, len(sites)), make([]int, len(sites))
	}
	c.fstats = make([]draws.SiteStats, len(blocks))
	for bi := range blocks {
		c.fitted = append(c.fitted, newFittedBlock(&blocks[bi], sites, opts.Fitted.DF))
	}
	for _, g := range groups {
		c.gold = make([]float64, max(len(c.gold), len(g.coords)))
		c.gnew = make([]float64, len(c.gold))
	}
	if len(opts.jointLeads) > 0 && opts.Warmup != 0 { // the random walks are fitted to warm-up draws
		c.jmom = make([]*siteMoments, len(sites))
		for _, i := range opts.jointLeads {
			c.jmom[i] = newSiteMoments(freeDim(sites[i]))
		}
		c.jstats = make([]draws.SiteStats, len(sites))
	}
	if len(opts.hamSites) > 0 {
		c.ham = newHamiltonianBlock(opts.hamSites, sites, c.off, opts)
	}
	c.grates = make([]orbitRate, len(groups))
	c.gscore = make([]orbitScore, len(groups))
	for gi := range c.grates {
		n := opts.Warmup
		if n == AutoWarmup {
			n = opts.WarmupMax
		}
		c.grates[gi].probed = make([]probedRate, 0, n)
	}
	c.stamp = make([]uint64, len(sites))
	c.changes = 1 // every stamp starts invalid
	if dependents != nil {
		c.valid = make([]bool, len(sites))
		c.tracked, c.broad, c.bumps = cacheTracking(dependents)
	}
	maxValues := 0
	c.aug = newAugmentation(sites, opts.augSites)
	for i, s := range sites {
		switch {
		case s.Marginalised:
			c.marg = append(c.marg, i)
			c.margNV = append(c.margNV, s.NumValues)
		case c.aug != nil && c.aug.skip[i]: // stepped by stepAugmented
		default:
			c.perm = append(c.perm, i)
		}
		c.props[i] = newProposer(s, opts)
		c.slots[i] = [2]slot{newSlot(s.Size), newSlot(s.Size)}
		maxValues = max(maxValues, s.NumValues)
	}
	c.logits = make([]float64, maxValues)
	c.genAt = dim
	if d, ok := m.(Deriver); ok {
		// Only a model that records derived quantities needs the call: Derive may cost
		// more than the draw's copy (a graph model makes a value scorer for it).
		if n := len(d.DerivedNames()); n > 0 {
			c.deriver = d
			c.genAt += n
		}
	}
	if g, ok := m.(Generator); ok && ncols > c.genAt {
		c.gen = g
		c.genRng = rand.New(rand.NewPCG(opts.Seed^GeneratedSeed, uint64(num)))
	}
	if opts.Real.Step != nil {
		c.step = opts.Real.Step.newStepper(sites)
	}
	return c
}

// trackedReads is the most other sites that a site's score may read for its cache
// to be tracked by flags. A site that reads more is nearly always stale by its next
// step (one change among its many reads suffices), so clearing its flag at each of
// those changes costs a write per change and saves no score evaluation; it is
// stamped instead: every change of a site that a stamped site reads makes all of
// them stale at the cost of one increment. (Measured on the graph Dawid-Skene model
// with the classes explicit, 5,000 items, 100 labelers, whose confusion rows read
// hundreds of classes each: 50 sweeps recompute 15,040 cached scores with flags
// only and 15,050 with the rows and the prevalence stamped, and the sweep is 7%
// faster.)
const trackedReads = 32

// cacheTracking splits the sites for cache validity given dependents (dependents[j]
// = the sites whose score reads site j): broad[i] reports that site i reads more
// than trackedReads others and is stamped, tracked[j] lists the other (flagged)
// sites among dependents[j], and bumps[j] reports that some stamped site reads j.
func cacheTracking(dependents [][]int) (tracked [][]int, broad, bumps []bool) {
	n := len(dependents)
	reads := make([]int, n)
	for _, dep := range dependents {
		for _, i := range dep {
			reads[i]++
		}
	}
	broad = make([]bool, n)
	for i, r := range reads {
		broad[i] = r > trackedReads
	}
	tracked = make([][]int, n)
	bumps = make([]bool, n)
	for j, dep := range dependents {
		for _, i := range dep {
			if broad[i] {
				bumps[j] = true
			} else {
				tracked[j] = append(tracked[j], i)
			}
		}
	}
	return tracked, broad, bumps
}

// flagged reports whether site i's cache validity is a flag (in valid) rather than
// a stamp.
func (c *chain) flagged(i int) bool {
	return c.valid != nil && !c.broad[i]
}

func (c *chain) isValid(i int) bool {
	if c.flagged(i) {
		return c.valid[i]
	}
	return c.stamp[i] == c.changes
}

func (c *chain) setValid(i int) {
	if c.flagged(i) {
		c.valid[i] = true
	} else {
		c.stamp[i] = c.changes
	}
}

// invalidate marks site i's own cache stale.
func (c *chain) invalidate(i int) {
	if c.flagged(i) {
		c.valid[i] = false
	} else {
		c.stamp[i] = 0 // changes starts at 1
	}
}

// changed records that site i's value changed, invalidating the caches that read it.
// With a Neighborer, site i's own cache stays as it was.
func (c *chain) changed(i int) {
	c.edits++
	if c.dw != nil && c.sites[i].Support == Discrete {
		c.dw.Changed(i)
	}
	if c.valid == nil {
		c.changes++
		return
	}
	for _, j := range c.tracked[i] {
		c.valid[j] = false
	}
	if c.bumps[i] {
		own := c.broad[i] && c.stamp[i] == c.changes
		c.changes++
		if own {
			c.stamp[i] = c.changes
		}
	}
}

// discreteWritten reports a write of the Discrete site i's value in the state (every
// site's when i < 0) to a DiscreteWatcher scorer, for writes that changed does not
// report: values tried and put back.
func (c *chain) discreteWritten(i int) {
	if c.dw != nil {
		c.dw.Changed(i)
	}
}

// invalidateAll marks every cache stale (after the state was written from outside).
func (c *chain) invalidateAll() {
	c.edits++
	if c.dw != nil {
		c.dw.Changed(-1)
	}
	if c.aug != nil {
		c.aug.allMarg = true
	}
	if c.valid != nil {
		clear(c.valid)
	}
	c.changes++
}

// run initialises the chain and samples. It returns on completion, cancellation (with
// the context's error) or a failure; a panic in model code is returned as an error
// naming the chain and the site.
func (c *chain) run(ctx context.Context) (err error) {
	defer func() {
		if r := recover(); r != nil {
			switch {
			case c.site >= 0:
				err = fmt.Errorf("nmc: chain %d, site %q: panic: %v", c.num, c.sites[c.site].Name, r)
			case c.group >= 0:
				err = fmt.Errorf("nmc: chain %d, group %q: panic: %v", c.num, c.groups[c.group].name, r)
			default:
				err = fmt.Errorf("nmc: chain %d, %s: panic: %v", c.num, c.phase, r)
			}
		}
	}()
	c.phase = "NewScorer"
	c.sc = c.m.NewScorer()
	c.vs, _ = c.sc.(ValuesScorer)
	if vw, ok := c.sc.(ValuesWeigher); ok && len(c.marg) > 0 {
		c.vw = vw
		n := 0
		for _, i := range c.marg {
			n += c.sites[i].NumValues
		}
		c.margW, c.margOK = make([]float64, n), make([]bool, len(c.marg))
	}
	if c.dw, _ = c.sc.(DiscreteWatcher); c.dw != nil {
		c.dw.Watch(c.x)
	}
	c.keeper, _ = c.sc.(StateKeeper)
	if c.ham != nil {
		c.ham.jg, _ = c.sc.(JointGradienter)
	}
	if len(c.groups) > 0 {
		var ok bool
		if c.orb, ok = c.sc.(OrbitScorer); !ok {
			return fmt.Errorf("nmc: chain %d: the model declares groups but its Scorer %T does not implement OrbitScorer", c.num, c.sc)
		}
	}
	c.phase = "initialisation"
	if err := c.init(); err != nil {
		return err
	}
	c.phase = "NewAugmentedScorer"
	if err := c.startAugmentation(); err != nil {
		return err
	}
	c.phase = "sampling"
	o := c.opts
	sampling := o.Draws * o.Thin
	warmMax := o.Warmup
	if o.Warmup == AutoWarmup {
		warmMax = o.WarmupMax
	}
	total := warmMax + sampling
	last := time.Now()
	done := ctx.Done()
	progress := func(sweep int) {
		if o.Progress != nil {
			if now := time.Now(); now.Sub(last) >= progressEvery {
				last = now
				o.Progress(Progress{Chain: c.local, Done: sweep + 1, Total: total})
			}
		}
	}
	sweep := 0
	for sweep < warmMax {
		select {
		case <-done:
			c.report(sweep, total)
			return ctx.Err()
		default:
		}
		c.keepRates = o.Warmup == AutoWarmup || sweep >= o.Warmup/2
		if !c.sweep(true, false, done) {
			c.report(sweep, total)
			return ctx.Err()
		}
		complete := c.afterWarmupSweep(sweep)
		progress(sweep)
		sweep++
		if complete {
			break
		}
	}
	c.keepRates = false
	c.endWarmup(sweep)
	c.endHamiltonian()
	total = sweep + sampling
	for s := 0; s < sampling; s++ {
		select {
		case <-done:
			c.report(sweep, total)
			return ctx.Err()
		default:
		}
		c.sampled = s
		if !c.sweep(false, s%o.Fitted.Every == 0, done) {
			c.report(sweep, total)
			return ctx.Err()
		}
		if (s+1)%o.Thin == 0 {
			c.record()
		}
		progress(sweep)
		sweep++
	}
	c.report(total, total)
	return nil
}

func (c *chain) report(done, total int) {
	if c.opts.Progress != nil {
		c.opts.Progress(Progress{Chain: c.local, Done: done, Total: total})
	}
}

// init sets the starting state: the user's, or m.Init retried until every site's
// score and the log joint are finite.
func (c *chain) init() error {
	o := c.opts
	if o.Init != nil {
		copy(c.x, o.Init[min(c.local, len(o.Init)-1)])
		c.discreteWritten(-1)
		if msg := c.checkStart(); msg != "" {
			return fmt.Errorf("nmc: chain %d: Options.Init is not a valid starting point: %s", c.num, msg)
		}
		return c.refineStart()
	}
	last := ""
	for try := 0; try < o.InitRetries; try++ {
		err := c.m.Init(c.rng, c.x)
		c.discreteWritten(-1)
		if err != nil {
			last = err.Error()
			continue
		}
		if last = c.checkStart(); last == "" {
			return c.refineStart()
		}
	}
	return fmt.Errorf("nmc: chain %d: no finite starting point after %d tries (last: %s)", c.num, o.InitRetries, last)
}

// refineStart applies start refinement (unless disabled) to a valid start.
func (c *chain) refineStart() error {
	if c.opts.InitRefine > 0 {
		c.phase = "start refinement"
		c.refine()
		c.phase = "initialisation"
		if msg := c.checkStart(); msg != "" {
			return fmt.Errorf("nmc: chain %d: start refinement left an invalid state: %s", c.num, msg)
		}
	}
	c.invalidateAll()
	return nil
}

// checkStart returns "" if x is a valid starting point, else what is wrong with it.
// Every site's values are checked against its support before any score is
// evaluated, so that a value outside its support is reported at its own site, not
// at a site whose score reads it.
func (c *chain) checkStart() string {
	for i, s := range c.sites {
		if msg := outsideSupport(s, c.x[c.off[i]:c.off[i]+s.Size]); msg != "" {
			return msg
		}
	}
	for i, s := range c.sites {
		c.site = i
		f := c.sc.Score(c.x, i, nil, nil)
		c.site = -1
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Sprintf("site %q score %g", s.Name, f)
		}
	}
	if f := c.sc.LogJoint(c.x); math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Sprintf("log joint %g", f)
	}
	return ""
}

// outsideSupport returns "" if the coordinates x of site s are finite and in its
// support, else what is wrong with them, naming the site, the coordinate and the value.
func outsideSupport(s Site, x []float64) string {
	for j, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Sprintf("site %q coordinate %d = %g", s.Name, j, v)
		}
	}
	switch s.Support {
	case Discrete:
		v := x[0]
		if v < 0 || v != math.Trunc(v) || (s.NumValues > 0 && v >= float64(s.NumValues)) {
			return fmt.Sprintf("site %q value %g is not one of its values", s.Name, v)
		}
	case Positive:
		for j, v := range x {
			if !(v > s.Lower) {
				return fmt.Sprintf("site %q coordinate %d = %g is not above its lower bound %g", s.Name, j, v, s.Lower)
			}
		}
	case Interval:
		for j, v := range x {
			if !(v > s.Lower && v < s.Upper) {
				return fmt.Sprintf("site %q coordinate %d = %g is not in (%g, %g)", s.Name, j, v, s.Lower, s.Upper)
			}
		}
	case Simplex:
		sum := 0.0
		for j, v := range x {
			if !(v > 0) {
				return fmt.Sprintf("site %q coordinate %d = %g is not positive (simplex)", s.Name, j, v)
			}
			sum += v
		}
		if math.Abs(sum-1) > 1e-6 {
			return fmt.Sprintf("site %q coordinates sum to %.17g, want 1 (simplex)", s.Name, sum)
		}
	}
	return ""
}

// sweep updates every site once, in a fresh random order, then makes one group move
// per group (in the order of the model's Groups), then, when fitted is true, one
// fitted independence step per fitted block that has a proposal (in block order),
// then, with augmented sites (Augmenter), Options.AugmentRounds − 1 augmentation
// rounds, then the Hamiltonian block's move (when the model declares a block, see
// stepHamiltonian), then, after warm-up, Options.Joint.Steps lead-and-follow moves
// per lead, then draws every Marginalised site from its exact conditional (in
// state order), then, with augmented sites, steps each of them given those draws
// (the last round; a round is the draw and the steps, see stepAugmented). It
// checks done every 256 sites, so that a long sweep can be cancelled, and reports
// false if it was (the partial sweep is not recorded).
func (c *chain) sweep(warmup, fitted bool, done <-chan struct{}) bool {
	fittedOnly := c.opts.fittedOnly && !warmup
	jointOnly := c.opts.jointOnly && !warmup
	hamOnly := c.opts.hamiltonianOnly
	if !c.opts.groupsOnly && !fittedOnly && !jointOnly && !hamOnly {
		if !c.sweepSites(warmup, done) {
			return false
		}
	}
	for gi := range c.groups {
		if fittedOnly || jointOnly || hamOnly {
			break
		}
		c.group = gi
		c.stepGroup(gi)
	}
	c.group = -1
	if fitted && !jointOnly && !hamOnly {
		for bi := range c.fitted {
			var st *draws.SiteStats
			if !warmup {
				st = &c.fstats[bi]
			}
			c.stepFitted(bi, st)
		}
	}
	if c.aug != nil {
		for range c.opts.AugmentRounds - 1 {
			c.augmentRound()
		}
	}
	if c.ham != nil && !c.opts.groupsOnly && !fittedOnly && !jointOnly {
		c.stepHamiltonian(warmup)
	}
	if !warmup && !hamOnly {
		for _, j := range c.joint {
			c.site = j.lead
			lp := math.NaN()
			for range c.opts.Joint.Steps {
				lp = c.stepJoint(j, &c.jstats[j.lead], lp)
			}
		}
		c.site = -1
	}
	c.augmentRound()
	return true
}

// augmentRound draws every Marginalised site from its exact conditional, then, with
// augmented sites, updates them given those draws (an augmentation round).
func (c *chain) augmentRound() {
	c.drawMarginalised()
	if c.aug != nil {
		c.stepAugmented()
	}
}

// drawMarginalised draws every Marginalised site from its exact conditional, in
// state order: from the weights the Scorer gives (ValuesWeigher) where it gives
// valid ones, else by scoring each value (stepEnumerate). With augmented sites it
// lists the sites drawn to a new value for the round's steps (augmentation.moved).
func (c *chain) drawMarginalised() {
	if c.vw != nil {
		c.site = -1
		c.vw.WeighValues(c.x, c.marg, c.margW, c.margOK)
	}
	w := c.margW
	for n, i := range c.marg {
		c.site = i
		nv := c.margNV[n]
		old := c.x[c.off[i]]
		switch {
		case c.vw == nil || !c.margOK[n]:
			c.stepEnumerate(i)
		case nv == 3:
			if !c.drawWeighted3(i, w[:3:3]) {
				c.stepEnumerate(i)
			}
		case !c.drawWeighted(i, w[:nv]):
			c.stepEnumerate(i)
		}
		if c.aug != nil && math.Float64bits(c.x[c.off[i]]) != math.Float64bits(old) {
			c.aug.moved = append(c.aug.moved, i)
		}
		if c.vw != nil {
			w = w[nv:]
		}
	}
	c.site = -1
}

// sweepSites steps every site of the sweep once, in a fresh random order (after
// warm-up, on all but every fittedSiteEvery-th sweep, without the sites whose steps
// a fitted block replaced).
func (c *chain) sweepSites(warmup bool, done <-chan struct{}) bool {
	perm := c.perm
	if !warmup && c.sampledPerm != nil && c.sampled%fittedSiteEvery != 0 {
		perm = c.sampledPerm
	}
	for i := len(perm) - 1; i > 0; i-- {
		j := c.rng.IntN(i + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	for n, i := range perm {
		if n&255 == 255 {
			select {
			case <-done:
				c.site = -1
				return false
			default:
			}
		}
		c.site = i
		s := &c.sites[i]
		switch {
		case s.Support != Discrete:
			c.stepContinuous(i, warmup)
		case s.NumValues > 0:
			c.stepEnumerate(i)
		default:
			c.stepDiscreteMH(i)
		}
	}
	c.site = -1
	return true
}

// proposeStep is the Metropolis-Hastings step of the continuous site i from cur, its
// current point scored by sc with p fitted at it: it draws the proposal into nxt,
// writes it into the state, scores it with sc and fits p at it. valid reports a
// finite score (else the state is put back); logr is the log acceptance ratio and
// accept whether the step is accepted; a rejected proposal is put back too.
func (c *chain) proposeStep(sc Scorer, p proposer, i int, cur, nxt *slot, gamma float64) (logr float64, valid, accept bool) {
	xs := c.x[c.off[i] : c.off[i]+c.sites[i].Size]
	p.draw(c.rng, cur, gamma, nxt.x)
	u := c.rng.Float64()
	copy(xs, nxt.x)
	nxt.f = sc.Score(c.x, i, nxt.g, nxt.h)
	if !(nxt.f > math.Inf(-1)) {
		copy(xs, cur.x)
		return math.Inf(-1), false, false
	}
	p.fit(nxt)
	logr = nxt.f - cur.f + p.logq(nxt, gamma, cur.x) - p.logq(cur, gamma, nxt.x)
	accept = math.Log(u) < logr
	if !accept {
		copy(xs, cur.x)
	}
	return logr, true, accept
}

// stepContinuous is one Metropolis-Hastings step of the continuous site i.
func (c *chain) stepContinuous(i int, warmup bool) {
	p := c.props[i]
	ci := c.cur[i]
	cur, nxt := &c.slots[i][ci], &c.slots[i][1-ci]
	kc, choosing := p.(kindChooser)
	if !c.isValid(i) {
		copy(cur.x, c.x[c.off[i]:c.off[i]+c.sites[i].Size])
		cur.f = c.sc.Score(c.x, i, cur.g, cur.h)
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
	stepped := c.step != nil && c.sites[i].Support == Real
	gamma := 1.0
	if stepped {
		gamma = c.step.gamma(c.rng, i)
	}
	st := &c.stats[i]
	st.Proposals++
	if cur.fb {
		st.Fallbacks++
	}
	logr, valid, accept := c.proposeStep(c.sc, p, i, cur, nxt, gamma)
	if !valid {
		if kc != nil && warmup {
			kc.record(math.Inf(-1))
		}
		return
	}
	if stepped && warmup {
		c.step.adapt(i, gamma, logr, accept)
	}
	if kc != nil && warmup {
		kc.record(logr)
	}
	if !accept {
		return
	}
	countAccepted(st, cur.x, nxt.x)
	c.cur[i] = 1 - ci
	c.changed(i)
	c.setValid(i)
}

// countAccepted counts an accepted proposal y of a continuous site from x in st:
// as Unmoved when y is x bit for bit, else as Accepted (see draws.SiteStats).
// The chain takes an unmoved proposal as any accepted one.
func countAccepted(st *draws.SiteStats, x, y []float64) {
	for j, v := range x {
		if math.Float64bits(v) != math.Float64bits(y[j]) {
			st.Accepted++
			return
		}
	}
	st.Unmoved++
}

// acceptedMH returns the proposals of st that the Metropolis-Hastings test
// accepted, those that did not move the site included: the warm-up's decisions
// (dislodge, wellMixed) read them.
func acceptedMH(st draws.SiteStats) int { return st.Accepted + st.Unmoved }

// record appends the current state (and derived and held-out values) to the output.
func (c *chain) record() {
	row := c.out[c.nrec*c.ncols : (c.nrec+1)*c.ncols]
	n := copy(row, c.x)
	if c.deriver != nil {
		c.phase = "Derive"
		c.deriver.Derive(c.x, row[n:c.genAt])
	}
	if c.gen != nil {
		c.phase = "Generate"
		c.gen.Generate(c.genRng, c.x, row[c.genAt:])
	}
	if c.heldOut != nil {
		c.phase = "HeldOut.LogLik"
		c.heldOut.LogLik(c.x, c.held[c.nrec*c.nHeld:(c.nrec+1)*c.nHeld])
	}
	c.phase = "sampling"
	c.nrec++
}
