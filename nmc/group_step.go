package nmc

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
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
// Jacobian term is linear in t). The proposal q_x(t) is fitted to h at 0 (orbitFit):
//
//   - where h″(0) < 0, the log-Gamma law e^{c·t} ~ Gamma(a, b) that matches h′(0)
//     and h″(0) and the rate c at which the curvature changes along the orbit,
//     c = log(h″(δ)/h″(0))/δ, read from one more orbit score at a probe point δ one
//     Newton standard deviation from 0 towards the Newton mean. Its log density in t,
//     a·c·t − b·e^{c·t}, is h's own shape for a dilation of a Gaussian
//     (h(t) = k·t − ρe^{2st}: c = 2s, and the fit is exact at every point), with an
//     exponential left tail where a Gaussian in t has none: the Newton step from a
//     small radius overshoots by about k/(4ρ) and is rejected, so the plain Newton
//     fit left chains stuck near a collapsed scale (eight schools' τ → 0). When h is
//     nearly quadratic (|c| times the Newton sd below 10⁻²), or the probe is not
//     concave, or the fit is invalid, the Newton fit N(−h′/h″, −1/h″) is used: the
//     log-Gamma law tends to it as c → 0 (funnel: h is quadratic, nothing changes);
//   - where h″(0) ≥ 0 in a group with dilations (the convex foot of a law whose mode
//     is away from a collapsed scale: centred eight schools near τ → 0), the Newton
//     fit in the scale factor r = e^{c·t} (c the mean dilation rate, sign of h′), a
//     Gaussian in r, when it is concave there;
//   - otherwise the one-dimensional form of the Real proposer's rules (SoftAbs,
//     random walk), counted as fallbacks.
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
// q_x, so q is a deterministic function of the point (fallbacks and the probe
// included: the probe point and c depend on the point's own derivatives only), which
// is all the argument needs.

// orbitProposer is the name of the group moves' proposer in Result.Groups.
const orbitProposer = "orbit-newton"

// marginalProposer is the Proposer name of a Marginalised site in Result.Sites.
const marginalProposer = "marginal-draw"

// groupPlan is a validated group of the model, as the chains step it.
type groupPlan struct {
	name   string
	coords []OrbitCoord
	rate   float64 // S = Σ s over the dilated coordinates: the Jacobian is e^{t·S}
	scale  float64 // the mean rate of the dilated coordinates (0: none)
	maxC   float64 // the bound on |c| of the log-Gamma fit: 4·max |Rate|
	sites  []int   // the sites with a coordinate in the group, in state order
}

// orbitForm is the form of a proposal of t.
type orbitForm uint8

const (
	// orbitNormal: t ~ N(mean, sd²).
	orbitNormal orbitForm = iota
	// orbitLogGamma: e^{c·t} ~ Gamma(a, b) (shape, rate).
	orbitLogGamma
	// orbitScaleNormal: e^{c·t} ~ N(mean, sd²), no move when the draw is ≤ 0.
	orbitScaleNormal
)

// orbitFit is the proposal of t fitted at one point of an orbit.
type orbitFit struct {
	form     orbitForm
	mean, sd float64 // orbitNormal (of t), orbitScaleNormal (of e^{c·t})
	c        float64 // orbitLogGamma, orbitScaleNormal: the rate of e^{c·t}
	a, b     float64 // orbitLogGamma
	fb       bool    // SoftAbs or random walk: no fit to a concave h
}

const (
	// minSkew is the least |c|·sd (c the probed rate, sd the Newton fit's) at
	// which the log-Gamma fit replaces the Newton fit; below it h is quadratic to
	// within rounding over the proposal's range (the log-Gamma's shape a ≈ 1/(c·sd)²
	// exceeds 10⁴, its skewness 2/√a is below 0.02).
	minSkew = 1e-2
	// maxCPerRate bounds |c| by this multiple of the group's largest |Rate|
	// (a dilation of a Gaussian has c = 2s).
	maxCPerRate = 4
)

// fitOrbit returns the Newton fit of t to h′(0) = h1 and h″(0) = h2:
// N(−h1/h2, −1/h2) when h2 < 0; when h2 ≥ 0 the SoftAbs form of the Real
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

// fitLogGamma returns the log-Gamma law of t, e^{c·t} ~ Gamma(a, b), whose log
// density a·c·t − b·e^{c·t} has first and second derivatives h1 and h2 at t = 0:
// b = −h2/c², a = h1/c + b; ok is false when a or b is not finite and positive.
func fitLogGamma(h1, h2, c float64) (q orbitFit, ok bool) {
	b := -h2 / (c * c)
	a := h1/c + b
	if !(a > 0 && b > 0) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return orbitFit{}, false
	}
	return orbitFit{form: orbitLogGamma, c: c, a: a, b: b}, true
}

// fitScaleNormal returns the Newton fit of r = e^{c·t} (r = 1 at t = 0) to the log
// density of r, φ(r) = h(log(r)/c) − log|c·r|, whose derivatives at r = 1 are
// φ′ = h1/c − 1 and φ″ = h2/c² − h1/c + 1: r ~ N(1 − φ′/φ″, −1/φ″); ok is false
// unless φ″ < 0 and the fit is finite.
func fitScaleNormal(h1, h2, c float64) (q orbitFit, ok bool) {
	p1 := h1/c - 1
	p2 := h2/(c*c) - h1/c + 1
	if !(p2 < 0) {
		return orbitFit{}, false
	}
	mean, sd := 1-p1/p2, math.Sqrt(-1/p2)
	if !isFinite(mean) || !isFinite(sd) || !(sd > 0) {
		return orbitFit{}, false
	}
	return orbitFit{form: orbitScaleNormal, c: c, mean: mean, sd: sd}, true
}

// draw returns a draw of t, or ok = false for a scale-normal draw r ≤ 0 (no move).
func (q orbitFit) draw(rng *rand.Rand) (t float64, ok bool) {
	switch q.form {
	case orbitLogGamma:
		return (logGammaRand(rng, q.a) - math.Log(q.b)) / q.c, true
	case orbitScaleNormal:
		r := q.mean + q.sd*rng.NormFloat64()
		if !(r > 0) {
			return 0, false
		}
		return math.Log(r) / q.c, true
	}
	return q.mean + q.sd*rng.NormFloat64(), true
}

// logq returns the log density of the fitted proposal at t (with respect to dt).
func (q orbitFit) logq(t float64) float64 {
	switch q.form {
	case orbitLogGamma:
		ct := q.c * t
		return q.a*math.Log(q.b) - lgamma(q.a) + q.a*ct - q.b*math.Exp(ct) + math.Log(math.Abs(q.c))
	case orbitScaleNormal:
		ct := q.c * t
		return normLogPdf(math.Exp(ct), q.mean, q.sd) + ct + math.Log(math.Abs(q.c))
	}
	return normLogPdf(t, q.mean, q.sd)
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// fitOrbitAt returns the proposal of t for group gi at the current state, whose
// group coordinates are base, from h1 = h′(0) and h2 = h″(0) there (see the file
// comment). Unless the chain's rate of the group is frozen (see orbitRate) it scores
// one probe point x(δ) along the orbit for the rate c of the log-Gamma fit, and
// keeps that rate when record is true; it leaves the state as it found it (c.gd is
// overwritten).
func (c *chain) fitOrbitAt(g *groupPlan, gi int, base []float64, h1, h2 float64, record bool) orbitFit {
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
	r := &c.grates[gi]
	cr := r.fixed
	if !r.frozen {
		delta := q.sd
		if h1 < 0 {
			delta = -delta
		}
		p2, ok := c.probeOrbit(g, gi, base, delta)
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

// orbitRate is one chain's rate c of the log-Gamma fit along one group's orbit.
// During warm-up every group step probes the rate at the chain's current point (one
// more orbit score, two per step with the reverse fit's) and keeps it. At the end
// of warm-up, when the rates kept — those of the stationary period of the adaptive
// warm-up, the second half of a fixed one — are nearly one constant (at 90% of
// their points |c − c̄|·sd ≤ maxRateError, c̄ their median and sd the Newton fit's),
// c̄ is frozen, and the recorded draws' steps use it without probing. The proposal
// q_x then depends on the point only through h′ and h″ there, and the reverse fit
// q_{x′} is made with the same rate, so the step stays exact (the rate is fixed for
// every recorded draw, as the fitted step's Gaussian is).
//
// On a logistic regression with K = 40 the probed rates spread 0.86–1.19 (10–90%)
// about a median of 1.06 at |c|·sd ≈ 0.08, and the probes took a quarter of the
// sampler's time; a shift of a Gaussian, or the funnel's orbit, has rate 0 at every
// point. Where the rate moves a lot with the point (logQuartic in the tests, whose
// rate changes sign at the mode) the chain keeps probing.
type orbitRate struct {
	probed []probedRate // the rates probed at the chain's points in the current stretch of warm-up
	fixed  float64      // the frozen rate
	frozen bool
}

// probedRate is the rate probed at one point and the Newton fit's sd there.
type probedRate struct{ c, sd float64 }

const (
	// minFrozenRates is the fewest probed rates that can be frozen; with fewer (a
	// warm-up of a few sweeps, or none) the chain keeps probing at every step.
	minFrozenRates = 20
	// maxRateError bounds |c − c̄|·sd over 90% of the probed points (c̄ their median
	// rate) for the rate to be frozen. Measured 90% errors, per chain: logistic
	// regression with K = 40 (seed 1) 0.013–0.040; centred eight schools' scale
	// group 0.72–0.82, where the frozen rate left τ's bulk ESS at 1406–1698 over
	// seeds 1–3 (probing: 1433–1843) and saved a quarter of the group steps' orbit
	// scores; logQuartic (tests) 1.1–1.5, where freezing halves the ESS of the mean.
	maxRateError = 1.0
)

// freezeRates freezes each group's rate at the median of the rates kept in warm-up
// when they are nearly constant (see orbitRate).
func (c *chain) freezeRates() {
	for gi := range c.grates {
		r := &c.grates[gi]
		n := len(r.probed)
		if n < minFrozenRates {
			continue
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
}

// probeOrbit returns h″(δ) along the orbit of group gi through the point whose group
// coordinates are base (the current state), and restores the state.
func (c *chain) probeOrbit(g *groupPlan, gi int, base []float64, delta float64) (h2 float64, ok bool) {
	if c.setOrbit(g, base, delta) {
		f := c.orb.ScoreOrbit(c.x, gi, &c.gd)
		h2, ok = c.gd[1], isFinite(f) && isFinite(c.gd[1])
	}
	for k, oc := range g.coords {
		c.x[oc.Coord] = base[k]
	}
	return h2, ok
}

// setOrbit sets the group's coordinates to the point at t along the orbit through
// the point whose group coordinates are base (anchors as they are in c.x), and
// reports whether every value is finite.
func (c *chain) setOrbit(g *groupPlan, base []float64, t float64) bool {
	ok := true
	for k, oc := range g.coords {
		var v float64
		if oc.Kind == Dilate {
			a := 0.0
			if oc.Anchor >= 0 {
				a = c.x[oc.Anchor] // not in the group, so not moved
			}
			v = a + math.Exp(oc.Rate*t)*(base[k]-a)
		} else {
			v = base[k] + oc.Rate*t
		}
		c.x[oc.Coord] = v
		ok = ok && isFinite(v)
	}
	return ok
}

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
	n := len(g.coords)
	old, moved := c.gold[:n], c.gnew[:n]
	for k, oc := range g.coords {
		old[k] = c.x[oc.Coord]
	}
	q0 := c.fitOrbitAt(g, gi, old, d[0]+g.rate, d[1], c.keepRates)
	if q0.fb {
		st.Fallbacks++
	}
	t, drawn := q0.draw(c.rng)
	u := c.rng.Float64()
	if !drawn {
		return // a scale-normal draw r ≤ 0: the proposal stays, as if rejected
	}
	accept, f1 := false, math.NaN()
	if c.setOrbit(g, old, t) {
		f1 = c.orb.ScoreOrbit(c.x, gi, d)
		if f1 > math.Inf(-1) && !math.IsNaN(f1) {
			for k, oc := range g.coords {
				moved[k] = c.x[oc.Coord]
			}
			q1 := c.fitOrbitAt(g, gi, moved, d[0]+g.rate, d[1], false)
			logr := f1 - f0 + t*g.rate + q1.logq(-t) - q0.logq(t)
			accept = math.Log(u) < logr
		}
	}
	if !accept {
		for k, oc := range g.coords {
			c.x[oc.Coord] = old[k]
		}
		c.keep()
		c.gscore[gi] = orbitScore{f: f0, at: c.edits}
		return
	}
	st.Accepted++
	for _, i := range g.sites {
		c.moved(i)
	}
	c.gscore[gi] = orbitScore{f: f1, at: c.edits}
}

// orbitScore is a group's orbit score f at the state of edit count at (see
// chain.edits): a group step leaves it for the fitted step of the group's block,
// which needs the same score at the same state (one evaluation fewer per sweep).
type orbitScore struct {
	f  float64
	at uint64
}

// knownOrbitScore returns group gi's orbit score at the current state when the last
// group or fitted step of the group left it and the state has not changed since.
func (c *chain) knownOrbitScore(gi int) (float64, bool) {
	s := c.gscore[gi]
	return s.f, s.at == c.edits && isFinite(s.f)
}

// keep tells the Scorer, if it keeps values of recent states, that the chain is
// back at its state after a rejected proposal (StateKeeper).
func (c *chain) keep() {
	if c.keeper != nil {
		c.keeper.Keep(c.x)
	}
}

// moved records that site i's value was changed from outside its own step (by a group
// move): the caches that read it and its own cache become stale.
func (c *chain) moved(i int) {
	c.changed(i)
	c.invalidate(i)
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
			plan.maxC = max(plan.maxC, maxCPerRate*math.Abs(oc.Rate))
			if oc.Kind == Dilate {
				plan.rate += oc.Rate
				plan.scale++ // the count of dilated coordinates, for now
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
		if plan.scale > 0 {
			plan.scale = plan.rate / plan.scale
		}
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
