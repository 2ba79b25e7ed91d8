package graph

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/nmc-go/nmc/nmc"
)

// central4 is the fourth-order central difference formula for a first derivative:
// f'(x) ≈ (f(x−2h) − 8f(x−h) + 8f(x+h) − f(x+2h)) / 12h.
var central4 = fd.Formula{
	Stencil: []fd.Point{
		{Loc: -2, Coeff: 1.0 / 12},
		{Loc: -1, Coeff: -8.0 / 12},
		{Loc: 1, Coeff: 8.0 / 12},
		{Loc: 2, Coeff: -1.0 / 12},
	},
	Derivative: 1,
	Step:       1e-4,
}

// derivTol is the relative tolerance, against max(1, |analytic|, |numeric|), of
// derivatives compared with fourth-order finite differences.
const derivTol = 1e-6

// checkStats counts what a check looked at.
type checkStats struct {
	points, sites, directions int
}

// acceptablePoint reports whether x is a point where finite differences of the log
// joint are meaningful: finite and moderate log joint, coordinates neither huge nor
// pressed against a bound.
func acceptablePoint(m *Model, sc nmc.Scorer, x []float64) bool {
	lj := sc.LogJoint(x)
	if math.IsNaN(lj) || math.IsInf(lj, 0) || math.Abs(lj) > 1e5 {
		return false
	}
	off := nmc.Offsets(m.Sites())
	for i, s := range m.Sites() {
		for _, v := range x[off[i] : off[i]+s.Size] {
			switch s.Support {
			case nmc.Real:
				if math.Abs(v) > 1e3 {
					return false
				}
			case nmc.Positive:
				if v-s.Lower < 1e-4 || v > 1e4 {
					return false
				}
			case nmc.Interval:
				if v-s.Lower < 1e-4 || s.Upper-v < 1e-4 {
					return false
				}
			case nmc.Simplex:
				if v < 1e-4 {
					return false
				}
			}
		}
	}
	return true
}

// checkModelDerivs draws up to points acceptable states from the prior (trying at
// most tries states) and at each checks every site: the Markov-blanket identity
// f(x')−f(x) = LogJoint(x')−LogJoint(x) for a nearby x', and, for continuous sites,
// the score with derivatives against the score without, the gradient against
// fourth-order finite differences of LogJoint along each direction, H·d against
// finite differences of the analytic gradient, and exact symmetry of H.
func checkModelDerivs(t *testing.T, name string, m *Model, rng *rand.Rand, points, tries int) checkStats {
	t.Helper()
	var st checkStats
	sites := m.Sites()
	off := nmc.Offsets(sites)
	x := make([]float64, nmc.Dim(sites))
	sc := m.NewScorer()
	for try := 0; try < tries && st.points < points; try++ {
		if err := m.Init(rng, x); err != nil {
			t.Fatalf("%s: Init: %v", name, err)
		}
		if !acceptablePoint(m, sc, x) {
			continue
		}
		st.points++
		for i, s := range sites {
			if !checkSite(t, name, sc, x, off[i], i, s, rng) {
				return st
			}
			st.sites++
			if s.Support != nmc.Discrete {
				st.directions += len(directions(s))
			}
		}
	}
	return st
}

// checkSite checks site i (coordinates at x[o:o+s.Size]); it reports false after the
// first failure so that one bug does not flood the log.
func checkSite(t *testing.T, name string, sc nmc.Scorer, x []float64, o, i int, s nmc.Site, rng *rand.Rand) bool {
	t.Helper()
	k := s.Size
	xi := x[o : o+k]
	saved := append([]float64(nil), xi...)

	// Markov blanket identity.
	f0, j0 := sc.Score(x, i, nil, nil), sc.LogJoint(x)
	perturb(rng, s, xi, 0.2)
	f1, j1 := sc.Score(x, i, nil, nil), sc.LogJoint(x)
	copy(xi, saved)
	switch {
	case math.IsInf(j1, -1) && math.IsInf(f1, -1):
	case math.IsInf(j1, -1) != math.IsInf(f1, -1):
		t.Errorf("%s site %s: after a move the score is %g and the log joint %g", name, s.Name, f1, j1)
		return false
	default:
		if d1, d2 := f1-f0, j1-j0; !(math.Abs(d1-d2) <= 1e-8*math.Max(1, math.Max(math.Abs(j0), math.Abs(j1)))) {
			t.Errorf("%s site %s: score difference %.12g, log-joint difference %.12g", name, s.Name, d1, d2)
			return false
		}
	}
	if s.Support == nmc.Discrete {
		return true
	}

	g, h := make([]float64, k), make([]float64, k*k)
	f := sc.Score(x, i, g, h)
	if fv := sc.Score(x, i, nil, nil); !close(f, fv, 1e-12) {
		t.Errorf("%s site %s: score with derivatives %.15g, without %.15g", name, s.Name, f, fv)
		return false
	}
	for p := 0; p < k; p++ {
		for q := 0; q < k; q++ {
			if h[p*k+q] != h[q*k+p] {
				t.Errorf("%s site %s: Hessian not symmetric at [%d,%d]: %g vs %g", name, s.Name, p, q, h[p*k+q], h[q*k+p])
				return false
			}
		}
	}
	gs, hs := make([]float64, k), make([]float64, k*k)
	fdHd := make([]float64, k)
	for _, d := range directions(s) {
		step := stepFor(s, saved, d)
		move := func(e float64) {
			for c := range d {
				xi[c] = saved[c] + e*d[c]
			}
		}
		lj := func(e float64) float64 {
			move(e)
			v := sc.LogJoint(x)
			copy(xi, saved)
			return v
		}
		fdG := fd.Derivative(lj, 0, &fd.Settings{Formula: central4, Step: step})
		gd := 0.0
		for p := 0; p < k; p++ {
			gd += g[p] * d[p]
		}
		if !close(gd, fdG, derivTol) {
			t.Errorf("%s site %s at %v direction %v: gradient·d %.12g, finite difference of the log joint %.12g", name, s.Name, saved, d, gd, fdG)
			return false
		}
		// H·d against the same stencil applied to the analytic gradient.
		clear(fdHd)
		for _, pt := range central4.Stencil {
			move(pt.Loc * step)
			sc.Score(x, i, gs, hs)
			copy(xi, saved)
			for p := range fdHd {
				fdHd[p] += pt.Coeff * gs[p] / step
			}
		}
		for p := 0; p < k; p++ {
			hd := 0.0
			for q := 0; q < k; q++ {
				hd += h[p*k+q] * d[q]
			}
			if !close(hd, fdHd[p], derivTol) {
				t.Errorf("%s site %s at %v direction %v: (H·d)[%d] = %.12g, finite difference of the gradient %.12g", name, s.Name, saved, d, p, hd, fdHd[p])
				return false
			}
		}
	}
	return true
}

// stepFor returns a finite-difference step along d for a site at x: 1e-4 of the
// coordinates' scale, and small enough that x ± 2·step·d stays inside the support.
func stepFor(s nmc.Site, x, d []float64) float64 {
	step := 1e-4
	for c := range d {
		if d[c] == 0 {
			continue
		}
		scale := math.Abs(x[c])
		switch s.Support {
		case nmc.Real:
			scale = math.Max(scale, 1)
		case nmc.Positive:
			scale = x[c] - s.Lower
		case nmc.Interval:
			scale = math.Min(x[c]-s.Lower, s.Upper-x[c])
		}
		step = math.Min(step, 1e-4*scale/math.Abs(d[c]))
	}
	return step
}
