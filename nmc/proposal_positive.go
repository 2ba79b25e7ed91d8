package nmc

import (
	"math"
	"math/rand/v2"
)

// positiveProposer proposes every coordinate of a Positive site independently:
// x′ − c ~ Gamma(α, β) with α = 1 − (x−c)²H_jj and β = −(x−c)H_jj − g_j (shape, rate),
// exact for a Gamma conditional. A coordinate whose fit is invalid falls back to the
// multiplicative walk log(x′−c) ~ N(log(x−c), 0.3²).
type positiveProposer struct {
	lower float64
}

func (p *positiveProposer) name() string { return "gamma" }

func (p *positiveProposer) fit(s *slot) {
	k := len(s.x)
	s.fb = false
	for j := 0; j < k; j++ {
		y := s.x[j] - p.lower
		hjj := s.h[j*k+j]
		a := 1 - y*y*hjj
		b := -y*hjj - s.g[j]
		ok := a > 0 && b > 0 && !math.IsInf(a, 0) && !math.IsInf(b, 0) && y > 0
		s.fbc[j] = !ok
		if !ok {
			s.fb = true
			continue
		}
		s.w[j], s.d[j] = a, b
	}
}

func (p *positiveProposer) draw(rng *rand.Rand, s *slot, _ float64, dst []float64) {
	for j, x := range s.x {
		if s.fbc[j] {
			dst[j] = p.lower + (x-p.lower)*math.Exp(logWalkSigma*rng.NormFloat64())
			continue
		}
		dst[j] = p.lower + math.Exp(logGammaRand(rng, s.w[j]))/s.d[j]
	}
}

func (p *positiveProposer) logq(s *slot, _ float64, y []float64) float64 {
	lq := 0.0
	for j, x := range s.x {
		v := y[j] - p.lower
		if !(v > 0) {
			return math.Inf(-1)
		}
		if s.fbc[j] {
			lv := math.Log(v)
			lq += normLogPdf(lv, math.Log(x-p.lower), logWalkSigma) - lv
			continue
		}
		a, b := s.w[j], s.d[j]
		lq += a*math.Log(b) - lgamma(a) + (a-1)*math.Log(v) - b*v
	}
	return lq
}

func (p *positiveProposer) centre(s *slot, dst []float64) bool {
	if s.fb {
		return false
	}
	for j := range dst {
		a, b := s.w[j], s.d[j]
		if a > 1 {
			dst[j] = p.lower + (a-1)/b
		} else {
			dst[j] = p.lower + a/b
		}
	}
	return true
}

func (p *positiveProposer) logqFit(s *slot, y []float64) float64 { return p.logq(s, 1, y) }
