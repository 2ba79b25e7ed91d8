package graph

import (
	"math"

	"github.com/nmc-go/nmc/nmc"
)

// margCache is one scorer's cache of the products P_gv of the simple summed-out
// groups: p[i] for entry i = pOff + v of group g, recomputed from scratch (the same
// product in the same order as margSimple without a cache) when stale. Before the
// groups of a Score, LogJoint, ScoreValues or WeighValues call are read, margSync
// compares every coordinate the products read with seen (the values they were
// computed from) and recomputes the entries reading a changed one (compared bit for
// bit: an entry is a function of its coordinates' bits, so one that kept them, NaN
// included, is current); so every entry is what a computation from nothing at the
// current state gives, bit for bit, whatever the order of the calls, and the loops
// that read them need no check.
type margCache struct {
	p     []float64
	done  []uint32  // per entry: the sync that last recomputed it (see syncs)
	seen  []float64 // per readCoord
	syncs uint32    // margSync calls that found a changed coordinate (from 1)
	epoch uint64    // the scorer call of the last margSync
	// bounded: lo and hi are the least and the largest entry of p that is not 0
	// (+Inf and 0 when there is none) and nan whether some entry is NaN, for the
	// current entries (margBounds).
	bounded bool
	lo, hi  float64
	nan     bool
}

// margBounds returns the least and the largest entry of the product cache that is
// not 0 (+Inf and 0 when there is none), and whether no entry is NaN (out of range),
// computed once per change of the entries.
func (s *scorer) margBounds() (lo, hi float64, ok bool) {
	c := &s.mc
	if !c.bounded {
		// The entries are 0, NaN or positive (margEntry).
		b := entryBounds{lo: math.Inf(1)}
		for _, p := range c.p {
			b.add(p)
		}
		c.lo, c.hi, c.nan, c.bounded = b.lo, b.hi, b.nan, true
	}
	return c.lo, c.hi, !c.nan
}

// productsInRange reports whether, with the product-cache entries not 0 within
// [lo, hi] (margBounds, no entry NaN), every product P_v = entry · t[v] of a group
// of len(t) values, t ≥ 0 finite, is 0 or in [prodMin, prodMax], and so is their sum:
// the loops that read the entries can then skip those checks (the results are the
// same: the checks would all pass). Rounding is monotone, so a product of
// non-zero factors is at least fl(lo · the least t[v] > 0) and at most fl(hi ·
// max t), and a sum of n such products at most 2n times the largest.
func productsInRange(lo, hi float64, t []float64) bool {
	tlo, thi := math.Inf(1), 0.0
	for _, v := range t {
		if v != 0 {
			tlo, thi = min(tlo, v), max(thi, v)
		}
	}
	return lo*tlo >= prodMin && hi*thi <= prodMax/float64(2*len(t))
}

// margSync brings the product cache up to date with s.x, once per scorer call.
func (s *scorer) margSync() {
	c := &s.mc
	if c.p != nil && c.epoch == s.epoch {
		return
	}
	c.epoch = s.epoch
	m, x := s.m, s.x
	if c.p == nil {
		c.p = make([]float64, len(m.pGroup))
		c.done = make([]uint32, len(m.pGroup))
		c.seen = make([]float64, len(m.readCoord))
		s.margRecomputeAll()
		return
	}
	marked := false
	// Blocks of eight coordinates with a change: past full of them (1/fullSyncFraction
	// of all blocks) the entries are recomputed all at once (the same values: each is a function of
	// its coordinates), cheaper than entry by entry from each changed coordinate
	// when most of them changed (every confusion row after an augmentation step).
	// They are counted first, so that no entry is recomputed twice.
	full := len(m.readCoord)/(8*fullSyncFraction) + 1
	if s.changedBlocks(full) > full {
		s.margRecomputeAll()
		return
	}
	for _, run := range m.readRuns {
		xs := x[run.j : int(run.j)+int(run.n)]
		seen := c.seen[run.r : int(run.r)+len(xs)]
		t := 0
		for ; t+8 <= len(xs); t += 8 {
			// Eight at a time, one branch: most coordinates are as seen.
			a, b := xs[t:t+8:t+8], seen[t:t+8:t+8]
			if !blockChanged(a, b) {
				continue
			}
			if !marked {
				marked = true
				s.nextSync()
			}
			s.markChanged(int(run.r)+t, a, b)
		}
		if t < len(xs) {
			if !marked {
				marked = true
				s.nextSync()
			}
			s.markChanged(int(run.r)+t, xs[t:], seen[t:])
		}
	}
}

// changedBlocks returns the number of blocks of eight coordinates read by the
// product cache (margSync's blocks) in which some coordinate differs from the
// value seen, counting up to limit + 1.
func (s *scorer) changedBlocks(limit int) int {
	m, c, x := s.m, &s.mc, s.x
	blocks := 0
	for _, run := range m.readRuns {
		xs := x[run.j : int(run.j)+int(run.n)]
		seen := c.seen[run.r : int(run.r)+len(xs)]
		for t := 0; t+8 <= len(xs); t += 8 {
			if blockChanged(xs[t:t+8:t+8], seen[t:t+8:t+8]) {
				if blocks++; blocks > limit {
					return blocks
				}
			}
		}
	}
	return blocks
}

// blockChanged reports whether the eight values a differ in their bits from the
// eight values b, with one branch.
func blockChanged(a, b []float64) bool {
	a, b = a[:8:8], b[:8:8]
	d := (math.Float64bits(a[0]) ^ math.Float64bits(b[0])) |
		(math.Float64bits(a[1]) ^ math.Float64bits(b[1])) |
		(math.Float64bits(a[2]) ^ math.Float64bits(b[2])) |
		(math.Float64bits(a[3]) ^ math.Float64bits(b[3])) |
		(math.Float64bits(a[4]) ^ math.Float64bits(b[4])) |
		(math.Float64bits(a[5]) ^ math.Float64bits(b[5])) |
		(math.Float64bits(a[6]) ^ math.Float64bits(b[6])) |
		(math.Float64bits(a[7]) ^ math.Float64bits(b[7]))
	return d != 0
}

// fullSyncFraction: margSync recomputes every entry of the product cache once more
// than 1/fullSyncFraction of the blocks of eight coordinates it compares changed.
const fullSyncFraction = 16

// cacheGroup is a simple summed-out group as margRecomputeAll reads it: its entries
// p[pOff : pOff+values] and its cached (not live) elements cacheElems[lo:hi]; full
// when every element reads a coordinate at every value (lim ≥ values).
type cacheGroup struct {
	pOff, values, lo, hi int32
	full                 bool
}

// cacheElem is a cached element of a simple group: at value v < lim it reads state
// coordinate j0 + v·jstep (simpleProd).
type cacheElem struct {
	j0, jstep, lim int32
}

// maxPositiveBits is the bit pattern of math.MaxFloat64: a float p is in (0,
// MaxFloat64] exactly when bits(p) − 1 ≤ maxPositiveBits − 1 (unsigned).
const maxPositiveBits = 0x7fefffffffffffff

// margRecomputeAll recomputes every entry of the product cache and records every
// coordinate as seen. Each entry is margEntry of its coordinates, computed group by
// group: the products of all values of a group are formed together, element by
// element, in element order (the same products in the same order, so the same bits),
// and an entry with a coordinate outside (0, MaxFloat64] is 0 (margEntry returns 0
// at the first such coordinate; the product of the others does not matter).
func (s *scorer) margRecomputeAll() {
	m, c, x := s.m, &s.mc, s.x
	b := entryBounds{lo: math.Inf(1)}
	for _, g := range m.cacheGroups {
		p := c.p[g.pOff : g.pOff+g.values]
		els := m.cacheElems[g.lo:g.hi]
		if len(p) == 3 && g.full {
			// Three values (three classes), unrolled; worst: per value the largest
			// bits(q) − 1 of its coordinates.
			p0, p1, p2 := 1.0, 1.0, 1.0
			var w0, w1, w2 uint64
			for _, el := range els {
				j, st := int(el.j0), int(el.jstep)
				q0, q1, q2 := x[j], x[j+st], x[j+2*st]
				p0 *= q0
				p1 *= q1
				p2 *= q2
				w0 = max(w0, math.Float64bits(q0)-1)
				w1 = max(w1, math.Float64bits(q1)-1)
				w2 = max(w2, math.Float64bits(q2)-1)
			}
			e0, e1, e2 := cachedEntry(p0, w0), cachedEntry(p1, w1), cachedEntry(p2, w2)
			p[0], p[1], p[2] = e0, e1, e2
			b.add(e0)
			b.add(e1)
			b.add(e2)
			continue
		}
		for v := range p {
			prod, worst := 1.0, uint64(0)
			for _, el := range els {
				if v >= int(el.lim) {
					worst = math.MaxUint64 // the element makes the product 0
					break
				}
				q := x[int(el.j0)+v*int(el.jstep)]
				prod *= q
				worst = max(worst, math.Float64bits(q)-1)
			}
			p[v] = cachedEntry(prod, worst)
			b.add(p[v])
		}
	}
	c.lo, c.hi, c.nan, c.bounded = b.lo, b.hi, b.nan, true
	for r, j := range m.readCoord {
		c.seen[r] = x[j]
	}
}

// entryBounds accumulates margBounds's bounds of product-cache entries (0, NaN or
// positive): the least and largest positive entry (+Inf and 0 before any) and
// whether one is NaN.
type entryBounds struct {
	lo, hi float64
	nan    bool
}

func (b *entryBounds) add(e float64) {
	switch {
	case e > 0:
		if e < b.lo {
			b.lo = e
		}
		if e > b.hi {
			b.hi = e
		}
	case e != 0:
		b.nan = true
	}
}

// cachedEntry is margEntry's result for the product prod of coordinates whose
// largest bits(q) − 1 is worst: 0 when one of them is outside (0, MaxFloat64], else
// prod, or NaN when prod is outside [prodMin, prodMax].
func cachedEntry(prod float64, worst uint64) float64 {
	if worst > maxPositiveBits-1 {
		return 0
	}
	if !prodOK(prod) {
		return math.NaN()
	}
	return prod
}

// nextSync starts a margSync that recomputes entries: entries whose done is
// syncs are those it has recomputed. On the wrap of the counter every stamp is
// cleared.
func (s *scorer) nextSync() {
	c := &s.mc
	c.syncs++
	if c.syncs == 0 {
		clear(c.done)
		c.syncs = 1
	}
}

// margEntry returns the product of the state coordinates coords (an entry of the
// product cache: its group's elements at its value without the live ones, in
// element order); NaN when it is neither 0 nor in [prodMin, prodMax], so that
// margSum's check of the full product sends the group to margLSE.
func (s *scorer) margEntry(coords []int32) float64 {
	x := s.x
	prod := 1.0
	for _, j := range coords {
		if j < 0 {
			return 0
		}
		if p := x[j]; p > 0 && p <= math.MaxFloat64 {
			prod *= p
		} else {
			return 0
		}
	}
	if !prodOK(prod) {
		return math.NaN() // sends the groups that read it to margLSE
	}
	return prod
}

// markChanged compares the coordinates xs with their seen values (readCoord
// r0, r0+1, …), records the changed ones and recomputes the entries that read
// them, each once per sync.
func (s *scorer) markChanged(r0 int, xs, seen []float64) {
	m, c := s.m, &s.mc
	seen = seen[:len(xs)]
	cp, done, sync := c.p, c.done, c.syncs
	for t, v := range xs {
		if math.Float64bits(v) == math.Float64bits(seen[t]) {
			continue
		}
		seen[t] = v
		c.bounded = false
		r := r0 + t
		pack := m.readPack[m.readStart[r]:m.readStart[r+1]]
		for len(pack) > 0 {
			e, n := pack[0], int(pack[1])
			coords := pack[2 : 2+n]
			pack = pack[2+n:]
			if done[e] == sync {
				continue
			}
			done[e] = sync
			cp[e] = s.margEntry(coords)
		}
	}
}

var _ nmc.ValuesWeigher = (*scorer)(nil)

// WeighValues writes the conditional weights of the summed-out sites (nmc.ValuesWeigher)
// from the product cache: for a simple group, w_v = P_v, its cached product at v
// times its live elements at v, the probability whose log Score gives for the site
// at v (up to rounding: Score sums logs). ok[n] is false for a site that is not
// summed out, whose group is not simple, or whose weights are not all finite and
// within [prodMin, prodMax] or 0 with one at least > 0 (the sampler then scores
// its values).
//
// When the simple groups share one live element (a mixture's weights) and the
// product cache's bounds prove every product in range (productsInRange), a group's
// weights are its cached products times that element's values, without
// groupWeights's checks (which would all pass): the same products.
func (s *scorer) WeighValues(x []float64, sites []int, dst []float64, ok []bool) {
	m := s.m
	s.x, s.active, s.orbit = x, -1, nil
	s.newCall()
	synced, inRange := false, false
	var t []float64
	for n, i := range sites {
		ok[n] = false
		ref := m.weighRefs[i]
		nv := int(ref.nv)
		w := dst[:nv]
		dst = dst[nv:]
		if ref.pOff < 0 {
			continue
		}
		if !synced {
			s.margSync()
			synced = true
			if len(m.sharedLive) == 1 {
				t = s.sharedTable()
				lo, hi, fine := s.margBounds()
				inRange = fine && productsInRange(lo, hi, t)
			}
		}
		if !inRange {
			ok[n] = s.groupWeights(&m.marg[m.margIdx[i]], w)
			continue
		}
		cp := s.mc.p[ref.pOff : int(ref.pOff)+nv]
		if nv == 3 {
			w = w[:3:3]
			w[0], w[1], w[2] = cp[0]*t[0], cp[1]*t[1], cp[2]*t[2]
			ok[n] = w[0] > 0 || w[1] > 0 || w[2] > 0
			continue
		}
		any := false
		for v, p := range cp {
			w[v] = p * t[v]
			any = any || w[v] > 0
		}
		ok[n] = any
	}
}

// weighRef is what WeighValues reads of a site: its number of values nv and, when
// it is summed out with a simple group of nv values, the group's entries in the
// product cache from pOff (−1 otherwise: the site is refused).
type weighRef struct {
	pOff, nv int32
}

// compileWeighRefs fills Model.weighRefs (after compileMarginalCache).
func (m *Model) compileWeighRefs() {
	m.weighRefs = make([]weighRef, len(m.sites))
	for i := range m.sites {
		r := weighRef{pOff: -1, nv: int32(m.sites[i].NumValues)}
		if m.margIdx != nil && m.margIdx[i] >= 0 {
			if g := &m.marg[m.margIdx[i]]; g.simple && g.values == m.sites[i].NumValues {
				r.pOff = g.pOff
			}
		}
		m.weighRefs[i] = r
	}
}

// sharedTable returns the values of the one shared live element (Model.sharedLive)
// at v = 0 … sharedValues−1, 0 where groupWeights and margSum set P_v to 0: v past
// its limit or a value outside (0, MaxFloat64]. (Times a finite entry ≥ 0, the 0
// gives the 0 they set.)
func (s *scorer) sharedTable() []float64 {
	return s.liveTable(s.m.sharedLive, s.m.sharedValues)
}

// liveTable returns margSum's table of the live elements shared: tab[e·tn + v] the
// value of element e at v, or 0 where margSum's loop sets P_v to 0.
func (s *scorer) liveTable(shared []simpleProd, tn int) []float64 {
	x := s.x
	if cap(s.liveTab) < len(shared)*tn {
		s.liveTab = make([]float64, len(shared)*tn)
	}
	tab := s.liveTab[:len(shared)*tn]
	for e, pe := range shared {
		for v := range tn {
			q := 0.0
			if v < int(pe.lim) {
				if q = x[int(pe.j0)+v*int(pe.jstep)]; !(q > 0 && q <= math.MaxFloat64) {
					q = 0
				}
			}
			tab[e*tn+v] = q
		}
	}
	return tab
}

// groupWeights writes into w the products P_v of the simple group g (its cached
// product times its live elements, as margSum multiplies them) and reports whether
// they are all 0 or in [prodMin, prodMax], at least one not 0.
func (s *scorer) groupWeights(g *margGroup, w []float64) bool {
	x, cp := s.x, s.mc.p[g.pOff:int(g.pOff)+len(w)]
	live := s.m.liveProd[g.liveLo:g.liveHi]
	any := false
	for v := range w {
		p := cp[v] // NaN when out of range
		for _, pe := range live {
			if v >= int(pe.lim) {
				p = 0
				break
			}
			if q := x[int(pe.j0)+v*int(pe.jstep)]; q > 0 && q <= math.MaxFloat64 {
				p *= q
			} else {
				p = 0
				break
			}
		}
		if p != 0 && !(p >= prodMin && p <= prodMax) {
			return false
		}
		any = any || p > 0
		w[v] = p
	}
	return any
}
