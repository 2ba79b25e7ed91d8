package graph

import (
	"math"

	"github.com/nmc-go/nmc/nmc"
)

var _ nmc.OrbitScorer = (*scorer)(nil)

// ScoreOrbit returns the summed log density of the factor elements that depend on
// group g's coordinates (the union of its sites' Markov blankets, each element
// once), which differs from the log joint by a term that does not move along the
// group's orbit, or −Inf outside the support. With d non-nil it writes the exact
// first and second derivatives along the orbit x(t) at t = 0 into d[0] and d[1]
// (nmc.OrbitScorer; Jacobian not included). The orbit parameter t is scored as a
// site of one coordinate whose leaves are the group's coordinates, each with its
// own derivatives dx/dt and d²x/dt²; anchors and every other coordinate are
// constant. An unknown group g gives NaN.
func (s *scorer) ScoreOrbit(x []float64, g int, d *[2]float64) float64 {
	if g < 0 || g >= len(s.m.orbits) {
		return math.NaN()
	}
	o := &s.m.orbits[g]
	if len(s.ou) < s.m.dim {
		s.ou, s.ow = make([]float64, s.m.dim), make([]float64, s.m.dim)
	}
	for _, c := range o.still {
		s.ou[c], s.ow[c] = 0, 0
	}
	for _, c := range o.group.Coords {
		switch c.Kind {
		case nmc.Dilate:
			r := x[c.Coord]
			if c.Anchor >= 0 {
				r -= x[c.Anchor]
			}
			s.ou[c.Coord], s.ow[c.Coord] = c.Rate*r, c.Rate*c.Rate*r
		case nmc.Shift:
			s.ou[c.Coord], s.ow[c.Coord] = c.Rate, 0
		case nmc.ShiftOver:
			s.ou[c.Coord], s.ow[c.Coord] = c.Rate/x[c.Anchor], 0
		}
	}
	return s.orbitSum(x, o, d)
}

// orbitSum returns the score of orbit o's blanket at x along the direction already
// set in s.ou and s.ow, with its first and second derivatives in t in d when d is
// not nil.
func (s *scorer) orbitSum(x []float64, o *orbit, d *[2]float64) float64 {
	s.x, s.active, s.orbit = x, -1, o
	s.k, s.ops.k, s.base = 1, 1, 0
	s.newCall()
	deriv := d != nil
	if deriv {
		s.orbitGH = [2]float64{}
		s.grad, s.hess = s.orbitGH[:1], s.orbitGH[1:]
	}
	f, ok := s.orbitTapeScore(o, deriv)
	if !ok {
		f = s.sumBlanket(o.blanket, nil, o.groups, o.lin, o.marg, nil, deriv, true)
	}
	s.orbit = nil
	if deriv {
		d[0], d[1] = s.orbitGH[0], s.orbitGH[1]
	}
	return f
}
