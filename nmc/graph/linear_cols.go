package graph

// Column terms of a linear predictor: η_r gets s_c·col_c[r] for a shared scalar s_c
// (a node of length 1: a scalar latent, Index of a Vector site's coordinate, any
// expression of them) times a constant column col_c (Data, or any constant
// expression of the factor's length). A regression written literally,
// α + β·x or Index(b, 0) + Index(b, 1)·h, is then a linear factor like its MatVec
// form, scored as a whole instead of element by element.
//
// When the active coordinates enter the coefficients, η_r's jet is
// S + Σ_c col_c[r]·s_c: the coefficients are extra shared arguments, each read by
// row r with weight col_c[r]. The rows' derivatives are summed per extended
// argument — Σ_r ∂f_r/∂η·col_c[r], Σ_r ∂²f_r/∂η²·col_c[r]·col_d[r], and the cross
// terms with the other shared arguments — and chained once through the
// coefficients' jets (chainSums), as linShared does for the shared arguments alone.
// Along an orbit, η_r′ and η_r″ get col_c[r] times the coefficient's derivatives.
//
// A column may also be a plate of scalar sites read by a data index, s_c·a[g_r]
// (the non-centred σ·z[g]): its values are read from the state at each call, and
// an orbit that moves the plate adds s_c·u[g_r] to η_r′ and 2·s_c′·u[g_r] +
// s_c·w[g_r] to η_r″ (u and w the plate's dx/dt and d²x/dt²). The plate's own
// sites keep the element path, as an indexed term's (linear.go).

// linCol is one column term of a linear predictor: sign·coef·col.
type linCol struct {
	coef  *Node     // length 1
	sign  float64   // +1 or −1
	col   []float64 // the factor's length; nil for an indexed plate
	plate *family   // an indexed plate: row r reads its element idx[r]
	idx   []int
}

// colScratch is a linScratch's per-call state of the column terms.
type colScratch struct {
	cv       []float64   // per column: sign·coef, the value η_r reads
	cols     [][]float64 // per column: its values (an indexed plate's read from the state)
	cu, cw   [][]float64 // linOrbit: per indexed column the orbit moves, its rows' dx/dt and d²x/dt² (nil otherwise)
	colMoved []int       // linOrbit: the indexed columns the orbit moves
	sgc, shc []float64   // linOrbit: per column, the coefficient's dv/dt and d²v/dt²
	colDep   []int       // the columns whose coefficients depend on the active coordinates
	argsX    []jet       // linShared: the arguments' jets, then the moving coefficients'
}

// addCol adds n = Mul(a, b) as a column term with sign, if one operand has length 1
// and the other is constant or a plate of scalar sites read by a data index, and
// reports whether it did.
func (lf *linFactor) addCol(m *Model, n *Node, sign float64) bool {
	a, b := n.args[0], n.args[1]
	if a.length != 1 {
		a, b = b, a
	}
	if a.length != 1 || a.width != 1 || b.length != n.length || b.width != 1 {
		return false
	}
	if isConst(b) {
		lf.cols = append(lf.cols, linCol{coef: a, sign: sign, col: constColumn(m, b)})
		return true
	}
	if b.op != opIndex && b.op != opAt {
		return false
	}
	f, idx := groupIndex(b, b.length)
	if f == nil || f.vector || reads(a, f) {
		return false
	}
	lf.cols = append(lf.cols, linCol{coef: a, sign: sign, plate: f, idx: idx})
	return true
}

// constColumn returns the values of the constant node n of width 1.
func constColumn(m *Model, n *Node) []float64 {
	if n.op == opConst {
		return n.vals
	}
	sc := m.valueScorer(nil)
	out := make([]float64, 0, n.length)
	for r := 0; r < n.length; r++ {
		out = sc.values(n, r, out)
	}
	return out
}

// colJets evaluates the coefficients of lf's column terms, times their signs, on
// the scorer's stack and returns their jets; it sets ls.cv to their values and
// ls.colDep to the columns whose jets depend on the active coordinates.
func (s *scorer) colJets(lf *linFactor, ls *linScratch) []jet {
	ls.colDep, ls.colMoved = ls.colDep[:0], ls.colMoved[:0]
	if len(lf.cols) == 0 {
		ls.cv = ls.cv[:0]
		return nil
	}
	if len(ls.cv) != len(lf.cols) {
		n := len(lf.cols)
		ls.cv, ls.sgc, ls.shc = make([]float64, n), make([]float64, n), make([]float64, n)
		ls.cols, ls.cu, ls.cw = make([][]float64, n), make([][]float64, n), make([][]float64, n)
	}
	js := s.push(len(lf.cols))
	for c := range lf.cols {
		lc := &lf.cols[c]
		j := s.push(1)
		s.eval(lc.coef, 0, j)
		js[c] = s.ops.scale(lc.sign, &j[0])
		ls.cv[c], ls.sgc[c], ls.shc[c] = js[c].v, 0, 0
		if js[c].kind != jConst {
			ls.colDep = append(ls.colDep, c)
		}
		if lc.plate == nil {
			ls.cols[c] = lc.col
			continue
		}
		f, n := lc.plate, len(lc.idx)
		if len(ls.cols[c]) != n {
			ls.cols[c] = make([]float64, n)
		}
		gather(ls.cols[c], s.x[f.offset:], lc.idx)
		if s.orbit != nil && s.orbit.member[f.id] {
			if len(ls.cu[c]) != n {
				ls.cu[c], ls.cw[c] = make([]float64, n), make([]float64, n)
			}
			gather(ls.cu[c], s.ou[f.offset:], lc.idx)
			gather(ls.cw[c], s.ow[f.offset:], lc.idx)
			ls.colMoved = append(ls.colMoved, c)
		}
	}
	return js
}

// colActive reports whether the active site is one of an indexed column's plate's
// sites (the factor is then scored by elements).
func (s *scorer) colActive(lf *linFactor) bool {
	for _, lc := range lf.cols {
		if f := lc.plate; f != nil && s.active >= f.first && s.active < f.first+f.length {
			return true
		}
	}
	return false
}

// colOrbit adds to η_r′ and η_r″ (e1, e2) row r's terms of the column terms along an
// orbit: the moving coefficients' derivatives times the columns, and the moved
// indexed plates' (see above).
func colOrbit(lf *linFactor, ls *linScratch, r int, e1, e2 float64) (float64, float64) {
	for _, c := range ls.colDep {
		e1 += ls.sgc[c] * ls.cols[c][r]
		e2 += ls.shc[c] * ls.cols[c][r]
	}
	for _, c := range ls.colMoved {
		u := ls.cu[c][r]
		e1 += ls.cv[c] * u
		e2 += 2*ls.sgc[c]*u + ls.cv[c]*ls.cw[c][r]
	}
	return e1, e2
}

// sharedArgs returns the jets the linShared sums are chained through: args, then
// the moving coefficients' (the layout colRowShared writes), or args alone.
func (ls *linScratch) sharedArgs(args, colJ []jet) []jet {
	if len(ls.colDep) == 0 {
		return args
	}
	ls.argsX = append(ls.argsX[:0], args...)
	for _, c := range ls.colDep {
		ls.argsX = append(ls.argsX, colJ[c])
	}
	return ls.argsX
}

// colRowShared adds row r's derivatives in the moving coefficients to dc
// (linShared, the layout of sharedArgs: gradient nx, then Hessian nx×nx), given the
// row's derivatives d1 and d2 in its arguments (na of them).
func colRowShared(lf *linFactor, ls *linScratch, r int, d1, d2, dc []float64) {
	nx, eta, dep := ls.nx, lf.eta, ls.dep
	na := nx - len(ls.colDep)
	g, h := d1[eta], d2[eta*na+eta]
	for i, c := range ls.colDep {
		w := ls.cols[c][r]
		ic := na + i
		dc[ic] += g * w
		for _, b := range dep {
			dc[nx+ic*nx+b] += d2[eta*na+b] * w
			dc[nx+b*nx+ic] += d2[b*na+eta] * w
		}
		for i2, c2 := range ls.colDep {
			dc[nx+ic*nx+na+i2] += h * w * ls.cols[c2][r]
		}
	}
}

// colRowsShared adds the derivatives in the moving coefficients of rows
// [lo, lo+len(d1)) to dc (linShared, as colRowShared), given the rows' derivatives
// d1 and d2 in η, the one argument that moves.
func colRowsShared(lf *linFactor, ls *linScratch, lo int, d1, d2, dc []float64) {
	nx, eta := ls.nx, lf.eta
	na := nx - len(ls.colDep)
	for i, c := range ls.colDep {
		col := ls.cols[c][lo : lo+len(d1)]
		ic := na + i
		var g, he float64
		for r, w := range col {
			g += d1[r] * w
			he += d2[r] * w
		}
		dc[ic] += g
		dc[nx+ic*nx+eta] += he
		dc[nx+eta*nx+ic] += he
		for i2, c2 := range ls.colDep {
			col2 := ls.cols[c2][lo : lo+len(d1)]
			var hc float64
			for r, w := range col {
				hc += d2[r] * w * col2[r]
			}
			dc[nx+ic*nx+na+i2] += hc
		}
	}
}
