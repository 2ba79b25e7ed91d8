package nmc

import (
	"math"
	"math/rand/v2"

	"github.com/nmc-go/nmc/internal/special"
)

// Modes of the Real proposal fitted at a point.
const (
	realChol     = iota // −∇²f positive definite: s.l holds its Cholesky factor L
	realEigen           // otherwise: s.l holds eigenvectors V, s.w SoftAbs eigenvalues
	realFallback        // non-finite derivatives: random walk with scales s.w
)

const (
	// softAbsHardness is α in the SoftAbs map λ ↦ λ·coth(αλ).
	softAbsHardness = 1e6
	// Robust mixture weights and the widening of the wide component (in scale).
	robustWide, robustWideWeight, robustWalkWeight = 10.0, 0.1, 0.01
)

// logRobustTotal is the log of the sum of the robust mixture weights.
var logRobustTotal = math.Log(1 + robustWideWeight + robustWalkWeight)

// realProposer is the Newton proposer of Real sites: x′ ~ N(x + γA⁻¹g, A⁻¹) with
// A = −H (or the multivariate Cauchy with that location and scale), A regularised by
// SoftAbs when it is not positive definite; the step rule may scale the covariance
// (Crank–Nicolson: by γ(2−γ)), and the robust mixture widens it.
type realProposer struct {
	k              int
	cauchy, robust bool
	step           StepRule  // nil: the full Newton step, covariance unscaled
	work           []float64 // k×k scratch for the eigendecomposition
	z, u           []float64 // k scratch vectors
	lw             [3]float64
}

func newRealProposer(k int, rp RealProposal) *realProposer {
	return &realProposer{k: k, cauchy: rp.Cauchy, robust: rp.Robust, step: rp.Step,
		work: make([]float64, k*k), z: make([]float64, k), u: make([]float64, k)}
}

func (p *realProposer) name() string {
	return RealProposal{Cauchy: p.cauchy}.proposerName()
}

// softAbs returns λ·coth(αλ), a smooth |λ| bounded below by 1/α (its limit at λ = 0).
func softAbs(lambda float64) float64 {
	t := softAbsHardness * lambda
	if math.Abs(t) < 1e-4 {
		return (1 + t*t/3) / softAbsHardness
	}
	return lambda / math.Tanh(t)
}

func (p *realProposer) fit(s *slot) {
	k := p.k
	s.fb = false
	if !allFinite(s.g) || !allFinite(s.h) {
		p.fallback(s)
		return
	}
	for i, v := range s.h {
		s.l[i] = -v
	}
	if cholesky(s.l, k) {
		s.mode = realChol
		copy(s.d, s.g)
		solveLower(s.l, k, s.d)
		solveLowerT(s.l, k, s.d)
		c := 0.0
		for i := 0; i < k; i++ {
			c += math.Log(s.l[i*k+i])
		}
		s.c = c
	} else {
		s.mode = realEigen
		for i := 0; i < k; i++ { // symmetrise from the lower triangle
			for j := 0; j <= i; j++ {
				v := -s.h[i*k+j]
				p.work[i*k+j], p.work[j*k+i] = v, v
			}
		}
		if !symEigen(p.work, k, s.w, s.l) {
			p.fallback(s)
			return
		}
		c := 0.0
		for j := range s.w {
			s.w[j] = softAbs(s.w[j])
			c += 0.5 * math.Log(s.w[j])
			// u = diag(1/w) Vᵀ g
			t := 0.0
			for i := 0; i < k; i++ {
				t += s.l[i*k+j] * s.g[i]
			}
			p.u[j] = t / s.w[j]
		}
		s.c = c
		for i := 0; i < k; i++ {
			t := 0.0
			for j := 0; j < k; j++ {
				t += s.l[i*k+j] * p.u[j]
			}
			s.d[i] = t
		}
	}
	if !allFinite(s.d) || math.IsNaN(s.c) || math.IsInf(s.c, 0) {
		p.fallback(s)
	}
}

// fallback selects the random walk N(x, diag(σ²)) with σ_j = 0.1·(1 + |x_j|).
func (p *realProposer) fallback(s *slot) {
	s.mode = realFallback
	s.fb = true
}

// drawNewton writes x + γd + scale·T z into dst, T a square root of the fitted
// covariance, z standard normal (Gaussian) or normal over |normal| (Cauchy), and
// returns |z|².
func (p *realProposer) drawNewton(rng *rand.Rand, s *slot, gamma, scale float64, dst []float64) float64 {
	k := p.k
	div := 1.0
	if p.cauchy {
		div = math.Abs(rng.NormFloat64())
	}
	m := 0.0
	for i := range p.z {
		p.z[i] = rng.NormFloat64() / div
		m += p.z[i] * p.z[i]
	}
	if s.mode == realChol {
		solveLowerT(s.l, k, p.z)
		for i := range dst {
			dst[i] = s.x[i] + gamma*s.d[i] + scale*p.z[i]
		}
		return m
	}
	for i := 0; i < k; i++ {
		t := 0.0
		for j := 0; j < k; j++ {
			t += s.l[i*k+j] * p.z[j] / math.Sqrt(s.w[j])
		}
		dst[i] = s.x[i] + gamma*s.d[i] + scale*t
	}
	return m
}

// logqNewton returns the log density of the Newton proposal widened by scale.
func (p *realProposer) logqNewton(s *slot, gamma, scale float64, y []float64) float64 {
	k := p.k
	for i := range p.u {
		p.u[i] = (y[i] - s.x[i] - gamma*s.d[i]) / scale
	}
	m := 0.0
	if s.mode == realChol {
		mulLowerT(s.l, k, p.u, p.z)
		for _, v := range p.z {
			m += v * v
		}
	} else {
		for j := 0; j < k; j++ {
			t := 0.0
			for i := 0; i < k; i++ {
				t += s.l[i*k+j] * p.u[i]
			}
			m += t * t * s.w[j]
		}
	}
	return p.newtonLogDensity(s, scale, m)
}

// newtonLogDensity is logqNewton at a point whose squared distance from the
// centre in the fit's own metric is m.
func (p *realProposer) newtonLogDensity(s *slot, scale, m float64) float64 {
	fk := float64(p.k)
	lq := s.c - fk*math.Log(scale)
	if p.cauchy {
		return lq + lgamma((1+fk)/2) - lgamma(0.5) - 0.5*fk*math.Log(math.Pi) - 0.5*(1+fk)*math.Log1p(m)
	}
	return lq - fk*logSqrt2Pi - 0.5*m
}

// drawLogq draws from q(·|s.x) with step fraction gamma into dst as draw does
// and returns the log density of the draw: the Newton proposal's from the |z|²
// it was made of. logq recomputes that distance as |Tᵀ(y − centre)|², which a
// fit of very ill-conditioned curvature (a Gaussian process's latent values
// fitted at a proposed amplitude of 385) gets wrong by 1e163: a move whose
// density ratio is −1e145 was accepted. Elsewhere (the fallback, the robust
// mixture) it is logq.
func (p *realProposer) drawLogq(rng *rand.Rand, s *slot, gamma float64, dst []float64) float64 {
	if s.mode == realFallback || p.robust {
		p.draw(rng, s, gamma, dst)
		return p.logq(s, gamma, dst)
	}
	sc := p.sdScale(gamma)
	return p.newtonLogDensity(s, sc, p.drawNewton(rng, s, gamma, sc, dst))
}

// logqWalk returns the log density of the random walk N(x, diag(σ²)),
// σ_j = 0.1·(1 + |x_j|), used as the fallback and in the robust mixture.
func (p *realProposer) logqWalk(s *slot, y []float64) float64 {
	lq := 0.0
	for j, v := range s.x {
		lq += normLogPdf(y[j], v, rwRel*(1+math.Abs(v)))
	}
	return lq
}

// sdScale returns the standard-deviation factor of the Newton component at step
// fraction gamma, set by the step rule (√(γ(2−γ)) for Crank–Nicolson, else 1).
func (p *realProposer) sdScale(gamma float64) float64 {
	if p.step == nil {
		return 1
	}
	return p.step.sdScale(gamma)
}

func (p *realProposer) draw(rng *rand.Rand, s *slot, gamma float64, dst []float64) {
	if s.mode == realFallback {
		p.drawWalk(rng, s, dst)
		return
	}
	sc := p.sdScale(gamma)
	if !p.robust {
		p.drawNewton(rng, s, gamma, sc, dst)
		return
	}
	u := rng.Float64() * (1 + robustWideWeight + robustWalkWeight)
	switch {
	case u < 1:
		p.drawNewton(rng, s, gamma, sc, dst)
	case u < 1+robustWideWeight:
		p.drawNewton(rng, s, gamma, robustWide*sc, dst)
	default:
		p.drawWalk(rng, s, dst)
	}
}

func (p *realProposer) drawWalk(rng *rand.Rand, s *slot, dst []float64) {
	for j, v := range s.x {
		dst[j] = v + rwRel*(1+math.Abs(v))*rng.NormFloat64()
	}
}

func (p *realProposer) logq(s *slot, gamma float64, y []float64) float64 {
	if s.mode == realFallback {
		return p.logqWalk(s, y)
	}
	sc := p.sdScale(gamma)
	if !p.robust {
		return p.logqNewton(s, gamma, sc, y)
	}
	p.lw[0] = p.logqNewton(s, gamma, sc, y)
	p.lw[1] = math.Log(robustWideWeight) + p.logqNewton(s, gamma, robustWide*sc, y)
	p.lw[2] = math.Log(robustWalkWeight) + p.logqWalk(s, y)
	return special.LogSumExp(p.lw[:]) - logRobustTotal
}

func (p *realProposer) centre(s *slot, dst []float64) bool {
	if s.mode == realFallback {
		return false
	}
	for i := range dst {
		dst[i] = s.x[i] + s.d[i]
	}
	return true
}

func (p *realProposer) logqFit(s *slot, y []float64) float64 {
	if s.mode == realFallback {
		return p.logqWalk(s, y)
	}
	return p.logqNewton(s, 1, 1, y)
}
