package graph

import (
	"math"

	"github.com/nmc-go/nmc/nmc"
)

// Counts of selections. An observed Categorical selection through one discrete
// latent index (catSel with one index dimension: y_e ~ Categorical(src[base_e +
// stride·z_{site_e}])) is compiled, when its index sites are finite Discrete sites
// that are not summed out, so that a scorer keeps its counts between calls: per
// element of the selected plate src and category y, the number of observations e
// with value y that select it at the current values of the index sites. A score of
// a plate element (selRun) then reads its k counts instead of counting the
// observations of its blanket, and a change of an index site moves only the site's
// own observations (scorer.Changed). The counts are integers, so the scores are the
// same bit for bit as when counted afresh.

// countElem is one observation of a counted selection, seen from its index site:
// at index value v < size it adds to the counts' entry j + v·step.
type countElem struct {
	j, step, size int32
}

// compileSelCounts finds the selections whose counts scorers keep and lays out, per
// index site, the count entries its observations move (Model.countStart,
// countElems).
func (m *Model) compileSelCounts() {
	if m.sels == nil {
		return
	}
	perSite := make([][]countElem, len(m.sites))
	total := 0
	for fi, sel := range m.sels {
		fc := m.factors[fi]
		if sel == nil || len(sel.dims) != 1 || fc.obs == nil || len(sel.base) <= 1 {
			continue
		}
		dm := &sel.dims[0]
		ok := int64(total)+int64(sel.src.length*sel.k) <= math.MaxInt32
		for e := range sel.base {
			y := fc.obs[e]
			site := m.sites[dm.site[e]]
			if !ok || !(y >= 0 && y < float64(sel.k)) || y != math.Trunc(y) ||
				site.Support != nmc.Discrete || site.Marginalised || site.Size != 1 {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if m.countOf == nil {
			m.countOf = make([]int32, len(m.factors))
			for i := range m.countOf {
				m.countOf[i] = -1
			}
		}
		m.countOf[fi] = int32(total)
		for e, b := range sel.base {
			s := dm.site[e]
			perSite[s] = append(perSite[s], countElem{
				j:    int32(total + int(b)*sel.k + int(fc.obs[e])),
				step: int32(dm.stride * sel.k),
				size: int32(dm.size),
			})
		}
		total += sel.src.length * sel.k
	}
	if m.countOf == nil {
		return
	}
	m.countLen = total
	m.countStart = make([]int32, len(m.sites)+1)
	for s, ces := range perSite {
		m.countStart[s+1] = m.countStart[s] + int32(len(ces))
		m.countElems = append(m.countElems, ces...)
	}
}

// countState is a scorer's counts of the selections for the state the sampler
// watches (nmc.DiscreteWatcher), with the index values they were made from.
type countState struct {
	x      []float64 // the watched state; nil: none
	n      []int32   // the counts: per counted factor fi from Model.countOf[fi], by (plate element, category)
	shadow []float64 // per site: the value its observations are counted at
	dirty  bool      // recount everything at the next read
}

var _ nmc.DiscreteWatcher = (*scorer)(nil)

// Watch makes x the state whose selection counts the scorer keeps between calls
// (nmc.DiscreteWatcher); they are counted afresh at the next score that reads them.
func (s *scorer) Watch(x []float64) {
	s.cs.x = nil
	if s.m.countOf != nil && len(x) == s.m.dim && len(x) > 0 {
		s.cs.x = x
		s.cs.dirty = true
	}
}

// Changed moves the counted observations of the discrete site i from the entries
// its last counted value selected to those its value in the watched state selects
// (nmc.DiscreteWatcher); i < 0 makes every count stale.
func (s *scorer) Changed(i int) {
	cs := &s.cs
	if cs.x == nil || cs.dirty {
		return
	}
	if i < 0 || i >= len(s.m.sites) {
		cs.dirty = true
		return
	}
	lo, hi := s.m.countStart[i], s.m.countStart[i+1]
	if lo == hi {
		return
	}
	v, old := cs.x[s.m.offsets[i]], cs.shadow[i]
	if v == old {
		return
	}
	ces := s.m.countElems[lo:hi]
	moveCounts(cs.n, ces, old, -1)
	moveCounts(cs.n, ces, v, 1)
	cs.shadow[i] = v
}

// countsFor returns the counts of the factor counted from entry c (Model.countOf) for
// x, up to date, or nil when x is not the watched state (the caller then counts its
// blanket).
func (s *scorer) countsFor(c int, x []float64) []int32 {
	cs := &s.cs
	if cs.x == nil || len(x) == 0 || &x[0] != &cs.x[0] {
		return nil
	}
	if cs.dirty {
		s.recount()
	}
	return cs.n[c:]
}

// recount counts every counted selection afresh at the watched state.
func (s *scorer) recount() {
	cs := &s.cs
	if cs.n == nil {
		cs.n = make([]int32, s.m.countLen)
		cs.shadow = make([]float64, len(s.m.sites))
	}
	clear(cs.n)
	for i := range s.m.sites {
		lo, hi := s.m.countStart[i], s.m.countStart[i+1]
		if lo == hi {
			continue
		}
		v := cs.x[s.m.offsets[i]]
		cs.shadow[i] = v
		moveCounts(cs.n, s.m.countElems[lo:hi], v, 1)
	}
	cs.dirty = false
}

// moveCounts adds d to the count entries of the observations ces at index value v
// (none when v is not an integer in [0, size): such an observation selects no
// element, and selRun leaves it out alike).
func moveCounts(n []int32, ces []countElem, v float64, d int32) {
	iv := int(v)
	if float64(iv) != v || iv < 0 {
		return
	}
	for _, ce := range ces {
		if iv < int(ce.size) {
			n[int(ce.j)+iv*int(ce.step)] += d
		}
	}
}
