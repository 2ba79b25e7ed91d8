package graph

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/dist"
)

// Conjugate draws. A simplex site whose blanket is its own Dirichlet prior with
// constant concentrations α and observed Categorical selections of it whose counts
// the scorer keeps (counts.go) — nothing else — has the conditional Dirichlet(α + n),
// n its counts by category: a confusion row given the classes. A scorer draws such
// a site from it directly (nmc.ConditionalDrawer), without derivatives or a
// Metropolis-Hastings ratio.

// conjSite describes a site drawn by DrawConditional: its prior factor and element
// and the counted selection factors of its blanket.
type conjSite struct {
	prior, e int32
	sels     []int32
}

// compileConjugate finds the sites DrawConditional draws (Model.conj).
func (m *Model) compileConjugate() {
	if m.countOf == nil || m.constPrior == nil {
		return
	}
	for i, site := range m.sites {
		if site.Support != nmc.Simplex || (m.groups != nil && len(m.groups[i]) > 0) ||
			(m.linSites != nil && len(m.linSites[i]) > 0) || (m.margOf != nil && len(m.margOf[i]) > 0) {
			continue
		}
		cs := conjSite{prior: -1}
		var fam *family
		for _, en := range m.blanket[i] {
			if fc := m.factors[en.f]; fc.obs == nil && fc.fam != nil && fc.fam.site(int(en.e)) == i {
				cs.prior, cs.e, fam = en.f, en.e, fc.fam
			}
		}
		ok := cs.prior >= 0 && m.constPrior[cs.prior] && !fam.vector
		if ok {
			fc := m.factors[cs.prior]
			_, dir := fc.d.fam.(dist.Dirichlet)
			ok = dir && len(fc.d.params) == 1
		}
		for _, en := range m.blanket[i] {
			if !ok {
				break
			}
			switch {
			case en.f == cs.prior && en.e == cs.e:
			case m.countOf[en.f] >= 0 && m.sels != nil && m.sels[en.f] != nil && m.sels[en.f].src == fam:
				if !slices.Contains(cs.sels, en.f) {
					cs.sels = append(cs.sels, en.f)
				}
			default:
				ok = false
			}
		}
		if !ok || cs.prior < 0 {
			continue
		}
		if m.conj == nil {
			m.conj = make([]*conjSite, len(m.sites))
		}
		m.conj[i] = &cs
	}
}

var _ nmc.ConditionalDrawer = (*scorer)(nil)

// DrawConditional draws the simplex site i from its Dirichlet(α + n) conditional
// into dst (nmc.ConditionalDrawer): for a site with a constant Dirichlet prior whose
// other blanket elements are counted Categorical selections of it, at the state the
// scorer watches (nmc.DiscreteWatcher). It reports false, leaving dst alone, for any
// other site or state.
func (s *scorer) DrawConditional(rng *rand.Rand, x []float64, i int, dst []float64) bool {
	alpha := s.conjParams(x, i)
	if alpha == nil || len(dst) < len(alpha) {
		return false
	}
	dist.Dirichlet{}.Rand(rng, alpha, len(alpha), dst[:len(alpha)])
	return true
}

// conjParams returns the concentrations α + n of site i's Dirichlet conditional at
// x (in the scorer's scratch), or nil when DrawConditional cannot draw it there.
func (s *scorer) conjParams(x []float64, i int) []float64 {
	m := s.m
	if m.conj == nil || i < 0 || i >= len(m.conj) || m.conj[i] == nil {
		return nil
	}
	cs := m.conj[i]
	fc := m.factors[cs.prior]
	k := fc.width
	s.x = x
	s.newCall()
	s.active, s.orbit = -1, nil
	s.top = 0
	s.ops.ar.top = 0
	p := fc.d.params[0]
	pj := s.argj[:k]
	s.eval(p, elem(p, int(cs.e)), pj)
	if cap(s.conjAlpha) < k {
		s.conjAlpha = make([]float64, k)
	}
	alpha := s.conjAlpha[:k]
	for c := range alpha {
		alpha[c] = pj[c].v
	}
	for _, f := range cs.sels {
		cnt := s.countsFor(int(m.countOf[f]), x)
		if cnt == nil {
			return nil
		}
		want := i - m.sels[f].src.first
		for c, n := range cnt[want*k : (want+1)*k] {
			alpha[c] += float64(n)
		}
	}
	for _, a := range alpha {
		if !(a > 0) || math.IsInf(a, 1) {
			return nil
		}
	}
	return alpha
}
