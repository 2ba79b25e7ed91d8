package nmc

import (
	"math"
	"math/rand/v2"
)

// intervalProposer proposes every coordinate of an Interval site (a, b) independently
// with a Beta on u = (x−a)/(b−a). The Beta is the Dirichlet fit of the 2-simplex
// (u, 1−u): the separable score p·log u + q·log(1−u) with the same first and second
// derivatives in u as f (g_u = (b−a)g, h_u = (b−a)²H_jj) has
//
//	p = u²(g_u − (1−u)h_u),  q = −(1−u)²(u·h_u + g_u),
//
// and the proposal is Beta(1 + p, 1 + q), exact for a Beta conditional. A coordinate
// whose fit is invalid (a parameter ≤ 0 or not finite) falls back to a Newton step on
// the logit scale, t = logit(u) ~ N(m, s²) fitted to the derivatives of the
// logit-scale density f + log(u(1−u)), when those are concave; otherwise to the walk
// logit(u′) ~ N(logit(u), 0.3²). In s.w and s.d a fallback coordinate holds (s, m):
// s > 0 for the Newton step, s = 0 for the walk. Densities are over x, Jacobian
// 1/((b−a)u(1−u)) of the logit included.
//
// A Beta fits a Beta conditional exactly, but the posterior of a scale under a wide
// Uniform (σ ~ Uniform(0, 10⁴) with the mass near 1) is close to a Gaussian in log σ
// and far from a Beta in σ; a Beta proposal mixes slowly there. So the proposer has
// two kinds: kindBeta (the above) and kindLogit (the logit-scale fit of logitFit at
// every point). During warm-up it alternates them step by step and counts their
// acceptances; at the first step after warm-up it keeps the kind with the higher
// acceptance rate (Beta on a tie, and without warm-up) for every recorded draw. The
// kind is fixed while draws are recorded, so each recorded step is an exact MH step.
// The alternation starts only once a Beta step has had an acceptance probability
// below 1: a site with an exact Beta conditional keeps accepting every step.
type intervalProposer struct {
	lower, upper float64
	kindChoice
}

// kindChoice chooses a proposer's kind during warm-up (see intervalProposer and
// positiveProposer): kind 0 is the fit that is exact for its family's conditional
// (Beta, Gamma), tried alone until one of its steps has an acceptance probability
// below 1; then the kinds alternate step by step, and the first step after
// warm-up keeps the kind with the highest recent acceptance rate (kind 0 on a
// tie, and without warm-up) for good.
type kindChoice struct {
	kind    int
	frozen  bool
	explore bool              // a kind-0 step had acceptance probability below 1: try every kind
	tried   [maxKinds]int     // warm-up steps per kind
	acc     [maxKinds]float64 // running mean acceptance probability per kind (last ~chooseWindow steps)
}

// maxKinds is the most kinds a kindChoice chooses between.
const maxKinds = 3

// chooseWindow is the number of recent warm-up steps per kind over which the
// acceptance probabilities are averaged (an exponential moving average), so that
// the steps of the transient weigh little in the choice.
const chooseWindow = 50

const (
	kindBeta  = 0
	kindLogit = 1
	kindTrunc = 2 // the Newton Gaussian in x truncated to (a, b)
	nKinds    = 3
)

// A kindChooser is a proposer that chooses between proposal kinds during warm-up.
type kindChooser interface {
	// nextKind is called before every step; it reports whether the proposal kind
	// changed, in which case the fit cached at the current point must be rebuilt.
	nextKind(warmup bool) bool
	// record counts a warm-up step with acceptance probability min(1, exp(logr)).
	record(logr float64)
}

func (p *intervalProposer) nextKind(warmup bool) bool { return p.next(warmup, nKinds) }

// next is nextKind of a proposer with n kinds.
func (k *kindChoice) next(warmup bool, n int) bool {
	if k.frozen {
		return false
	}
	if warmup {
		if !k.explore {
			return false
		}
		k.kind = (k.kind + 1) % n
		return true
	}
	k.frozen = true
	old := k.kind
	k.kind = 0
	for j := 1; j < n; j++ {
		if k.tried[j] > 0 && k.tried[0] > 0 && k.acc[j] > k.acc[k.kind] {
			k.kind = j
		}
	}
	return k.kind != old
}

func (k *kindChoice) record(logr float64) {
	a := 0.0 // NaN and −Inf: a rejection
	if logr >= 0 {
		a = 1
	} else if logr > math.Inf(-1) {
		a = math.Exp(logr)
	}
	if k.kind == 0 && a < 1-1e-9 {
		k.explore = true
	}
	k.tried[k.kind]++
	k.acc[k.kind] += (a - k.acc[k.kind]) / float64(min(k.tried[k.kind], chooseWindow))
}

func (p *intervalProposer) name() string { return "beta" }

// unit returns u = (x−a)/(b−a) and 1 − u, each without cancellation.
func (p *intervalProposer) unit(x float64) (u, v float64) {
	w := p.upper - p.lower
	return (x - p.lower) / w, (p.upper - x) / w
}

func (p *intervalProposer) fit(s *slot) {
	k := len(s.x)
	width := p.upper - p.lower
	s.fb = false
	for j := 0; j < k; j++ {
		u, v := p.unit(s.x[j])
		gu := width * s.g[j]
		hu := width * width * s.h[j*k+j]
		a := 1 + u*u*(gu-v*hu)
		b := 1 - v*v*(u*hu+gu)
		if p.kind == kindTrunc {
			if sd, m, ok := p.truncFit(s.x[j], s.g[j], s.h[j*k+j]); ok {
				s.fbc[j] = false
				s.w[j], s.d[j] = -sd, m // a negative first parameter marks the truncated Gaussian
				continue
			}
		}
		ok := p.kind == kindBeta && a > 0 && b > 0 && !math.IsInf(a, 0) && !math.IsInf(b, 0) && u > 0 && v > 0
		s.fbc[j] = !ok
		if !ok {
			s.fb = s.fb || p.kind == kindBeta // the logit kind is no fallback
			s.w[j], s.d[j] = logitFit(u, v, width*u*v, s.g[j], s.h[j*k+j])
			continue
		}
		s.w[j], s.d[j] = a, b
	}
	s.c = math.Log(width)
}

// logitFit fits the fallback Gaussian of t′ = logit(u′) at u (v = 1 − u, q = dx/dt =
// (b−a)uv) from the derivatives g and h of f in x, and returns its standard deviation
// and mean (sd, m); sd = 0 means the walk t′ ~ N(t, 0.3²). On the logit scale the
// density is f_t = f + log(uv), with
//
//	g_t = q·g + (v − u),  h_t = q²·h + q·g·(v − u) − 2uv.
//
// Where f_t is concave and its Newton step −g_t/h_t is at most logitTrust of its own
// standard deviations (the quadratic model is credible), the fit is the Newton
// Gaussian N(t − g_t/h_t, −1/h_t). Elsewhere — a convex point, or a nearly linear tail
// such as a scale parameter far above its posterior under a wide Uniform, where the
// Newton step is far too long to be reversed — it is the Langevin proposal
// N(t + s²g_t/2, s²) with s² = min(−1/h_t, 2·maxLogitDrift/|g_t|, 1): exact in a linear
// tail (the MH ratio is 1 there), with a drift of at most maxLogitDrift per step. The
// choice depends on the point only, so q(x′|x) and q(x|x′) are each computed at their
// own point and the MH ratio stays exact.
func logitFit(u, v, q, g, h float64) (sd, m float64) {
	t := math.Log(u) - math.Log(v)
	gt := g*q + (v - u)
	ht := h*q*q + g*q*(v-u) - 2*u*v
	if !(u > 0) || !(v > 0) {
		return 0, t
	}
	return trustFit(t, gt, ht)
}

// trustFit returns (sd, m) of the Gaussian fitted at t from the derivatives g_t and
// h_t of a density on a transformed scale (see logitFit): the Newton Gaussian
// within logitTrust of its standard deviations, else the Langevin proposal; sd =
// 0 (the walk about t) where a derivative is not finite.
func trustFit(t, gt, ht float64) (sd, m float64) {
	if math.IsNaN(gt) || math.IsInf(gt, 0) || math.IsNaN(ht) || math.IsInf(ht, 0) {
		return 0, t
	}
	if ht < 0 && math.Abs(gt) <= logitTrust*math.Sqrt(-ht) {
		return 1 / math.Sqrt(-ht), t - gt/ht
	}
	s2 := 1.0
	if ht < 0 {
		s2 = min(s2, -1/ht)
	}
	if gt != 0 {
		s2 = min(s2, 2*maxLogitDrift/math.Abs(gt))
	}
	return math.Sqrt(s2), t + 0.5*s2*gt
}

const (
	// logitTrust is the longest logit-scale Newton step, in its own standard
	// deviations, that the Interval fallback takes.
	logitTrust = 4
	// maxLogitDrift bounds the Langevin drift of the Interval fallback (logit units).
	maxLogitDrift = 1.0
)

// logitScale returns the mean and standard deviation of logit(u′) for a fallback
// coordinate j.
func logitScale(s *slot, j int) (m, sd float64) {
	if s.w[j] > 0 {
		return s.d[j], s.w[j]
	}
	return s.d[j], logWalkSigma
}

// truncFit returns the Newton Gaussian N(m, sd²) in x at x (from g and h), when h < 0
// and the Gaussian puts a mass of at least 1e-9 on (a, b).
func (p *intervalProposer) truncFit(x, g, h float64) (sd, m float64, ok bool) {
	if !(h < 0) || math.IsInf(h, 0) || math.IsNaN(g) || math.IsInf(g, 0) {
		return 0, 0, false
	}
	sd, m = 1/math.Sqrt(-h), x-g/h
	if math.IsInf(m, 0) || math.IsNaN(m) || !(p.truncMass(sd, m) >= 1e-9) {
		return 0, 0, false
	}
	return sd, m, true
}

// truncMass returns the mass of N(m, sd²) on (a, b), computed in the tail that avoids
// cancellation.
func (p *intervalProposer) truncMass(sd, m float64) float64 {
	lo, hi := (p.lower-m)/sd, (p.upper-m)/sd
	if lo > 0 {
		return 0.5 * (math.Erfc(lo/math.Sqrt2) - math.Erfc(hi/math.Sqrt2))
	}
	return 0.5 * (math.Erfc(-hi/math.Sqrt2) - math.Erfc(-lo/math.Sqrt2))
}

// truncDraw draws from N(m, sd²) truncated to (a, b) by inversion, in the tail that
// avoids cancellation.
func (p *intervalProposer) truncDraw(rng *rand.Rand, sd, m float64) float64 {
	lo, hi := (p.lower-m)/sd, (p.upper-m)/sd
	r := rng.Float64()
	var z float64
	if lo > 0 {
		// upper tail: Q(z) = erfc(z/√2)/2 between Q(hi) and Q(lo)
		ql, qh := math.Erfc(lo/math.Sqrt2), math.Erfc(hi/math.Sqrt2)
		z = math.Sqrt2 * math.Erfcinv(ql+r*(qh-ql))
	} else {
		pl, ph := math.Erfc(-lo/math.Sqrt2), math.Erfc(-hi/math.Sqrt2)
		z = -math.Sqrt2 * math.Erfcinv(pl+r*(ph-pl))
	}
	x := m + sd*z
	return min(max(x, math.Nextafter(p.lower, p.upper)), math.Nextafter(p.upper, p.lower))
}

func (p *intervalProposer) draw(rng *rand.Rand, s *slot, _ float64, dst []float64) {
	width := p.upper - p.lower
	for j := range s.x {
		var u, v float64
		if s.w[j] < 0 {
			dst[j] = p.truncDraw(rng, -s.w[j], s.d[j])
			continue
		}
		if s.fbc[j] {
			m, sd := logitScale(s, j)
			l := m + sd*rng.NormFloat64()
			u, v = 1/(1+math.Exp(-l)), 1/(1+math.Exp(l))
		} else {
			u, v = betaRand(rng, s.w[j], s.d[j])
		}
		if u < v {
			dst[j] = p.lower + width*u
		} else {
			dst[j] = p.upper - width*v
		}
	}
}

func (p *intervalProposer) logq(s *slot, _ float64, y []float64) float64 {
	lq := 0.0
	for j := range s.x {
		u, v := p.unit(y[j])
		if !(u > 0) || !(v > 0) {
			return math.Inf(-1)
		}
		if s.w[j] < 0 {
			sd, m := -s.w[j], s.d[j]
			lq += normLogPdf(y[j], m, sd) - math.Log(p.truncMass(sd, m))
			continue
		}
		lu, lv := math.Log(u), math.Log(v)
		if s.fbc[j] {
			m, sd := logitScale(s, j)
			lq += normLogPdf(lu-lv, m, sd) - lu - lv
		} else {
			a, b := s.w[j], s.d[j]
			lq += (a-1)*lu + (b-1)*lv - lbeta(a, b)
		}
		lq -= s.c
	}
	return lq
}

func (p *intervalProposer) centre(s *slot, dst []float64) bool {
	for j := range dst {
		if s.w[j] < 0 {
			dst[j] = min(max(s.d[j], math.Nextafter(p.lower, p.upper)), math.Nextafter(p.upper, p.lower))
			continue
		}
		if s.fbc[j] {
			if s.w[j] == 0 {
				return false
			}
			dst[j] = p.lower + (p.upper-p.lower)/(1+math.Exp(-s.d[j])) // the logit-scale Newton point
			continue
		}
		a, b := s.w[j], s.d[j]
		u := a / (a + b)
		if a > 1 && b > 1 {
			u = (a - 1) / (a + b - 2)
		}
		dst[j] = p.lower + (p.upper-p.lower)*u
	}
	return true
}

func (p *intervalProposer) logqFit(s *slot, y []float64) float64 { return p.logq(s, 1, y) }
