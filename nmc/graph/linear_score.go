package graph

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/nmc-go/nmc/internal/parallel"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/dist"
)

// linScratch is one scorer's working memory for one linear factor.
type linScratch struct {
	d1, d2 []float64   // per row: ∂/∂η and ∂²/∂η² (active v_t), or in the argument of linChunkRows
	eta    []float64   // per row: η (linChunkRows)
	part   []float64   // per chunk: partial log density
	deriv  []float64   // per chunk: partial derivatives (layout by mode)
	kept   [][]int     // per chunk: rows with a significant Hessian term
	xv     [][]float64 // per term: X_t·v_t (the cache's slice)
	xu, xw [][]float64 // per term: X_t·u and X_t·w along an orbit
	gath   [][]float64 // per indexed-plate term: its rows' values (xv's slices)
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
	for a, p := range argNodes(d.params) {
		if a == lf.eta {
			continue
		}
		pj := args[a : a+p.width]
		s.eval(p, 0, pj)
		for c := range pj {
			sharedDeriv = sharedDeriv || pj[c].kind != jConst
		}
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
	if s.colActive(lf) {
		return 0, false // a site of an indexed column's plate: by elements (unreachable, as for an indexed term)
	}
	colMoves := len(ls.colDep) > 0
	sharedDeriv = sharedDeriv || colMoves

	// The MatVec terms' values, and which of them the active coordinates move.
	mode := linValue
	rowTerm := -1
	xv := ls.xv
	for t, tm := range lf.terms {
		f := tm.fam
		if tm.idx != nil {
			if s.active >= f.first && s.active < f.first+f.length {
				return 0, false // a site of an indexed plate: by elements (unreachable: such a site's blanket holds the factor's rows partly)
			}
			xv[t] = gather(ls.gathered(t, n), s.x[f.offset:], tm.idx)
			if s.orbit != nil && s.orbit.member[f.id] {
				mode = linOrbit
			}
			continue
		}
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
	if len(ls.colMoved) > 0 {
		mode = linOrbit
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
	for _, lc := range lf.cols {
		if f := lc.plate; f != nil {
			key = append(key, s.x[f.offset:f.offset+f.length]...)
		}
	}
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

// argNodes yields each parameter node with the argument index of its first
// coordinate (argument 0 is the value; a parameter of width w takes w arguments).
func argNodes(params []*Node) func(yield func(int, *Node) bool) {
	return func(yield func(int, *Node) bool) {
		a := 1
		for _, p := range params {
			if !yield(a, p) {
				return
			}
			a += p.width
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
		rows := len(xv[t])
		if ls.xu[t] == nil || len(ls.xu[t]) != rows {
			ls.xu[t], ls.xw[t] = make([]float64, rows), make([]float64, rows)
		}
		xu, xw := ls.xu[t], ls.xw[t]
		if tm.idx != nil {
			gather(xu, s.ou[f.offset:], tm.idx)
			gather(xw, s.ow[f.offset:], tm.idx)
			continue
		}
		x := tm.node.x
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

// gathered returns term t's buffer of n rows for an indexed plate's values.
func (ls *linScratch) gathered(t, n int) []float64 {
	if ls.gath == nil {
		ls.gath = make([][]float64, len(ls.xv))
	}
	if len(ls.gath[t]) != n {
		ls.gath[t] = make([]float64, n)
	}
	return ls.gath[t]
}

// gather writes src[idx[r]] into dst[r] for every row r, and returns dst.
func gather(dst, src []float64, idx []int) []float64 {
	for r, i := range idx {
		dst[r] = src[i]
	}
	return dst
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
