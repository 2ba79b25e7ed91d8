package graph

import (
	"slices"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/dist"
)

// Linear factors: an observed factor of scalar values whose parameters are shared
// (nodes of length 1: scalars such as a Student-t's ν and σ, or vectors such as an
// ordinal regression's cutpoints) and one linear predictor
//
//	η_r = Σ (shared scalar terms) ± Σ_t (X_t·v_t)_r ± Σ_c s_c·(data column c)_r + (data offset)_r
//
// over Vector sites v_t (the logistic and robust regressions' α + Xβ), plates of
// scalar sites read by a data index (a[g_r], a varying intercept: X_t the
// indicator matrix of g, kept as the index) and shared scalars s_c (a regression
// written literally, α + β·x; linear_cols.go). Such a factor
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
// An indexed plate's sites read a few rows each, so their scores keep the element
// path (the factor is in no site's blanket as a whole); the factor is scored as a
// whole for the other sites, the orbits and the log joint.
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

// linTerm is one MatVec or indexed-plate term of a linear predictor.
type linTerm struct {
	node *Node   // opMatVec over a Vector latent or a plate of scalar sites; or the indexing node
	fam  *family // the latent
	sign float64 // +1 or −1
	idx  []int   // an indexed plate: row r reads the plate's element idx[r] (node.x unused)
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
	arg := 1 // the argument index of p's first coordinate
	for _, p := range fc.d.params {
		if p.length == 1 {
			arg += p.width // a shared scalar, or a shared vector (ordinal cutpoints)
			continue
		}
		if p.width != 1 || lf.eta >= 0 || p.length != fc.length {
			return lf, false
		}
		lf.eta = arg
		arg++
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
	for _, c := range lf.cols {
		if c.plate != nil && m.sites[c.plate.first].Support == nmc.Discrete {
			return lf, false
		}
	}
	lf.partial, _ = fc.d.fam.(dist.PartialDeriver)
	lf.byRows, _ = fc.d.fam.(dist.RowsDeriver)
	lf.byTerms, _ = fc.d.fam.(dist.RowTermsDeriver)
	lf.sharedRows, _ = fc.d.fam.(dist.SharedRowsDeriver)
	lf.sharedTerms, _ = fc.d.fam.(dist.SharedRowTermsDeriver)
	if arg > 64 { // the arguments a call moves are a bit set (dist.PartialDeriver)
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
	case opIndex, opAt:
		f, idx := groupIndex(n, n.length)
		if f == nil || f.vector || slices.ContainsFunc(lf.terms, func(t linTerm) bool { return t.fam == f }) {
			return false
		}
		lf.terms = append(lf.terms, linTerm{node: n, fam: f, sign: sign, idx: idx})
		return true
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
