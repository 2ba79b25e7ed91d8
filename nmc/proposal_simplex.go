package nmc

import (
	"math"
	"math/rand/v2"
)

// simplexProposer proposes a Simplex site from a Dirichlet with
// α_i = 1 − x_i²(H_ii − max_{j≠i} H_ij), floored at 1e-3 (the paper's fit, exact for a
// Dirichlet conditional written in the homogeneous form). With non-finite derivatives
// it falls back to Dirichlet(100·x + 1e-3). Densities are over the first k − 1
// coordinates.
type simplexProposer struct{}

func (p *simplexProposer) name() string { return "dirichlet" }

func (p *simplexProposer) fit(s *slot) {
	k := len(s.x)
	s.fb = !allFinite(s.g) || !allFinite(s.h)
	if !s.fb {
		for i := 0; i < k; i++ {
			m := math.Inf(-1)
			for j := 0; j < k; j++ {
				if j != i && s.h[i*k+j] > m {
					m = s.h[i*k+j]
				}
			}
			a := 1 - s.x[i]*s.x[i]*(s.h[i*k+i]-m)
			if math.IsNaN(a) || math.IsInf(a, 0) {
				s.fb = true
				break
			}
			s.w[i] = max(a, dirichletFloor)
		}
	}
	if s.fb {
		for i, x := range s.x {
			s.w[i] = dirichletFallbackConc*max(x, 0) + dirichletFloor
		}
	}
	sum, c := 0.0, 0.0
	for _, a := range s.w[:k] {
		sum += a
		c -= lgamma(a)
	}
	s.c = c + lgamma(sum)
}

func (p *simplexProposer) draw(rng *rand.Rand, s *slot, _ float64, dst []float64) {
	m := math.Inf(-1)
	for i, a := range s.w {
		dst[i] = logGammaRand(rng, a)
		m = max(m, dst[i])
	}
	sum := 0.0
	for i := range dst {
		dst[i] = math.Exp(dst[i] - m)
		sum += dst[i]
	}
	for i := range dst {
		dst[i] /= sum
	}
}

func (p *simplexProposer) logq(s *slot, _ float64, y []float64) float64 {
	lq := s.c
	for i, a := range s.w {
		if !(y[i] > 0) {
			return math.Inf(-1)
		}
		lq += (a - 1) * math.Log(y[i])
	}
	return lq
}

func (p *simplexProposer) centre(s *slot, dst []float64) bool {
	if s.fb {
		return false
	}
	sum, allAbove := 0.0, true
	for _, a := range s.w[:len(dst)] {
		sum += a
		allAbove = allAbove && a > 1
	}
	for i := range dst {
		if allAbove {
			dst[i] = (s.w[i] - 1) / (sum - float64(len(dst)))
		} else {
			dst[i] = s.w[i] / sum
		}
	}
	return true
}

func (p *simplexProposer) logqFit(s *slot, y []float64) float64 { return p.logq(s, 1, y) }
