package nmc

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/nmc-go/nmc/draws"
)

// GroupMoves is the rule of the group moves: one Metropolis-Hastings step along the
// orbit of each group the model declares (Grouper), in the model's order, every
// sweep, warm-up included (see Group, OrbitScorer and the package documentation).
// For a model without groups it plans nothing. Every group's statistics are an
// entry of Result.Moves: Name the group's name, Proposer "orbit-newton", Sites the
// number of sites the group moves; Fallbacks counts the moves whose forward
// proposal was not the Newton fit (the second derivative along the orbit was not
// negative, or not finite). The zero value is the default (it has no settings).
type GroupMoves struct{}

// Plan validates the model's groups and plans a move along each.
func (GroupMoves) Plan(p *Planner) ([]Planned, error) {
	groups, err := modelGroups(p.run.m, p.run.sites)
	if err != nil {
		return nil, err
	}
	out := make([]Planned, len(groups))
	names := make([]string, len(groups))
	for gi := range groups {
		out[gi], names[gi] = &groups[gi], groups[gi].name
	}
	p.useOrbits(names)
	return out, nil
}

// Name is the group's name.
func (g *groupPlan) Name() string { return g.name }

// String says what the group move moves.
func (g *groupPlan) String() string {
	var dilated, shifted int
	for _, oc := range g.coords {
		if oc.Kind == Dilate {
			dilated++
		} else {
			shifted++
		}
	}
	var what []string
	if dilated > 0 {
		what = append(what, fmt.Sprintf("dilating %d coordinates", dilated))
	}
	if shifted > 0 {
		what = append(what, fmt.Sprintf("shifting %d", shifted))
	}
	return fmt.Sprintf("%s: a step along the group's orbit (%s), %s", g.name, orbitProposer, strings.Join(what, ", "))
}

// orbitGroup returns the group the move moves along: its index in the model's
// Groups() and its coordinates (FittedSteps makes a block of the Real ones).
func (g *groupPlan) orbitGroup() (int, []OrbitCoord) { return g.index, g.coords }

// Start returns the group move's state in chain c.
func (g *groupPlan) Start(c *Chain) (Stepper, error) {
	if c.sc.orb == nil {
		return nil, fmt.Errorf("the model declares groups but its Scorer %T does not implement OrbitScorer", c.sc.sc)
	}
	n := c.run.opts.fixedWarmup()
	if c.run.opts.adaptive() {
		n = c.run.opts.WarmupMax
	}
	return &groupStepper{plan: g, orbit: &c.orbit[g.index], old: make([]float64, len(g.coords)), moved: make([]float64, len(g.coords)),
		rate: orbitRate{probed: make([]probedRate, 0, n)}}, nil
}

// groupStepper is a group move's state in one chain.
type groupStepper struct {
	plan       *groupPlan
	orbit      *orbitState // the chain's state of the group: its statistics and last orbit score
	old, moved []float64   // the group's coordinates before and after a step
	d          [2]float64  // the derivatives along the orbit (a field: passed to an interface method, a local would escape)
	rate       orbitRate   // the rate of the log-Gamma fit (see orbitRate)
}

// Stats returns the group move's statistics, warm-up included.
func (st *groupStepper) Stats() []draws.SiteStats {
	s := st.orbit.stats
	s.Name, s.Proposer, s.Sites = st.plan.name, orbitProposer, len(st.plan.sites)
	return []draws.SiteStats{s}
}

// Adapt does nothing: the rates are probed in the warm-up's steps themselves.
func (st *groupStepper) Adapt(*Chain, Warmup) {}

// EndWarmup freezes the group's rate at the median of the rates probed in
// warm-up when they are nearly constant (see orbitRate).
func (st *groupStepper) EndWarmup(*Chain, Warmup) {
	r := &st.rate
	n := len(r.probed)
	if n < minFrozenRates {
		return
	}
	slices.SortFunc(r.probed, func(a, b probedRate) int { return cmp.Compare(a.c, b.c) })
	med := (r.probed[(n-1)/2].c + r.probed[n/2].c) / 2
	for k := range r.probed { // the error at each point, in place of its rate
		r.probed[k].c = math.Abs(r.probed[k].c-med) * r.probed[k].sd
	}
	slices.SortFunc(r.probed, func(a, b probedRate) int { return cmp.Compare(a.c, b.c) })
	if r.probed[(9*n)/10].c <= maxRateError {
		r.fixed, r.frozen = med, true
	}
}

// restart forgets the rates probed before the stationary period restarted.
func (st *groupStepper) restart() { st.rate.probed = st.rate.probed[:0] }

// keepRates reports whether the steps of the current sweep keep the rates they
// probe: the warm-up's stationary part (the second half of a fixed one, all of
// the adaptive one, whose restarts forget them).
func keepRates(c *Chain) bool {
	o := c.run.opts
	return c.warm.warmup && (o.adaptive() || c.warm.sweep >= o.fixedWarmup()/2)
}

// Step is one Metropolis-Hastings step along the group's orbit. A panic in model
// code is reported naming the group.
func (st *groupStepper) Step(c *Chain) {
	c.at.group = st.plan.index
	st.step(c)
	c.at.group = -1
}

func (st *groupStepper) step(c *Chain) {
	g := st.plan
	gi := g.index
	stats := &st.orbit.stats
	stats.Proposals++
	d := &st.d
	f0 := c.sc.orb.ScoreOrbit(c.x, gi, d)
	if !isFinite(f0) {
		// The current point has no finite orbit score (the model's ScoreOrbit
		// disagrees with its Score): no move can be judged, so none is made.
		stats.Fallbacks++
		return
	}
	old, moved := st.old, st.moved
	for k, oc := range g.coords {
		old[k] = c.x[oc.Coord]
	}
	q0 := st.fitOrbitAt(c, old, d[0]+g.rate, d[1], keepRates(c))
	if q0.fb {
		stats.Fallbacks++
	}
	t, drawn := q0.draw(c.rng)
	u := c.rng.Float64()
	if !drawn {
		return // a scale-normal draw r ≤ 0: the proposal stays, as if rejected
	}
	accept, f1 := false, math.NaN()
	if setOrbit(c.x, g, old, t) {
		f1 = c.sc.orb.ScoreOrbit(c.x, gi, d)
		if f1 > math.Inf(-1) && !math.IsNaN(f1) {
			for k, oc := range g.coords {
				moved[k] = c.x[oc.Coord]
			}
			q1 := st.fitOrbitAt(c, moved, d[0]+g.rate, d[1], false)
			logr := f1 - f0 + t*g.rate + q1.logq(-t) - q0.logq(t)
			accept = math.Log(u) < logr
		}
	}
	if !accept {
		for k, oc := range g.coords {
			c.x[oc.Coord] = old[k]
		}
		c.keep()
		st.orbit.score = orbitScore{f: f0, at: c.cache.edits}
		return
	}
	stats.Accepted++
	for _, i := range g.sites {
		c.moved(i)
	}
	st.orbit.score = orbitScore{f: f1, at: c.cache.edits}
}

// fitOrbitAt returns the proposal of t at the current state, whose group
// coordinates are base, from h1 = h′(0) and h2 = h″(0) there (see orbit.go).
// Unless the chain's rate of the group is frozen (see orbitRate) it scores one
// probe point x(δ) along the orbit for the rate c of the log-Gamma fit, and keeps
// that rate when record is true; it leaves the state as it found it (st.d is
// overwritten).
func (st *groupStepper) fitOrbitAt(c *Chain, base []float64, h1, h2 float64, record bool) orbitFit {
	g := st.plan
	q := fitOrbit(h1, h2)
	if q.fb {
		if g.scale != 0 && isFinite(h1) && h2 >= 0 && !math.IsInf(h2, 0) {
			cs := g.scale
			if h1 < 0 {
				cs = -cs
			}
			if f, ok := fitScaleNormal(h1, h2, cs); ok {
				return f
			}
		}
		return q
	}
	r := &st.rate
	cr := r.fixed
	if !r.frozen {
		delta := q.sd
		if h1 < 0 {
			delta = -delta
		}
		p2, ok := st.probeOrbit(c, base, delta)
		if !ok || !(p2 < 0) {
			return q
		}
		cr = math.Log(p2/h2) / delta
		cr = max(-g.maxC, min(g.maxC, cr))
		if record && isFinite(cr) && len(r.probed) < cap(r.probed) {
			r.probed = append(r.probed, probedRate{c: cr, sd: q.sd})
		}
	}
	if !(math.Abs(cr)*q.sd >= minSkew) { // also when cr is NaN
		return q
	}
	if f, ok := fitLogGamma(h1, h2, cr); ok {
		return f
	}
	return q
}

// probeOrbit returns h″(δ) along the group's orbit through the point whose group
// coordinates are base (the current state), and restores the state.
func (st *groupStepper) probeOrbit(c *Chain, base []float64, delta float64) (h2 float64, ok bool) {
	g := st.plan
	if setOrbit(c.x, g, base, delta) {
		f := c.sc.orb.ScoreOrbit(c.x, g.index, &st.d)
		h2, ok = st.d[1], isFinite(f) && isFinite(st.d[1])
	}
	for k, oc := range g.coords {
		c.x[oc.Coord] = base[k]
	}
	return h2, ok
}

// setOrbit sets the group's coordinates in x to the point at t along the orbit
// through the point whose group coordinates are base (anchors as they are in x),
// and reports whether every value is finite.
func setOrbit(x []float64, g *groupPlan, base []float64, t float64) bool {
	ok := true
	for k, oc := range g.coords {
		var v float64
		if oc.Kind == Dilate {
			a := 0.0
			if oc.Anchor >= 0 {
				a = x[oc.Anchor] // not in the group, so not moved
			}
			v = a + math.Exp(oc.Rate*t)*(base[k]-a)
		} else if oc.Kind == ShiftOver {
			v = base[k] + oc.Rate/x[oc.Anchor]*t // the anchor is not in the group, so not moved
		} else {
			v = base[k] + oc.Rate*t
		}
		x[oc.Coord] = v
		ok = ok && isFinite(v)
	}
	return ok
}

// knownOrbitScore returns group gi's orbit score at the current state when the last
// group or fitted step of the group left it and the state has not changed since.
func (c *Chain) knownOrbitScore(gi int) (float64, bool) {
	s := c.orbit[gi].score
	return s.f, s.at == c.cache.edits && isFinite(s.f)
}
