package nmc

import (
	"fmt"
	"math"
	"slices"

	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/internal/special"
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
// Options.Joint.Leads names. At the end of warm-up each chain fits the random walk of
// each lead to the lead's warm-up draws. Followers are optional (JointMoves.Follow),
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
// lead-and-follow moves (see JointMoves): continuous sites, each with at most
// maxJointDim unconstrained coordinates, whose marginal is much broader than their
// conditional given the rest (the weights of a mixture whose rare components'
// parameters are fitted to them).
type Leader interface {
	// Leads returns the names of the lead sites; the same value on every call.
	Leads() []string
}

// JointMoves configures the lead-and-follow moves (see Options.Joint). The zero
// value is the default: on for the leads the model declares (Leader), ten moves per
// lead and sweep after a warm-up; a run without warm-up makes none (the random walk
// is fitted to warm-up draws).
type JointMoves struct {
	// Off turns the moves off.
	Off bool
	// Leads, when non-nil, names the lead sites instead of the model's (Leader):
	// continuous sites with at most 20 unconstrained coordinates.
	Leads []string
	// Steps is the number of moves per lead and sweep after warm-up (default 10).
	// Must not be negative.
	Steps int
	// Scale multiplies the random walk's covariance, the warm-up covariance of the
	// lead's unconstrained coordinates times 2.38²/d (default 1). Must be positive
	// and finite (0 means the default).
	Scale float64
	// Follow is the least shift of a site's fitted proposal, in nats, that makes
	// it a follower (see the comment at the top). 0, the default, means no
	// followers: the lead moves alone, a random walk on its conditional, which
	// costs one Markov-blanket score per move. A negative value makes every
	// continuous site whose score reads the lead a follower. Each move with
	// followers costs two log joints and two scores with derivatives per follower.
	// Must be finite.
	Follow float64
}

const (
	defaultJointSteps = 10
	// maxJointDim is the most unconstrained coordinates of a lead.
	maxJointDim = 20
	// jointProposer is the moves' proposer name in Result.Joint.
	jointProposer = "lead-follow"
)

// withDefaults validates j and fills in its defaults.
func (j JointMoves) withDefaults() (JointMoves, error) {
	if j.Steps < 0 {
		return j, fmt.Errorf("nmc: Options.Joint.Steps = %d is negative", j.Steps)
	}
	if j.Steps == 0 {
		j.Steps = defaultJointSteps
	}
	if j.Scale < 0 || math.IsNaN(j.Scale) || math.IsInf(j.Scale, 0) {
		return j, fmt.Errorf("nmc: Options.Joint.Scale = %g, want positive and finite (0: the default 1)", j.Scale)
	}
	if j.Scale == 0 {
		j.Scale = 1
	}
	if math.IsNaN(j.Follow) || math.IsInf(j.Follow, 0) {
		return j, fmt.Errorf("nmc: Options.Joint.Follow = %g is not finite", j.Follow)
	}
	return j, nil
}

// jointLeads resolves the lead names (Options.Joint.Leads, else the model's) to
// sites; none when the moves are off.
func jointLeads(m Model, sites []Site, j JointMoves) ([]int, error) {
	if j.Off {
		return nil, nil
	}
	names, where := j.Leads, "Options.Joint.Leads"
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

// siteMoments accumulates the warm-up moments of one site's unconstrained
// coordinates: their sums and cross products.
type siteMoments struct {
	d          int
	n          int
	sum, cross []float64 // d, d×d
	u          []float64 // d scratch
}

func newSiteMoments(d int) *siteMoments {
	return &siteMoments{d: d, sum: make([]float64, d), cross: make([]float64, d*d), u: make([]float64, d)}
}

func (m *siteMoments) reset() {
	m.n = 0
	clear(m.sum)
	clear(m.cross)
}

// add adds the site's coordinates x.
func (m *siteMoments) add(s Site, x []float64) {
	u := m.u
	toFree(s, x, u)
	if !allFinite(u) {
		return
	}
	d := m.d
	for a := 0; a < d; a++ {
		m.sum[a] += u[a]
		for b := 0; b <= a; b++ {
			m.cross[a*d+b] += u[a] * u[b]
		}
	}
	m.n++
}

// cov writes the sample covariance into dst (d×d) and reports whether there are
// enough draws (at least minFittedDraws and 2d).
func (m *siteMoments) cov(dst []float64) bool {
	if m.n < max(minFittedDraws, 2*m.d) {
		return false
	}
	n := float64(m.n)
	d := m.d
	for a := 0; a < d; a++ {
		for b := 0; b <= a; b++ {
			v := (m.cross[a*d+b] - m.sum[a]*m.sum[b]/n) / (n - 1)
			dst[a*d+b], dst[b*d+a] = v, v
		}
	}
	return true
}

// freeDim returns the number of unconstrained coordinates of a continuous site.
func freeDim(s Site) int {
	if s.Support == Simplex {
		return s.Size - 1
	}
	return s.Size
}

// toFree writes the unconstrained coordinates of site s at x into u.
func toFree(s Site, x, u []float64) {
	switch s.Support {
	case Real:
		copy(u, x)
	case Positive:
		for i, v := range x {
			u[i] = math.Log(v - s.Lower)
		}
	case Interval:
		for i, v := range x {
			u[i] = math.Log(v-s.Lower) - math.Log(s.Upper-v)
		}
	case Simplex:
		last := math.Log(x[len(x)-1])
		for i := range u[:len(x)-1] {
			u[i] = math.Log(x[i]) - last
		}
	}
}

// fromFree writes the coordinates of site s with unconstrained coordinates u into x
// and returns log|det ∂x/∂u| (over the first k − 1 coordinates for a simplex).
func fromFree(s Site, u, x []float64) float64 {
	lj := 0.0
	switch s.Support {
	case Real:
		copy(x, u)
	case Positive:
		for i, v := range u {
			x[i] = s.Lower + math.Exp(v)
			lj += v
		}
	case Interval:
		w := s.Upper - s.Lower
		for i, v := range u {
			// σ(v) and 1 − σ(v) without cancellation.
			lo, hi := special.Logistic(v), special.Logistic(-v)
			x[i] = s.Lower + w*lo
			if x[i] >= s.Upper {
				x[i] = s.Upper - w*hi
			}
			lj += math.Log(w) + math.Log(lo) + math.Log(hi)
		}
	case Simplex:
		k := len(x)
		top := 0.0
		for _, v := range u[:k-1] {
			top = max(top, v)
		}
		sum := math.Exp(-top)
		for i, v := range u[:k-1] {
			x[i] = math.Exp(v - top)
			sum += x[i]
		}
		x[k-1] = math.Exp(-top)
		for i := range x {
			x[i] /= sum
			lj += math.Log(x[i])
		}
	}
	return lj
}

// jointMove is one lead's move in one chain.
type jointMove struct {
	lead      int
	d         int       // the lead's unconstrained dimension
	followers []int     // in their fixed order
	l         []float64 // d×d: Cholesky factor of the random walk's covariance
	u, u2, z  []float64 // d scratch
	old, fwd  []float64 // the lead's and the followers' old and proposed values
	pos       []int     // per follower: its offset in old and fwd
	order     []int     // the followers in the order of the current move
	slot      slot      // scratch fit of a follower (the largest follower's size)
}

func newJointMove(lead int, sites []Site) *jointMove {
	d := freeDim(sites[lead])
	return &jointMove{lead: lead, d: d, l: make([]float64, d*d),
		u: make([]float64, d), u2: make([]float64, d), z: make([]float64, d)}
}

// setFollowers sets the followers and sizes the move's buffers for them.
func (j *jointMove) setFollowers(sites []Site, followers []int) {
	j.followers = followers
	n, k := sites[j.lead].Size, 0
	j.pos = make([]int, len(followers))
	for f, i := range followers {
		j.pos[f] = n
		n += sites[i].Size
		k = max(k, sites[i].Size)
	}
	j.old, j.fwd = make([]float64, n), make([]float64, n)
	j.order = make([]int, 0, len(followers))
	j.slot = newSlot(k)
}

// collectJoint adds the current state to the warm-up moments of the lead candidates.
func (c *chain) collectJoint() {
	for i, m := range c.jmom {
		if m != nil {
			c.jmom[i].add(c.sites[i], c.x[c.off[i]:c.off[i]+c.sites[i].Size])
		}
	}
}

// resetJoint forgets the warm-up moments.
func (c *chain) resetJoint() {
	for _, m := range c.jmom {
		if m != nil {
			m.reset()
		}
	}
}

// startJoint fits the random walks of the chain's leads at the end of warm-up and
// chooses their followers.
func (c *chain) startJoint() {
	if c.jmom == nil {
		return
	}
	c.phase = "lead-follow fit"
	for _, l := range c.opts.jointLeads {
		j := newJointMove(l, c.sites)
		if c.fitJoint(j) {
			c.joint = append(c.joint, j)
		}
	}
	c.phase = "sampling"
}

// fitJoint fits lead j's random walk to its warm-up moments and chooses its
// followers; it reports whether the move can be made.
func (c *chain) fitJoint(j *jointMove) bool {
	m := c.jmom[j.lead]
	d := j.d
	cov := j.l
	if !m.cov(cov) {
		return false
	}
	f := 2.38 * 2.38 / float64(d) * c.opts.Joint.Scale
	for a := 0; a < d; a++ {
		for b := 0; b <= a; b++ {
			v := cov[a*d+b]
			if a == b {
				v += fittedRidge*v + 1e-12
			}
			cov[a*d+b] = f * v
			cov[b*d+a] = cov[a*d+b]
		}
	}
	if !allFinite(cov) || !cholesky(cov, d) {
		return false
	}
	if c.opts.Joint.Follow != 0 {
		c.chooseFollowers(j)
	} else {
		j.setFollowers(c.sites, nil)
	}
	return true
}

// chooseFollowers sets j.followers: the continuous sites whose score reads the lead
// (its dependents when the model is a Neighborer, else the sites whose score changes
// when the lead moves by one random-walk step) and whose fitted proposal shifts by at
// least Follow nats when the lead takes one of a few values one random-walk
// standard deviation away (see the comment at the top). The state is restored and
// every cache invalidated.
func (c *chain) chooseFollowers(j *jointMove) {
	ls := c.sites[j.lead]
	loff := c.off[j.lead]
	xl := c.x[loff : loff+ls.Size]
	keep := append([]float64(nil), xl...)
	u0 := make([]float64, j.d)
	toFree(ls, keep, u0)
	defer func() {
		copy(xl, keep)
		c.site = -1
		c.invalidateAll()
	}()
	other := func(i int) bool {
		s := c.sites[i]
		return i != j.lead && !s.Marginalised && (s.Support != Discrete || s.NumValues > 0)
	}
	var cand []int
	if c.dependents != nil {
		for _, i := range c.dependents[j.lead] {
			if other(i) {
				cand = append(cand, i)
			}
		}
		slices.Sort(cand)
	} else {
		base := make([]float64, len(c.sites))
		for i := range c.sites {
			if other(i) {
				c.site = i
				base[i] = c.sc.Score(c.x, i, nil, nil)
			}
		}
		for b := range j.u {
			j.u[b] = u0[b] + j.l[b*j.d]
		}
		fromFree(ls, j.u, xl)
		for i := range c.sites {
			if other(i) {
				c.site = i
				if f := c.sc.Score(c.x, i, nil, nil); f != base[i] {
					cand = append(cand, i)
				}
			}
		}
		copy(xl, keep)
	}
	minShift := c.opts.Joint.Follow
	if minShift < 0 {
		j.setFollowers(c.sites, cand)
		return
	}
	// The fit of every candidate at the current lead and at lead values one
	// random-walk step (the columns of the walk's Cholesky factor, ±) away; the
	// shift is how far below the moved fit's own centre the old centre lies.
	shift := make([]float64, len(c.sites))
	centre := make([][]float64, len(c.sites))
	k0 := 0
	for _, i := range cand {
		k0 = max(k0, c.sites[i].Size)
	}
	scratch := newSlot(k0)
	s0 := &scratch
	for _, i := range cand {
		if c.sites[i].Support == Discrete {
			continue // followers whenever they read the lead: their proposal is exact
		}
		k := c.sites[i].Size
		sl := slotPrefix(s0, k)
		if !c.fitAt(i, &sl) {
			continue
		}
		centre[i] = make([]float64, k)
		if !c.props[i].centre(&sl, centre[i]) {
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
				k := c.sites[i].Size
				sl := slotPrefix(s0, k)
				if !c.fitAt(i, &sl) {
					continue
				}
				top := make([]float64, k)
				if !c.props[i].centre(&sl, top) {
					continue
				}
				v := c.props[i].logqFit(&sl, top) - c.props[i].logqFit(&sl, centre[i])
				if v > shift[i] {
					shift[i] = v
				}
			}
		}
	}
	var followers []int
	for _, i := range cand {
		if shift[i] >= minShift || c.sites[i].Support == Discrete {
			followers = append(followers, i)
		}
	}
	j.setFollowers(c.sites, followers)
}

// slotPrefix returns a slot over the first k coordinates of s's buffers.
func slotPrefix(s *slot, k int) slot {
	return slot{x: s.x[:k], g: s.g[:k], h: s.h[:k*k], fbc: s.fbc[:k], l: s.l[:k*k], w: s.w[:k], d: s.d[:k]}
}

// fitAt scores site i at the current state with derivatives and fits its proposal
// into s; it reports whether the score is finite.
func (c *chain) fitAt(i int, s *slot) bool {
	off, k := c.off[i], c.sites[i].Size
	copy(s.x, c.x[off:off+k])
	was := c.site
	c.site = i
	s.f = c.sc.Score(c.x, i, s.g, s.h)
	c.site = was
	if !isFinite(s.f) {
		return false
	}
	c.props[i].fit(s)
	return true
}

// stepJoint makes one lead-and-follow move; st counts it when non-nil. lp is the log
// density of the move (see below) at the current state, or NaN when not known; it
// returns the log density at the state after the move (NaN when not known), for the
// next move of the same lead.
func (c *chain) stepJoint(j *jointMove, st *draws.SiteStats, lp float64) float64 {
	if st != nil {
		st.Proposals++
	}
	ls := c.sites[j.lead]
	loff := c.off[j.lead]
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
		copy(j.old[j.pos[f]:], c.x[c.off[i]:c.off[i]+c.sites[i].Size])
	}
	restore := func() {
		copy(xl, j.old[:ls.Size])
		for f, i := range j.followers {
			copy(c.x[c.off[i]:c.off[i]+c.sites[i].Size], j.old[j.pos[f]:])
			if c.sites[i].Support == Discrete {
				c.discreteWritten(i)
			}
		}
	}
	// The log density: the log joint, or, without followers, the lead's
	// Markov-blanket score (the same differences).
	logp := func() float64 {
		if len(j.followers) == 0 {
			return c.sc.Score(c.x, j.lead, nil, nil)
		}
		c.phase = "lead-follow move"
		defer func() { c.phase = "sampling" }()
		return c.sc.LogJoint(c.x)
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
		if c.sites[i].Support == Discrete {
			lq, ok := c.drawConditional(i)
			if !ok {
				restore()
				return lp0
			}
			logr -= lq
			continue
		}
		k := c.sites[i].Size
		sl := slotPrefix(&j.slot, k)
		if !c.fitAt(i, &sl) {
			restore()
			return lp0
		}
		dst := c.x[c.off[i] : c.off[i]+k]
		c.props[i].draw(c.rng, &sl, 1, dst)
		logr -= c.props[i].logq(&sl, 1, dst)
		if !allFinite(dst) || outsideSupport(c.sites[i], dst) != "" {
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
		copy(j.fwd[j.pos[f]:], c.x[c.off[i]:c.off[i]+c.sites[i].Size])
	}
	copy(xl, j.old[:ls.Size])
	for r := len(order) - 1; r >= 0; r-- {
		f := order[r]
		i := j.followers[f]
		if c.sites[i].Support == Discrete {
			v := j.old[j.pos[f]]
			lq, ok := c.conditionalLogProb(i, v)
			if !ok {
				logr = math.Inf(-1)
				break
			}
			logr += lq
			c.x[c.off[i]] = v
			c.discreteWritten(i)
			continue
		}
		k := c.sites[i].Size
		sl := slotPrefix(&j.slot, k)
		if !c.fitAt(i, &sl) {
			logr = math.Inf(-1)
			break
		}
		o := j.pos[f]
		logr += c.props[i].logq(&sl, 1, j.old[o:o+k])
		copy(c.x[c.off[i]:c.off[i]+k], j.old[o:o+k])
	}
	restore()
	if !(math.Log(u) < logr) {
		return lp0
	}
	// Accepted: write x′ back.
	copy(xl, j.fwd[:ls.Size])
	for f, i := range j.followers {
		copy(c.x[c.off[i]:c.off[i]+c.sites[i].Size], j.fwd[j.pos[f]:])
	}
	if st != nil {
		st.Accepted++
	}
	c.moved(j.lead)
	for _, i := range j.followers {
		c.moved(i)
	}
	return lp1
}

// logJacobianAt returns log|det ∂x/∂u| of site s at its coordinates x.
func logJacobianAt(s Site, x []float64) float64 {
	lj := 0.0
	switch s.Support {
	case Positive:
		for _, v := range x {
			lj += math.Log(v - s.Lower)
		}
	case Interval:
		for _, v := range x {
			lj += math.Log(v-s.Lower) + math.Log(s.Upper-v) - math.Log(s.Upper-s.Lower)
		}
	case Simplex:
		for _, v := range x {
			lj += math.Log(v)
		}
	}
	return lj
}

// jointStats returns the statistics of Result.Joint and Result.JointPerChain: one
// entry per site that led moves in some chain, in state order; nil without any.
func jointStats(sites []Site, chains []*chain) (total []draws.SiteStats, perChain [][]draws.SiteStats) {
	var leads []int
	for i := range sites {
		for _, ch := range chains {
			if ch.jstats != nil && ch.jstats[i].Proposals > 0 {
				leads = append(leads, i)
				break
			}
		}
	}
	if len(leads) == 0 {
		return nil, nil
	}
	return collectStats(len(leads), func(l int) (string, string, int) {
		return "lead-follow(" + sites[leads[l]].Name + ")", jointProposer, 1
	}, chains, func(ch *chain) []draws.SiteStats {
		out := make([]draws.SiteStats, len(leads))
		if ch.jstats != nil {
			for k, i := range leads {
				out[k] = ch.jstats[i]
			}
		}
		return out
	})
}

// conditionalLogits writes the normalised log-probabilities of the values of the
// finite Discrete site i given the rest of the state into c.logits and reports
// whether they are defined (some value has a finite score). x is left as it was.
func (c *chain) conditionalLogits(i int) ([]float64, bool) {
	off, nv := c.off[i], c.sites[i].NumValues
	lp := c.logits[:nv]
	if c.vs != nil {
		c.vs.ScoreValues(c.x, i, lp)
	} else {
		old := c.x[off]
		for v := range lp {
			c.x[off] = float64(v)
			c.discreteWritten(i)
			lp[v] = c.sc.Score(c.x, i, nil, nil)
		}
		c.x[off] = old
		c.discreteWritten(i)
	}
	top := math.Inf(-1)
	for v, f := range lp {
		if math.IsNaN(f) {
			lp[v] = math.Inf(-1)
		}
		top = max(top, lp[v])
	}
	if math.IsInf(top, 0) {
		return nil, false
	}
	sum := 0.0
	for _, f := range lp {
		sum += math.Exp(f - top)
	}
	norm := top + math.Log(sum)
	for v := range lp {
		lp[v] -= norm
	}
	return lp, true
}

// drawConditional draws the finite Discrete site i from its exact conditional,
// writes it into the state and returns its log-probability.
func (c *chain) drawConditional(i int) (float64, bool) {
	lp, ok := c.conditionalLogits(i)
	if !ok {
		return 0, false
	}
	u := c.rng.Float64()
	v, acc := len(lp)-1, 0.0
	for k, f := range lp {
		if acc += math.Exp(f); u < acc {
			v = k
			break
		}
	}
	c.x[c.off[i]] = float64(v)
	c.discreteWritten(i)
	return lp[v], lp[v] > math.Inf(-1)
}

// conditionalLogProb returns the log-probability of value v of the finite Discrete
// site i under its exact conditional given the rest of the state.
func (c *chain) conditionalLogProb(i int, v float64) (float64, bool) {
	lp, ok := c.conditionalLogits(i)
	if !ok {
		return 0, false
	}
	return lp[int(v)], true
}
