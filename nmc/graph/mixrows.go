package graph

import (
	"math"

	"github.com/nmc-go/nmc/nmc/dist"
)

// Mixture factors: a Factor whose expression is LogMix(θ, a, b) or LogSumExp(t₁, …,
// tₙ) of component terms, each the LogDensity of a scalar family at data (a
// constant value per row) whose parameters are shared scalars (nodes of length 1),
// optionally plus a shared scalar (LogSumExp(log λ + LogDensity(…), …)):
//
//	b.Factor("y", graph.LogMix(theta,
//		graph.LogDensity(graph.Normal(graph.Index(mu, []int{0}), graph.Index(sigma, []int{0})), y),
//		graph.LogDensity(graph.Normal(graph.Index(mu, []int{1}), graph.Index(sigma, []int{1})), y)))
//
// Element by element, each row's component densities are chained into jets in the
// active site's coordinates (dense ones for a site of several coordinates): 300–430 ns
// per row and site score of normal_mixture. Every row reads the same few shared
// scalars, so such a factor is scored in their space instead (40–60 ns per row,
// most of it the row's exponential; 25–35 ns at a state just scored, whose
// exponentials are kept: mixrows_terms.go): per row, each component's log density
// and its first and second derivatives in its own parameters (closed forms for
// Normal and Poisson, the family's Derivs for the others), combined by the stable
// log-sum-exp (or LogMix's own responsibilities) with exact derivatives, summed over
// the rows — only in the parameters the active coordinates move — and chained once
// per score through the parameters' jets: ∇ = Σ_p G_p ∇p and
// ∇² = Σ_pq H_pq ∇p ∇qᵀ + Σ_p G_p ∇²p (chainSums).
//
// The parameters are kept per component (the extended space: a parameter two
// components share appears twice, and is merged when chained), so that a row's
// Hessian is, in that space, blocks of the mixing function's second derivatives
// times the components' gradients plus each component's own Hessian times its
// weight:
//
//	H_pq += d2[loc p, loc q]·c_p·c_q + [p, q of one component] d1[loc p]·∂²lp/∂p∂q
//
// with c_p the row's derivative of p's local (the component's log density, or θ or
// an offset itself) in p. The rows' values and derivatives are those of the
// element-by-element path to rounding. A site whose score reads such a factor has
// its elements scored in runs (mixRun): sumBlanket's loop, the chunks of a large
// blanket, and LogJoint.

// mixMaxNodes bounds the shared scalars, and mixMaxExt the extended parameters,
// of a mixture factor.
const (
	mixMaxNodes = 16
	mixMaxExt   = 32
)

// mixKind is a component family's row kernel.
type mixKind uint8

const (
	mixGeneric mixKind = iota // the family's LogProb and Derivs
	mixNormal                 // closed form: z = (y − μ)/σ
	mixPoisson                // closed form: y·log λ − λ − log y!
)

// mixFactor is the row plan of a mixture factor (see above).
type mixFactor struct {
	id     int // index of its scratch in scorer.mix
	f      int // factor index
	logMix bool
	rows   int
	all    []entry // every element, for LogJoint
	nodes  []*Node // the distinct shared scalars read
	comps  []mixComp
	nloc   int // locals: θ (LogMix) then one per component
	// Per extended parameter: its node, its local and its parameter index in its
	// component (−1: the local itself, θ or an offset).
	extNode, extLoc, extPar []int
}

// mixComp is one component term: off + log p(y_r | params).
type mixComp struct {
	fam     dist.Family
	k       int
	kind    mixKind
	np      int       // parameters
	ext0    int       // extended index of parameter 0 (the others follow)
	off     int       // extended index of the offset, or −1
	loc     int       // its local
	y       []float64 // the value per row (length 1: the same for all)
	lfact   []float64 // mixPoisson: log y! per row
	partial dist.PartialDeriver
	memo    dist.MemoDeriver
}

// mixScratch is one scorer's working memory for one mixture factor.
type mixScratch struct {
	jets     []jet     // per node
	pv       []float64 // per extended parameter: its value
	act      []int     // the extended parameters the active coordinates move
	pairs    []mixPair // pairs p ≤ q of act
	g, h     []float64 // per extended parameter (pair): the rows' sums
	gn, hn   []float64 // the same per node
	cg, ch   []float64 // per row: c_p, and each component's parameter Hessian
	chOff    []int     // per component: its Hessian's offset in ch
	lv       []float64 // per row: the locals' values
	d1, d2   []float64 // per row: the mixing function's derivatives in the locals
	compAct  []bool    // per component: some parameter is active
	wrt      []uint64  // per component: the active parameters (PartialDeriver)
	memos    []dist.Memo
	argv     []float64 // a generic component's arguments
	ad1, ad2 []float64 // and its derivatives
	bad      []int8    // per component: CheckParams unknown (0), passed (1), failed (−1)
	// The rows' terms at the last two states scored (mixrows_terms.go).
	terms [2]mixTerms
	clock uint64
}

// mixPair is a pair of active extended parameters p ≤ q and where its row term is
// read: the locals' entry of d2, and the component Hessian's entry in ch (−1: none).
type mixPair struct {
	p, q, idx, ll, loc, hi int
}

// compileMixRows finds the mixture factors.
func (m *Model) compileMixRows() {
	if m.noMixRows {
		return
	}
	for fi, fc := range m.factors {
		if _, ok := fc.d.fam.(exprFactor); !ok || fc.obs == nil || fc.jf != nil || fc.length < 2 {
			continue
		}
		if (m.inMarg != nil && m.inMarg[fi] != nil) || (m.sels != nil && m.sels[fi] != nil) || (m.linOf != nil && m.linOf[fi] >= 0) {
			continue
		}
		mf, ok := m.mixFactorOf(fi, fc.d.params[0])
		if !ok {
			continue
		}
		if m.mixRows == nil {
			m.mixRows = make([]*mixFactor, len(m.factors))
		}
		mf.id = m.numMix
		m.numMix++
		m.mixRows[fi] = mf
	}
}

// mixFactorOf returns the row plan of factor fi whose expression is expr, or false
// if expr is not a mixture of the form above.
func (m *Model) mixFactorOf(fi int, expr *Node) (*mixFactor, bool) {
	mf := &mixFactor{f: fi, rows: expr.length}
	shared := func(n *Node) bool { return n != nil && n.err == nil && n.length == 1 && n.width == 1 }
	var terms []*Node
	switch o := expr.impl.(type) {
	case logMixOp:
		if expr.op != opCustom || !shared(expr.args[0]) {
			return nil, false
		}
		mf.logMix = true
		mf.addExt(expr.args[0], 0, -1)
		mf.nloc = 1
		terms = expr.args[1:]
	case lseOp:
		if expr.op != opCustom || o.mode != lseArgs || len(expr.args) < 2 {
			return nil, false
		}
		terms = expr.args
	default:
		return nil, false
	}
	for _, t := range terms {
		var off *Node
		if t.op == opAdd && t.width == 1 {
			switch a, b := t.args[0], t.args[1]; {
			case shared(a) && isDensityTerm(b):
				off, t = a, b
			case shared(b) && isDensityTerm(a):
				off, t = b, a
			}
		}
		if !isDensityTerm(t) {
			return nil, false
		}
		d := t.impl.(densityOp).d
		x := t.args[0]
		if x.width != 1 || !isConst(x) || (x.length != 1 && x.length != mf.rows) {
			return nil, false
		}
		c := mixComp{fam: d.fam, k: d.k, np: len(t.args) - 1, off: -1, loc: mf.nloc, y: constColumn(m, x)}
		for _, p := range t.args[1:] {
			if !shared(p) {
				return nil, false
			}
		}
		c.ext0 = len(mf.extNode)
		for a, p := range t.args[1:] {
			mf.addExt(p, c.loc, a)
		}
		if off != nil {
			c.off = len(mf.extNode)
			mf.addExt(off, c.loc, -1)
		}
		c.partial, _ = d.fam.(dist.PartialDeriver)
		c.memo, _ = d.fam.(dist.MemoDeriver)
		c.kind = mixKindOf(&c)
		mf.comps = append(mf.comps, c)
		mf.nloc++
	}
	if len(mf.nodes) > mixMaxNodes || len(mf.extNode) > mixMaxExt || 1+maxParams(mf.comps) > 64 {
		return nil, false
	}
	mf.all = make([]entry, mf.rows)
	for e := range mf.all {
		mf.all[e] = entry{f: int32(fi), e: int32(e)}
	}
	return mf, true
}

// isDensityTerm reports whether n is a LogDensity of a scalar family (value and
// parameters of width 1).
func isDensityTerm(n *Node) bool {
	if n == nil || n.op != opCustom || n.err != nil || n.width != 1 {
		return false
	}
	o, ok := n.impl.(densityOp)
	if !ok {
		return false
	}
	vw, pw := o.d.fam.Layout(o.d.k)
	if vw != 1 || len(pw) != len(n.args)-1 {
		return false
	}
	for _, w := range pw {
		if w != 1 {
			return false
		}
	}
	return true
}

func maxParams(cs []mixComp) int {
	n := 0
	for _, c := range cs {
		n = max(n, c.np)
	}
	return n
}

// mixKindOf returns the row kernel of component c: a closed form where its family
// has one and every value is in its support.
func mixKindOf(c *mixComp) mixKind {
	switch c.fam.(type) {
	case dist.Normal:
		return mixNormal
	case dist.Poisson:
		c.lfact = make([]float64, len(c.y))
		for r, y := range c.y {
			if !(y >= 0 && y == math.Trunc(y)) || math.IsInf(y, 0) {
				c.lfact = nil
				return mixGeneric
			}
			// log y! as the family computes it: log p(y | λ = 1) = −1 − log y!.
			c.lfact[r] = -1 - c.fam.LogProb([]float64{y, 1}, c.k)
		}
		return mixPoisson
	}
	return mixGeneric
}

// addExt adds an extended parameter read from node n, of local loc and parameter
// index par.
func (mf *mixFactor) addExt(n *Node, loc, par int) {
	ni := -1
	for i, q := range mf.nodes {
		if q == n {
			ni = i
		}
	}
	if ni < 0 {
		ni = len(mf.nodes)
		mf.nodes = append(mf.nodes, n)
	}
	mf.extNode = append(mf.extNode, ni)
	mf.extLoc = append(mf.extLoc, loc)
	mf.extPar = append(mf.extPar, par)
}

// mixScratch returns the scorer's scratch for mixture factor mf.
func (s *scorer) mixScratch(mf *mixFactor) *mixScratch {
	if s.mix == nil {
		s.mix = make([]*mixScratch, s.m.numMix)
	}
	if ms := s.mix[mf.id]; ms != nil {
		return ms
	}
	ne, nl, nc := len(mf.extNode), mf.nloc, len(mf.comps)
	ms := &mixScratch{
		jets: make([]jet, len(mf.nodes)), pv: make([]float64, ne), act: make([]int, 0, ne),
		pairs: make([]mixPair, 0, ne*(ne+1)/2), g: make([]float64, ne), h: make([]float64, ne*ne),
		gn: make([]float64, len(mf.nodes)), hn: make([]float64, len(mf.nodes)*len(mf.nodes)),
		cg: make([]float64, ne), chOff: make([]int, nc), lv: make([]float64, nl),
		d1: make([]float64, nl), d2: make([]float64, nl*nl), compAct: make([]bool, nc),
		wrt: make([]uint64, nc), memos: make([]dist.Memo, nc), bad: make([]int8, nc),
	}
	nch := 0
	for j, c := range mf.comps {
		ms.chOff[j] = nch
		nch += c.np * c.np
	}
	ms.ch = make([]float64, nch)
	na := 1 + maxParams(mf.comps)
	ms.argv, ms.ad1, ms.ad2 = make([]float64, na), make([]float64, na), make([]float64, na*na)
	s.mix[mf.id] = ms
	return ms
}

// mixFor returns factor fi's row plan, or nil.
func (m *Model) mixFor(fi int32) *mixFactor {
	if m.mixRows == nil {
		return nil
	}
	return m.mixRows[fi]
}
