package graph

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/nmc-go/nmc/internal/gram"
)

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
				e += cv * ls.cols[c][r]
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
			e1, e2 = colOrbit(lf, ls, r, e1, e2)
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
			for r, v := range ls.cols[c][lo:hi] {
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
			e1, e2 = colOrbit(lf, ls, lo+r, e1, e2)
			g += d1[r] * e1
			h += d1[r]*e2 + d2[r]*e1*e1
		}
		dc[0] += g
		dc[1] += h
	}
	return t, true
}
