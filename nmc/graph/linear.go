package graph

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/nmc-go/nmc/internal/gram"
	"github.com/nmc-go/nmc/internal/parallel"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/dist"
)

// Linear factors: an observed factor of scalar values whose parameters are shared
// scalars (nodes of length 1, such as a Student-t's ν and σ) and one linear
// predictor
//
//	η_r = Σ (shared scalar terms) ± Σ_t (X_t·v_t)_r ± Σ_c s_c·(data column c)_r + (data offset)_r
//
// over Vector sites v_t (the logistic and robust regressions' α + Xβ) and shared
// scalars s_c (a regression written literally, α + β·x; linear_cols.go). Such a factor
// is scored as a whole instead of element by element: X_t·v_t comes from the
// scorer's cache (mvCache), the shared parameters are evaluated once, and each row
// costs one call of the family's derivatives. The derivatives are chained by
// structure:
//
//   - the active site is one of the v_t: η_r's gradient is the row x_r, so the
//     gradient is X_tᵀ d1 (one matrix-vector product) and the Hessian X_tᵀ diag(d2) X_t
//     (the Gram kernel, negligible rows skipped as in flushBatches);
//   - the active site enters only through shared parameters (α, ν, σ): every row's
//     argument jets are the same, so the derivatives of the rows are summed first and
//     chained once;
//   - a group's orbit moves some v_t: η_r′ = S′ + (X_t·u)_r and η_r″ = S″ + (X_t·w)_r,
//     where u and w are the orbit's dv/dt and d²v/dt², and for a dilation of v_t about
//     0 at one rate c, X_t·u = c·X_t·v_t and X_t·w = c²·X_t·v_t come from the cache.
//
// Rows are processed in fixed chunks of linChunk spread over the scorer's goroutines,
// each with partial sums added in chunk order, so a result does not depend on
// GOMAXPROCS. Every other case (an active site both in a shared parameter and in a
// MatVec) falls back to the element-by-element path.

// linChunk is the number of rows of one chunk of a linear factor.
const linChunk = 4096

// linMinRows is the fewest rows for which a factor is scored as a linear factor.
const linMinRows = 16

// linMaxNodes is the most nodes a linear predictor's sum is made of.
const linMaxNodes = 256

// linTerm is one MatVec term of a linear predictor.
type linTerm struct {
	node *Node   // opMatVec over a Vector latent or a plate of scalar sites
	fam  *family // the latent
	sign float64 // +1 or −1
}

// linFactor is a factor scored as a whole (see above).
type linFactor struct {
	f      int     // factor index
	eta    int     // argument index of η (the value is argument 0)
	shared []*Node // length-1 terms of η
	signs  []float64
	terms  []linTerm
	cols   []linCol  // shared scalars times data columns (linear_cols.go)
	offset []float64 // the sum of constant length-n terms of η; nil if none
	visits int       // nodes decompose has read
	rows   []int     // 0, 1, …, n−1
	// partial is the family, when it computes derivatives for some arguments only.
	partial dist.PartialDeriver
	// byRows is the family, when it evaluates many rows in one call.
	byRows dist.RowsDeriver
	// byTerms is the family, when it also keeps its rows' transcendental terms.
	byTerms dist.RowTermsDeriver
	// sharedRows is the family, when it sums rows' derivatives in shared arguments.
	sharedRows dist.SharedRowsDeriver
	// sharedTerms is the family, when it also keeps its rows' transcendental terms
	// there (the terms of byTerms).
	sharedTerms dist.SharedRowTermsDeriver
}

// linearFactor returns fc's description as a linear factor, or false.
func (m *Model) linearFactor(fi int) (linFactor, bool) {
	fc := m.factors[fi]
	lf := linFactor{f: fi, eta: -1}
	if fc.obs == nil || fc.width != 1 || fc.length < linMinRows {
		return lf, false
	}
	for i, p := range fc.d.params {
		if p.width != 1 {
			return lf, false
		}
		if p.length == 1 {
			continue
		}
		if lf.eta >= 0 || p.length != fc.length {
			return lf, false
		}
		lf.eta = 1 + i
		if !lf.decompose(m, p, 1) {
			return lf, false
		}
	}
	if lf.eta < 0 || len(lf.terms)+len(lf.cols) == 0 {
		return lf, false
	}
	for _, t := range lf.terms {
		if m.sites[t.fam.first].Support == nmc.Discrete {
			return lf, false
		}
	}
	lf.partial, _ = fc.d.fam.(dist.PartialDeriver)
	lf.byRows, _ = fc.d.fam.(dist.RowsDeriver)
	lf.byTerms, _ = fc.d.fam.(dist.RowTermsDeriver)
	lf.sharedRows, _ = fc.d.fam.(dist.SharedRowsDeriver)
	lf.sharedTerms, _ = fc.d.fam.(dist.SharedRowTermsDeriver)
	if na := 1 + len(fc.d.params); na > 64 {
		return lf, false
	}
	lf.rows = make([]int, fc.length)
	for r := range lf.rows {
		lf.rows[r] = r
	}
	return lf, true
}

// decompose adds the terms of node n (of length 1 or the factor's length) with sign,
// or returns false if n is not a sum of shared scalars, MatVecs over distinct Vector
// sites, shared scalars times constant columns, and constants.
func (lf *linFactor) decompose(m *Model, n *Node, sign float64) bool {
	// A predictor is a short sum: a long walk (a sum that reads a node twice, as
	// a recursion would) is not one.
	lf.visits++
	if n.width != 1 || lf.visits > linMaxNodes {
		return false
	}
	if n.length == 1 {
		lf.shared = append(lf.shared, n)
		lf.signs = append(lf.signs, sign)
		return true
	}
	if isConst(n) {
		if lf.offset == nil {
			lf.offset = make([]float64, n.length)
		}
		for r, v := range constColumn(m, n) {
			lf.offset[r] += sign * v
		}
		return true
	}
	switch n.op {
	case opAdd:
		return lf.decompose(m, n.args[0], sign) && lf.decompose(m, n.args[1], sign)
	case opSub:
		return lf.decompose(m, n.args[0], sign) && lf.decompose(m, n.args[1], -sign)
	case opNeg:
		return lf.decompose(m, n.args[0], -sign)
	case opMul:
		return lf.addCol(m, n, sign)
	case opMatVec:
		a := n.args[0]
		if a.op != opLatent || (!a.fam.vector && a.fam.width != 1) {
			return false
		}
		for _, t := range lf.terms {
			if t.fam == a.fam {
				return false
			}
		}
		lf.terms = append(lf.terms, linTerm{node: n, fam: a.fam, sign: sign})
		return true
	}
	return false
}

// linearBlankets finds the linear factors and moves their runs out of the sites' and
// orbits' blankets: a factor whose every element is in a blanket is scored there as
// a whole.
func (m *Model) linearBlankets() {
	byFactor := make([]int32, len(m.factors))
	m.linOf = byFactor
	for fi := range m.factors {
		byFactor[fi] = -1
		if m.inMarg != nil && m.inMarg[fi] != nil {
			continue // scored in its summed-out groups
		}
		if lf, ok := m.linearFactor(fi); ok && !m.noLinear {
			byFactor[fi] = int32(len(m.linear))
			m.linear = append(m.linear, lf)
		}
	}
	if len(m.linear) == 0 {
		return
	}
	split := func(bl []entry) (keep []entry, lin []int32) {
		for lo := 0; lo < len(bl); {
			hi := lo
			for hi < len(bl) && bl[hi].f == bl[lo].f {
				hi++
			}
			run := bl[lo:hi]
			li := byFactor[run[0].f]
			if li >= 0 && len(run) == m.factors[run[0].f].length {
				lin = append(lin, li)
			} else {
				keep = append(keep, run...)
			}
			lo = hi
		}
		return keep, lin
	}
	m.linSites = make([][]int32, len(m.sites))
	for s := range m.blanket {
		m.blanket[s], m.linSites[s] = split(m.blanket[s])
	}
	for g := range m.orbits {
		o := &m.orbits[g]
		o.blanket, o.lin = split(o.blanket)
	}
}

// linScratch is one scorer's working memory for one linear factor.
type linScratch struct {
	d1, d2 []float64   // per row: ∂/∂η and ∂²/∂η² (active v_t), or in the argument of linChunkRows
	eta    []float64   // per row: η (linChunkRows)
	part   []float64   // per chunk: partial log density
	deriv  []float64   // per chunk: partial derivatives (layout by mode)
	kept   [][]int     // per chunk: rows with a significant Hessian term
	xv     [][]float64 // per term: X_t·v_t (the cache's slice)
	xu, xw [][]float64 // per term: X_t·u and X_t·w along an orbit
	work   []linWork   // per worker
	sum    []float64   // linShared: the chunks' derivative sums

	// par spreads the chunks over the cores, calling chunk (linChunk of this
	// factor, made once: no closure per call).
	par   parallel.Group
	chunk func(w, c int)

	// The current call (linearSum), read by the chunks (linChunk).
	mode    linMode
	na, per int
	sv      float64   // S, the shared part of η
	rowTerm int       // linRow: the term whose Vector site (or one of whose plate sites) is active
	col     int       // linRow: the active plate site's column of X, or −1 for a Vector site
	argv    []float64 // shared argument values (argument 0 and η unset)
	sg, sh  []float64 // linOrbit: the shared arguments' first and second derivatives in t
	dep     []int     // the arguments that depend on the active coordinates
	wrt     uint64    // dep as a bit set (dist.PartialDeriver)
	nx      int       // linShared: na, and the moving column coefficients (linear_cols.go)
	colScratch

	// The rows' transcendental terms at the last two evaluated states
	// (dist.RowTermsDeriver), and this call's use of them.
	terms  [2]rowTerms
	tclock uint64
	tcur   int    // the slot of this call, or −1
	reuse  bool   // the slot holds this call's state: read its terms
	filled []bool // per chunk: its rows' terms were written (reuse false)
	key    []float64
	// keepKey and keepVal are Keep's scratch: the key of the state it keeps, and
	// one node's values.
	keepKey, keepVal []float64
}

// rowTerms is the rows' transcendental terms of a linear factor at one state, which
// key identifies: the factor's shared arguments (η's shared part S among them) and
// the MatVec terms' vectors, compared bit for bit.
type rowTerms struct {
	key   []float64
	terms []float64
	ok    bool
	used  uint64
}

// linWork is one goroutine's scratch for a linear factor.
type linWork struct {
	argv, d1, d2 []float64
	memo         dist.Memo
}

// linMode says how the active coordinates enter a linear factor.
type linMode uint8

const (
	linValue  linMode = iota // no derivatives
	linShared                // through shared parameters only
	linRow                   // through one v_t (a site): η_r′ = x_r
	linOrbit                 // along an orbit that moves some v_t (k = 1)
)

func (s *scorer) linScratch(li int) *linScratch {
	if s.lin == nil {
		s.lin = make([]*linScratch, len(s.m.linear))
	}
	if s.lin[li] == nil {
		lf := &s.m.linear[li]
		n := s.m.factors[lf.f].length
		na := 1
		for _, p := range s.m.factors[lf.f].d.params {
			na += p.width
		}
		nch := (n + linChunk - 1) / linChunk
		ls := &linScratch{part: make([]float64, nch), kept: make([][]int, nch), xv: make([][]float64, len(lf.terms)),
			xu: make([][]float64, len(lf.terms)), xw: make([][]float64, len(lf.terms))}
		ls.work = make([]linWork, max(1, min(s.nworkers, nch)))
		for w := range ls.work {
			ls.work[w] = linWork{argv: make([]float64, na), d1: make([]float64, na), d2: make([]float64, na*na)}
		}
		ls.chunk = func(w, c int) { s.linChunk(li, w, c) }
		s.lin[li] = ls
	}
	return s.lin[li]
}

// linearSum returns the summed log density of linear factor li and, with deriv, adds
// its derivatives with respect to the active coordinates (a site's, or an orbit's t)
// to s.grad and s.hess (the Hessian's Gram part to the upper triangle, then copied
// to the lower, as in flushBatches). It returns ok = false, with nothing added, when
// the factor must be scored element by element instead.
func (s *scorer) linearSum(li int, deriv bool) (total float64, ok bool) {
	m := s.m
	lf := &m.linear[li]
	fc := m.factors[lf.f]
	d := fc.d
	n := fc.length
	ls := s.linScratch(li)
	s.top = 0
	s.ops.ar.top = 0

	// Shared jets: the parameters of length 1 and the shared part S of η.
	na := 1
	for _, p := range d.params {
		na += p.width
	}
	args := s.argj[:na]
	args[0] = jet{}
	sharedDeriv := false
	for i, p := range d.params {
		if 1+i == lf.eta {
			continue
		}
		s.eval(p, 0, args[1+i:2+i])
		sharedDeriv = sharedDeriv || args[1+i].kind != jConst
	}
	S := jet{}
	for i, p := range lf.shared {
		j := s.push(1)
		s.eval(p, 0, j)
		S = s.ops.lin(1, &S, lf.signs[i], &j[0])
	}
	args[lf.eta] = S
	sharedDeriv = sharedDeriv || S.kind != jConst
	colJ := s.colJets(lf, ls)
	colMoves := len(ls.colDep) > 0
	sharedDeriv = sharedDeriv || colMoves

	// The MatVec terms' values, and which of them the active coordinates move.
	mode := linValue
	rowTerm := -1
	xv := ls.xv
	for t, tm := range lf.terms {
		f := tm.fam
		xv[t] = s.mv[tm.node.id].vector(tm.node.x, s.x[f.offset:f.offset+f.length], s.epoch, s.nworkers)
		switch {
		case s.active >= 0 && f.first == s.active && f.vector:
			rowTerm, ls.col = t, -1
		case s.active >= f.first && s.active < f.first+f.length && !f.vector:
			// One site of a plate of coefficients: η_r′ = X_r,col.
			rowTerm, ls.col = t, s.active-f.first
		case s.orbit != nil && s.orbit.member[f.id]:
			mode = linOrbit
		}
	}
	switch {
	case !deriv:
		mode = linValue
	case rowTerm >= 0:
		if sharedDeriv {
			return 0, false
		}
		mode = linRow
	case mode == linOrbit:
		if s.k != 1 {
			return 0, false // unreachable: an orbit has one coordinate
		}
		s.orbitTerms(lf, ls, xv)
	case sharedDeriv:
		mode = linShared
	default:
		mode = linValue
	}

	// Per-call state of the chunks.
	per := 0
	ls.nx = na
	switch mode {
	case linShared:
		ls.nx = na + len(ls.colDep)
		per = ls.nx + ls.nx*ls.nx
	case linRow:
		per = s.k + s.k*s.k
	case linOrbit:
		per = 2
	}
	nch := len(ls.part)
	if cap(ls.deriv) < nch*per {
		ls.deriv = make([]float64, nch*per)
	}
	if ls.d1 == nil && (mode == linRow || lf.byRows != nil || lf.sharedRows != nil) {
		ls.d1, ls.d2, ls.eta = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	ls.mode, ls.na, ls.per, ls.sv, ls.rowTerm = mode, na, per, S.v, rowTerm
	if len(ls.argv) < na {
		ls.argv, ls.sg, ls.sh = make([]float64, na), make([]float64, na), make([]float64, na)
	}
	ls.dep, ls.wrt = ls.dep[:0], 0
	for a := 1; a < na; a++ {
		ls.argv[a] = args[a].v
		ls.sg[a], ls.sh[a] = 0, 0
		if mode == linOrbit {
			ls.sg[a], ls.sh[a] = scalarJet(&args[a])
		}
		var moves bool
		switch mode {
		case linRow:
			moves = a == lf.eta
		case linShared:
			moves = args[a].kind != jConst || (a == lf.eta && colMoves)
		case linOrbit:
			moves = args[a].kind != jConst || a == lf.eta
		}
		if moves {
			ls.dep = append(ls.dep, a)
			ls.wrt |= 1 << a
		}
	}
	if mode == linOrbit {
		for _, c := range ls.colDep {
			ls.sgc[c], ls.shc[c] = scalarJet(&colJ[c])
		}
	}
	s.pickRowTerms(lf, ls, na)
	if workers := len(ls.work); nch == 1 || workers == 1 {
		for c := 0; c < nch; c++ {
			s.linChunk(li, 0, c)
		}
	} else {
		ls.par.Chunks(nch, workers, ls.chunk)
	}
	parts := ls.deriv[:nch*per]
	for c := range ls.part {
		total += ls.part[c]
		if math.IsInf(total, -1) || math.IsNaN(total) {
			return total, true
		}
	}
	if ls.tcur >= 0 && !ls.reuse && !slices.Contains(ls.filled[:nch], false) {
		ls.terms[ls.tcur].ok = true
	}
	switch mode {
	case linRow:
		k := s.k
		for c := 0; c < nch; c++ {
			dc := parts[c*per : (c+1)*per]
			for p, v := range dc[:k] {
				s.grad[p] += v
			}
			h := dc[k:]
			for p := 0; p < k; p++ {
				for q := p; q < k; q++ {
					s.hess[p*k+q] += h[p*k+q]
				}
			}
		}
		for p := 0; p < k; p++ {
			for q := p + 1; q < k; q++ {
				s.hess[q*k+p] = s.hess[p*k+q]
			}
		}
	case linShared:
		nx := ls.nx
		if len(ls.sum) < nx+nx*nx {
			ls.sum = make([]float64, nx+nx*nx)
		}
		sum := ls.sum[:nx+nx*nx]
		clear(sum)
		for c := 0; c < nch; c++ {
			for i, v := range parts[c*per : (c+1)*per] {
				sum[i] += v
			}
		}
		s.chainSums(ls.sharedArgs(args, colJ), sum[:nx], sum[nx:])
	case linOrbit:
		for c := 0; c < nch; c++ {
			s.grad[0] += parts[c*per]
			s.hess[0] += parts[c*per+1]
		}
	}
	return total, true
}

// pickRowTerms chooses the slot of the rows' terms for the call set up by
// linearSum: the slot of the same state, whose terms the chunks then read, or else
// the least recently used one, which they fill (valid once every chunk has, with a
// finite sum). A score is thereby the same function of the state as without the
// slots: the terms read are the ones the same formulas gave at the same state.
func (s *scorer) pickRowTerms(lf *linFactor, ls *linScratch, na int) {
	ls.tcur, ls.reuse = -1, false
	if _, rows := rowsWrt(lf, ls); !(rows && lf.byTerms != nil) && !(sharedRowsCall(lf, ls) && lf.sharedTerms != nil) {
		return
	}
	key := append(ls.key[:0], ls.argv[1:na]...)
	for _, tm := range lf.terms {
		f := tm.fam
		key = append(key, s.x[f.offset:f.offset+f.length]...)
	}
	key = append(key, ls.cv...)
	ls.key = key
	ls.tclock++
	for i := range ls.terms {
		if sl := &ls.terms[i]; sl.ok && sameBits(sl.key, key) {
			sl.used, ls.tcur, ls.reuse = ls.tclock, i, true
			return
		}
	}
	i := 0
	if ls.terms[1].used < ls.terms[0].used {
		i = 1
	}
	sl := &ls.terms[i]
	n := s.m.factors[lf.f].length * lf.byTerms.RowTerms()
	if len(sl.terms) != n {
		sl.terms = make([]float64, n)
	}
	sl.key = append(sl.key[:0], key...)
	sl.ok, sl.used, ls.tcur = false, ls.tclock, i
	if nch := len(ls.part); len(ls.filled) != nch {
		ls.filled = make([]bool, nch)
	}
	clear(ls.filled)
}

// sameBits reports whether a and b hold the same float64 values bit for bit.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// chainSums adds the derivatives of Σ_r log p_r through argument jets args shared by
// every row, given the row sums g1[a] = Σ_r ∂log p_r/∂a and g2[a·na+b] of the second
// derivatives (as chain does for one element).
func (s *scorer) chainSums(args []jet, g1, g2 []float64) {
	na := len(args)
	for a := range args {
		ja := &args[a]
		if ja.kind == jConst {
			continue
		}
		s.addGrad(g1[a], ja)
		if g1[a] != 0 {
			s.addHess(g1[a], ja)
		}
		for b := range args {
			jb := &args[b]
			if jb.kind == jConst || g2[a*na+b] == 0 {
				continue
			}
			s.addOuter(g2[a*na+b], ja, jb)
		}
	}
}

// scalarJet returns the first and second derivatives of a jet of one coordinate.
func scalarJet(j *jet) (g, h float64) {
	switch j.kind {
	case jUnit:
		return j.gc, j.hc
	case jDense:
		return j.g[0], j.h[0]
	}
	return 0, 0
}

// orbitTerms writes X_t·u and X_t·w for every term whose Vector site the orbit
// moves (nil for the others): from the cached X_t·v_t for a dilation about 0 at one
// rate, otherwise by two matrix-vector products.
func (s *scorer) orbitTerms(lf *linFactor, ls *linScratch, xv [][]float64) {
	for t, tm := range lf.terms {
		f := tm.fam
		if !s.orbit.member[f.id] {
			ls.xu[t], ls.xw[t] = nil, nil
			continue
		}
		x := tm.node.x
		if ls.xu[t] == nil || len(ls.xu[t]) != x.rows {
			ls.xu[t], ls.xw[t] = make([]float64, x.rows), make([]float64, x.rows)
		}
		xu, xw := ls.xu[t], ls.xw[t]
		if c, ok := s.orbit.uniformDilation(f); ok {
			c2 := c * c
			for r, v := range xv[t] {
				xu[r], xw[r] = c*v, c2*v
			}
			continue
		}
		u, w := s.ou[f.offset:f.offset+f.length], s.ow[f.offset:f.offset+f.length]
		g := blas64.General{Rows: x.rows, Cols: x.cols, Stride: x.cols, Data: x.data}
		blas64.Gemv(blas.NoTrans, 1, g, blas64.Vector{N: len(u), Inc: 1, Data: u}, 0, blas64.Vector{N: x.rows, Inc: 1, Data: xu})
		blas64.Gemv(blas.NoTrans, 1, g, blas64.Vector{N: len(w), Inc: 1, Data: w}, 0, blas64.Vector{N: x.rows, Inc: 1, Data: xw})
	}
}

// uniformDilation reports whether the orbit dilates every coordinate of family f
// about 0 at one rate, and the rate.
func (o *orbit) uniformDilation(f *family) (rate float64, ok bool) {
	lo, hi := f.offset, f.offset+f.length*f.width
	n := 0
	for _, c := range o.group.Coords {
		if c.Coord < lo || c.Coord >= hi {
			continue
		}
		if c.Kind != nmc.Dilate || c.Anchor >= 0 || (n > 0 && c.Rate != rate) {
			return 0, false
		}
		rate = c.Rate
		n++
	}
	return rate, n == hi-lo
}

// linearOrElems returns linearSum of linear factor li, or, where the factor must be
// scored element by element, the sum of factorElem over its elements.
func (s *scorer) linearOrElems(li int, deriv, skipConst bool) float64 {
	if t, ok := s.linearSum(li, deriv); ok {
		return t
	}
	fi := s.m.linear[li].f
	total := 0.0
	for e := 0; e < s.m.factors[fi].length; e++ {
		total += s.factorElem(fi, e, deriv, skipConst)
		if math.IsInf(total, -1) || math.IsNaN(total) {
			return total
		}
	}
	return total
}

// linChunk scores rows [c·linChunk, (c+1)·linChunk) of linear factor li for the
// call set up by linearSum, on worker w: the chunk's partial log density in
// ls.part[c] and its partial derivatives in its slice of ls.deriv.
func (s *scorer) linChunk(li, w, c int) {
	lf := &s.m.linear[li]
	fc := s.m.factors[lf.f]
	d := fc.d
	n := fc.length
	ls := s.lin[li]
	wk := &ls.work[w]
	na, per, mode := ls.na, ls.per, ls.mode
	na2 := na * na
	argv, d1, d2 := wk.argv[:na], wk.d1[:na], wk.d2[:na2]
	copy(argv[1:], ls.argv[1:na])
	sg, sh := ls.sg[:na], ls.sh[:na]
	lo, hi := c*linChunk, min((c+1)*linChunk, n)
	dc := ls.deriv[c*per : (c+1)*per]
	clear(dc)
	xv, obs, eta, dep := ls.xv, fc.obs, lf.eta, ls.dep
	one := len(lf.terms) == 1 && lf.terms[0].sign == 1 && lf.offset == nil && len(lf.cols) == 0
	nx := ls.nx
	rowSign := 1.0
	if ls.rowTerm >= 0 {
		rowSign = lf.terms[ls.rowTerm].sign
	}
	t, done := s.linChunkRows(lf, ls, wk, lo, hi, dc)
	if !done && sharedRowsCall(lf, ls) {
		// Several shared arguments move (a ridge group's ν and σ): the rows' sums in
		// one call, as the loop below would add them, with the rows' terms of the
		// state kept or reused as by linChunkRows.
		ev := etaRows(lf, ls, lo, hi)
		if ls.tcur >= 0 {
			nt := lf.byTerms.RowTerms()
			terms := ls.terms[ls.tcur].terms[lo*nt : hi*nt]
			t, done = lf.sharedTerms.DerivsSharedRowsTerms(obs[lo:hi], ev, argv, d.k, eta, ls.wrt, dc[:na], dc[na:], &wk.memo, terms, ls.reuse)
		} else {
			t, done = lf.sharedRows.DerivsSharedRows(obs[lo:hi], ev, argv, d.k, eta, ls.wrt, dc[:na], dc[na:], &wk.memo)
		}
	}
	if ls.tcur >= 0 && !ls.reuse {
		ls.filled[c] = done && !math.IsInf(t, -1) && !math.IsNaN(t)
	}
	for r := lo; r < hi && !done; r++ {
		var e float64
		if one {
			e = ls.sv + xv[0][r]
		} else {
			e = ls.sv
			for ti := range lf.terms {
				e += lf.terms[ti].sign * xv[ti][r]
			}
			for c, cv := range ls.cv {
				e += cv * lf.cols[c].col[r]
			}
			if lf.offset != nil {
				e += lf.offset[r]
			}
		}
		argv[0], argv[eta] = obs[r], e
		switch {
		case lf.partial != nil:
			t += lf.partial.DerivsOf(argv, d.k, ls.wrt, d1, d2, &wk.memo)
		case mode == linValue:
			t += d.fam.LogProb(argv, d.k)
		case fc.memo != nil:
			t += fc.memo.DerivsMemo(argv, d.k, d1, d2, &wk.memo)
		default:
			t += d.fam.Derivs(argv, d.k, d1, d2)
		}
		if math.IsInf(t, -1) || math.IsNaN(t) {
			break
		}
		if mode == linValue {
			continue
		}
		switch mode {
		case linRow:
			ls.d1[r] = rowSign * d1[eta]
			ls.d2[r] = d2[eta*na+eta]
		case linShared:
			for _, a := range dep {
				dc[a] += d1[a]
				for _, b := range dep {
					dc[nx+a*nx+b] += d2[a*na+b]
				}
			}
			if len(ls.colDep) > 0 {
				colRowShared(lf, ls, r, d1, d2, dc)
			}
		case linOrbit:
			e1, e2 := sg[eta], sh[eta]
			for ti := range lf.terms {
				if ls.xu[ti] != nil {
					e1 += lf.terms[ti].sign * ls.xu[ti][r]
					e2 += lf.terms[ti].sign * ls.xw[ti][r]
				}
			}
			for _, c := range ls.colDep {
				e1 += ls.sgc[c] * lf.cols[c].col[r]
				e2 += ls.shc[c] * lf.cols[c].col[r]
			}
			var g, h float64
			for _, a := range dep {
				ga, ha := sg[a], sh[a]
				if a == eta {
					ga, ha = e1, e2
				}
				g += d1[a] * ga
				h += d1[a] * ha
				for _, b := range dep {
					gb := sg[b]
					if b == eta {
						gb = e1
					}
					h += d2[a*na+b] * ga * gb
				}
			}
			dc[0] += g
			dc[1] += h
		}
	}
	ls.part[c] = t
	if mode != linRow || math.IsInf(t, -1) || math.IsNaN(t) {
		return
	}
	k := s.k
	x := lf.terms[ls.rowTerm].node.x
	if col := ls.col; col >= 0 {
		// A plate site: the gradient Σ d1_r X_r,col and Hessian Σ d2_r X_r,col².
		var g, h float64
		for r := lo; r < hi; r++ {
			a := x.data[r*x.cols+col]
			g += ls.d1[r] * a
			h += ls.d2[r] * a * a
		}
		dc[0], dc[1] = g, h
		return
	}
	xc := blas64.General{Rows: hi - lo, Cols: k, Stride: k, Data: x.data[lo*k : hi*k]}
	blas64.Gemv(blas.Trans, 1, xc, blas64.Vector{N: hi - lo, Inc: 1, Data: ls.d1[lo:hi]}, 0, blas64.Vector{N: k, Inc: 1, Data: dc[:k]})
	ls.kept[c] = gram.Significant(ls.kept[c], lf.rows[lo:hi], ls.d2, x.norm2, n)
	gram.AddWeighted(dc[k:], k, x.data, ls.kept[c], ls.d2)
}

// rowsWrt returns the argument in which linChunkRows differentiates for the call
// set up by linearSum (−1: none), or false if that call is not for it.
func rowsWrt(lf *linFactor, ls *linScratch) (wrt int, ok bool) {
	if lf.byRows == nil {
		return 0, false
	}
	dep := ls.dep
	switch ls.mode {
	case linRow:
		return lf.eta, true
	case linShared:
		if len(dep) != 1 {
			return 0, false
		}
		return dep[0], true
	case linOrbit:
		if len(dep) != 1 || dep[0] != lf.eta {
			return 0, false
		}
		return lf.eta, true
	}
	return -1, true
}

// sharedRowsCall reports whether linChunk sums the rows' derivatives in several
// shared arguments by one call of the family's DerivsSharedRows (the call set up by
// linearSum moves shared arguments only, and not through one argument alone, which
// linChunkRows handles).
func sharedRowsCall(lf *linFactor, ls *linScratch) bool {
	if ls.mode != linShared || lf.sharedRows == nil || len(ls.colDep) > 0 {
		return false
	}
	_, rows := rowsWrt(lf, ls)
	return !rows
}

// etaRows writes η of rows [lo, hi) into ls.eta, as linChunk's loop computes it,
// and returns that part of ls.eta.
func etaRows(lf *linFactor, ls *linScratch, lo, hi int) []float64 {
	ev := ls.eta[lo:hi]
	if len(lf.terms) == 1 && lf.terms[0].sign == 1 && lf.offset == nil && len(lf.cols) == 0 {
		for r, v := range ls.xv[0][lo:hi] {
			ev[r] = ls.sv + v
		}
	} else {
		// Term by term over the rows, each row's sum in linChunk's order.
		for r := range ev {
			ev[r] = ls.sv
		}
		for ti := range lf.terms {
			sign, xv := lf.terms[ti].sign, ls.xv[ti][lo:hi]
			for r, v := range xv {
				ev[r] += sign * v
			}
		}
		for c, cv := range ls.cv {
			for r, v := range lf.cols[c].col[lo:hi] {
				ev[r] += cv * v
			}
		}
		if lf.offset != nil {
			for r, v := range lf.offset[lo:hi] {
				ev[r] += v
			}
		}
	}
	return ev
}

// linChunkRows scores rows [lo, hi) of linear factor lf by one call of the family's
// DerivsRows where it applies (the value only, or derivatives in one argument), and
// reports whether it did; otherwise linChunk scores row by row.
func (s *scorer) linChunkRows(lf *linFactor, ls *linScratch, wk *linWork, lo, hi int, dc []float64) (float64, bool) {
	wrt, rows := rowsWrt(lf, ls)
	if !rows {
		return 0, false
	}
	mode, eta, na := ls.mode, lf.eta, ls.na
	ev := etaRows(lf, ls, lo, hi)
	var d1, d2 []float64
	if mode != linValue {
		d1, d2 = ls.d1[lo:hi], ls.d2[lo:hi]
	}
	fc := s.m.factors[lf.f]
	var t float64
	var ok bool
	if ls.tcur >= 0 {
		nt := lf.byTerms.RowTerms()
		terms := ls.terms[ls.tcur].terms[lo*nt : hi*nt]
		t, ok = lf.byTerms.DerivsRowsTerms(fc.obs[lo:hi], ev, wk.argv[:na], fc.d.k, eta, wrt, d1, d2, &wk.memo, terms, ls.reuse)
	} else {
		t, ok = lf.byRows.DerivsRows(fc.obs[lo:hi], ev, wk.argv[:na], fc.d.k, eta, wrt, d1, d2, &wk.memo)
	}
	if !ok || math.IsInf(t, -1) || math.IsNaN(t) {
		return t, ok
	}
	switch mode {
	case linRow:
		if sign := lf.terms[ls.rowTerm].sign; sign != 1 {
			for r := range d1 {
				d1[r] *= sign
			}
		}
	case linShared:
		var g, h float64
		for r := range d1 {
			g += d1[r]
			h += d2[r]
		}
		nx := ls.nx
		dc[wrt] += g
		dc[nx+wrt*nx+wrt] += h
		if len(ls.colDep) > 0 {
			colRowsShared(lf, ls, lo, d1, d2, dc)
		}
	case linOrbit:
		var g, h float64
		s1, s2 := ls.sg[eta], ls.sh[eta]
		for r := range d1 {
			e1, e2 := s1, s2
			for ti := range lf.terms {
				if ls.xu[ti] != nil {
					e1 += lf.terms[ti].sign * ls.xu[ti][lo+r]
					e2 += lf.terms[ti].sign * ls.xw[ti][lo+r]
				}
			}
			for _, c := range ls.colDep {
				e1 += ls.sgc[c] * lf.cols[c].col[lo+r]
				e2 += ls.shc[c] * lf.cols[c].col[lo+r]
			}
			g += d1[r] * e1
			h += d1[r]*e2 + d2[r]*e1*e1
		}
		dc[0] += g
		dc[1] += h
	}
	return t, true
}
