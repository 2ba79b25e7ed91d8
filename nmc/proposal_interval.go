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
type intervalProposer struct {
	lower, upper float64
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
		ok := a > 0 && b > 0 && !math.IsInf(a, 0) && !math.IsInf(b, 0) && u > 0 && v > 0
		s.fbc[j] = !ok
		if !ok {
			s.fb = true
			// t = log u − log v: dx/dt = (b−a)uv, d/dt log(uv) = v − u.
			t := math.Log(u) - math.Log(v)
			q := width * u * v
			gt := s.g[j]*q + (v - u)
			ht := s.h[j*k+j]*q*q + s.g[j]*q*(v-u) - 2*u*v
			m := t - gt/ht
			if ht < 0 && !math.IsInf(ht, 0) && !math.IsNaN(m) && !math.IsInf(m, 0) && u > 0 && v > 0 {
				s.w[j], s.d[j] = 1/math.Sqrt(-ht), m
			} else {
				s.w[j], s.d[j] = 0, t
			}
			continue
		}
		s.w[j], s.d[j] = a, b
	}
	s.c = math.Log(width)
}

// logitScale returns the mean and standard deviation of logit(u′) for a fallback
// coordinate j.
func logitScale(s *slot, j int) (m, sd float64) {
	if s.w[j] > 0 {
		return s.d[j], s.w[j]
	}
	return s.d[j], logWalkSigma
}

func (p *intervalProposer) draw(rng *rand.Rand, s *slot, _ float64, dst []float64) {
	width := p.upper - p.lower
	for j := range s.x {
		var u, v float64
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
