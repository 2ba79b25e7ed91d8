package models

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/nmc-go/nmc/nmc"
)

// The regression's group moves. linearModel embeds the graph model, so it declares
// the graph model's groups (nmc.Grouper) and its scorer scores their orbits
// (nmc.OrbitScorer). A group that moves only alpha and beta is scored here, on the
// linear predictor: along the orbit η_r(t) = α(t) + x_r·β(t), with
// η′_r = u_α + x_r·u_β and η″_r = w_α + x_r·w_β at t = 0, so
//
//	f′ = Σ_r ℓ′_r η′_r + prior′,   f″ = Σ_r (ℓ″_r η′_r² + ℓ′_r η″_r) + prior″,
//
// where ℓ′_r, ℓ″_r are the row's derivatives in η. For the dilation of (α, β)
// about 0 with one rate s, x_r·u_β = s·x_r·β and x_r·w_β = s²·x_r·β come from the
// cached Xβ: one pass over the rows. Other orbits of alpha and beta compute Xu_β
// and Xw_β; a group that moves nu or sigma is scored by the graph engine.

var (
	_ nmc.Grouper     = (*linearModel)(nil)
	_ nmc.OrbitScorer = (*linearScorer)(nil)
)

// betaOrbit says how a group moves beta.
type betaOrbit uint8

const (
	betaFixed   betaOrbit = iota // beta does not move
	betaDilated                  // every coordinate dilated about 0 at one rate
	betaGeneral                  // anything else: X·u and X·w computed
)

// linearOrbit is one of the model's groups as the hand-written scorer sees it.
type linearOrbit struct {
	coords []nmc.OrbitCoord
	// graph: the group moves a site other than alpha and beta.
	graph bool
	beta  betaOrbit
	rate  float64 // betaDilated: the common rate
}

// compileOrbits classifies the graph model's groups.
func (lm *linearModel) compileOrbits() {
	for _, g := range lm.Groups() {
		o := linearOrbit{coords: g.Coords}
		nb := 0
		common := true
		for _, c := range g.Coords {
			switch {
			case c.Coord == lm.offAlpha:
			case c.Coord >= lm.offBeta && c.Coord < lm.offBeta+lm.k:
				if nb == 0 {
					o.rate = c.Rate
				}
				nb++
				if c.Kind != nmc.Dilate || c.Anchor >= 0 || c.Rate != o.rate {
					common = false
				}
			default:
				o.graph = true
			}
		}
		switch {
		case nb == 0:
			o.beta = betaFixed
		case nb == lm.k && common:
			o.beta = betaDilated
		default:
			o.beta = betaGeneral
		}
		lm.orbits = append(lm.orbits, o)
	}
}

// orbitDerivs returns dx/dt and d²x/dt² at t = 0 of coordinate c along an orbit.
func orbitDerivs(x []float64, c nmc.OrbitCoord) (u, w float64) {
	if c.Kind == nmc.Shift {
		return c.Rate, 0
	}
	r := x[c.Coord]
	if c.Anchor >= 0 {
		r -= x[c.Anchor]
	}
	return c.Rate * r, c.Rate * c.Rate * r
}

// ScoreOrbit returns the summed log density of every row and of the priors of
// alpha and beta (which differs from the log joint by terms that do not move along
// an orbit of alpha and beta) and, when d is non-nil, its exact first and second
// derivatives along group g's orbit (nmc.OrbitScorer). Outside the support it
// returns −Inf; for an unknown group, NaN.
func (s *linearScorer) ScoreOrbit(x []float64, g int, d *[2]float64) float64 {
	lm := s.lm
	if g < 0 || g >= len(lm.orbits) {
		return math.NaN()
	}
	o := &lm.orbits[g]
	if o.graph {
		if s.graphOrbit == nil {
			s.graphOrbit = lm.Model.NewScorer().(nmc.OrbitScorer)
		}
		return s.graphOrbit.ScoreOrbit(x, g, d)
	}
	p, ok := s.params(x)
	if !ok {
		return math.Inf(-1)
	}
	k := lm.k
	beta := x[lm.offBeta : lm.offBeta+k]
	xb := s.xbAt(beta)
	deriv := d != nil

	// Derivatives of the coordinates along the orbit.
	var ua, wa float64
	if deriv {
		if s.ub == nil {
			s.ub, s.wb = make([]float64, k), make([]float64, k)
		}
		clear(s.ub)
		clear(s.wb)
		for _, c := range o.coords {
			u, w := orbitDerivs(x, c)
			if c.Coord == lm.offAlpha {
				ua, wa = u, w
			} else {
				s.ub[c.Coord-lm.offBeta], s.wb[c.Coord-lm.offBeta] = u, w
			}
		}
		if o.beta == betaGeneral {
			s.orbitXUW()
		}
	}

	rate := o.rate
	s.chunks(func(c int) {
		lo, hi := s.rows(c)
		s.part[c] = s.rowTermsEta(p, xb, lo, hi, deriv)
		if !deriv {
			return
		}
		var gc, hc float64
		for r := lo; r < hi; r++ {
			var e1, e2 float64 // η′_r, η″_r
			switch o.beta {
			case betaFixed:
				e1, e2 = ua, wa
			case betaDilated:
				e1, e2 = ua+rate*xb[r], wa+rate*rate*xb[r]
			default:
				e1, e2 = ua+s.xu[r], wa+s.xw[r]
			}
			gc += s.d1[r] * e1
			hc += s.d2[r]*e1*e1 + s.d1[r]*e2
		}
		s.gs[c], s.hs[c] = gc, hc
	})
	total, g1, g2 := s.reduce()

	// Priors of alpha and beta, up to constants.
	pa := 1 / (lm.alphaSD * lm.alphaSD)
	pb := 1 / (lm.betaSD * lm.betaSD)
	total -= 0.5 * p.alpha * p.alpha * pa
	for _, b := range beta {
		total -= 0.5 * b * b * pb
	}
	if deriv {
		g1 -= p.alpha * ua * pa
		g2 -= (ua*ua + p.alpha*wa) * pa
		for j, b := range beta {
			g1 -= b * s.ub[j] * pb
			g2 -= (s.ub[j]*s.ub[j] + b*s.wb[j]) * pb
		}
		d[0], d[1] = g1, g2
	}
	return total
}

// orbitXUW writes X·u_β and X·w_β into s.xu and s.xw, chunk by chunk.
func (s *linearScorer) orbitXUW() {
	lm := s.lm
	k := lm.k
	if s.xu == nil {
		s.xu, s.xw = make([]float64, lm.n), make([]float64, lm.n)
	}
	s.chunks(func(c int) {
		lo, hi := s.rows(c)
		xc := blas64.General{Rows: hi - lo, Cols: k, Stride: k, Data: lm.x[lo*k : hi*k]}
		blas64.Gemv(blas.NoTrans, 1, xc, blas64.Vector{N: k, Inc: 1, Data: s.ub}, 0, blas64.Vector{N: hi - lo, Inc: 1, Data: s.xu[lo:hi]})
		blas64.Gemv(blas.NoTrans, 1, xc, blas64.Vector{N: k, Inc: 1, Data: s.wb}, 0, blas64.Vector{N: hi - lo, Inc: 1, Data: s.xw[lo:hi]})
	})
}
