package nmc

import (
	"math"
	"math/rand/v2"
)

// The proposal of a group move along a group's orbit (see GroupMoves, Group,
// OrbitScorer and the package documentation).
//
// # The step
//
// At the current state x the orbit of group g is x(t), t ∈ ℝ, x(0) = x:
// a dilated coordinate moves as xⱼ(t) = a + e^{sⱼt}(xⱼ − a), a the anchor's value
// (or 0), a shifted one as xⱼ(t) = xⱼ + bⱼt (xⱼ + (bⱼ/a)·t for ShiftOver, a its
// anchor's value); every other coordinate, the anchors included, stays. The scorer gives f and its first two derivatives along the orbit
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
// by e^{st}, and shifts add (a ShiftOver's rate b/a is the same at every point of
// the orbit). Hence Φ(Φ(x, t)) = (x(t)(−t), t) = (x, t): Φ is an
// involution. Its Jacobian matrix is block triangular — the moved coordinates depend
// on themselves with factor e^{sⱼt} (dilation) or 1 (shift, ShiftOver included) and
// on their anchors, the other coordinates are copied, and −t depends on t only — so
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

// orbitProposer is the name of the group moves' proposer in their statistics.
const orbitProposer = "orbit-newton"

// groupPlan is a validated group of the model, as the chains step it: the
// Planned of its group move.
type groupPlan struct {
	index  int // the group's index in the model's Groups()
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

// orbitScore is a group's orbit score f at the state of edit count at (see
// chain.edits): a group step leaves it for the fitted step of the group's block,
// which needs the same score at the same state (one evaluation fewer per sweep).
type orbitScore struct {
	f  float64
	at uint64
}
