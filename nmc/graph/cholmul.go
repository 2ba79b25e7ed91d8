package graph

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// CholeskyMul returns L·eta, L the lower Cholesky factor of the covariance node cov
// (n elements of n components, as the kernels make) and eta a node of n scalar
// elements (a Vector site) or of one element of n components: n scalar elements,
// element i being Σ_{j≤i} L_ij·eta_j (Stan's cholesky_decompose(K) * eta). With
// eta ~ N(0, 1) it is the non-centred form of f ~ MultivariateNormalCov(0, cov),
// whose amplitude and length scale then move given eta, not given f
// (posteriordb's gp_pois_regr):
//
//	K := graph.AddDiag(graph.ExpQuadCov(graph.Data(x), alpha, rho), graph.C(1e-10))
//	eta := b.Vector("eta", n, graph.Normal(graph.C(0), graph.C(1)))
//	b.ObserveInts("k", graph.PoissonLog(graph.CholeskyMul(K, eta)), counts)
//
// The factor and, for each coordinate of the active site that moves cov, its
// first and second derivatives (L_p = L·Φ(L⁻¹K_pL⁻ᵀ), Φ the lower triangle with
// half the diagonal, and likewise L_pq; Murray 2016) are computed once per score.
// Seen from eta's own site, element i is a function of L_i·eta with L kept
// between scores while cov does not move, so a likelihood's Hessian in eta is
// Lᵀdiag(w)L, as for MatVec. A cov that is not symmetric positive definite makes
// every element NaN (so the density −Inf). Errors (shapes) are returned by Build.
func CholeskyMul(cov, eta *Node) *Node {
	op := cholMulOp{}
	if err := firstErr(op.name(), cov, eta); err != nil {
		return &Node{op: opCustom, impl: op, length: 1, width: 1, err: err}
	}
	n := cov.length
	if cov.width != n {
		return customErr(op, "the covariance has %d elements of width %d, want a square matrix", cov.length, cov.width)
	}
	switch {
	case eta.length == n && eta.width == 1:
	case eta.length == 1 && eta.width == n:
		op.etaVec = true
	default:
		return customErr(op, "eta has %d elements of width %d, want %d scalars or one element of width %d", eta.length, eta.width, n, n)
	}
	op.n = n
	return custom(op, n, 1, Reshape(cov, 1, n*n), eta)
}

// cholMulOp is CholeskyMul: args are the covariance read as one element of n²
// components and eta.
type cholMulOp struct {
	n      int
	etaVec bool // eta is one element of width n
}

func (cholMulOp) name() string { return "CholeskyMul" }

func (o cholMulOp) reads(n *Node, e int, visit func(*Node, int)) {
	visit(n.args[0], 0)
	if o.etaVec {
		visit(n.args[1], 0)
		return
	}
	for j := 0; j <= e; j++ {
		visit(n.args[1], j)
	}
}

// cholMulMode is how a CholeskyMul's elements are evaluated in a score.
type cholMulMode uint8

const (
	cmConst   cholMulMode = iota // nothing moves
	cmRow                        // eta is the active site: jRow jets of L's rows
	cmUnit                       // cov moves in one coordinate p, eta does not
	cmGeneral                    // jets of L's entries times eta's, by jetOps
)

// cholMulScratch is one scorer's working memory for one CholeskyMul node: the
// factor cache, and what prepare computed for the scorer call it was made in.
type cholMulScratch struct {
	factorCache
	cov nodeDeps
	// The scorer call (epoch, active site or orbit, summed-out value) of the
	// prepared state.
	epoch   uint64
	active  int
	orbit   *orbit
	fixSite int
	fixVal  float64
	ok      bool // false: the covariance is not positive definite

	mode   cholMulMode
	l      []float64  // n×n: L
	mat    dataMatrix // cmRow: L as the rows of jRow jets
	f      []float64  // n: L·eta
	gc, hc []float64  // cmUnit: per element, L_p·eta and L_pp·eta
	dirs   []int      // coordinates in which cov moves
	dirOf  []int32
	lp     []float64 // per direction: L_p (n×n)
	lpq    []float64 // per pair of directions: L_pq (n×n)
	vals   []float64 // n×n: K's values
	buf    []float64 // n×n scratch
	eta    []float64 // n: eta's values
}

// cholMulScratch returns the scratch of node n, made on first use.
func (s *scorer) cholMulScratch(n *Node, size int) *cholMulScratch {
	if s.gp.cholMul == nil {
		s.gp.cholMul = map[*Node]*cholMulScratch{}
	}
	sc := s.gp.cholMul[n]
	if sc == nil {
		sc = &cholMulScratch{l: make([]float64, size*size), f: make([]float64, size), gc: make([]float64, size),
			hc: make([]float64, size), vals: make([]float64, size*size), buf: make([]float64, size*size), eta: make([]float64, size)}
		sc.factorCache.init(size)
		sc.mat = dataMatrix{rows: size, cols: size, data: make([]float64, size*size)}
		s.gp.cholMul[n] = sc
	}
	return sc
}

func (o cholMulOp) eval(s *scorer, n *Node, e int, out []jet) {
	sc := s.cholMulScratch(n, o.n)
	if sc.epoch != s.epoch || sc.active != s.active || sc.orbit != s.orbit || sc.fixSite != s.fixSite || sc.fixVal != s.fixVal {
		o.prepare(s, n, sc)
		sc.epoch, sc.active, sc.orbit, sc.fixSite, sc.fixVal = s.epoch, s.active, s.orbit, s.fixSite, s.fixVal
	}
	if !sc.ok {
		out[0] = jet{v: math.NaN()}
		return
	}
	switch sc.mode {
	case cmConst:
		out[0] = jet{v: sc.f[e]}
	case cmRow:
		out[0] = jet{v: sc.f[e], kind: jRow, i: e, m: &sc.mat, gc: 1}
	case cmUnit:
		out[0] = jet{v: sc.f[e], kind: jUnit, i: sc.dirs[0], gc: sc.gc[e], hc: sc.hc[e]}
	default:
		o.general(s, n, sc, e, out)
	}
}

// evalEta writes eta's jets into ej.
func (o cholMulOp) evalEta(s *scorer, n *Node, ej []jet) {
	if o.etaVec {
		s.eval(n.args[1], 0, ej)
		return
	}
	for j := range ej {
		s.eval(n.args[1], j, ej[j:j+1])
	}
}

// prepare computes the factor, L·eta and the derivatives the elements' jets need
// in this scorer call.
func (o cholMulOp) prepare(s *scorer, n *Node, sc *cholMulScratch) {
	size := o.n
	top := s.top
	defer func() { s.top = top }()
	cov := n.args[0]
	deps, fams := sc.cov.of(s.m, cov, 0)
	moves := s.moves(deps, fams)
	var kj []jet
	if moves {
		kj = s.push(size * size)
		s.eval(cov, 0, kj)
	}
	sl, found, keep := sc.slot(s, 0, deps)
	if !found {
		if kj == nil {
			kj = s.push(size * size)
			s.eval(cov, 0, kj)
		}
		for i := range kj {
			sc.vals[i] = kj[i].v
		}
		fam := mvnFamily{n: size}
		logDet, err := fam.factorise(sc.vals, sl.l)
		if err != nil {
			sc.ok = false
			return
		}
		sl.logDet, sl.ok = logDet, keep
	}
	sc.ok = true
	copy(sc.l, sl.l)
	ej := s.push(size)
	o.evalEta(s, n, ej)
	for j := range ej {
		sc.eta[j] = ej[j].v
	}
	for i := 0; i < size; i++ {
		sc.f[i] = dot(sc.l[i*size:i*size+i+1], sc.eta[:i+1])
	}
	sc.dirs = sc.dirs[:0]
	if moves {
		sc.directions(s, kj)
	}
	etaMoves := anyMoving(ej)
	switch {
	case len(sc.dirs) == 0 && !etaMoves:
		sc.mode = cmConst
	case len(sc.dirs) == 0 && identityJets(ej, s.k):
		sc.mode = cmRow
		copy(sc.mat.data, sc.l)
	case len(sc.dirs) == 1 && !etaMoves:
		sc.mode = cmUnit
		sc.derivatives(s, kj)
		lp, lpp := sc.lp[:size*size], sc.lpq[:size*size]
		for i := 0; i < size; i++ {
			sc.gc[i] = dot(lp[i*size:i*size+i+1], sc.eta[:i+1])
			sc.hc[i] = dot(lpp[i*size:i*size+i+1], sc.eta[:i+1])
		}
	default:
		sc.mode = cmGeneral
		if len(sc.dirs) > 0 {
			sc.derivatives(s, kj)
		}
	}
}

// identityJets reports whether ej are the k = len(ej) coordinates of the active
// site themselves, in order.
func identityJets(ej []jet, k int) bool {
	if len(ej) != k {
		return false
	}
	for j := range ej {
		if ej[j].kind != jUnit || ej[j].i != j || ej[j].gc != 1 || ej[j].hc != 0 {
			return false
		}
	}
	return true
}

// directions lists in sc.dirs the coordinates in which some entry of the lower
// triangle of the covariance jets kj moves.
func (sc *cholMulScratch) directions(s *scorer, kj []jet) {
	size := sc.n
	sc.dirOf = slices.Grow(sc.dirOf[:0], s.k)[:s.k]
	for p := range sc.dirOf {
		sc.dirOf[p] = -1
	}
	mark := func(p int, _ float64) {
		if sc.dirOf[p] < 0 {
			sc.dirOf[p] = int32(len(sc.dirs))
			sc.dirs = append(sc.dirs, p)
		}
	}
	for i := 0; i < size; i++ {
		for j := 0; j <= i; j++ {
			s.eachGrad(&kj[i*size+j], mark)
		}
	}
}

// hessOf returns ∂²j/∂p∂q.
func hessOf(j *jet, k, p, q int) float64 {
	switch j.kind {
	case jUnit:
		if j.i == p && j.i == q {
			return j.hc
		}
	case jRow:
		r := j.m.row(j.i)
		return j.hc * r[p] * r[q]
	case jDense:
		return j.h[p*k+q]
	}
	return 0
}

// gradOf returns ∂j/∂p.
func gradOf(j *jet, p int) float64 {
	switch j.kind {
	case jUnit:
		if j.i == p {
			return j.gc
		}
	case jRow:
		return j.gc * j.m.row(j.i)[p]
	case jDense:
		return j.g[p]
	}
	return 0
}

// derivatives computes L_p for every direction and L_pq for every pair (both
// orders) from the covariance jets kj: L_p = L·Φ(L⁻¹K_pL⁻ᵀ) and
// L_pq = L·Φ(L⁻¹(K_pq − L_pL_qᵀ − L_qL_pᵀ)L⁻ᵀ).
func (sc *cholMulScratch) derivatives(s *scorer, kj []jet) {
	size, nd := sc.n, len(sc.dirs)
	nn := size * size
	sc.lp = slices.Grow(sc.lp[:0], nd*nn)[:nd*nn]
	sc.lpq = slices.Grow(sc.lpq[:0], nd*nd*nn)[:nd*nd*nn]
	lt := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: size, Stride: size, Data: sc.l}
	for d, p := range sc.dirs {
		b := sc.lp[d*nn : (d+1)*nn]
		for i := 0; i < size; i++ {
			for j := 0; j <= i; j++ {
				g := gradOf(&kj[i*size+j], p)
				b[i*size+j], b[j*size+i] = g, g
			}
		}
		sc.lowerDerivative(lt, b)
	}
	for d, p := range sc.dirs {
		lpd := sc.lp[d*nn : (d+1)*nn]
		for e := d; e < nd; e++ {
			q := sc.dirs[e]
			lpe := sc.lp[e*nn : (e+1)*nn]
			b := sc.lpq[(d*nd+e)*nn : (d*nd+e+1)*nn]
			for i := 0; i < size; i++ {
				for j := 0; j <= i; j++ {
					h := hessOf(&kj[i*size+j], s.k, p, q)
					// − (L_pL_qᵀ + L_qL_pᵀ)_ij, rows i and j of the lower triangles
					m := min(i, j) + 1
					h -= dot(lpd[i*size:i*size+m], lpe[j*size:j*size+m]) + dot(lpe[i*size:i*size+m], lpd[j*size:j*size+m])
					b[i*size+j], b[j*size+i] = h, h
				}
			}
			sc.lowerDerivative(lt, b)
			if e != d {
				copy(sc.lpq[(e*nd+d)*nn:(e*nd+d+1)*nn], b)
			}
		}
	}
}

// lowerDerivative replaces the symmetric b by L·Φ(L⁻¹bL⁻ᵀ), lower triangular.
func (sc *cholMulScratch) lowerDerivative(lt blas64.Triangular, b []float64) {
	size := sc.n
	g := blas64.General{Rows: size, Cols: size, Stride: size, Data: b}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, lt, g)
	blas64.Trsm(blas.Right, blas.Trans, 1, lt, g)
	for i := 0; i < size; i++ {
		b[i*size+i] *= 0.5
		clear(b[i*size+i+1 : (i+1)*size])
	}
	blas64.Trmm(blas.Left, blas.NoTrans, 1, lt, g)
}

// general writes element e's jet as Σ_j L_ej·eta_j through jetOps, L_ej's jet
// built from the derivatives of prepare.
func (o cholMulOp) general(s *scorer, n *Node, sc *cholMulScratch, e int, out []jet) {
	size, nd, k := o.n, len(sc.dirs), s.k
	nn := size * size
	top := s.top
	ej := s.push(size)
	o.evalEta(s, n, ej)
	acc := jet{}
	for j := 0; j <= e; j++ {
		lj := jet{v: sc.l[e*size+j]}
		switch {
		case nd == 1:
			lj.kind, lj.i = jUnit, sc.dirs[0]
			lj.gc, lj.hc = sc.lp[e*size+j], sc.lpq[e*size+j]
		case nd > 1:
			lj.kind = jDense
			lj.g, lj.h = s.ops.ar.get(k), s.ops.ar.get(k*k)
			for d, p := range sc.dirs {
				lj.g[p] = sc.lp[d*nn+e*size+j]
				for f, q := range sc.dirs {
					lj.h[p*k+q] = sc.lpq[(d*nd+f)*nn+e*size+j]
				}
			}
		}
		t := s.ops.mul(&lj, &ej[j])
		acc = s.ops.lin(1, &acc, 1, &t)
	}
	out[0] = acc
	s.top = top
}
