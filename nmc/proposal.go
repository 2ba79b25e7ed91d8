package nmc

import (
	"math"
	"math/rand/v2"

	"github.com/nmc-go/nmc/internal/special"
)

// A slot holds one point of a site with its score, derivatives and the proposal fitted
// there. Every continuous site of a chain has two slots, the current point and the
// proposed one; an accepted step swaps them, so the derivatives at the accepted point
// are reused by the next step (the cache).
type slot struct {
	x, g, h []float64 // the site's coordinates (k), ∇f (k) and ∇²f (k×k)
	f       float64   // the Markov-blanket score at x

	// The proposal fitted at x (its meaning depends on the proposer).
	mode int
	fb   bool      // the proposal (or, per coordinate, part of it) is a fallback
	fbc  []bool    // per-coordinate fallback flags (Positive, Interval)
	l    []float64 // k×k: Cholesky factor or eigenvectors of −∇²f
	w    []float64 // k: regularised eigenvalues, or a first parameter per coordinate
	d    []float64 // k: Newton direction (−∇²f)⁻¹∇f, or a second parameter per coordinate
	c    float64   // a constant of the density (half log-determinant, log normaliser)
}

func newSlot(k int) slot {
	return slot{
		x: make([]float64, k), g: make([]float64, k), h: make([]float64, k*k),
		fbc: make([]bool, k), l: make([]float64, k*k), w: make([]float64, k), d: make([]float64, k),
	}
}

// A proposer builds and evaluates the proposal of one site. Each chain owns its
// proposers (they hold scratch space), one per continuous site.
type proposer interface {
	// name is the proposer's name in SiteStats.
	name() string
	// fit builds the proposal q(·|s.x) from s.x, s.g and s.h into s.
	fit(s *slot)
	// draw writes a draw from q(·|s.x) with step fraction gamma into dst.
	draw(rng *rand.Rand, s *slot, gamma float64, dst []float64)
	// logq returns log q(y|s.x) with step fraction gamma.
	logq(s *slot, gamma float64, y []float64) float64
	// centre writes the most probable point of the fitted proposal (its mean where
	// the mode is on the boundary) into dst; false if the fit is a fallback.
	centre(s *slot, dst []float64) bool
	// logqFit returns the log density of the fitted proposal itself (γ = 1, no
	// robust mixture) at y.
	logqFit(s *slot, y []float64) float64
}

// exactDrawer is a proposer that gives the log density of its own draw from
// the numbers it was made of, where logq's recomputation can be wrong.
type exactDrawer interface {
	drawLogq(rng *rand.Rand, s *slot, gamma float64, dst []float64) float64
}

// drawLogqStep draws from p's fit s with step fraction gamma into dst, as
// p.draw does (the same random numbers), and returns the draw's log density
// log q(dst|s.x) at that gamma: by exactDrawer where p is one, else by logq.
func drawLogqStep(p proposer, rng *rand.Rand, s *slot, gamma float64, dst []float64) float64 {
	if ed, ok := p.(exactDrawer); ok {
		return ed.drawLogq(rng, s, gamma, dst)
	}
	p.draw(rng, s, gamma, dst)
	return p.logq(s, gamma, dst)
}

// drawLogq is drawLogqStep with the full step (γ = 1).
func drawLogq(p proposer, rng *rand.Rand, s *slot, dst []float64) float64 {
	return drawLogqStep(p, rng, s, 1, dst)
}

const (
	logSqrt2Pi = 0.91893853320467274178032973640561763986139747363778 // log √(2π)
	// rwRel is the random-walk fallback's scale relative to 1 + |x| on Real sites.
	rwRel = 0.1
	// logWalkSigma is the standard deviation of the log-scale (Positive) and
	// logit-scale (Interval) random-walk fallbacks.
	logWalkSigma = 0.3
	// maxLogDrift bounds the Langevin step of a Positive walk coordinate's centre
	// (in log units; start refinement only).
	maxLogDrift = 1.0
	// dirichletFallbackConc is c in the Simplex fallback Dirichlet(c·x + 1e-3).
	dirichletFallbackConc = 100
	// dirichletFloor is the floor of the fitted Dirichlet parameters.
	dirichletFloor = 1e-3
)

// normLogPdf returns log N(y; mu, sd²).
func normLogPdf(y, mu, sd float64) float64 {
	z := (y - mu) / sd
	return -0.5*z*z - math.Log(sd) - logSqrt2Pi
}

// logGammaRand returns the logarithm of a Gamma(alpha, 1) draw (alpha > 0), without
// underflow for tiny shapes.
func logGammaRand(rng *rand.Rand, alpha float64) float64 { return special.RandLogGamma(rng, alpha) }

// betaRand draws from Beta(a, b), returning the draw u and 1 − u, each computed
// without cancellation.
func betaRand(rng *rand.Rand, a, b float64) (u, v float64) {
	la := logGammaRand(rng, a)
	lb := logGammaRand(rng, b)
	return 1 / (1 + math.Exp(lb-la)), 1 / (1 + math.Exp(la-lb))
}

// lbeta returns log B(a, b).
func lbeta(a, b float64) float64 { return special.LogBeta(a, b) }

// lgamma returns log Γ(x) for x > 0.
func lgamma(x float64) float64 { return special.LogGamma(x) }

var (
	_ proposer = (*realProposer)(nil)
	_ proposer = (*positiveProposer)(nil)
	_ proposer = (*intervalProposer)(nil)
	_ proposer = (*simplexProposer)(nil)
)

// newProposer returns the proposer of a continuous site, or nil for a discrete one;
// real configures the proposal of a Real site.
func newProposer(s Site, real RealProposal) proposer {
	switch s.Support {
	case Real:
		return newRealProposer(s.Size, real)
	case Positive:
		return &positiveProposer{lower: s.Lower}
	case Interval:
		return &intervalProposer{lower: s.Lower, upper: s.Upper}
	case Simplex:
		return &simplexProposer{}
	}
	return nil
}

// proposerName returns the name of the proposer used for s.
func proposerName(s Site, real RealProposal) string {
	if s.Support == Discrete {
		if s.Marginalised {
			return marginalProposer
		}
		if s.NumValues > 0 {
			return "enumerate"
		}
		return "discrete-mh"
	}
	return newProposer(s, real).name()
}

// proposeStep is the Metropolis-Hastings step of the continuous site i from cur, its
// current point scored by sc with p fitted at it: it draws the proposal into nxt,
// writes it into the state, scores it with sc and fits p at it. valid reports a
// finite score (else the state is put back); logr is the log acceptance ratio and
// accept whether the step is accepted; a rejected proposal is put back too. The
// forward density is the draw's own (drawLogqStep): logq's recomputation at the
// draw, which a very ill-conditioned fit can get wrong by 1e163 nats, would make
// logr absurdly large and accept a terrible move. The reverse density is logq's
// at the current point, which the fit at the draw was not made of.
func (c *Chain) proposeStep(sc Scorer, p proposer, i int, cur, nxt *slot, gamma float64) (logr float64, valid, accept bool) {
	off := c.run.off[i]
	xs := c.x[off : off+len(cur.x)]
	lqFwd := drawLogqStep(p, c.rng, cur, gamma, nxt.x)
	u := c.rng.Float64()
	copy(xs, nxt.x)
	nxt.f = sc.Score(c.x, i, nxt.g, nxt.h)
	if !(nxt.f > math.Inf(-1)) {
		copy(xs, cur.x)
		return math.Inf(-1), false, false
	}
	p.fit(nxt)
	logr = nxt.f - cur.f + p.logq(nxt, gamma, cur.x) - lqFwd
	accept = math.Log(u) < logr
	if !accept {
		copy(xs, cur.x)
	}
	return logr, true, accept
}
