package nmc

import (
	"fmt"
	"math"
	"strings"
)

// Group moves: validation of the declared groups and the Metropolis-Hastings step
// along a group's orbit (see Group, OrbitScorer and the package documentation).
//
// # The step
//
// At the current state x the orbit of group g is x(t), t ∈ ℝ, x(0) = x:
// a dilated coordinate moves as xⱼ(t) = a + e^{sⱼt}(xⱼ − a), a the anchor's value
// (or 0), a shifted one as xⱼ(t) = xⱼ + bⱼt; every other coordinate, the anchors
// included, stays. The scorer gives f and its first two derivatives along the orbit
// at t = 0; with S = Σ sⱼ over the dilated coordinates, the log density of t with
// respect to dt is h(t) = f(x(t)) + t·S, so h′(0) = d[0] + S and h″(0) = d[1] (the
// Jacobian term is linear in t). The proposal q_x(t) is a Gaussian fitted to h at 0
// (orbitFit): the Newton fit N(−h′/h″, −1/h″) when h″ < 0, else the one-dimensional
// form of the Real proposer's rules (SoftAbs, random walk).
//
// # Why the acceptance ratio is exact
//
// Extend the state by t with density π(x)·q_x(t), and consider the map
// Φ(x, t) = (x(t), −t). The orbit through x′ = x(t) is x′(τ) = x(t + τ): the anchors
// do not move, so a dilation by e^{sτ} about the same anchor value composes with one
// by e^{st}, and shifts add. Hence Φ(Φ(x, t)) = (x(t)(−t), t) = (x, t): Φ is an
// involution. Its Jacobian matrix is block triangular — the moved coordinates depend
// on themselves with factor e^{sⱼt} (dilation) or 1 (shift) and on their anchors,
// the other coordinates are copied, and −t depends on t only — so
// |det ∂Φ/∂(x, t)| = Π e^{sⱼt} = e^{t·S}. The Metropolis-Hastings step that proposes
// Φ(x, t′) with t′ ~ q_x and accepts with probability min(1, α),
//
//	α = π(x′)·q_{x′}(−t′)·e^{t′S} / (π(x)·q_x(t′)),
//
// leaves π(x)·q_x(t) invariant (Green 1995; Tierney 1998), hence π. In logs,
// log α = f(x′) − f(x) + t′·S + log q_{x′}(−t′) − log q_x(t′): f drops only terms
// that do not depend on the group's coordinates, which x and x′ share. The reverse
// proposal q_{x′} is fitted at x′ along the orbit through x′, by the same rule as
// q_x, so q is a deterministic function of the point (fallbacks included), which is
// all the argument needs.

// orbitProposer is the name of the group moves' proposer in Result.Groups.
const orbitProposer = "orbit-newton"

// marginalProposer is the Proposer name of a Marginalised site in Result.Sites.
const marginalProposer = "marginal-draw"

// groupPlan is a validated group of the model, as the chains step it.
type groupPlan struct {
	name   string
	coords []OrbitCoord
	rate   float64 // S = Σ s over the dilated coordinates: the Jacobian is e^{t·S}
	sites  []int   // the sites with a coordinate in the group, in state order
}

// orbitFit is the Gaussian proposal of t fitted at one point of an orbit.
type orbitFit struct {
	mean, sd float64
	fb       bool // not the Newton fit: h″ ≥ 0 (SoftAbs) or non-finite (random walk)
}

// fitOrbit returns the proposal of t fitted to h′(0) = h1 and h″(0) = h2: the Newton
// fit N(−h1/h2, −1/h2) when h2 < 0; when h2 ≥ 0 the SoftAbs form of the Real
// proposer, N(h1/w, 1/w) with w = softAbs(−h2); when h1 or h2 (or the fit) is not
// finite the Real proposer's random walk at t = 0, N(0, rwRel²).
func fitOrbit(h1, h2 float64) orbitFit {
	if isFinite(h1) && isFinite(h2) {
		var mean, sd float64
		fb := false
		if h2 < 0 {
			mean, sd = -h1/h2, math.Sqrt(-1/h2)
		} else {
			w := softAbs(-h2)
			mean, sd, fb = h1/w, math.Sqrt(1/w), true
		}
		if isFinite(mean) && isFinite(sd) && sd > 0 {
			return orbitFit{mean: mean, sd: sd, fb: fb}
		}
	}
	return orbitFit{mean: 0, sd: rwRel, fb: true}
}

// logq returns the log density of the fitted proposal at t.
func (q orbitFit) logq(t float64) float64 { return normLogPdf(t, q.mean, q.sd) }

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// stepGroup is one Metropolis-Hastings step along the orbit of group gi.
func (c *chain) stepGroup(gi int) {
	g := &c.groups[gi]
	st := &c.gstats[gi]
	st.Proposals++
	d := &c.gd // a field, not a local: passed to an interface method it would escape
	f0 := c.orb.ScoreOrbit(c.x, gi, d)
	if !isFinite(f0) {
		// The current point has no finite orbit score (the model's ScoreOrbit
		// disagrees with its Score): no move can be judged, so none is made.
		st.Fallbacks++
		return
	}
	q0 := fitOrbit(d[0]+g.rate, d[1])
	if q0.fb {
		st.Fallbacks++
	}
	t := q0.mean + q0.sd*c.rng.NormFloat64()
	u := c.rng.Float64()
	old := c.gold[:len(g.coords)]
	for k, oc := range g.coords {
		old[k] = c.x[oc.Coord]
	}
	ok := true
	for k, oc := range g.coords {
		var v float64
		if oc.Kind == Dilate {
			a := 0.0
			if oc.Anchor >= 0 {
				a = c.x[oc.Anchor] // not in the group, so not moved
			}
			v = a + math.Exp(oc.Rate*t)*(old[k]-a)
		} else {
			v = old[k] + oc.Rate*t
		}
		c.x[oc.Coord] = v
		ok = ok && isFinite(v)
	}
	accept := false
	if ok {
		f1 := c.orb.ScoreOrbit(c.x, gi, d)
		if f1 > math.Inf(-1) && !math.IsNaN(f1) {
			q1 := fitOrbit(d[0]+g.rate, d[1])
			logr := f1 - f0 + t*g.rate + q1.logq(-t) - q0.logq(t)
			accept = math.Log(u) < logr
		}
	}
	if !accept {
		for k, oc := range g.coords {
			c.x[oc.Coord] = old[k]
		}
		return
	}
	st.Accepted++
	for _, i := range g.sites {
		c.moved(i)
	}
}

// moved records that site i's value was changed from outside its own step (by a group
// move): the caches that read it and its own cache become stale.
func (c *chain) moved(i int) {
	c.changed(i)
	if c.valid != nil {
		c.valid[i] = false
	}
}

// coordIndex maps the state's coordinates to their sites and names.
type coordIndex struct {
	site  []int    // site of each coordinate
	names []string // "site coordinate" names, as in results
}

func newCoordIndex(sites []Site) coordIndex {
	var ci coordIndex
	for i, s := range sites {
		for _, n := range s.Coords() {
			ci.site = append(ci.site, i)
			ci.names = append(ci.names, n)
		}
	}
	return ci
}

// checkGroups validates the groups declared by a model with the given sites and
// returns them ready for stepping. A group must have a name (unique) and coordinates;
// each coordinate must be in the state, at most once in its group, with a finite
// non-zero Rate; a dilation's anchor must be −1 or a coordinate of a continuous,
// non-Marginalised site outside the group; and the orbit must stay in the support of
// every site it moves: shifts and dilations of Real coordinates, dilations about 0 of
// Positive coordinates with Lower 0, nothing else.
func checkGroups(sites []Site, groups []Group) ([]groupPlan, error) {
	ci := newCoordIndex(sites)
	dim := len(ci.site)
	plans := make([]groupPlan, len(groups))
	names := make(map[string]int, len(groups))
	for gi, g := range groups {
		where := fmt.Sprintf("nmc: group %d %q", gi, g.Name)
		if g.Name == "" {
			return nil, fmt.Errorf("nmc: group %d has an empty name", gi)
		}
		if j, ok := names[g.Name]; ok {
			return nil, fmt.Errorf("nmc: group name %q is used by groups %d and %d", g.Name, j, gi)
		}
		names[g.Name] = gi
		if len(g.Coords) == 0 {
			return nil, fmt.Errorf("%s has no coordinates", where)
		}
		in := make(map[int]int, len(g.Coords)) // coordinate → its entry in the group
		for k, oc := range g.Coords {
			if oc.Coord < 0 || oc.Coord >= dim {
				return nil, fmt.Errorf("%s, entry %d: coordinate %d is not in the state (0 … %d)", where, k, oc.Coord, dim-1)
			}
			if k0, ok := in[oc.Coord]; ok {
				return nil, fmt.Errorf("%s: coordinate %d (%s) is in the group twice, entries %d and %d", where, oc.Coord, ci.names[oc.Coord], k0, k)
			}
			in[oc.Coord] = k
		}
		plan := groupPlan{name: g.Name, coords: append([]OrbitCoord(nil), g.Coords...)}
		for k, oc := range g.Coords {
			name := ci.names[oc.Coord]
			s := sites[ci.site[oc.Coord]]
			at := fmt.Sprintf("%s, entry %d (%s)", where, k, name)
			if oc.Kind != Dilate && oc.Kind != Shift {
				return nil, fmt.Errorf("%s: unknown Kind %d", at, int(oc.Kind))
			}
			if !isFinite(oc.Rate) || oc.Rate == 0 {
				return nil, fmt.Errorf("%s: Rate = %g, want finite and non-zero", at, oc.Rate)
			}
			if oc.Kind == Dilate {
				plan.rate += oc.Rate
				if a := oc.Anchor; a != -1 {
					if a < 0 || a >= dim {
						return nil, fmt.Errorf("%s: Anchor %d is not −1 or a coordinate of the state (0 … %d)", at, a, dim-1)
					}
					if k0, ok := in[a]; ok {
						return nil, fmt.Errorf("%s: Anchor %d (%s) is in the group itself (entry %d); an anchor must stay fixed", at, a, ci.names[a], k0)
					}
					if as := sites[ci.site[a]]; as.Support == Discrete {
						return nil, fmt.Errorf("%s: Anchor %d (%s) is a coordinate of the discrete site %q", at, a, ci.names[a], as.Name)
					}
				}
			}
			if msg := orbitLeavesSupport(s, oc); msg != "" {
				return nil, fmt.Errorf("%s: %s", at, msg)
			}
			if n := len(plan.sites); n == 0 || plan.sites[n-1] != ci.site[oc.Coord] {
				plan.sites = append(plan.sites, ci.site[oc.Coord])
			}
		}
		plan.sites = sortedUnique(plan.sites)
		plans[gi] = plan
	}
	return plans, nil
}

// orbitLeavesSupport returns "" if moving a coordinate of site s as oc keeps it in
// the site's support for every t, else why not.
func orbitLeavesSupport(s Site, oc OrbitCoord) string {
	site := fmt.Sprintf("site %q", s.Name)
	switch s.Support {
	case Real:
		return ""
	case Positive:
		switch {
		case oc.Kind == Shift:
			return site + " is Positive: a shift leaves (Lower, ∞); dilate it about 0 instead"
		case s.Lower != 0:
			return fmt.Sprintf("%s is Positive with Lower = %g: a dilation about 0 leaves (Lower, ∞)", site, s.Lower)
		case oc.Anchor != -1:
			return site + " is Positive: a dilation about an anchor can leave (0, ∞); dilate it about 0 (Anchor −1)"
		}
		return ""
	case Interval:
		return site + " is an Interval: an orbit leaves (Lower, Upper)"
	case Simplex:
		return site + " is a Simplex: an orbit leaves the simplex"
	case Discrete:
		if s.Marginalised {
			return site + " is Marginalised (summed out of the scores): it cannot move in a group"
		}
		return site + " is Discrete: an orbit leaves its values"
	}
	return fmt.Sprintf("%s has unknown Support %d", site, int(s.Support))
}

// sortedUnique sorts small slices of site indices and drops repeats, in place.
func sortedUnique(v []int) []int {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j] < v[j-1]; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
	out := v[:0]
	for i, s := range v {
		if i == 0 || s != v[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// modelGroups returns the validated groups of m, or nil when m declares none or
// opts turns group moves off. It checks that m's Scorer implements OrbitScorer by
// making one (a panic in NewScorer is returned as an error).
func modelGroups(m Model, sites []Site, opts *Options) (plans []groupPlan, err error) {
	gr, ok := m.(Grouper)
	if !ok || opts.NoGroupMoves {
		return nil, nil
	}
	plans, err = checkGroups(sites, gr.Groups())
	if err != nil || len(plans) == 0 {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			plans, err = nil, fmt.Errorf("nmc: NewScorer: panic: %v", r)
		}
	}()
	if sc := m.NewScorer(); sc == nil {
		return nil, fmt.Errorf("nmc: NewScorer returned nil")
	} else if _, ok := sc.(OrbitScorer); !ok {
		var names []string
		for _, p := range plans {
			names = append(names, fmt.Sprintf("%q", p.name))
		}
		return nil, fmt.Errorf("nmc: the model declares groups (%s) but its Scorer %T does not implement OrbitScorer (set Options.NoGroupMoves to sample without them)", strings.Join(names, ", "), sc)
	}
	return plans, nil
}
