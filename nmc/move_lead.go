package nmc

import (
	"fmt"
	"math"
	"slices"

	"github.com/nmc-go/nmc/draws"
)

// Lead-and-follow moves. Some posteriors have a slow direction that no single-site
// step can follow: a site L (the lead) whose conditional given the rest is narrow
// only because other sites F₁ … F_n (its followers) are fitted to its current value,
// while their joint law with L is broad. Dawid-Skene with the classes summed out is
// the example: the weight π₁ of a rare class is pinned by the confusion rows of that
// class, which are pinned by π₁ in turn (a funnel: near π₁ = 0 the rows are free).
//
// The move proposes L far along its marginal and lets the followers follow, each
// from its own NMC proposal fitted at the partially updated state:
//
//  1. u = T(x_L), L's coordinates in unconstrained form (identity for Real, log for
//     Positive, logit for Interval, additive log-ratio for Simplex), moves by a
//     Gaussian random walk u′ = u + ε, ε ~ N(0, S), S fitted to the warm-up draws
//     of u (frozen after warm-up);
//  2. for j = 1 … n, x′_{F_j} ~ q_j(· | x_{j−1}), the NMC proposal of site F_j (its
//     Newton, Gamma, Beta or Dirichlet fit; for a finite Discrete site its exact
//     conditional, by enumeration) at the partially updated state
//     x_{j−1} = (x′_L, x′_{F_1}, …, x′_{F_{j−1}}, x_{F_j}, …, x_{F_n}).
//
// The followers are numbered in their fixed order or in the reverse of it, each with
// probability ½, independently of the state. The reverse move, from x′, takes the
// opposite order (chosen with the same probability ½): u′ goes back to u with the
// same random-walk density and F_n, …, F_1 return one by one, the old x_{F_j}
// proposed from q_j fitted at r_j = (x_L, x′_{F_1}, …, x′_{F_j}, x_{F_{j+1}}, …,
// x_{F_n}). So the move is a Metropolis-Hastings step with
//
//	log α = log p(x′) − log p(x) + log|J_T⁻¹(u′)| − log|J_T⁻¹(u)|
//	        + Σ_j log q_j(x_{F_j} | r_j) − Σ_j log q_j(x′_{F_j} | x_{j−1}),
//
// where |J_T⁻¹| is the Jacobian of the map from u to x_L (the density of L in the
// coordinates its score is written in: the first k − 1 coordinates for a simplex).
// Every q_j is a deterministic function of the point it is fitted at (the proposal
// kinds are frozen after warm-up), which is all the ratio needs; it is exact for any
// fits, good fits only raise the acceptance. The opposite order makes the two fits
// of F_j differ only in the lead (x_{j−1} and r_j share every other follower), so
// that when each q_j is F_j's exact conditional and the lead is not moved, the
// ratio is 1 (a Gibbs scan is reversed by the reverse scan); with one fixed order
// for both directions the coupled followers of Dawid-Skene accepted 0.3% instead
// of 7%. When the followers are conditionally independent given the lead and each
// q_j is exact, the ratio is that of a random walk on L's marginal.
//
// Which moves: the leads are the sites the model declares (Leader) or
// LeadMoves.Leads names. At the end of warm-up each chain fits the random walk of
// each lead to the lead's warm-up draws; in warm-up it makes the moves too, with
// a walk refitted to the draws so far at every window end (lead_warmup.go). Followers are optional (LeadMoves.Follow),
// among the sites whose score reads the lead (the model's Neighbors, or the sites
// whose score changes when the lead moves): every finite Discrete one that is not
// Marginalised (its proposal is exact: with the allocations of a mixture as
// followers of its weights, the move is a random walk on the weights' marginal,
// allocations summed out), and the continuous ones whose fitted proposal moves
// with the lead: fitted at a lead value one random-walk step away, it puts the
// centre of the fit at the current lead at least Follow nats below its own centre.
// Each continuous follower's fit adds its error to the ratio, and every follower
// costs two scores (with derivatives, or of every value) per move, so by default
// the lead moves alone.
//
// Measured on Dawid-Skene (5,000 items, 100 labelers, 3 classes, lead π, 4 × 1000
// draws, seed 1; user CPU time of the run). Classes summed out: without the moves
// π₁'s bulk ESS is 46 (16.5 s); the lead alone, 5 moves per sweep 208 (17.9 s), 10
// moves 433 (19.4 s), 20 moves 468 (22.9 s); with followers, 5 moves: all 300
// confusion rows 7% accepted, π₁ 138 (28.6 s; with the same scan order forward and
// back 0.3% accepted); the 100 rows of class 1 21% accepted, 340 (43 s); the rows
// the shift picks at Follow = 0.2 (1 to 113 per chain) 21% accepted, 239. Classes
// explicit: π₁'s ESS is 24 (4.5 s); the lead alone cannot beat π's exact Dirichlet
// conditional (6% accepted, no gain); with the 5,000 classes as followers
// (Follow = −1), 28% accepted, 1 move per sweep 100 (8.9 s), 3 moves 150 (18.6 s).

// Leader is an optional interface of a Model that declares lead sites for the
// lead-and-follow moves (see LeadMoves): continuous sites, each with at most
// maxJointDim unconstrained coordinates, whose marginal is much broader than their
// conditional given the rest (the weights of a mixture whose rare components'
// parameters are fitted to them).
type Leader interface {
	// Leads returns the names of the lead sites; the same value on every call.
	Leads() []string
}

// LeadFollower is an optional interface of a Model that names the sites that
// follow a lead of its lead-and-follow moves where LeadMoves.Follow is 0 (the
// default): the sites fitted to the lead that its moves must carry along (a
// Gaussian process's latent values, which follow its length scale and
// amplitude).
type LeadFollower interface {
	// Followers returns the names of the sites that follow the lead site named
	// lead (nil: none); the same value on every call.
	Followers(lead string) []string
}

// LeadMoves is the rule of the lead-and-follow moves (see above): after a warm-up,
// Steps random-walk moves per sweep of every lead site — those the model declares
// (Leader), or those Leads names — in its unconstrained coordinates, with the sites
// fitted to it following from their own NMC proposals when Follow asks for them.
// The walk is fitted to the lead's draws in the warm-up's stationary part (without
// the adaptive warm-up's first window) and frozen at the warm-up's end. In warm-up
// the moves start at the first window end (every 50th sweep) with enough of those
// draws (20, and twice the lead's dimension), by a walk refitted to the draws so
// far at every window end: a lead pinned by its followers then moves while the
// warm-up still decides (a Gaussian process's length scale and amplitude:
// gp_pois_regr's warm-up ended at its limit with the chains disagreeing, and now
// ends after 200–350 sweeps).
// Without a warm-up (the random walk is fitted to warm-up draws) or without leads
// it plans nothing. Every lead's statistics are an entry of Result.Moves: Name
// "lead-follow(" followed by the lead's name and ")", Proposer "lead-follow",
// Sites 1; only the moves after warm-up are counted, and a lead whose walk a
// chain could not fit says so in Unused.
//
// The zero value is the default: the model's leads, ten moves per lead and sweep,
// no followers.
type LeadMoves struct {
	// Leads, when non-nil, names the lead sites instead of the model's (Leader):
	// continuous sites with at most 20 unconstrained coordinates.
	Leads []string
	// Steps is the number of moves per lead and sweep, after warm-up and in it
	// once the walk is fitted (default 10). Must not be negative.
	Steps int
	// Scale multiplies the random walk's covariance, the warm-up covariance of the
	// lead's unconstrained coordinates times 2.38²/d (default 1). Must be positive
	// and finite (0 means the default).
	Scale float64
	// Follow is the least shift of a site's fitted proposal, in nats, that makes
	// it a follower (see the comment at the top). 0, the default, means the
	// followers the model names (LeadFollower), else none: the lead moves alone,
	// a random walk on its conditional, which costs one Markov-blanket score per
	// move. A negative value makes every continuous site whose score reads the
	// lead a follower. Each move with followers costs two log joints and two
	// scores with derivatives per follower. Must be finite.
	Follow float64
}

const (
	defaultJointSteps = 10
	// maxJointDim is the most unconstrained coordinates of a lead.
	maxJointDim = 20
	// minLeadDraws is the fewest warm-up draws a lead's random walk is fitted to
	// (and at least twice its dimension).
	minLeadDraws = 20
	// leadRidge is the relative ridge added to the variances of the walk's
	// covariance.
	leadRidge = 1e-9
	// jointProposer is the moves' proposer name in their statistics.
	jointProposer = "lead-follow"
)

// withDefaults validates j and fills in its defaults.
func (j LeadMoves) withDefaults() (LeadMoves, error) {
	if j.Steps < 0 {
		return j, fmt.Errorf("nmc: LeadMoves.Steps = %d is negative", j.Steps)
	}
	if j.Steps == 0 {
		j.Steps = defaultJointSteps
	}
	if j.Scale < 0 || math.IsNaN(j.Scale) || math.IsInf(j.Scale, 0) {
		return j, fmt.Errorf("nmc: LeadMoves.Scale = %g, want positive and finite (0: the default 1)", j.Scale)
	}
	if j.Scale == 0 {
		j.Scale = 1
	}
	if math.IsNaN(j.Follow) || math.IsInf(j.Follow, 0) {
		return j, fmt.Errorf("nmc: LeadMoves.Follow = %g is not finite", j.Follow)
	}
	return j, nil
}

// Plan resolves the leads and plans a lead-and-follow move of each; none without
// a warm-up.
func (j LeadMoves) Plan(p *Planner) ([]Planned, error) {
	cfg, err := j.withDefaults()
	if err != nil {
		return nil, err
	}
	leads, err := jointLeads(p.run.m, p.run.sites, cfg)
	if err != nil || p.run.opts.noWarmup() { // the random walks are fitted to warm-up draws
		return nil, err
	}
	out := make([]Planned, len(leads))
	for k, i := range leads {
		lp := &leadPlan{lead: i, name: "lead-follow(" + p.run.sites[i].Name + ")", cfg: cfg}
		if lp.follow, err = modelFollowers(p.run.m, p.run.sites, i); err != nil {
			return nil, err
		}
		out[k] = lp
	}
	return out, nil
}

// modelFollowers resolves the names of the followers the model names for lead
// (LeadFollower) to sites: continuous or finite discrete sites other than the
// lead, not summed out.
func modelFollowers(m Model, sites []Site, lead int) ([]int, error) {
	lf, ok := m.(LeadFollower)
	if !ok {
		return nil, nil
	}
	var follow []int
	for _, name := range lf.Followers(sites[lead].Name) {
		i := slices.IndexFunc(sites, func(s Site) bool { return s.Name == name })
		if i < 0 || i == lead || sites[i].Marginalised || sites[i].Support == Discrete && sites[i].NumValues == 0 {
			return nil, fmt.Errorf("nmc: the model's Followers(%q) names %q, which cannot follow it (not a site, the lead, summed out or an unbounded discrete site)", sites[lead].Name, name)
		}
		if !slices.Contains(follow, i) {
			follow = append(follow, i)
		}
	}
	slices.Sort(follow)
	return follow, nil
}

// jointLeads resolves the lead names (LeadMoves.Leads, else the model's) to
// sites.
func jointLeads(m Model, sites []Site, j LeadMoves) ([]int, error) {
	names, where := j.Leads, "LeadMoves.Leads"
	if names == nil {
		if l, ok := m.(Leader); ok {
			names, where = l.Leads(), "the model's Leads()"
		}
	}
	var leads []int
	for _, name := range names {
		found := -1
		for i, s := range sites {
			if s.Name == name {
				found = i
			}
		}
		if found < 0 {
			return nil, fmt.Errorf("nmc: %s names %q, which is not a site of the model", where, name)
		}
		if sites[found].Support == Discrete {
			return nil, fmt.Errorf("nmc: %s names %q, a Discrete site (a lead must be continuous)", where, name)
		}
		if d := freeDim(sites[found]); d > maxJointDim {
			return nil, fmt.Errorf("nmc: %s names %q, which has %d unconstrained coordinates (at most %d)", where, name, d, maxJointDim)
		}
		if slices.Contains(leads, found) {
			return nil, fmt.Errorf("nmc: %s names %q twice", where, name)
		}
		leads = append(leads, found)
	}
	return leads, nil
}

// leadPlan is the lead-and-follow move of one lead, planned.
type leadPlan struct {
	lead   int
	name   string
	cfg    LeadMoves
	follow []int // the model's followers of the lead (LeadFollower)
}

func (lp *leadPlan) Name() string { return lp.name }

// String says what the move does.
func (lp *leadPlan) String() string {
	follow := "alone"
	switch {
	case lp.cfg.Follow < 0:
		follow = "every site that reads it following"
	case lp.cfg.Follow > 0:
		follow = fmt.Sprintf("the sites whose fit it shifts by %g nats following", lp.cfg.Follow)
	case len(lp.follow) > 0:
		follow = fmt.Sprintf("the %d sites the model names following", len(lp.follow))
	}
	return fmt.Sprintf("%s: %d random-walk moves of the lead (in warm-up once fitted to its draws, frozen after), %s", lp.name, lp.cfg.Steps, follow)
}

func (lp *leadPlan) Start(c *Chain) (Stepper, error) {
	return &leadStepper{plan: lp, moments: newSiteMoments(freeDim(c.run.sites[lp.lead]))}, nil
}

// leadStepper is one lead's moves in one chain.
type leadStepper struct {
	plan    *leadPlan
	moments *siteMoments // the warm-up moments of the lead's unconstrained coordinates
	move    *jointMove   // the fitted move, nil until warm-up's end (or without a fit)
	stats   draws.SiteStats
	// warm is the warm-up's move, refitted at every window end (see
	// lead_warmup.go); warmFit reports that its last fit succeeded, and
	// warmStats counts its moves.
	warm      *jointMove
	warmFit   bool
	warmStats draws.SiteStats
}

// Stats returns the lead's moves after warm-up.
func (st *leadStepper) Stats() []draws.SiteStats {
	s := st.stats
	s.Name, s.Proposer, s.Sites = st.plan.name, jointProposer, 1
	if st.move == nil {
		s.Unused = "no random walk fitted: too few warm-up draws of the lead, or no positive-definite covariance"
	}
	return []draws.SiteStats{s}
}

// EndWarmup fits the lead's random walk and chooses its followers.
func (st *leadStepper) EndWarmup(c *Chain, _ Warmup) {
	c.at.phase = "lead-follow fit"
	j := newJointMove(st.plan.lead, c.run.sites)
	if st.plan.cfg.fitJoint(c, j, st.moments, st.plan.follow) {
		st.move = j
	}
	c.at.phase = "sampling"
}

// Step makes LeadMoves.Steps moves of the lead: after warm-up by the walk fitted
// at its end, in warm-up by the walk of the latest window end (see
// lead_warmup.go).
func (st *leadStepper) Step(c *Chain) {
	j, stats := st.move, &st.stats
	if c.warm.warmup {
		j, stats = nil, &st.warmStats
		if st.warmFit {
			j = st.warm
		}
	}
	if j == nil {
		return
	}
	c.at.site = st.plan.lead
	lp := math.NaN()
	for range st.plan.cfg.Steps {
		lp = stepJoint(c, j, stats, lp)
	}
	c.at.site = -1
}

// fitJoint fits lead j's random walk to its warm-up moments m and chooses its
// followers (follow, the model's, where cfg.Follow is 0); it reports whether the
// move can be made.
func (cfg *LeadMoves) fitJoint(c *Chain, j *jointMove, m *siteMoments, follow []int) bool {
	d := j.d
	cov := j.l
	if !m.cov(cov) {
		return false
	}
	f := 2.38 * 2.38 / float64(d) * cfg.Scale
	for a := 0; a < d; a++ {
		for b := 0; b <= a; b++ {
			v := cov[a*d+b]
			if a == b {
				v += leadRidge*v + 1e-12
			}
			cov[a*d+b] = f * v
			cov[b*d+a] = cov[a*d+b]
		}
	}
	if !allFinite(cov) || !cholesky(cov, d) {
		return false
	}
	if cfg.Follow != 0 {
		cfg.chooseFollowers(c, j)
	} else {
		j.setFollowers(c.run.sites, slices.Clone(follow))
	}
	return true
}

// chooseFollowers sets j.followers: the continuous sites whose score reads the lead
// (its dependents when the model is a Neighborer, else the sites whose score changes
// when the lead moves by one random-walk step) and whose fitted proposal shifts by at
// least Follow nats when the lead takes one of a few values one random-walk
// standard deviation away (see the comment at the top). The state is restored and
// every cache invalidated.
func (cfg *LeadMoves) chooseFollowers(c *Chain, j *jointMove) {
	sites := c.run.sites
	ls := sites[j.lead]
	loff := c.run.off[j.lead]
	xl := c.x[loff : loff+ls.Size]
	keep := append([]float64(nil), xl...)
	u0 := make([]float64, j.d)
	toFree(ls, keep, u0)
	defer func() {
		copy(xl, keep)
		c.at.site = -1
		c.invalidateAll()
	}()
	other := func(i int) bool {
		s := sites[i]
		return i != j.lead && !s.Marginalised && (s.Support != Discrete || s.NumValues > 0)
	}
	var cand []int
	if c.run.dependents != nil {
		for _, i := range c.run.dependents[j.lead] {
			if other(i) {
				cand = append(cand, i)
			}
		}
		slices.Sort(cand)
	} else {
		base := make([]float64, len(sites))
		for i := range sites {
			if other(i) {
				c.at.site = i
				base[i] = c.sc.sc.Score(c.x, i, nil, nil)
			}
		}
		for b := range j.u {
			j.u[b] = u0[b] + j.l[b*j.d]
		}
		fromFree(ls, j.u, xl)
		for i := range sites {
			if other(i) {
				c.at.site = i
				if f := c.sc.sc.Score(c.x, i, nil, nil); f != base[i] {
					cand = append(cand, i)
				}
			}
		}
		copy(xl, keep)
	}
	minShift := cfg.Follow
	if minShift < 0 {
		j.setFollowers(sites, cand)
		return
	}
	// The fit of every candidate at the current lead and at lead values one
	// random-walk step (the columns of the walk's Cholesky factor, ±) away; the
	// shift is how far below the moved fit's own centre the old centre lies.
	shift := make([]float64, len(sites))
	centre := make([][]float64, len(sites))
	k0 := 0
	for _, i := range cand {
		k0 = max(k0, sites[i].Size)
	}
	scratch := newSlot(k0)
	s0 := &scratch
	for _, i := range cand {
		if sites[i].Support == Discrete {
			continue // followers whenever they read the lead: their proposal is exact
		}
		k := sites[i].Size
		sl := slotPrefix(s0, k)
		if !c.fitAt(i, &sl) {
			continue
		}
		centre[i] = make([]float64, k)
		if !c.sites[i].prop.centre(&sl, centre[i]) {
			centre[i] = nil
		}
	}
	for a := 0; a < j.d; a++ {
		for _, sign := range []float64{-1, 1} {
			for b := range j.u {
				j.u[b] = u0[b] + sign*j.l[b*j.d+a]
			}
			fromFree(ls, j.u, xl)
			for _, i := range cand {
				if centre[i] == nil {
					continue
				}
				k := sites[i].Size
				sl := slotPrefix(s0, k)
				if !c.fitAt(i, &sl) {
					continue
				}
				p := c.sites[i].prop
				top := make([]float64, k)
				if !p.centre(&sl, top) {
					continue
				}
				v := p.logqFit(&sl, top) - p.logqFit(&sl, centre[i])
				if v > shift[i] {
					shift[i] = v
				}
			}
		}
	}
	var followers []int
	for _, i := range cand {
		if shift[i] >= minShift || sites[i].Support == Discrete {
			followers = append(followers, i)
		}
	}
	j.setFollowers(sites, followers)
}

// slotPrefix returns a slot over the first k coordinates of s's buffers.
func slotPrefix(s *slot, k int) slot {
	return slot{x: s.x[:k], g: s.g[:k], h: s.h[:k*k], fbc: s.fbc[:k], l: s.l[:k*k], w: s.w[:k], d: s.d[:k]}
}

// fitAt scores site i at the current state with derivatives and fits its proposal
// into s; it reports whether the score is finite.
func (c *Chain) fitAt(i int, s *slot) bool {
	off, k := c.run.off[i], c.run.sites[i].Size
	copy(s.x, c.x[off:off+k])
	was := c.at.site
	c.at.site = i
	s.f = c.sc.sc.Score(c.x, i, s.g, s.h)
	c.at.site = was
	if !isFinite(s.f) {
		return false
	}
	c.sites[i].prop.fit(s)
	return true
}

// stepJoint makes one lead-and-follow move, counted in st. lp is the log density
// of the move (see below) at the current state, or NaN when not known; it returns
// the log density at the state after the move (NaN when not known), for the next
// move of the same lead.
func stepJoint(c *Chain, j *jointMove, st *draws.SiteStats, lp float64) float64 {
	st.Proposals++
	sites, off := c.run.sites, c.run.off
	ls := sites[j.lead]
	loff := off[j.lead]
	xl := c.x[loff : loff+ls.Size]
	d := j.d
	for a := range j.z {
		j.z[a] = c.rng.NormFloat64()
	}
	u := c.rng.Float64()
	backward := c.rng.IntN(2) == 1
	// Save the old values (the lead's, then each follower's at its offset).
	copy(j.old, xl)
	for f, i := range j.followers {
		copy(j.old[j.pos[f]:], c.x[off[i]:off[i]+sites[i].Size])
	}
	restore := func() {
		copy(xl, j.old[:ls.Size])
		for f, i := range j.followers {
			copy(c.x[off[i]:off[i]+sites[i].Size], j.old[j.pos[f]:])
			if sites[i].Support == Discrete {
				c.discreteWritten(i)
			}
		}
	}
	// The log density: the log joint, or, without followers, the lead's
	// Markov-blanket score (the same differences).
	logp := func() float64 {
		if len(j.followers) == 0 {
			return c.sc.sc.Score(c.x, j.lead, nil, nil)
		}
		c.at.phase = "lead-follow move"
		defer func() { c.at.phase = "sampling" }()
		return c.sc.sc.LogJoint(c.x)
	}
	lp0 := lp
	if math.IsNaN(lp0) {
		lp0 = logp()
	}
	toFree(ls, xl, j.u)
	lj0 := logJacobianAt(ls, xl)
	for a := 0; a < d; a++ {
		v := j.u[a]
		for b := 0; b <= a; b++ {
			v += j.l[a*d+b] * j.z[b]
		}
		j.u2[a] = v
	}
	lj1 := fromFree(ls, j.u2, xl)
	if !allFinite(xl) || outsideSupport(ls, xl) != "" {
		restore()
		return lp0
	}
	logr := lj1 - lj0
	// Forward: each follower from its fit at the partially updated state, in the
	// followers' order or in reverse (with probability ½ each; the reverse move goes
	// through them in the opposite order).
	order := j.order[:0]
	for f := range j.followers {
		order = append(order, f)
	}
	if backward {
		slices.Reverse(order)
	}
	for _, f := range order {
		i := j.followers[f]
		if sites[i].Support == Discrete {
			lq, ok := c.drawConditional(i)
			if !ok {
				restore()
				return lp0
			}
			logr -= lq
			continue
		}
		k := sites[i].Size
		sl := slotPrefix(&j.slot, k)
		if !c.fitAt(i, &sl) {
			restore()
			return lp0
		}
		p := c.sites[i].prop
		dst := c.x[off[i] : off[i]+k]
		logr -= drawLogq(p, c.rng, &sl, dst)
		if !allFinite(dst) || outsideSupport(sites[i], dst) != "" {
			restore()
			return lp0
		}
	}
	lp1 := logp()
	if !(lp1 > math.Inf(-1)) || math.IsNaN(lp1) {
		restore()
		return lp0
	}
	logr += lp1 - lp0
	// Reverse: from x′, the lead back, then the followers in the opposite order,
	// each old value from its fit at the partially restored state.
	copy(j.fwd, xl)
	for f, i := range j.followers {
		copy(j.fwd[j.pos[f]:], c.x[off[i]:off[i]+sites[i].Size])
	}
	copy(xl, j.old[:ls.Size])
	for r := len(order) - 1; r >= 0; r-- {
		f := order[r]
		i := j.followers[f]
		if sites[i].Support == Discrete {
			v := j.old[j.pos[f]]
			lq, ok := c.conditionalLogProb(i, v)
			if !ok {
				logr = math.Inf(-1)
				break
			}
			logr += lq
			c.x[off[i]] = v
			c.discreteWritten(i)
			continue
		}
		k := sites[i].Size
		sl := slotPrefix(&j.slot, k)
		if !c.fitAt(i, &sl) {
			logr = math.Inf(-1)
			break
		}
		o := j.pos[f]
		logr += c.sites[i].prop.logq(&sl, 1, j.old[o:o+k])
		copy(c.x[off[i]:off[i]+k], j.old[o:o+k])
	}
	restore()
	if !(math.Log(u) < logr) {
		return lp0
	}
	// Accepted: write x′ back.
	copy(xl, j.fwd[:ls.Size])
	for f, i := range j.followers {
		copy(c.x[off[i]:off[i]+sites[i].Size], j.fwd[j.pos[f]:])
	}
	st.Accepted++
	c.moved(j.lead)
	for _, i := range j.followers {
		c.moved(i)
	}
	return lp1
}
