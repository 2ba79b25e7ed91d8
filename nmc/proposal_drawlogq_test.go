package nmc

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDrawLogqIllConditioned checks the log density a Newton proposal gives its
// own draw (drawLogq): equal to logq's where the fit is well conditioned, and,
// where the precision's Cholesky factor is very ill conditioned (ones on its
// diagonal, entries of 1e40 below it, as the curvature of a Gaussian process's latent values
// fitted at an absurd amplitude), the Gaussian's at the |z|² the draw was made
// of, where logq's recomputation through Lᵀ(y − centre) cancels terms of 1e40
// and is off by more than 1e20 nats (a lead-and-follow move took such a value for its forward density and
// accepted a move whose log joint fell by 1e145).
func TestDrawLogqIllConditioned(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const k = 4
	for _, c := range []struct {
		name      string
		diag, sub float64
		ill       bool
	}{
		{"well conditioned", 1.5, 0.5, false},
		{"ill conditioned", 1, 1e40, true},
	} {
		p := newRealProposer(k, RealProposal{})
		s := newSlot(k)
		s.mode = realChol // the fit: centre x + d, precision L·Lᵀ
		s.c = 0
		for i := range k {
			s.x[i], s.d[i] = 0.1*float64(i), -0.05
			s.l[i*k+i] = c.diag
			for j := range i {
				s.l[i*k+j] = c.sub * float64(1+(i+2*j)%3) / 3 // every entry below the diagonal
			}
			s.c += math.Log(s.l[i*k+i])
		}
		centre := s.c - k*logSqrt2Pi // the log density at the centre
		dst := make([]float64, k)
		for range 200 {
			lq := drawLogq(p, rng, &s, dst)
			if m := -2 * (lq - centre); !(m >= 0 && m < 80) { // |z|² of 4 standard normals
				t.Fatalf("%s: drawLogq %v: |z|² = %v", c.name, lq, m)
			}
			re := p.logq(&s, 1, dst)
			switch {
			case !c.ill && math.Abs(re-lq) > 1e-9*math.Max(1, math.Abs(lq)):
				t.Fatalf("%s: drawLogq %v, logq %v", c.name, lq, re)
			case c.ill && !(lq-re > 1e20):
				t.Fatalf("%s: logq %v recomputes drawLogq %v: not the case tested", c.name, re, lq)
			}
		}
	}
}
