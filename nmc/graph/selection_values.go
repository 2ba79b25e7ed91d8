package graph

import (
	"math"

	"github.com/nmc-go/nmc/nmc"
)

// The conditional of a finite discrete site at each of its values at once
// (ScoreValues, nmc.ValuesScorer), with its plans: the Categorical selections a
// site reads by its own value step through them (selection.go).

// ScoreValues writes into dst[v] the Score of the finite discrete site i at value v
// (nmc.ValuesScorer), for v = 0 … len(dst)−1, leaving x unchanged (a blanket large
// enough for Score's chunked sum, or one that reads summed-out groups, is scored by
// Score at each value). Every factor
// element of the site's blanket is evaluated for all the values in turn, in the
// order Score sums them, so dst[v] is Score's value bit for bit (or NaN where Score
// stops at −Inf, which the sampler treats alike); a Categorical selection (catSel)
// is resolved once for all values, the site's own index dimension stepping through
// them.
func (s *scorer) ScoreValues(x []float64, i int, dst []float64) {
	if vp := s.m.valPlans; vp != nil {
		if lo, hi := vp.start[i], vp.start[i+1]; lo < hi && len(dst) <= int(vp.lim[i]) {
			s.x, s.active, s.orbit = x, -1, nil
			s.newCall()
			s.planValues(x, vp.steps[lo:hi], dst)
			return
		}
	}
	if len(s.m.blanket[i]) >= chunkedMinElems || len(s.m.margOf[i]) > 0 {
		// Score sums so large a blanket in chunks, in another order; and a site
		// whose score reads summed-out groups (a hidden Markov chain's state next to
		// a summed-out one) is held at each value while margLSE holds the group's
		// site at each of its own: score each value as Score does, restoring x.
		off := s.m.offsets[i]
		old := x[off]
		for v := range dst {
			x[off] = float64(v)
			dst[v] = s.Score(x, i, nil, nil)
		}
		x[off] = old
		return
	}
	s.x, s.active, s.orbit = x, -1, nil
	s.newCall()
	clear(dst)
	var simple []valElem
	if s.m.valElems != nil {
		simple = s.m.valElems[i]
	}
	bl := s.m.blanket[i]
	var logs []cachedLog // logx's cache, read directly below
	if simple != nil {
		logs = s.logCache()
	}
	for n := 0; n < len(bl); {
		en := bl[n]
		fi, e := int(en.f), int(en.e)
		if simple != nil && simple[n].lim > 0 {
			// A run of such entries: entry r's value v reads coordinate
			// j0 + v·jstep (v < lim). Each dst[v] adds the run's terms in entry
			// order, as entry by entry, kept in a register.
			end := n + 1
			for end < len(bl) && simple[end].lim > 0 {
				end++
			}
			run := simple[n:end]
			for v := range dst {
				acc := dst[v]
				for r := range run {
					ve := &run[r]
					if v >= int(ve.lim) {
						acc += math.Inf(-1)
						continue
					}
					j := int(ve.j0) + v*int(ve.jstep)
					c := &logs[j] // logx(j), inline: −Inf for a p not finite and > 0
					if p := x[j]; p != c.src {
						c.src, c.lg = p, posLog(p)
					}
					acc += c.lg
				}
				dst[v] = acc
			}
			n = end
			continue
		}
		n++
		if s.m.sels != nil {
			if sel := s.m.sels[fi]; sel != nil && s.selValues(sel, fi, e, i, dst) {
				continue
			}
		}
		for v := range dst {
			s.fix(i+1, float64(v))
			dst[v] += s.factorElem(fi, e, false, false)
		}
		s.fix(0, 0)
	}
	for gi := range s.m.groups[i] {
		for v := range dst {
			s.fix(i+1, float64(v))
			dst[v] += s.factorGroup(&s.m.groups[i][gi], false)
		}
		s.fix(0, 0)
	}
}

// planValues is ScoreValues for a site whose blanket is one run of direct
// selections (valPlans): dst[v] = Σ_r log x[j0_r + v·jstep_r], summed in blanket
// order from 0 as ScoreValues sums them, every value in range of every entry.
func (s *scorer) planValues(x []float64, steps []valStep, dst []float64) {
	logs := s.logCache()
	for v := range dst {
		acc := 0.0
		for _, st := range steps {
			j := int(st.j0) + v*int(st.jstep)
			c := &logs[j] // logx(j), inline
			if p := x[j]; p != c.src {
				c.src, c.lg = p, posLog(p)
			}
			acc += c.lg
		}
		dst[v] = acc
	}
}

// valPlans lays out, per finite discrete site whose whole score is a run of direct
// selections (valElem entries, no tallied groups, summed-out groups or linear
// factors, a blanket Score sums serially), the run's coordinates: the site's steps
// are steps[start[i]:start[i+1]] (empty: no plan), valid for values below lim[i].
type valPlans struct {
	start []int32
	steps []valStep
	lim   []int32
}

// valStep is a valElem without its limit: value v reads coordinate j0 + v·jstep.
type valStep struct{ j0, jstep int32 }

// compileValPlans fills Model.valPlans from the blankets and valElems.
func (m *Model) compileValPlans() {
	if m.valElems == nil {
		return
	}
	vp := &valPlans{start: make([]int32, len(m.sites)+1), lim: make([]int32, len(m.sites))}
	any := false
	for i := range m.sites {
		vp.start[i+1] = vp.start[i]
		ves := m.valElems[i]
		bl := m.blanket[i]
		if ves == nil || len(ves) != len(bl) || len(bl) == 0 || len(bl) >= chunkedMinElems ||
			len(m.groups[i]) > 0 || len(m.margOf[i]) > 0 || (m.linSites != nil && len(m.linSites[i]) > 0) {
			continue
		}
		lim := int32(math.MaxInt32)
		for _, ve := range ves {
			lim = min(lim, ve.lim)
		}
		if lim <= 0 {
			continue
		}
		for _, ve := range ves {
			vp.steps = append(vp.steps, valStep{ve.j0, ve.jstep})
		}
		vp.start[i+1] = int32(len(vp.steps))
		vp.lim[i] = lim
		any = true
	}
	if any {
		m.valPlans = vp
	}
}

// selValues adds to dst[v] the log density of element e of the catSel factor fi
// with site i at value v, for every v, and reports true; it reports false (adding
// nothing) when site i enters the element other than as its value or through one
// index dimension.
func (s *scorer) selValues(sel *catSel, fi, e, i int, dst []float64) bool {
	fc := s.m.factors[fi]
	own := fc.obs == nil && fc.fam.site(e) == i // the element is site i's own prior
	flat := int(sel.base[elem1(len(sel.base), e)])
	step := 0
	for d := range sel.dims {
		dm := &sel.dims[d]
		if int(dm.site[e]) == i {
			if step != 0 || own {
				return false
			}
			step = dm.stride
			continue
		}
		v := s.x[s.m.offsets[dm.site[e]]]
		if !(v >= 0 && v < float64(dm.size)) || v != math.Trunc(v) {
			for w := range dst {
				dst[w] += math.Inf(-1)
			}
			return true
		}
		flat += dm.stride * int(v)
	}
	if !own && step == 0 {
		return false // site i does not enter this element: not expected in its blanket
	}
	y := 0.0
	if !own {
		y = s.selValue(fc, e)
		if !(y >= 0 && y < float64(sel.k)) || y != math.Trunc(y) {
			for w := range dst {
				dst[w] += math.Inf(-1)
			}
			return true
		}
	}
	size := 0
	for d := range sel.dims {
		if int(sel.dims[d].site[e]) == i {
			size = sel.dims[d].size
		}
	}
	for v := range dst {
		f, c := flat, int(y)
		if own {
			c = v
			if v >= sel.k {
				dst[v] += math.Inf(-1)
				continue
			}
		} else {
			if v >= size {
				dst[v] += math.Inf(-1)
				continue
			}
			f += step * v
		}
		j := sel.src.offset + f*sel.k + c
		p := s.x[j]
		if !(p > 0) || math.IsInf(p, 1) {
			dst[v] += math.Inf(-1)
			continue
		}
		dst[v] += s.logx(j)
	}
	return true
}

// valElem describes a blanket element of a finite discrete site that ScoreValues
// evaluates directly: a Categorical selection whose probability at value v of the
// site is state coordinate j0 + v·jstep, for v < lim (lim = 0: not such an element).
type valElem struct {
	j0, jstep, lim int32
}

// compileValElems fills valElems for the finite discrete sites whose blanket holds
// Categorical selections that read the site once: as its own prior's value (its
// probabilities a fixed plate element), or as the one latent index of an observed
// element.
func (m *Model) compileValElems() {
	m.valElems = make([][]valElem, len(m.sites))
	for i, site := range m.sites {
		if site.Support != nmc.Discrete || site.NumValues <= 0 {
			continue
		}
		ves := make([]valElem, len(m.blanket[i]))
		any := false
		for n, en := range m.blanket[i] {
			sel := m.sels[en.f]
			if sel == nil {
				continue
			}
			fc := m.factors[en.f]
			e := int(en.e)
			base := int(sel.base[elem1(len(sel.base), e)])
			switch {
			case fc.obs == nil && fc.fam.site(e) == i && len(sel.dims) == 0:
				ves[n] = valElem{j0: int32(sel.src.offset + base*sel.k), jstep: 1, lim: int32(sel.k)}
			case fc.obs != nil && len(sel.dims) == 1 && int(sel.dims[0].site[e]) == i:
				y := fc.obs[e]
				if !(y >= 0 && y < float64(sel.k)) || y != math.Trunc(y) {
					continue
				}
				dm := sel.dims[0]
				ves[n] = valElem{j0: int32(sel.src.offset + base*sel.k + int(y)), jstep: int32(dm.stride * sel.k), lim: int32(dm.size)}
			default:
				continue
			}
			any = true
		}
		if any {
			m.valElems[i] = ves
		}
	}
}
