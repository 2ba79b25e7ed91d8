package graph

import (
	"fmt"
	"slices"

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
