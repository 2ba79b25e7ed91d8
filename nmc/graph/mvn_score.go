package graph

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// A jetFamily is a distribution family whose factor elements the scorer does not
// evaluate through dist.Family.Derivs over flat arguments: scoreElem reads the
// jets of the element's value and parameters itself and adds the derivatives of its
// log density in the active coordinates to s.grad and s.hess. It is for families
// with many arguments whose dense Hessian would be far larger than the derivatives
// that matter (a multivariate normal whose covariance is a node).
type jetFamily interface {
	// scoreElem is factorElem for element e of factor fi (see there for deriv and
	// skipConst).
	scoreElem(s *scorer, fi, e int, deriv, skipConst bool) float64
}

// A multivariate normal element's score (mvnFamily.scoreElem) with K the
// covariance (or L·Lᵀ), r = x − μ, z = L⁻¹r and a = K⁻¹r:
//
//	log p = −½ log det K − ½ zᵀz − (n/2) log 2π,
//
// and for active coordinates p, q, with subscripts for derivatives,
//
//	∂_p log p = −aᵀr_p + Σ_{i≥j} w_ij ∂_p C_ij,
//	∂_pq log p = −aᵀr_pq + Σ_{i≥j} w_ij ∂_pq C_ij + P_pq,
//
// where C is the matrix parameter read by its lower triangle and, for a
// covariance, w_ij = (2 − δ_ij)·½(a_i a_j − K⁻¹_ij) and
//
//	P_pq = ½⟨S_p, S_q⟩ − v_pᵀv_q,  S_p = L⁻¹K_pL⁻ᵀ,  v_p = L⁻¹(r_p − K_p a),
//
// and for a Cholesky factor w_ij = a_i z_j − δ_ij/L_ii and
//
//	P_pq = Σ_i (L_p)_ii (L_q)_ii / L_ii² − v_pᵀv_q + y_pᵀv_q + y_qᵀv_p,
//	v_p = L⁻¹(r_p − L_p z),  y_p = L_pᵀa.
//
// The first two sums go through the argument jets (addGrad, addHess), so that
// structured jets stay structured; P needs the first derivatives only, per
// coordinate that moves the element. Directions in which only r moves have
// S_p = 0 and v_p = L⁻¹r_p; when every moving r_i is a function of one coordinate
// (the latent values of a Gaussian process, scored as a site), P is −K⁻¹
// restricted to them, read from K⁻¹ kept with the factor. A covariance that moves
// only on its diagonal (a noise variance) needs no S_p: ⟨S_p, S_q⟩ =
// Σ_ij (K_p)_ii (K_q)_jj (K⁻¹_ij)². Otherwise each such coordinate costs two
// triangular solves of n×n matrices.

// mvnScratch is one scorer's working memory for one multivariate normal factor.
type mvnScratch struct {
	factorCache
	cov nodeDeps // of the matrix parameter

	r, z, a, u []float64
	vals       []float64 // n×n: the matrix's values
	// Derivative scratch (grown as needed): per active coordinate its direction
	// (−1: none) and, per direction, its coordinate, its index among the matrix
	// directions (−1: none), r_p, v_p and y_p; per matrix direction C_p (n×n),
	// and either S_p or, when C_p = scale·K + diag(dg), scale and dg (traces).
	dirOf  []int32
	dirs   []int
	cdir   []int32
	rp, vp []float64
	yp     []float64
	cp     []float64
	sp     []float64 // S_p, or B_p = K⁻¹C_p (mixedTraces)
	scale  []float64
	dg     []float64
	coord  []int // per matrix direction, its coordinate
	terms  []unitTerm
	// structured: per matrix direction, whether it is scale·K + diag(dg);
	// cfull: a direction's C_p, both triangles (mixedTraces).
	structured []bool
	cfull      []float64
}

// unitTerm is a moving r_i that is a function of one coordinate c: ∂_c r_i = g.
type unitTerm struct {
	i, c int
	g    float64
}

func (ws *mvnScratch) init(n int) {
	ws.factorCache.init(n)
	ws.r, ws.z, ws.a, ws.u = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	ws.vals = make([]float64, n*n)
}

// mvnScratch returns the scratch of factor fi, made on first use.
func (s *scorer) mvnScratch(fi, n int) *mvnScratch {
	if s.gp.mvn == nil {
		s.gp.mvn = make([]*mvnScratch, len(s.m.factors))
	}
	ws := s.gp.mvn[fi]
	if ws == nil {
		ws = &mvnScratch{}
		ws.init(n)
		s.gp.mvn[fi] = ws
	}
	return ws
}

// scoreElem returns the log density of element e of the multivariate normal
// factor fi and, with deriv, adds its derivatives in the active coordinates to
// s.grad and s.hess (see factorElem).
func (f *mvnFamily) scoreElem(s *scorer, fi, e int, deriv, skipConst bool) float64 {
	fc := s.m.factors[fi]
	n := f.n
	ws := s.mvnScratch(fi, n)
	s.top = 0
	s.ops.ar.top = 0
	xj := s.push(n)
	if fc.obs != nil {
		for c := range xj {
			xj[c] = jet{v: fc.obs[e*n+c]}
		}
	} else {
		s.eval(fc.fam.node, e, xj)
	}
	mu, c := fc.d.params[0], fc.d.params[1]
	mj := s.push(n)
	s.eval(mu, elem(mu, e), mj)
	rMoves := anyMoving(xj) || anyMoving(mj)
	ce := elem(c, e)
	deps, fams := ws.cov.of(s.m, c, ce)
	cMoves := s.moves(deps, fams)
	if skipConst && !rMoves && !cMoves {
		return 0
	}
	var cj []jet
	if deriv && cMoves {
		cj = s.push(n * n)
		s.eval(c, ce, cj)
	}
	sl, found, keep := ws.slot(s, ce, deps)
	if !found {
		if cj == nil {
			top := s.top
			vj := s.push(n * n)
			s.eval(c, ce, vj)
			for i := range vj {
				ws.vals[i] = vj[i].v
			}
			s.top = top
		} else {
			for i := range cj {
				ws.vals[i] = cj[i].v
			}
		}
		logDet, err := f.factorise(ws.vals, sl.l)
		if err != nil {
			return math.Inf(-1)
		}
		sl.logDet, sl.ok = logDet, keep
	}
	return f.derivs(s, ws, sl, xj, mj, cj, deriv && (rMoves || cMoves))
}

// anyMoving reports whether a jet of js is not constant.
func anyMoving(js []jet) bool {
	for i := range js {
		if js[i].kind != jConst {
			return true
		}
	}
	return false
}

// derivs returns the log density of value jets xj given mean jets mj and the
// factor in sl and, with deriv, adds its derivatives in the active coordinates,
// through the jets xj, mj and cj (the matrix's entries, nil when constant), to
// s.grad and s.hess.
func (f *mvnFamily) derivs(s *scorer, ws *mvnScratch, sl *mvnSlot, xj, mj, cj []jet, deriv bool) float64 {
	n := f.n
	r, z, a := ws.r, ws.z, ws.a
	for i := range r {
		r[i] = xj[i].v - mj[i].v
	}
	copy(z, r)
	lp := mvnLogDensity(n, sl.l, sl.logDet, z)
	if !deriv || math.IsInf(lp, -1) {
		return lp
	}
	lt := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: n, Stride: n, Data: sl.l}
	copy(a, z)
	blas64.Trsv(blas.Trans, lt, blas64.Vector{N: n, Data: a, Inc: 1})
	for i := 0; i < n; i++ {
		if xj[i].kind != jConst {
			s.addGrad(-a[i], &xj[i])
			s.addHess(-a[i], &xj[i])
		}
		if mj[i].kind != jConst {
			s.addGrad(a[i], &mj[i])
			s.addHess(a[i], &mj[i])
		}
	}
	cMoves := false
	for i := 0; i < n && cj != nil && !cMoves; i++ {
		cMoves = anyMoving(cj[i*n : i*n+i+1])
	}
	if cMoves {
		if !f.chol {
			ws.inverse(sl)
		}
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				cij := &cj[i*n+j]
				if cij.kind == jConst {
					continue
				}
				var w float64
				switch {
				case f.chol && i == j:
					w = a[i]*z[j] - 1/sl.l[i*n+i]
				case f.chol:
					w = a[i] * z[j]
				case i == j:
					w = 0.5 * (a[i]*a[i] - sl.kinv[i*n+i])
				default:
					w = a[i]*a[j] - sl.kinv[i*n+j]
				}
				s.addGrad(w, cij)
				s.addHess(w, cij)
			}
		}
	}
	if !cMoves && ws.unitTerms(xj, mj) {
		ws.inverse(sl)
		k := s.k
		for _, ta := range ws.terms {
			row := sl.kinv[ta.i*n : ta.i*n+n]
			h := s.hess[ta.c*k : ta.c*k+k]
			for _, tb := range ws.terms {
				h[tb.c] -= ta.g * tb.g * row[tb.i]
			}
		}
		return lp
	}
	f.products(s, ws, sl, xj, mj, cj, cMoves)
	return lp
}

// unitTerms lists in ws.terms the moving r_i = x_i − μ_i of the value and mean
// jets when every moving jet is a function of one coordinate, and reports
// whether they are.
func (ws *mvnScratch) unitTerms(xj, mj []jet) bool {
	ws.terms = ws.terms[:0]
	for i := range xj {
		if !ws.unitTerm(i, &xj[i], 1) || !ws.unitTerm(i, &mj[i], -1) {
			return false
		}
	}
	return true
}

// unitTerm adds r_i's term of jet j (sign +1 for the value, −1 for the mean) and
// reports whether j is constant or a function of one coordinate.
func (ws *mvnScratch) unitTerm(i int, j *jet, sign float64) bool {
	switch j.kind {
	case jConst:
		return true
	case jUnit:
		ws.terms = append(ws.terms, unitTerm{i: i, c: j.i, g: sign * j.gc})
		return true
	}
	return false
}

// products adds P_pq (see the comment above mvnScratch) to s.hess in the general
// case: directions of r and, when cMoves, of the matrix, each with its own vectors.
func (f *mvnFamily) products(s *scorer, ws *mvnScratch, sl *mvnSlot, xj, mj, cj []jet, cMoves bool) {
	n, k := f.n, s.k
	ws.dirOf = slices.Grow(ws.dirOf[:0], k)[:k]
	for p := range ws.dirOf {
		ws.dirOf[p] = -1
	}
	ws.dirs, ws.cdir = ws.dirs[:0], ws.cdir[:0]
	mark := func(p int, _ float64) {
		if ws.dirOf[p] < 0 {
			ws.dirOf[p] = int32(len(ws.dirs))
			ws.dirs = append(ws.dirs, p)
			ws.cdir = append(ws.cdir, -1)
		}
	}
	for i := 0; i < n; i++ {
		s.eachGrad(&xj[i], mark)
		s.eachGrad(&mj[i], mark)
	}
	nc := 0
	if cMoves {
		markC := func(p int, g float64) {
			mark(p, g)
			if d := ws.dirOf[p]; ws.cdir[d] < 0 {
				ws.cdir[d] = int32(nc)
				nc++
			}
		}
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				s.eachGrad(&cj[i*n+j], markC)
			}
		}
	}
	nd := len(ws.dirs)
	if nd == 0 {
		return
	}
	ws.rp = growClear(ws.rp, nd*n)
	ws.vp = growClear(ws.vp, nd*n)
	ws.yp = growClear(ws.yp, nc*n)
	ws.cp = growClear(ws.cp, nc*n*n)
	for i := 0; i < n; i++ {
		s.eachGrad(&xj[i], func(p int, g float64) { ws.rp[int(ws.dirOf[p])*n+i] += g })
		s.eachGrad(&mj[i], func(p int, g float64) { ws.rp[int(ws.dirOf[p])*n+i] -= g })
	}
	if cMoves {
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				s.eachGrad(&cj[i*n+j], func(p int, g float64) {
					c := int(ws.cdir[ws.dirOf[p]])
					ws.cp[c*n*n+i*n+j] += g
				})
			}
		}
	}
	lt := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: n, Stride: n, Data: sl.l}
	// v_p = L⁻¹(r_p − u_p), u_p = K_p a (covariance) or L_p z (Cholesky factor).
	for d := 0; d < nd; d++ {
		v := ws.vp[d*n : d*n+n]
		copy(v, ws.rp[d*n:d*n+n])
		if c := int(ws.cdir[d]); c >= 0 {
			cp := ws.cp[c*n*n : (c+1)*n*n]
			u := ws.u
			clear(u)
			y := ws.yp[c*n : c*n+n]
			for i := 0; i < n; i++ {
				for j := 0; j <= i; j++ {
					g := cp[i*n+j]
					if g == 0 {
						continue
					}
					if f.chol {
						u[i] += g * ws.z[j]
						y[j] += g * ws.a[i]
						continue
					}
					u[i] += g * ws.a[j]
					if i != j {
						u[j] += g * ws.a[i]
					}
				}
			}
			for i := range v {
				v[i] -= u[i]
			}
		}
		blas64.Trsv(blas.NoTrans, lt, blas64.Vector{N: n, Data: v, Inc: 1})
	}
	for d := 0; d < nd; d++ {
		p := ws.dirs[d]
		vd := ws.vp[d*n : d*n+n]
		for e := 0; e < nd; e++ {
			q := ws.dirs[e]
			ve := ws.vp[e*n : e*n+n]
			h := -dot(vd, ve)
			if f.chol {
				if c := ws.cdir[d]; c >= 0 {
					h += dot(ws.yp[int(c)*n:int(c)*n+n], ve)
				}
				if c := ws.cdir[e]; c >= 0 {
					h += dot(ws.yp[int(c)*n:int(c)*n+n], vd)
				}
				if cd, ce := ws.cdir[d], ws.cdir[e]; cd >= 0 && ce >= 0 {
					for i := 0; i < n; i++ {
						lii := sl.l[i*n+i]
						h += ws.cp[int(cd)*n*n+i*n+i] * ws.cp[int(ce)*n*n+i*n+i] / (lii * lii)
					}
				}
			}
			s.hess[p*k+q] += h
		}
	}
	if f.chol || nc == 0 {
		return
	}
	f.traces(s, ws, sl, cj, nc)
}

// scaledDiagTrace returns the trace term of directions c and e whose covariance
// derivatives are both scaled diagonals (scale·I + diag(dg)): n·s_c·s_e + s_c·Σ
// K⁻¹_ii dg_e,i + s_e·Σ K⁻¹_ii dg_c,i + Σ_ij dg_c,i dg_e,j (K⁻¹_ij)².
func (ws *mvnScratch) scaledDiagTrace(sl *mvnSlot, c, e, n int) float64 {
	dc, de := ws.dg[c*n:c*n+n], ws.dg[e*n:e*n+n]
	t := float64(n)*ws.scale[c]*ws.scale[e] + ws.scale[c]*diagDot(sl.kinv, de) + ws.scale[e]*diagDot(sl.kinv, dc)
	for i, di := range dc {
		if di == 0 {
			continue
		}
		row := sl.kinv[i*n : i*n+n]
		for j, kij := range row {
			t += di * de[j] * kij * kij
		}
	}
	return t
}

// traces adds ½⟨S_p, S_q⟩ = ½ tr(K⁻¹K_p K⁻¹K_q) to s.hess for every pair of the
// nc matrix directions; cj are the matrix's jets (their values K).
//
// A direction in which the covariance moves as K_p = c_p·K + D_p, D_p diagonal —
// an amplitude (K = α²E + σ²I: K_α = (2/α)(K − σ²I)) or a noise variance (c_p = 0)
// — has S_p = c_p·I + L⁻¹D_pL⁻ᵀ, and when every direction does,
//
//	⟨S_p, S_q⟩ = n·c_p c_q + c_p tr(K⁻¹D_q) + c_q tr(K⁻¹D_p) + Σ_ij (D_p)_ii (D_q)_jj (K⁻¹_ij)²,
//
// O(n²) from K⁻¹. c_p is read from the largest off-diagonal entry of K and
// checked on every other one (to 1e-12 relative). When no direction does, each
// direction's S_p costs two triangular solves with n right-hand sides; when some
// do and others not (a block of a kernel's length scale with its amplitude and a
// noise), see mixedTraces.
func (f *mvnFamily) traces(s *scorer, ws *mvnScratch, sl *mvnSlot, cj []jet, nc int) {
	n, k := f.n, s.k
	ws.coord = ws.coord[:0]
	for d, c := range ws.cdir {
		if c >= 0 {
			ws.coord = append(ws.coord, ws.dirs[d])
		}
	}
	coord := ws.coord
	switch ws.scaledDiagonal(cj, nc) {
	case nc:
		ws.inverse(sl)
		for c := 0; c < nc; c++ {
			for e := c; e < nc; e++ {
				t := ws.scaledDiagTrace(sl, c, e, n)
				s.hess[coord[c]*k+coord[e]] += 0.5 * t
				if e != c {
					s.hess[coord[e]*k+coord[c]] += 0.5 * t
				}
			}
		}
		return
	case 0:
	default:
		f.mixedTraces(s, ws, sl, nc)
		return
	}
	lt := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: n, Stride: n, Data: sl.l}
	ws.sp = slices.Grow(ws.sp[:0], nc*n*n)[:nc*n*n]
	for c := 0; c < nc; c++ {
		cc, sc := ws.cp[c*n*n:(c+1)*n*n], ws.sp[c*n*n:(c+1)*n*n]
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				sc[i*n+j], sc[j*n+i] = cc[i*n+j], cc[i*n+j]
			}
		}
		g := blas64.General{Rows: n, Cols: n, Stride: n, Data: sc}
		blas64.Trsm(blas.Left, blas.NoTrans, 1, lt, g)
		blas64.Trsm(blas.Right, blas.Trans, 1, lt, g)
	}
	for c := 0; c < nc; c++ {
		for e := c; e < nc; e++ {
			t := 0.5 * dot(ws.sp[c*n*n:(c+1)*n*n], ws.sp[e*n*n:(e+1)*n*n])
			s.hess[coord[c]*k+coord[e]] += t
			if e != c {
				s.hess[coord[e]*k+coord[c]] += t
			}
		}
	}
}

// mixedTraces is traces when some of the matrix directions move the covariance
// as C_c = scale[c]·K + diag(dg[c]) (structured, ws.structured[c]) and others do
// not (a length scale's, with an amplitude's and a noise's in a block): with
// B_c = K⁻¹C_c, ⟨S_c, S_e⟩ = tr(B_c B_e), where a structured direction's
// B_c = scale[c]·I + K⁻¹diag(dg[c]) needs no product, so that
//
//	tr(B_c B_e) = scale[c]·tr(B_e) + Σ_ij K⁻¹_ij dg[c]_j (B_e)_ji
//
// for a structured c and another e, each other direction costing one product
// K⁻¹C_e (n³), instead of two triangular solves with n right-hand sides for
// every direction.
func (f *mvnFamily) mixedTraces(s *scorer, ws *mvnScratch, sl *mvnSlot, nc int) {
	n, k := f.n, s.k
	coord := ws.coord
	ws.inverse(sl)
	kinv := blas64.General{Rows: n, Cols: n, Stride: n, Data: sl.kinv}
	ws.sp = slices.Grow(ws.sp[:0], nc*n*n)[:nc*n*n]
	ws.cfull = slices.Grow(ws.cfull[:0], n*n)[:n*n]
	for c := 0; c < nc; c++ {
		if ws.structured[c] {
			continue
		}
		cc := ws.cp[c*n*n : (c+1)*n*n]
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				ws.cfull[i*n+j], ws.cfull[j*n+i] = cc[i*n+j], cc[i*n+j]
			}
		}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, kinv, blas64.General{Rows: n, Cols: n, Stride: n, Data: ws.cfull},
			0, blas64.General{Rows: n, Cols: n, Stride: n, Data: ws.sp[c*n*n : (c+1)*n*n]})
	}
	for c := 0; c < nc; c++ {
		for e := c; e < nc; e++ {
			var t float64
			sc, se := ws.structured[c], ws.structured[e]
			switch {
			case sc && se:
				t = ws.scaledDiagTrace(sl, c, e, n)
			case sc || se:
				a, b := c, e // a structured, b not
				if se {
					a, b = e, c
				}
				bb := ws.sp[b*n*n : (b+1)*n*n]
				da := ws.dg[a*n : a*n+n]
				tr := 0.0
				for i := 0; i < n; i++ {
					tr += bb[i*n+i]
				}
				t = ws.scale[a] * tr
				for i := 0; i < n; i++ {
					row := sl.kinv[i*n : i*n+n]
					for j, kij := range row {
						t += kij * da[j] * bb[j*n+i]
					}
				}
			default:
				bc, be := ws.sp[c*n*n:(c+1)*n*n], ws.sp[e*n*n:(e+1)*n*n]
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						t += bc[i*n+j] * be[j*n+i]
					}
				}
			}
			s.hess[coord[c]*k+coord[e]] += 0.5 * t
			if e != c {
				s.hess[coord[e]*k+coord[c]] += 0.5 * t
			}
		}
	}
}

// scaledDiagonal returns how many matrix directions c move the covariance as
// C_c = scale[c]·K + diag(dg[c]) (see traces), K the values of cj, and sets
// ws.structured, and ws.scale and ws.dg of those.
func (ws *mvnScratch) scaledDiagonal(cj []jet, nc int) int {
	n := ws.n
	bi, bj, big := -1, -1, 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			if v := math.Abs(cj[i*n+j].v); v > big {
				bi, bj, big = i, j, v
			}
		}
	}
	ws.scale = slices.Grow(ws.scale[:0], nc)[:nc]
	ws.dg = slices.Grow(ws.dg[:0], nc*n)[:nc*n]
	ws.structured = slices.Grow(ws.structured[:0], nc)[:nc]
	count := 0
	for c := 0; c < nc; c++ {
		ws.structured[c] = ws.scaledDirection(cj, c, bi, bj)
		if ws.structured[c] {
			count++
		}
	}
	return count
}

// scaledDirection reports whether matrix direction c moves the covariance as
// C_c = scale[c]·K + diag(dg[c]), the scale read at entry (bi, bj), and sets
// ws.scale[c] and ws.dg[c].
func (ws *mvnScratch) scaledDirection(cj []jet, c, bi, bj int) bool {
	n := ws.n
	cp := ws.cp[c*n*n : (c+1)*n*n]
	sc := 0.0
	if bi >= 0 {
		sc = cp[bi*n+bj] / cj[bi*n+bj].v
	}
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			g, want := cp[i*n+j], sc*cj[i*n+j].v
			if !(math.Abs(g-want) <= 1e-12*math.Max(math.Abs(g), math.Abs(want))) {
				return false
			}
		}
		ws.dg[c*n+i] = cp[i*n+i] - sc*cj[i*n+i].v
	}
	ws.scale[c] = sc
	return true
}

// diagDot returns Σ_i a_ii d_i for the n×n row-major a.
func diagDot(a, d []float64) float64 {
	n := len(d)
	t := 0.0
	for i, v := range d {
		t += a[i*n+i] * v
	}
	return t
}
