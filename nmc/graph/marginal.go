package graph

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/nmc-go/nmc/internal/simplexfit"
	"github.com/nmc-go/nmc/nmc"
)

// maxMarginalValues bounds the number of values of a site that can be summed out:
// every score through it evaluates its blanket once per value.
const maxMarginalValues = 1 << 12

// Marginalise sums the finite discrete latent n (a family declared with Latent, such
// as the classes of a mixture) out of the model. For each of its sites z_i, the
// factor elements that depend on z_i — its own prior and everything it is a parent
// of, its Markov blanket's factors — are replaced, in the scores of every other site
// and in the log joint, by
//
//	log Σ_v exp(a_iv),  a_iv = the summed log density of those elements at z_i = v,
//
// with exact gradients and Hessians through the responsibilities r_iv =
// softmax(a_i)_v: ∇ = Σ_v r_iv ∇a_iv and ∇² = Σ_v r_iv (∇²a_iv + ∇a_iv ∇a_ivᵀ) − ḡḡᵀ,
// ḡ the gradient. The sites are nmc.Site.Marginalised: the sampler takes them out of
// the sweep and draws each from its exact conditional after every sweep, so they are
// still recorded in every draw. Summing out removes the slow direction between the
// latent and its parents (a mixture's weights against its classes) at the cost of
// evaluating each blanket once per value.
//
// The Dirichlet proposer of a simplex site fits its concentration from the Hessian
// alone, which is exact for a Dirichlet conditional but not for a marginal
// likelihood; the Hessian of a simplex site whose score reads a summed-out latent is
// therefore reported steered (internal/simplexfit): equal along the simplex, with the
// gradient and the tangent Hessian exact.
//
// LogJoint is the summed-out log joint; the pointwise log-likelihoods (LogLik,
// PointwiseLogLik) stay those of each observed element at the recorded state, the
// drawn latent included.
//
// Build refuses a node that is not a latent family, a family with a continuous or an
// unbounded discrete prior (more than 4096 values included), a family summed out
// twice, and two summed-out sites that share a factor element (their sums would not
// be independent), naming the latent and the element.
func (b *Builder) Marginalise(n *Node) {
	if _, err := latentOf("Marginalise", n); err != nil {
		b.fail(err)
		return
	}
	if n.fam.vector {
		b.fail(fmt.Errorf("graph: Marginalise %q: a Vector site is continuous; only a finite discrete latent can be summed out", n.fam.name))
		return
	}
	if err := appendOnce(&b.margs, n.fam, "Marginalise", "summed out"); err != nil {
		b.fail(err)
	}
}

// margGroup is the Markov blanket of one summed-out site: the factor elements that
// depend on it, scored together for each of its values.
type margGroup struct {
	site   int     // the summed-out site
	values int     // its number of values
	elems  []entry // factor elements that depend on it (its prior first), in factor order
	// prod, when every element is a Categorical selection (catSel) that reads the
	// site once, holds them for margProduct; nil otherwise.
	prod []prodElem
	// simple: every element of prod is simple; they are then also
	// Model.simpleProd[lo:hi], contiguous, for margSimple.
	simple bool
	lo, hi int32
	pOff   int32 // its values' entries in the scorer's product cache (margCache)
	// liveLo, liveHi: its elements that read the same site at every value (sstep = 0:
	// its own prior, the mixture weights), Model.liveProd[liveLo:liveHi]. They are
	// left out of the cached products and multiplied in at each read, so that a
	// change of the weights does not make every cached product stale.
	liveLo, liveHi int32
}

// simpleProd is how a simple prodElem reads the state (see prodElem), kept in
// compact form for margSum.
type simpleProd struct {
	lim, j0, jstep          int32
	site0, sstep, c0, cstep int32
}

// selecting returns the values v in [lo, hi) of a group with nv values at which the
// element selects site: every value below its limit when it reads the same site at
// each (its own prior, sstep = 0), else the one v with site0 + v·sstep = site; ok is
// false when there is none.
func (pe *simpleProd) selecting(site, nv int) (lo, hi int, ok bool) {
	lo, hi = 0, min(nv, int(pe.lim))
	d := site - int(pe.site0)
	if pe.sstep == 0 {
		return lo, hi, d == 0
	}
	if d < 0 || d%int(pe.sstep) != 0 {
		return 0, 0, false
	}
	lo = d / int(pe.sstep)
	return lo, min(hi, lo+1), true
}

// margPick is an element of a simple summed-out group that, at the group's value v,
// selects coordinate c of the site whose score lists it (state coordinate j).
type margPick struct {
	v, c, j int32
}

// sitePicks lists, for one site, the picks of each summed-out group its score reads:
// picks[refs[n].at:refs[n+1].at] for the group margOf[site][n], in the order
// margSimple would meet them scanning the group's elements (element order, then
// value), so that the derivative sums are added in the same order.
type sitePicks struct {
	refs  []margRef // one per group of margOf[site], and one past the end
	picks []margPick
	// dense: every group of refs is simple, with nv values and its product-cache
	// entries right after the previous group's (the classes of every item, read
	// by a mixture's weights and the log joint); uniform: every group's picks are
	// then the first group's (the weights' own coordinates), and diag: they are at
	// increasing values (margDiag's case). margSumDense scores such groups by
	// position, without reading refs.
	dense, uniform, diag bool
	nv                   int32
	// one, when every group of refs is simple and has exactly one pick (a confusion
	// row seen from the items its labeler labelled): per group, in refs order, what
	// margSumOne reads of it.
	one []margOne
}

// margOne is a simple group with one pick, for margSumOne: its product-cache entries
// pOff … pOff+values−1, and the pick's value v and coordinate c of the active site
// (state coordinate the site's offset + c).
type margOne struct {
	pOff, values, v, c int32
}

// setOne sets sp.one for the picks of site s at state offset off.
func (sp *sitePicks) setOne(off int) {
	sp.one = nil
	if len(sp.refs) < 2 {
		return
	}
	one := make([]margOne, 0, len(sp.refs)-1)
	for n, r := range sp.refs[:len(sp.refs)-1] {
		pk := sp.of(n)
		if r.pOff < 0 || len(pk) != 1 || int(pk[0].j) != off+int(pk[0].c) {
			return
		}
		one = append(one, margOne{pOff: r.pOff, values: r.values, v: pk[0].v, c: pk[0].c})
	}
	sp.one = one
}

// setDense sets the dense, uniform, diag and nv fields of sp from its refs and picks.
func (sp *sitePicks) setDense() {
	refs := sp.refs
	sp.dense, sp.uniform, sp.diag = false, false, false
	if len(refs) < 2 {
		return
	}
	r0 := refs[0]
	for n, r := range refs[:len(refs)-1] {
		if r.pOff < 0 || r.values != r0.values || r.pOff != r0.pOff+int32(n)*r0.values {
			return
		}
	}
	sp.dense, sp.nv = true, r0.values
	first := sp.of(0)
	for n := 1; n+1 < len(refs); n++ {
		if !slices.Equal(sp.of(n), first) {
			return
		}
	}
	sp.uniform = true
	sp.diag = len(first) >= 2
	for i := 1; i < len(first); i++ {
		sp.diag = sp.diag && first[i].v > first[i-1].v
	}
}

// margRef is what the score of a site needs of a summed-out group it reads, side by
// side in memory: the group, its first entry in the product cache (−1: not a simple
// group) and its number of values, and where its picks start.
type margRef struct {
	gi, pOff, values, at int32
	liveLo, liveHi       int32 // the group's live elements (Model.liveProd)
}

// ref returns the margRef of simple group gi (at unset).
func (m *Model) ref(gi int) margRef {
	g := &m.marg[gi]
	return margRef{gi: int32(gi), pOff: g.pOff, values: int32(g.values), liveLo: g.liveLo, liveHi: g.liveHi}
}

// of returns the picks of the n-th group of the site.
func (sp *sitePicks) of(n int) []margPick {
	return sp.picks[sp.refs[n].at:sp.refs[n+1].at]
}

// compileMarginalPicks fills Model.margPicks: for every continuous site and every
// simple group its score reads, the elements that select the site, at which value
// and coordinate. margSimple's derivative pass then visits only those instead of
// scanning every element of the group for each score.
func (m *Model) compileMarginalPicks() {
	if len(m.marg) == 0 {
		return
	}
	m.allRefs.refs = make([]margRef, 0, len(m.marg)+1)
	for gi := range m.marg {
		r := margRef{gi: int32(gi), pOff: -1, values: int32(m.marg[gi].values)}
		if m.marg[gi].simple {
			r = m.ref(gi)
		}
		m.allRefs.refs = append(m.allRefs.refs, r)
	}
	m.allRefs.refs = append(m.allRefs.refs, margRef{gi: -1, pOff: -1})
	m.allRefs.setDense()
	m.margPicks = make([]sitePicks, len(m.sites))
	for s := range m.sites {
		gs := m.margOf[s]
		if len(gs) == 0 {
			continue
		}
		discrete := m.sites[s].Support == nmc.Discrete
		sp := &m.margPicks[s]
		sp.refs = make([]margRef, 0, len(gs)+1)
		for _, gi := range gs {
			g := &m.marg[gi]
			ref := margRef{gi: gi, pOff: -1, values: int32(g.values), at: int32(len(sp.picks))}
			if g.simple {
				ref = m.ref(int(gi))
				ref.at = int32(len(sp.picks))
			}
			sp.refs = append(sp.refs, ref)
			if !g.simple || discrete {
				continue
			}
			for _, pe := range m.simpleProd[g.lo:g.hi] {
				lo, hi, ok := pe.selecting(s, g.values)
				if !ok {
					continue
				}
				for v := lo; v < hi; v++ {
					sp.picks = append(sp.picks, margPick{v: int32(v), c: pe.c0 + int32(v)*pe.cstep, j: pe.j0 + int32(v)*pe.jstep})
				}
			}
		}
		sp.refs = append(sp.refs, margRef{gi: -1, pOff: -1, at: int32(len(sp.picks))})
		sp.setDense()
		sp.setOne(m.offsets[s])
	}
}

// prodElem is an element of a summed-out group scored by margProduct: its factor's
// selection, and how the group's site enters it — as the element's value (own: the
// site's prior), or as the index of one dimension of stride step.
type prodElem struct {
	sel  *catSel
	fi   int32
	e    int32
	own  bool
	step int32
	size int32 // the stepped dimension's size
	// simple: no other dimension is indexed by a latent, so that at value v < lim the
	// element reads state coordinate j0 + v·jstep, coordinate c0 + v·cstep of site
	// site0 + v·sstep.
	simple bool
	simpleProd
}

// compileMarginals makes the sites of the summed-out families Marginalised and
// moves the elements of their blankets out of every other site's blanket into one
// margGroup per site, listed in margOf of every site whose score reads them. It runs
// after the blankets are built and before they are split by value (groupBlankets)
// and joined into orbits.
func (m *Model) compileMarginals(fams []*family) error {
	m.margOf = make([][]int32, len(m.sites))
	if len(fams) == 0 {
		return nil
	}
	m.margIdx = make([]int32, len(m.sites))
	for s := range m.margIdx {
		m.margIdx[s] = -1
	}
	owner := make([][]int32, len(m.factors)) // per factor element: its group, or −1
	for _, f := range fams {
		for s := f.first; s < f.first+f.length; s++ {
			site := &m.sites[s]
			switch {
			case site.Support != nmc.Discrete:
				return fmt.Errorf("graph: Marginalise %q: its %s prior is not discrete; only a finite discrete latent can be summed out", f.name, f.d.fam.Name())
			case site.NumValues <= 0:
				return fmt.Errorf("graph: Marginalise %q: site %s has an unbounded support (%s prior); only a finite discrete latent can be summed out", f.name, site.Name, f.d.fam.Name())
			case site.NumValues > maxMarginalValues:
				return fmt.Errorf("graph: Marginalise %q: site %s has %d values, more than the %d that can be summed out", f.name, site.Name, site.NumValues, maxMarginalValues)
			}
			gi := int32(len(m.marg))
			g := margGroup{site: s, values: site.NumValues, elems: append([]entry(nil), m.blanket[s]...)}
			for _, en := range g.elems {
				if owner[en.f] == nil {
					owner[en.f] = make([]int32, m.factors[en.f].length)
					for e := range owner[en.f] {
						owner[en.f][e] = -1
					}
				}
				if o := owner[en.f][en.e]; o >= 0 {
					return fmt.Errorf("graph: Marginalise %q: %s element %d depends on both %s and %s; summed-out sites must not share a factor element", f.name, m.factorName(int(en.f)), en.e, m.sites[m.marg[o].site].Name, site.Name)
				}
				owner[en.f][en.e] = gi
			}
			site.Marginalised = true
			m.margIdx[s] = gi
			m.margAll = append(m.margAll, gi)
			m.marg = append(m.marg, g)
		}
	}
	m.inMarg = owner
	last := make([]int, len(m.marg)) // 1 + the last site that listed the group
	for s := range m.sites {
		if m.sites[s].Marginalised {
			continue // its own score is the explicit conditional it is drawn from
		}
		var keep []entry
		for _, en := range m.blanket[s] {
			if o := m.owner(en); o >= 0 {
				if last[o] != s+1 {
					last[o] = s + 1
					m.margOf[s] = append(m.margOf[s], int32(o))
				}
				continue
			}
			keep = append(keep, en)
		}
		m.blanket[s] = keep
	}
	return nil
}

// owner returns the summed-out group of factor element en, or −1.
func (m *Model) owner(en entry) int {
	if m.inMarg == nil || m.inMarg[en.f] == nil {
		return -1
	}
	return int(m.inMarg[en.f][en.e])
}

// factorName describes factor fi for messages: "the prior of z" or "observed y".
func (m *Model) factorName(fi int) string {
	fc := m.factors[fi]
	if fc.fam != nil {
		return fmt.Sprintf("the prior of %q", fc.name)
	}
	return fmt.Sprintf("observed %q", fc.name)
}

// marginalNeighbors adds to nb what the summed-out groups make every site's score
// read: every site that an element of a group read by site s depends on (the
// summed-out site itself excepted).
func (m *Model) marginalNeighbors(nb []map[int]struct{}) {
	if len(m.marg) == 0 {
		return
	}
	deps := make([][]int, len(m.marg))
	for gi, g := range m.marg {
		var d []int
		for _, en := range g.elems {
			fc := m.factors[en.f]
			if fc.fam != nil {
				d = addDep(d, fc.fam.site(int(en.e)))
			}
			for _, p := range fc.d.params {
				d = collectDeps(p, elem(p, int(en.e)), d)
			}
		}
		deps[gi] = d
	}
	for s, gs := range m.margOf {
		for _, gi := range gs {
			if nb[s] == nil {
				nb[s] = map[int]struct{}{}
			}
			for _, t := range deps[gi] {
				if t != m.marg[gi].site {
					nb[s][t] = struct{}{}
				}
			}
		}
	}
}

// compileMarginalProducts fills margGroup.prod for the groups whose elements are
// all Categorical selections reading the group's site once (after compileCatSels).
func (m *Model) compileMarginalProducts() {
	for gi := range m.marg {
		g := &m.marg[gi]
		var prod []prodElem
		for _, en := range g.elems {
			sel := m.sels[en.f]
			if sel == nil {
				prod = nil
				break
			}
			fc := m.factors[en.f]
			pe := prodElem{sel: sel, fi: en.f, e: en.e, own: fc.obs == nil && fc.fam.site(int(en.e)) == g.site}
			uses := 0
			if pe.own {
				uses++
			}
			for _, dm := range sel.dims {
				if int(dm.site[en.e]) == g.site {
					uses++
					pe.step, pe.size = int32(dm.stride), int32(dm.size)
				}
			}
			if uses != 1 {
				prod = nil
				break
			}
			if len(sel.dims) == btoi(!pe.own) && (pe.own || fc.obs != nil) {
				flat := int(sel.base[elem1(len(sel.base), int(en.e))])
				pe.simple = true
				if pe.own {
					pe.lim = int32(sel.k)
					pe.j0, pe.jstep = int32(sel.src.offset+flat*sel.k), 1
					pe.site0, pe.sstep, pe.c0, pe.cstep = int32(sel.src.site(flat)), 0, 0, 1
				} else {
					y := int(fc.obs[en.e]) // an integer in [0, k): checked by Build
					pe.lim = pe.size
					pe.j0, pe.jstep = int32(sel.src.offset+flat*sel.k+y), pe.step*int32(sel.k)
					pe.site0, pe.sstep, pe.c0, pe.cstep = int32(sel.src.site(flat)), pe.step, int32(y), 0
				}
			}
			prod = append(prod, pe)
		}
		g.prod = prod
		g.simple = prod != nil && g.values <= maxSimpleValues
		for _, pe := range prod {
			g.simple = g.simple && pe.simple
		}
		if g.simple {
			g.lo = int32(len(m.simpleProd))
			g.liveLo = int32(len(m.liveProd))
			for _, pe := range prod {
				sp := pe.simpleProd
				m.simpleProd = append(m.simpleProd, sp)
				if sp.sstep == 0 {
					m.liveProd = append(m.liveProd, sp)
				}
			}
			g.hi = int32(len(m.simpleProd))
			g.liveHi = int32(len(m.liveProd))
		}
	}
	m.compileMarginalCache()
	m.compileWeighRefs()
	m.compileMarginalPicks()
	m.compileSharedLive()
}

// compileSharedLive sets Model.sharedLive when every simple group has the same live
// elements (the mixture weights every item's class reads): margSum then reads their
// values once per call instead of once per group.
func (m *Model) compileSharedLive() {
	var first []simpleProd
	maxValues := 0
	for gi := range m.marg {
		g := &m.marg[gi]
		if !g.simple {
			continue
		}
		live := m.liveProd[g.liveLo:g.liveHi]
		switch {
		case first == nil && len(live) > 0:
			first = live
		case len(live) == 0 || !slices.Equal(live, first):
			return
		}
		maxValues = max(maxValues, g.values)
	}
	m.sharedLive, m.sharedValues = first, maxValues
}

// compileMarginalCache lays out the scorers' product cache (margCache): one entry
// per value of every simple group, and per state coordinate the entries whose
// product reads it.
func (m *Model) compileMarginalCache() {
	var byCoord [][]int32
	n := int32(0)
	for gi := range m.marg {
		g := &m.marg[gi]
		if !g.simple {
			continue
		}
		g.pOff = n
		for _, pe := range m.simpleProd[g.lo:g.hi] {
			if pe.sstep == 0 {
				continue // live: not in the cached product
			}
			for v := 0; v < g.values && v < int(pe.lim); v++ {
				j := int(pe.j0) + v*int(pe.jstep)
				if byCoord == nil {
					byCoord = make([][]int32, m.dim)
				}
				if l := byCoord[j]; len(l) == 0 || l[len(l)-1] != n+int32(v) {
					byCoord[j] = append(byCoord[j], n+int32(v))
				}
			}
		}
		cg := cacheGroup{pOff: n, values: int32(g.values), lo: int32(len(m.cacheElems)), full: true}
		for _, pe := range m.simpleProd[g.lo:g.hi] {
			if pe.sstep != 0 {
				m.cacheElems = append(m.cacheElems, cacheElem{j0: pe.j0, jstep: pe.jstep, lim: pe.lim})
				cg.full = cg.full && int(pe.lim) >= g.values
			}
		}
		cg.hi = int32(len(m.cacheElems))
		m.cacheGroups = append(m.cacheGroups, cg)
		for v := 0; v < g.values; v++ {
			m.pGroup = append(m.pGroup, int32(gi))
			m.entryStart = append(m.entryStart, int32(len(m.entryCoord)))
			for _, pe := range m.simpleProd[g.lo:g.hi] {
				switch {
				case pe.sstep == 0:
				case v >= int(pe.lim):
					m.entryCoord = append(m.entryCoord, -1) // the product is 0
				default:
					m.entryCoord = append(m.entryCoord, pe.j0+int32(v)*pe.jstep)
				}
			}
		}
		n += int32(g.values)
	}
	// margRecomputeAll visits the groups by their number of elements (each writes
	// only its own entries, so the order does not matter): runs of groups whose
	// loops take the same number of steps.
	slices.SortStableFunc(m.cacheGroups, func(a, b cacheGroup) int { return int(a.hi-a.lo) - int(b.hi-b.lo) })
	for j, l := range byCoord {
		if len(l) == 0 {
			continue
		}
		m.readCoord = append(m.readCoord, int32(j))
	}
	m.entryStart = append(m.entryStart, int32(len(m.entryCoord)))
	for _, j := range m.readCoord {
		m.readStart = append(m.readStart, int32(len(m.readPack)))
		for _, e := range byCoord[j] {
			coords := m.entryCoord[m.entryStart[e]:m.entryStart[e+1]]
			m.readPack = append(m.readPack, e, int32(len(coords)))
			m.readPack = append(m.readPack, coords...)
		}
	}
	m.readStart = append(m.readStart, int32(len(m.readPack)))
	for r, j := range m.readCoord {
		if n := len(m.readRuns); n > 0 && m.readRuns[n-1].j+m.readRuns[n-1].n == j {
			m.readRuns[n-1].n++
			continue
		}
		m.readRuns = append(m.readRuns, readRun{r: int32(r), j: j, n: 1})
	}
}

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

// readRun is a run of consecutive state coordinates j … j+n−1 read by the product
// cache, readCoord[r : r+n].
type readRun struct {
	r, j, n int32
}

// margDerivs adds to s.grad and s.hess the derivatives of log Σ_v P_v of a simple
// summed-out group (margSum) through the responsibilities P_v / sum, from its
// products prod (P_v) and picks, the group's elements that select the active site
// (sitePicks), with the arithmetic of margProduct in the same order.
func (s *scorer) margDerivs(prod []float64, sum float64, picks []margPick) {
	nv, k, x := len(prod), s.k, s.x
	if len(s.margG) < nv*k {
		s.margG, s.margH = make([]float64, nv*k), make([]float64, nv*k*k)
		s.margBar = make([]float64, k)
	}
	if s.margDiag(prod, sum, picks) {
		return
	}
	gs, hd := s.margG[:nv*k], s.margH[:nv*k]
	var touched uint64 // values whose gradient is not zero (cleared below)
	for _, pk := range picks {
		v := int(pk.v)
		if prod[v] == 0 {
			continue
		}
		if touched&(1<<v) == 0 {
			touched |= 1 << v
			for a := v * k; a < (v+1)*k; a++ {
				gs[a], hd[a] = 0, 0
			}
		}
		p := x[pk.j]
		gs[v*k+int(pk.c)] += 1 / p
		hd[v*k+int(pk.c)] -= 1 / (p * p)
	}
	if touched == 0 {
		return
	}
	inv := 1 / sum
	if touched&(touched-1) == 0 {
		// One value v reads the active site (a confusion row seen from an item): with
		// r = r_v and g = ∇log P_v, the gradient is r·g and the Hessian
		// r·∇²log P_v + r(1 − r)·g gᵀ, over the non-zero entries of g only.
		v := bits.TrailingZeros64(touched)
		r := prod[v] * inv
		w := r * (1 - r)
		gv, hv := gs[v*k:(v+1)*k], hd[v*k:(v+1)*k]
		for a, ga := range gv {
			if ga == 0 && hv[a] == 0 {
				continue
			}
			s.grad[a] += r * ga
			s.hess[a*k+a] += r * hv[a]
			if ga == 0 {
				continue
			}
			for b, gb := range gv {
				if gb != 0 {
					s.hess[a*k+b] += w * ga * gb
				}
			}
		}
		return
	}
	bar := s.margBar[:k]
	clear(bar)
	for v, p := range prod {
		if touched&(1<<v) == 0 {
			continue
		}
		s.addResponsibility(p*inv, gs[v*k:(v+1)*k], hd[v*k:(v+1)*k], bar)
	}
	for a := 0; a < k; a++ {
		if bar[a] == 0 {
			continue
		}
		for b := 0; b < k; b++ {
			s.hess[a*k+b] -= bar[a] * bar[b]
		}
	}
	return
}

// addResponsibility adds value v's terms of the derivatives of log Σ_v P_v to
// s.grad and s.hess, with r = P_v / Σ P its responsibility, gv = ∇log P_v and hv
// the diagonal of ∇²log P_v (log P_v is a sum of logs of single coordinates):
// r·gv to the gradient, r·hv + r·gv gvᵀ to the Hessian, and r·gv to bar (Σ_v r_v
// ∇log P_v, whose outer product the caller subtracts), over the entries where gv or
// hv is not zero.
func (s *scorer) addResponsibility(r float64, gv, hv, bar []float64) {
	k := len(gv)
	for a := 0; a < k; a++ {
		if gv[a] == 0 && hv[a] == 0 {
			continue
		}
		s.grad[a] += r * gv[a]
		bar[a] += r * gv[a]
		s.hess[a*k+a] += r * hv[a]
		ra := r * gv[a]
		for b := 0; b < k; b++ {
			s.hess[a*k+b] += ra * gv[b]
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// maxSimpleValues bounds the values of a simple group (margDerivs keeps them in a
// bit set).
const maxSimpleValues = 64

// Products of probabilities outside [prodMin, prodMax] are left to the log domain.
const (
	prodMin = 1e-250
	prodMax = 1e250
)

// margProduct is margLSE for a group of Categorical selections, in the probability
// domain: P_v = Π_e p_e(v) (the selected probability of each element at value v),
// log Σ_v P_v, responsibilities P_v / Σ P, and, for the active site, each element's
// ∂ log p = 1/p and ∂² = −1/p² in the coordinate it selects. Every call computes
// from the state (nothing is cached), so it cannot be stale. It reports false, having
// changed nothing, when a product leaves [prodMin, prodMax] (margLSE then works with
// logs).
func (s *scorer) margProduct(g *margGroup, deriv bool) (float64, bool) {
	nv, k := g.values, s.k
	if cap(s.margA) < nv {
		s.margA = make([]float64, nv)
	}
	prod := s.margA[:nv]
	for v := range prod {
		prod[v] = 1
	}
	x := s.x
	for pi := range g.prod {
		pe := &g.prod[pi]
		if pe.simple {
			j := int(pe.j0)
			for v := range prod {
				if v >= int(pe.lim) {
					prod[v] = 0
					continue
				}
				p := x[j]
				j += int(pe.jstep)
				if p > 0 && p <= math.MaxFloat64 {
					prod[v] *= p
				} else {
					prod[v] = 0
				}
			}
			continue
		}
		sel, e := pe.sel, int(pe.e)
		flat := int(sel.base[elem1(len(sel.base), e)])
		dead := false
		for d := range sel.dims {
			dm := &sel.dims[d]
			if int(dm.site[e]) == g.site {
				continue
			}
			v := s.siteValue(int(dm.site[e]))
			if !(v >= 0 && v < float64(dm.size)) || v != math.Trunc(v) {
				dead = true
				break
			}
			flat += dm.stride * int(v)
		}
		y := 0
		if !pe.own {
			yv := s.selValue(s.m.factors[pe.fi], e)
			if !(yv >= 0 && yv < float64(sel.k)) || yv != math.Trunc(yv) {
				dead = true
			}
			y = int(yv)
		}
		for v := range prod {
			f, c := flat, y
			if pe.own {
				c = v
				if v >= sel.k {
					prod[v] = 0
					continue
				}
			} else {
				if v >= int(pe.size) {
					prod[v] = 0
					continue
				}
				f += int(pe.step) * v
			}
			if dead {
				prod[v] = 0
				continue
			}
			p := s.x[sel.src.offset+f*sel.k+c]
			if !(p > 0) || math.IsInf(p, 1) {
				prod[v] = 0
				continue
			}
			prod[v] *= p
		}
	}
	sum := 0.0
	for _, p := range prod {
		if p != 0 && !(p >= prodMin && p <= prodMax) {
			return 0, false
		}
		sum += p
	}
	if sum == 0 {
		return math.Inf(-1), true
	}
	if !(sum >= prodMin && sum <= prodMax) {
		return 0, false
	}
	lse := math.Log(sum)
	if !deriv || s.active < 0 {
		return lse, true
	}
	// Derivatives: per value, the gradient and the diagonal Hessian of log P_v in the
	// active site's coordinates (only elements selecting the active site add).
	if len(s.margG) < nv*k {
		s.margG, s.margH = make([]float64, nv*k), make([]float64, nv*k*k)
		s.margBar = make([]float64, k)
	}
	gs, hd := s.margG[:nv*k], s.margH[:nv*k]
	clear(gs)
	clear(hd)
	touched := false
	for pi := range g.prod {
		pe := &g.prod[pi]
		if pe.simple {
			lo, hi, ok := pe.selecting(s.active, nv)
			if !ok {
				continue
			}
			for v := lo; v < hi; v++ {
				if prod[v] == 0 {
					continue
				}
				c := int(pe.c0) + v*int(pe.cstep)
				p := x[int(pe.j0)+v*int(pe.jstep)]
				gs[v*k+c] += 1 / p
				hd[v*k+c] -= 1 / (p * p)
				touched = true
			}
			continue
		}
		sel, e := pe.sel, int(pe.e)
		flat := int(sel.base[elem1(len(sel.base), e)])
		for d := range sel.dims {
			dm := &sel.dims[d]
			if int(dm.site[e]) != g.site {
				flat += dm.stride * int(s.siteValue(int(dm.site[e])))
			}
		}
		for v := range prod {
			if prod[v] == 0 {
				continue
			}
			f, c := flat, 0
			if pe.own {
				c = v
			} else {
				f += int(pe.step) * v
				c = int(s.selValue(s.m.factors[pe.fi], e))
			}
			if sel.src.site(f) != s.active {
				continue
			}
			p := s.x[sel.src.offset+f*sel.k+c]
			gs[v*k+c] += 1 / p
			hd[v*k+c] -= 1 / (p * p)
			touched = true
		}
	}
	if !touched {
		return lse, true
	}
	bar := s.margBar[:k]
	clear(bar)
	inv := 1 / sum
	for v, p := range prod {
		r := p * inv
		if r == 0 {
			continue
		}
		s.addResponsibility(r, gs[v*k:(v+1)*k], hd[v*k:(v+1)*k], bar)
	}
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			s.hess[a*k+b] -= bar[a] * bar[b]
		}
	}
	return lse, true
}

// margLSE returns log Σ_v exp(a_v) for summed-out group gi, a_v the summed log
// density of its elements with its site at value v, and with deriv adds the
// derivatives with respect to the active coordinates through the responsibilities
// to s.grad and s.hess; picks are the group's elements that select the active site
// (sitePicks; read only by a simple group's derivatives). Row batches must be
// flushed before it is called.
func (s *scorer) margLSE(gi int, deriv bool, picks []margPick) float64 {
	g := &s.m.marg[gi]
	if g.prod != nil && s.orbit == nil && s.fixSite == 0 {
		if f, ok := s.margProduct(g, deriv); ok {
			return f
		}
	}
	nv, k := g.values, s.k
	if cap(s.margA) < nv {
		s.margA = make([]float64, nv)
	}
	a := s.margA[:nv]
	if deriv && len(s.margG) < nv*k {
		s.margG, s.margH = make([]float64, nv*k), make([]float64, nv*k*k)
		s.margBar = make([]float64, k)
	}
	grad, hess := s.grad, s.hess
	top := math.Inf(-1)
	for v := range a {
		s.fix(g.site+1, float64(v))
		if deriv {
			s.grad, s.hess = s.margG[v*k:(v+1)*k], s.margH[v*k*k:(v+1)*k*k]
			clear(s.grad)
			clear(s.hess)
		}
		t := 0.0
		for _, en := range g.elems {
			t += s.factorElem(int(en.f), int(en.e), deriv, false)
			if math.IsInf(t, -1) || math.IsNaN(t) {
				break
			}
		}
		if deriv {
			if math.IsInf(t, -1) || math.IsNaN(t) {
				s.resetBatches()
			} else {
				s.flushBatches()
			}
		}
		a[v] = t
		if math.IsNaN(t) {
			top = t
		} else if !math.IsNaN(top) {
			top = max(top, t)
		}
	}
	s.fix(0, 0)
	s.grad, s.hess = grad, hess
	if math.IsNaN(top) || math.IsInf(top, -1) {
		return top
	}
	sum := 0.0
	for v, t := range a {
		a[v] = math.Exp(t - top)
		sum += a[v]
	}
	lse := top + math.Log(sum)
	if !deriv {
		return lse
	}
	// a now holds the unnormalised responsibilities.
	bar := s.margBar[:k]
	clear(bar)
	inv := 1 / sum
	for v, w := range a {
		r := w * inv
		if r == 0 {
			continue
		}
		gv, hv := s.margG[v*k:(v+1)*k], s.margH[v*k*k:(v+1)*k*k]
		for p := 0; p < k; p++ {
			s.grad[p] += r * gv[p]
			bar[p] += r * gv[p]
			c := r * gv[p]
			hp, vp := s.hess[p*k:(p+1)*k], hv[p*k:(p+1)*k]
			for q := 0; q < k; q++ {
				hp[q] += r*vp[q] + c*gv[q]
			}
		}
	}
	for p := 0; p < k; p++ {
		hp := s.hess[p*k : (p+1)*k]
		for q := 0; q < k; q++ {
			hp[q] -= bar[p] * bar[q]
		}
	}
	return lse
}

// margDiag is margDerivs when the picks are at increasing values (one per value: the
// group's own prior seen from the weights) and at least two of those values have
// P_v > 0: each ∇log P_v then has one non-zero entry, and the general case below is
// done without its k×k loops over zeros, in the same order. It reports false,
// having done nothing, otherwise.
func (s *scorer) margDiag(prod []float64, sum float64, picks []margPick) bool {
	live := 0
	for i, pk := range picks {
		if i > 0 && pk.v <= picks[i-1].v {
			return false
		}
		if prod[pk.v] != 0 {
			live++
		}
	}
	if live < 2 {
		return false
	}
	k, x := s.k, s.x
	bar := s.margBar[:k]
	clear(bar)
	inv := 1 / sum
	for _, pk := range picks {
		v, c := int(pk.v), int(pk.c)
		if prod[v] == 0 {
			continue
		}
		p := x[pk.j]
		g, h := 1/p, -(1 / (p * p))
		r := prod[v] * inv
		s.grad[c] += r * g
		bar[c] += r * g
		s.hess[c*k+c] += r * h
		ra := r * g
		s.hess[c*k+c] += ra * g
	}
	for a := 0; a < k; a++ {
		if bar[a] == 0 {
			continue
		}
		for b := 0; b < k; b++ {
			s.hess[a*k+b] -= bar[a] * bar[b]
		}
	}
	return true
}

// prodOK reports whether p is 0 or in [prodMin, prodMax]. For +0 and the positive
// floats the bit patterns are ordered as the values, so one unsigned comparison
// decides the common cases; of the rest only −0 is 0.
func prodOK(p float64) bool {
	b := math.Float64bits(p)
	return b-prodMinBits <= prodMaxBits-prodMinBits || b == 0 || p == 0
}

// accOK reports whether acc is in [accMin, accMax], by one unsigned comparison of
// its bits (as prodOK).
func accOK(acc float64) bool {
	return math.Float64bits(acc)-accMinBits <= accMaxBits-accMinBits
}

// The bit patterns of accMin and accMax (TestAccBits checks them).
const (
	accMinBits = 0x358dee7a4ad4b81f
	accMaxBits = 0x4a511b0ec57e649a
)

// The bit patterns of prodMin and prodMax (TestProdBits checks them).
const (
	prodMinBits = 0x0c06e93f5da2824c
	prodMaxBits = 0x73d658e3ab795204
)

// Renormalisation bounds of margSum's running product: with a factor in [prodMin,
// prodMax] = [1e-250, 1e250] and the product in [1e-50, 1e50] before it, the new
// product stays a normal float.
const (
	accMin = 1e-50
	accMax = 1e50
)

// ln2 in two parts (as in package math's Log): e·ln2Hi is exact for |e| < 2^20.
const (
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
)

// margSum returns total plus log Σ_v exp(a_v) of every summed-out group in margs
// (margLSE), with deriv their derivatives; sp lists the groups of margs with the
// active site's picks (Model.margPicks, Model.allRefs), or is nil.
// Simple groups are scored here from the product cache, all in one loop: P_v is the
// cached product of the group at v (margEntry when stale) times its live elements,
// with the arithmetic of margProduct; the sums Σ_v P_v of all groups are multiplied
// together, as a fraction times a power of two (renormalised by math.Frexp when the
// product leaves [accMin, accMax]), and added with one log at the end, instead of
// one log per group: the same quantity to rounding, at a fraction of the cost (the
// log was a third of a Dawid-Skene sweep). A group with a product or a sum outside
// [prodMin, prodMax], and every group of an orbit score or of a score at a fixed
// value, goes through margLSE. It returns early with the first non-finite running
// total (−Inf or NaN), as a per-group sum would.
func (s *scorer) margSum(margs []int32, sp *sitePicks, deriv bool, total float64) float64 {
	if s.orbit != nil || s.fixSite != 0 || sp == nil {
		for _, gi := range margs {
			total += s.margLSE(int(gi), deriv, nil)
			if math.IsInf(total, -1) || math.IsNaN(total) {
				return total
			}
		}
		return total
	}
	refs, all := sp.refs, sp.picks
	s.margSync()
	x, cp, liveProd := s.x, s.mc.p, s.m.liveProd
	var buf [maxSimpleValues]float64
	// With live elements shared by every simple group, tab[e·nv + v] holds the value
	// of live element e at v, or 0 where the per-group loop below would set P_v to 0
	// (the same products: p·0 = 0 for the finite p ≥ 0 that reach it).
	shared, tn := s.m.sharedLive, s.m.sharedValues
	var tab []float64
	if shared != nil {
		tab = s.liveTable(shared, tn)
	}
	if len(shared) == 1 {
		if sp.dense && sp.uniform {
			return s.margSumDense(sp, tab, deriv, total)
		}
		if sp.one != nil && deriv && s.active >= 0 {
			return s.margSumOne(sp, tab, total)
		}
		return s.margSumLive1(refs, all, tab, deriv, total)
	}
	acc, expo := 1.0, 0
	for n := 0; n+1 < len(refs); n++ {
		r := &refs[n]
		pk := all[r.at:refs[n+1].at]
		if r.pOff >= 0 {
			nv, pOff := int(r.values), int(r.pOff)
			prod := buf[:nv]
			live := liveProd[r.liveLo:r.liveHi]
			sum, ok := 0.0, true
			for v := range prod {
				p := cp[pOff+v] // NaN when out of range
				if tab != nil {
					for e := range shared {
						p *= tab[e*tn+v]
					}
					live = nil
				}
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
					ok = false
					break
				}
				prod[v] = p
				sum += p
			}
			if ok && (sum == 0 || sum >= prodMin && sum <= prodMax) {
				if sum == 0 {
					return math.Inf(-1)
				}
				switch {
				case !deriv || s.active < 0 || len(pk) == 0:
				case len(pk) == 1 && prod[pk[0].v] != 0:
					// One element selects the active site, at one value v and
					// coordinate c (a label seen from its labeler's confusion row):
					// margDerivs's one-value case with one non-zero entry, the same
					// arithmetic.
					v, c, k := int(pk[0].v), int(pk[0].c), s.k
					p := x[pk[0].j]
					ga, ha := 1/p, -(1 / (p * p))
					inv := 1 / sum
					r := prod[v] * inv
					w := r * (1 - r)
					s.grad[c] += r * ga
					s.hess[c*k+c] += r * ha
					s.hess[c*k+c] += w * ga * ga
				default:
					s.margDerivs(prod, sum, pk)
				}
				acc *= sum
				if !(acc >= accMin && acc <= accMax) {
					frac, e := math.Frexp(acc)
					acc, expo = frac, expo+e
				}
				continue
			}
		}
		total += s.margLSE(int(r.gi), deriv, pk)
		if math.IsInf(total, -1) || math.IsNaN(total) {
			return total
		}
	}
	return addLogScaled(total, acc, expo)
}

// margSumLive1 is margSum's loop over the groups refs (with their picks all) when
// the simple groups share one live element (a mixture's weights), whose value at v
// is t[v] (0 where margSum's loop sets P_v to 0): P_v = cached product · t[v], with
// the arithmetic of margSum in the same order, so that the results are the same bit
// for bit; only the bookkeeping per group is leaner.
func (s *scorer) margSumLive1(refs []margRef, all []margPick, t []float64, deriv bool, total float64) float64 {
	x, cp := s.x, s.mc.p
	var buf [maxSimpleValues]float64
	derivs := deriv && s.active >= 0
	k := s.k
	acc, expo := 1.0, 0
	for n := 0; n+1 < len(refs); n++ {
		r := &refs[n]
		at, end := r.at, refs[n+1].at
		if r.pOff >= 0 {
			nv, pOff := int(r.values), int(r.pOff)
			cs, ts := cp[pOff:pOff+nv], t[:nv]
			prod := buf[:nv]
			sum, ok := 0.0, true
			for v, p := range cs {
				p *= ts[v] // NaN when out of range
				if !prodOK(p) {
					ok = false
					break
				}
				prod[v] = p
				sum += p
			}
			if ok && prodOK(sum) {
				if sum == 0 {
					return math.Inf(-1)
				}
				if derivs && end > at {
					pk := all[at:end]
					if v := int(pk[0].v); len(pk) == 1 && prod[v] != 0 {
						// margSum's one-pick case, the same arithmetic.
						c := int(pk[0].c)
						p := x[pk[0].j]
						ga, ha := 1/p, -(1 / (p * p))
						inv := 1 / sum
						r := prod[v] * inv
						w := r * (1 - r)
						s.grad[c] += r * ga
						s.hess[c*k+c] += r * ha
						s.hess[c*k+c] += w * ga * ga
					} else {
						s.margDerivs(prod, sum, pk)
					}
				}
				acc *= sum
				if !accOK(acc) {
					frac, e := math.Frexp(acc)
					acc, expo = frac, expo+e
				}
				continue
			}
		}
		total += s.margLSE(int(r.gi), deriv, all[at:end])
		if math.IsInf(total, -1) || math.IsNaN(total) {
			return total
		}
	}
	return addLogScaled(total, acc, expo)
}

// margSumDense is margSumLive1 for dense groups with uniform picks (sitePicks): the
// groups' entries are read by position, and the derivatives of the picks' ∂log p =
// 1/p and ∂² = −1/p², the same for every group, are computed once. The arithmetic
// is margSumLive1's (and margDiag's) in the same order: the same results bit for bit.
func (s *scorer) margSumDense(sp *sitePicks, t []float64, deriv bool, total float64) float64 {
	refs := sp.refs
	ng, nv := len(refs)-1, int(sp.nv)
	base := int(refs[0].pOff)
	cp := s.mc.p[base : base+ng*nv]
	ts := t[:nv]
	k := s.k
	var pk []margPick
	var gh [2 * maxSimpleValues]float64 // per pick: 1/p, −1/p²
	if deriv && s.active >= 0 {
		pk = sp.picks[refs[0].at:refs[1].at]
		if len(pk) > maxSimpleValues {
			return s.margSumLive1(refs, sp.picks, t, deriv, total)
		}
		if len(s.margG) < nv*k {
			s.margG, s.margH = make([]float64, nv*k), make([]float64, nv*k*k)
			s.margBar = make([]float64, k)
		}
		for i, p := range pk {
			q := s.x[p.j]
			gh[2*i], gh[2*i+1] = 1/q, -(1 / (q * q))
		}
	}
	lo, hi, ok := s.margBounds()
	inRange := ok && productsInRange(lo, hi, ts)
	if len(pk) == 0 {
		return s.margSumDenseValue(sp, cp, ts, inRange, deriv, total)
	}
	if nv == 3 && k == 3 && len(pk) == 3 && sp.diag {
		tri := true
		for i, p := range pk {
			tri = tri && int(p.v) == i && int(p.c) == i
		}
		if tri {
			return s.margSumDense3(sp, cp, ts, &gh, inRange, total)
		}
	}
	var buf [maxSimpleValues]float64
	acc, expo := 1.0, 0
	for n := 0; n < ng; n++ {
		cs := cp[n*nv : (n+1)*nv]
		prod := buf[:nv]
		sum, ok := 0.0, true
		for v, p := range cs {
			p *= ts[v] // NaN when out of range
			if !prodOK(p) {
				ok = false
				break
			}
			prod[v] = p
			sum += p
		}
		if !ok || !prodOK(sum) {
			total += s.margLSE(int(refs[n].gi), deriv, sp.picks[refs[n].at:refs[n+1].at])
			if math.IsInf(total, -1) || math.IsNaN(total) {
				return total
			}
			continue
		}
		if sum == 0 {
			return math.Inf(-1)
		}
		switch {
		case len(pk) == 0:
		case len(pk) == 1 && prod[pk[0].v] != 0:
			v, c := int(pk[0].v), int(pk[0].c)
			ga, ha := gh[0], gh[1]
			inv := 1 / sum
			r := prod[v] * inv
			w := r * (1 - r)
			s.grad[c] += r * ga
			s.hess[c*k+c] += r * ha
			s.hess[c*k+c] += w * ga * ga
		case sp.diag && s.diagLive(prod, pk):
			bar := s.margBar[:k]
			clear(bar)
			inv := 1 / sum
			for i, p := range pk {
				v, c := int(p.v), int(p.c)
				if prod[v] == 0 {
					continue
				}
				g, h := gh[2*i], gh[2*i+1]
				r := prod[v] * inv
				s.grad[c] += r * g
				bar[c] += r * g
				s.hess[c*k+c] += r * h
				ra := r * g
				s.hess[c*k+c] += ra * g
			}
			for a := 0; a < k; a++ {
				if bar[a] == 0 {
					continue
				}
				for b := 0; b < k; b++ {
					s.hess[a*k+b] -= bar[a] * bar[b]
				}
			}
		default:
			s.margDerivs(prod, sum, pk)
		}
		acc *= sum
		if !accOK(acc) {
			frac, e := math.Frexp(acc)
			acc, expo = frac, expo+e
		}
	}
	return addLogScaled(total, acc, expo)
}

// margSumOne is margSumLive1 with derivatives for groups that each have one pick
// (sitePicks.one): the picks' 1/p and −1/p² are computed once per coordinate of the
// active site, and the groups are read from one compact list. The arithmetic is
// margSumLive1's in the same order: the same results bit for bit.
func (s *scorer) margSumOne(sp *sitePicks, t []float64, total float64) float64 {
	k := s.k
	var gInv, hInv [maxSimpleValues]float64
	if k > maxSimpleValues {
		return s.margSumLive1(sp.refs, sp.picks, t, true, total)
	}
	for c, p := range s.x[s.base : s.base+k] {
		gInv[c], hInv[c] = 1/p, -(1 / (p * p))
	}
	cp := s.mc.p
	grad, hess := s.grad[:k], s.hess[:k*k]
	acc, expo := 1.0, 0
	for n, o := range sp.one {
		nv, pOff := int(o.values), int(o.pOff)
		var sum, pv float64
		ok := true
		if nv == 3 && len(t) >= 3 {
			// Three values (three classes), unrolled: the same arithmetic.
			cs := cp[pOff : pOff+3 : pOff+3]
			p0, p1, p2 := cs[0]*t[0], cs[1]*t[1], cs[2]*t[2]
			ok = prodOK(p0) && prodOK(p1) && prodOK(p2)
			sum = p0 + p1 + p2
			switch o.v {
			case 0:
				pv = p0
			case 1:
				pv = p1
			default:
				pv = p2
			}
		} else {
			cs, ts := cp[pOff:pOff+nv], t[:nv]
			sum = 0.0
			for v, p := range cs {
				p *= ts[v] // NaN when out of range
				if !prodOK(p) {
					ok = false
					break
				}
				if v == int(o.v) {
					pv = p
				}
				sum += p
			}
		}
		if !ok || !prodOK(sum) {
			total += s.margLSE(int(sp.refs[n].gi), true, sp.of(n))
			if math.IsInf(total, -1) || math.IsNaN(total) {
				return total
			}
			continue
		}
		if sum == 0 {
			return math.Inf(-1)
		}
		// margSumLive1's one-pick case; with P_v = 0 its margDerivs adds nothing.
		if pv != 0 {
			c := int(o.c)
			ga, ha := gInv[c], hInv[c]
			inv := 1 / sum
			r := pv * inv
			w := r * (1 - r)
			grad[c] += r * ga
			hess[c*k+c] += r * ha
			hess[c*k+c] += w * ga * ga
		}
		acc *= sum
		if !accOK(acc) {
			frac, e := math.Frexp(acc)
			acc, expo = frac, expo+e
		}
	}
	return addLogScaled(total, acc, expo)
}

// margSumDense3 is margSumDense for groups of three values whose picks select
// coordinate v of a three-coordinate active site at each value v (the weights of a
// three-component mixture), unrolled, with margDiag's ḡ in registers: the same
// arithmetic in the same order, so the same results bit for bit. gh holds the
// picks' 1/p and −1/p²; inRange: every product and sum is known to be 0 or in
// [prodMin, prodMax] (productsInRange), so their checks are skipped.
func (s *scorer) margSumDense3(sp *sitePicks, cp, ts []float64, gh *[2 * maxSimpleValues]float64, inRange bool, total float64) float64 {
	refs := sp.refs
	grad, hess := s.grad[:3], s.hess[:9]
	t0, t1, t2 := ts[0], ts[1], ts[2]
	g0, h0, g1, h1, g2, h2 := gh[0], gh[1], gh[2], gh[3], gh[4], gh[5]
	acc, expo := 1.0, 0
	for n := 0; n+3 <= len(cp); n += 3 {
		cs := cp[n : n+3 : n+3]
		p0, p1, p2 := cs[0]*t0, cs[1]*t1, cs[2]*t2
		sum := p0 + p1 + p2
		if !inRange && !(prodOK(p0) && prodOK(p1) && prodOK(p2) && prodOK(sum)) {
			g := n / 3
			r := &refs[g]
			total += s.margLSE(int(r.gi), true, sp.picks[r.at:refs[g+1].at])
			if math.IsInf(total, -1) || math.IsNaN(total) {
				return total
			}
			continue
		}
		if sum == 0 {
			return math.Inf(-1)
		}
		if btoi(p0 != 0)+btoi(p1 != 0)+btoi(p2 != 0) < 2 {
			prod := [3]float64{p0, p1, p2}
			s.margDerivs(prod[:], sum, sp.picks[refs[0].at:refs[1].at])
		} else {
			inv := 1 / sum
			var b0, b1, b2 float64 // ḡ: r·g of each value, 0 where P_v = 0
			if p0 != 0 {
				r := p0 * inv
				grad[0] += r * g0
				b0 = r * g0
				hess[0] += r * h0
				hess[0] += b0 * g0
			}
			if p1 != 0 {
				r := p1 * inv
				grad[1] += r * g1
				b1 = r * g1
				hess[4] += r * h1
				hess[4] += b1 * g1
			}
			if p2 != 0 {
				r := p2 * inv
				grad[2] += r * g2
				b2 = r * g2
				hess[8] += r * h2
				hess[8] += b2 * g2
			}
			if b0 != 0 {
				hess[0] -= b0 * b0
				hess[1] -= b0 * b1
				hess[2] -= b0 * b2
			}
			if b1 != 0 {
				hess[3] -= b1 * b0
				hess[4] -= b1 * b1
				hess[5] -= b1 * b2
			}
			if b2 != 0 {
				hess[6] -= b2 * b0
				hess[7] -= b2 * b1
				hess[8] -= b2 * b2
			}
		}
		acc *= sum
		if !accOK(acc) {
			frac, e := math.Frexp(acc)
			acc, expo = frac, expo+e
		}
	}
	return addLogScaled(total, acc, expo)
}

// margSumDenseValue is margSumDense without picks (the value alone: a lead move's
// score, the log joint): cp holds the groups' cached products, ts the live values;
// inRange: every product and sum is known to be 0 or in [prodMin, prodMax]
// (productsInRange), so their checks are skipped.
func (s *scorer) margSumDenseValue(sp *sitePicks, cp, ts []float64, inRange, deriv bool, total float64) float64 {
	nv := len(ts)
	acc, expo := 1.0, 0
	if inRange && nv == 3 {
		// The loop below without its checks, which would all pass: the same sums.
		t0, t1, t2 := ts[0], ts[1], ts[2]
		for n := 0; n+3 <= len(cp); n += 3 {
			cs := cp[n : n+3 : n+3]
			p0, p1, p2 := cs[0]*t0, cs[1]*t1, cs[2]*t2
			sum := p0 + p1 + p2
			if sum == 0 {
				return math.Inf(-1)
			}
			acc *= sum
			if !accOK(acc) {
				frac, e := math.Frexp(acc)
				acc, expo = frac, expo+e
			}
		}
		return addLogScaled(total, acc, expo)
	}
	for n := 0; n+nv <= len(cp); n += nv {
		cs := cp[n : n+nv : n+nv]
		sum, ok := 0.0, true
		if nv == 3 {
			// Three values (three classes), unrolled: the same arithmetic.
			p0, p1, p2 := cs[0]*ts[0], cs[1]*ts[1], cs[2]*ts[2]
			ok = prodOK(p0) && prodOK(p1) && prodOK(p2)
			sum = p0 + p1 + p2
		} else {
			for v, p := range cs {
				p *= ts[v] // NaN when out of range
				if !prodOK(p) {
					ok = false
					break
				}
				sum += p
			}
		}
		if !ok || !prodOK(sum) {
			g := n / nv
			r := &sp.refs[g]
			total += s.margLSE(int(r.gi), deriv, sp.picks[r.at:sp.refs[g+1].at])
			if math.IsInf(total, -1) || math.IsNaN(total) {
				return total
			}
			continue
		}
		if sum == 0 {
			return math.Inf(-1)
		}
		acc *= sum
		if !accOK(acc) {
			frac, e := math.Frexp(acc)
			acc, expo = frac, expo+e
		}
	}
	return addLogScaled(total, acc, expo)
}

// diagLive reports whether at least two of the picks are at values v with P_v > 0
// (margDiag's condition, the picks being at increasing values).
func (s *scorer) diagLive(prod []float64, picks []margPick) bool {
	live := 0
	for _, p := range picks {
		if prod[p.v] != 0 {
			live++
		}
	}
	return live >= 2
}

// steerSimplex steers the Hessian of simplex site i, whose score reads summed-out
// groups, for the Dirichlet proposer (see Builder.Marginalise).
func (s *scorer) steerSimplex(x []float64, i int) {
	k := s.k
	if len(s.steerScratch) < simplexfit.ScratchLen(k) {
		s.steerScratch = make([]float64, simplexfit.ScratchLen(k))
	}
	simplexfit.SteerHessian(s.hess, s.grad, x[s.base:s.base+k], k, s.steerScratch)
}

// addLogScaled returns total + log(acc·2^expo), the log of a running product kept
// as a fraction acc and a binary exponent expo (total itself when the product is 1).
func addLogScaled(total, acc float64, expo int) float64 {
	if acc == 1 && expo == 0 {
		return total
	}
	e := float64(expo)
	return total + (math.Log(acc) + e*ln2Lo + e*ln2Hi)
}
