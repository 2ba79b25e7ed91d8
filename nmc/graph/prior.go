package graph

import "math"

// Priors with constant parameters. The prior of a latent plate's element whose
// parameters depend on no site (a Dirichlet row with fixed concentrations, a
// Normal with fixed mean and scale) is, seen from its own site, a function of the
// site's coordinates alone: the argument jets are the identity on the coordinates
// and constants. priorElem evaluates such an element with derivatives without the
// general chaining over jets: the same family call (PartialDeriver.DerivsOf in the
// coordinates) and the same additions to the gradient and Hessian, in the same
// order, as chain and chainSums make for those jets, so the result is the same bit
// for bit.

// compileConstPriors marks the factors whose elements priorElem evaluates: priors
// of a plate (not a Vector) whose value is the latent itself, with a family that
// takes partial derivatives, at most 64 arguments, and parameters that read no site.
func (m *Model) compileConstPriors() {
	var deps []int
	for fi, fc := range m.factors {
		if fc.fam == nil || fc.obs != nil || fc.fam.vector || fc.partial == nil ||
			fc.fam.node == nil || fc.fam.node.op != opLatent || fc.fam.node.fam != fc.fam || fc.width != fc.fam.width {
			continue
		}
		na := fc.width
		constant := true
		for _, p := range fc.d.params {
			na += p.width
			for e := 0; e < fc.length && constant; e++ {
				pe := e
				if p.length == 1 {
					pe = 0
				}
				deps = collectDeps(p, pe, deps[:0])
				constant = len(deps) == 0
			}
		}
		if !constant || na > 64 {
			continue
		}
		if m.constPrior == nil {
			m.constPrior = make([]bool, len(m.factors))
		}
		m.constPrior[fi] = true
	}
}

// priorElem is factorElem with derivatives for element e of a constPrior factor fi
// whose site is the active one (see compileConstPriors).
func (s *scorer) priorElem(fi, e int) float64 {
	fc := s.m.factors[fi]
	d := fc.d
	s.top = 0
	s.ops.ar.top = 0
	k := fc.width
	base := fc.fam.offset + e*k
	copy(s.argv[:k], s.x[base:base+k])
	na := k
	for _, p := range d.params {
		pj := s.argj[na : na+p.width]
		s.eval(p, elem(p, e), pj)
		for c := range pj {
			s.argv[na+c] = pj[c].v
		}
		na += p.width
	}
	var wrt uint64 = 1<<k - 1 // the coordinates: every other argument is constant
	g1, g2 := s.d1[:na], s.d2[:na*na]
	lp := fc.partial.DerivsOf(s.argv[:na], d.k, wrt, g1, g2, &s.memos[fi])
	if math.IsInf(lp, 0) || math.IsNaN(lp) {
		return lp
	}
	// chainSums for unit jets of gradient 1 and curvature 0 in coordinates 0 … k−1
	// (argument a is coordinate a) and constants.
	const gc, hc = 1.0, 0.0
	for a := 0; a < k; a++ {
		s.grad[a] += g1[a] * gc
		if g1[a] != 0 {
			s.hess[a*s.k+a] += g1[a] * hc
		}
		row := g2[a*na : a*na+k]
		for b, w := range row {
			if w != 0 {
				s.hess[a*s.k+b] += w * gc * gc
			}
		}
	}
	return lp
}
