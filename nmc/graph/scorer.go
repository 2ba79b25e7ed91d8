package graph

import (
	"math"
	"runtime"
	"slices"

	"gonum.org/v1/gonum/blas"

	"github.com/nmc-go/nmc/internal/gram"
	"github.com/nmc-go/nmc/internal/parallel"
	"github.com/nmc-go/nmc/internal/special"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/dist"

	"gonum.org/v1/gonum/blas/blas64"
)

// scorer evaluates Markov-blanket scores for one chain. It owns every buffer it
// uses, so a warm scorer does not allocate (except the few goroutines of a score
// spread over the cores, for blankets of at least chunkedMinElems elements).
type scorer struct {
	m      *Model
	x      []float64
	active int // site whose derivatives are wanted; -1 for values only
	k      int
	base   int // state offset of the active site
	ops    jetOps
	stack  []jet
	top    int

	argv   []float64
	argj   []jet
	d1, d2 []float64

	grad, hess []float64
	batches    []*rowBatch
	tally      []float64   // factorGroup: elements per value
	memos      []dist.Memo // per factor: parameter-only terms (dist.MemoDeriver)
	mv         []mvCache   // per MatVec node over a Vector site: X·v at the last v seen
	epoch      uint64      // counts Score, LogJoint and values calls (for mvCache)

	// Large blankets are scored in fixed chunks (see scoreChunked) by helper
	// scorers, one per goroutine.
	nworkers int       // goroutines for chunked scores (GOMAXPROCS at creation)
	helpers  []*scorer // lazily created
	chunkF   []float64 // per chunk: partial score
	chunkGH  []float64 // per chunk: partial gradient (k) then Hessian (k×k)
}

const (
	// blanketChunk is the number of blanket elements of one chunk of a chunked score.
	blanketChunk = 8192
	// chunkedMinElems is the smallest blanket scored in chunks.
	chunkedMinElems = 2 * blanketChunk
	// chunkedMaxFloats bounds the per-chunk gradient and Hessian buffers
	// (chunks × (k + k²) floats); a larger site is scored serially.
	chunkedMaxFloats = 1 << 22
)

// rowBatch accumulates gradient and Hessian weights for rows of one data matrix:
// ∇ += Σ wg_r a_r and ∇² += Σ wh_r a_r a_rᵀ, applied at the end by one rank-k update.
type rowBatch struct {
	m       *dataMatrix
	wg, wh  []float64
	touched []int
	mark    []bool
	kept    []int // rows whose Hessian term is not negligible (flushBatches)
}

func (m *Model) newScorer() *scorer {
	na := max(m.maxArgs, 1)
	return &scorer{
		nworkers: runtime.GOMAXPROCS(0),
		mv:       make([]mvCache, m.numMatVec),
		memos:    make([]dist.Memo, len(m.factors)),
		m:        m,
		stack:    make([]jet, 256),
		argv:     make([]float64, na),
		argj:     make([]jet, na),
		d1:       make([]float64, na),
		d2:       make([]float64, na*na),
	}
}

func (m *Model) valueScorer(x []float64) *scorer {
	return &scorer{m: m, x: x, active: -1, stack: make([]jet, 64), mv: make([]mvCache, m.numMatVec)}
}

// push reserves n jets on the stack.
func (s *scorer) push(n int) []jet {
	if s.top+n > len(s.stack) {
		ns := make([]jet, 2*(s.top+n))
		copy(ns, s.stack[:s.top])
		s.stack = ns
	}
	out := s.stack[s.top : s.top+n]
	s.top += n
	return out
}

// values appends the component values of element e of n to dst (no derivatives).
func (s *scorer) values(n *Node, e int, dst []float64) []float64 {
	s.epoch++
	saved := s.active
	s.active = -1
	top := s.top
	out := s.push(n.width)
	s.eval(n, e, out)
	for _, j := range out {
		dst = append(dst, j.v)
	}
	s.top = top
	s.active = saved
	return dst
}

func elem(n *Node, e int) int {
	if n.length == 1 {
		return 0
	}
	return e
}

// eval writes the jets of element e of n into out (length n.width).
func (s *scorer) eval(n *Node, e int, out []jet) {
	switch n.op {
	case opConst:
		w := n.width
		for c := range out {
			out[c] = jet{v: n.vals[e*w+c]}
		}
		return
	case opLatent:
		f := n.fam
		base := f.offset + e*f.width
		if s.active >= 0 && f.site(e) == s.active {
			for c := range out {
				out[c] = jet{v: s.x[base+c], kind: jUnit, i: f.coord(e, c), gc: 1}
			}
			return
		}
		for c := range out {
			out[c] = jet{v: s.x[base+c]}
		}
		return
	case opAdd, opSub, opMul, opDiv:
		top := s.top
		a, b := n.args[0], n.args[1]
		ja, jb := s.push(a.width), s.push(b.width)
		s.eval(a, elem(a, e), ja)
		s.eval(b, elem(b, e), jb)
		for c := range out {
			pa, pb := &ja[0], &jb[0]
			if a.width > 1 {
				pa = &ja[c]
			}
			if b.width > 1 {
				pb = &jb[c]
			}
			switch n.op {
			case opAdd:
				out[c] = s.ops.lin(1, pa, 1, pb)
			case opSub:
				out[c] = s.ops.lin(1, pa, -1, pb)
			case opMul:
				out[c] = s.ops.mul(pa, pb)
			case opDiv:
				bv := pb.v
				r := s.ops.apply(pb, 1/bv, -1/(bv*bv), 2/(bv*bv*bv))
				out[c] = s.ops.mul(pa, &r)
			}
		}
		s.top = top
		return
	case opNeg, opExp, opLog, opLog1p, opSqrt, opPow, opLogistic, opSoftplus:
		top := s.top
		a := n.args[0]
		ja := s.push(a.width)
		s.eval(a, e, ja)
		for c := range out {
			v := ja[c].v
			var f, d1, d2 float64
			switch n.op {
			case opNeg:
				out[c] = s.ops.scale(-1, &ja[c])
				continue
			case opExp:
				f = math.Exp(v)
				d1, d2 = f, f
			case opLog:
				f, d1, d2 = math.Log(v), 1/v, -1/(v*v)
			case opLog1p:
				f, d1, d2 = math.Log1p(v), 1/(1+v), -1/((1+v)*(1+v))
			case opSqrt:
				f = math.Sqrt(v)
				d1 = 0.5 / f
				d2 = -0.25 / (f * v)
			case opPow:
				p := n.power
				f = math.Pow(v, p)
				d1 = p * math.Pow(v, p-1)
				d2 = p * (p - 1) * math.Pow(v, p-2)
			case opLogistic:
				f = special.Logistic(v)
				d1 = f * (1 - f)
				d2 = d1 * (1 - 2*f)
			case opSoftplus:
				f = special.Log1pExp(v)
				d1 = special.Logistic(v)
				d2 = d1 * (1 - d1)
			}
			out[c] = s.ops.apply(&ja[c], f, d1, d2)
		}
		s.top = top
		return
	case opSum:
		top := s.top
		a := n.args[0]
		acc := jet{}
		ja := s.push(a.width)
		for i := 0; i < a.length; i++ {
			s.eval(a, i, ja)
			for c := range ja {
				acc = s.ops.lin(1, &acc, 1, &ja[c])
			}
		}
		out[0] = acc
		s.top = top
		return
	case opMatVec:
		a := n.args[0]
		row := n.x.row(e)
		if a.op == opLatent && a.fam.vector {
			f := a.fam
			src := s.x[f.offset : f.offset+len(row)]
			if s.active >= 0 && f.first == s.active {
				v := blas64.Dot(blas64.Vector{N: len(row), Data: row, Inc: 1}, blas64.Vector{N: len(row), Data: src, Inc: 1})
				out[0] = jet{v: v, kind: jRow, i: e, m: n.x, gc: 1}
				return
			}
			out[0] = jet{v: s.mv[n.id].value(n.x, src, e, s.epoch)}
			return
		}
		top := s.top
		ja := s.push(1)
		acc := jet{}
		for i, xi := range row {
			s.eval(a, i, ja)
			acc = s.ops.lin(1, &acc, xi, &ja[0])
		}
		out[0] = acc
		s.top = top
		return
	case opIndex:
		s.eval(n.args[0], n.idx[e], out)
		return
	case opAt:
		src := n.args[0]
		shape := src.shape
		if shape == nil {
			shape = []int{src.length}
		}
		flat := 0
		for d := range shape {
			var i int
			if data := n.atData[d]; data != nil {
				i = data[elem1(len(data), e)]
			} else {
				in := n.atNode[d]
				top := s.top
				j := s.push(1)
				s.eval(in, elem(in, e), j)
				s.top = top
				v := j[0].v
				if !(v >= 0 && v < float64(shape[d])) || v != math.Trunc(v) {
					for c := range out {
						out[c] = jet{v: math.NaN()}
					}
					return
				}
				i = int(v)
			}
			flat = flat*shape[d] + i
		}
		s.eval(src, flat, out)
		return
	}
	panic("graph: unknown op") // unreachable: every op is handled above
}

func elem1(n, e int) int {
	if n == 1 {
		return 0
	}
	return e
}

// LogJoint returns the full unnormalised log joint density.
func (s *scorer) LogJoint(x []float64) float64 {
	s.x, s.active = x, -1
	s.epoch++
	total := 0.0
	for fi, fc := range s.m.factors {
		for e := 0; e < fc.length; e++ {
			total += s.factorElem(fi, e, false, false)
			if math.IsInf(total, -1) || math.IsNaN(total) {
				return total
			}
		}
	}
	return total
}

// Score returns the Markov-blanket score of site i, with its gradient and Hessian
// when grad and hess are non-nil. For a continuous site, factor elements that do not
// depend on the site at the current values of the others (a label whose item is
// currently in another class) are skipped: they are the same at x and at any move
// of the site, so they cancel in every score difference.
func (s *scorer) Score(x []float64, i int, grad, hess []float64) float64 {
	s.x = x
	s.epoch++
	deriv := grad != nil && hess != nil
	continuous := s.m.sites[i].Support != nmc.Discrete
	if continuous {
		s.active = i
		s.k = s.m.sites[i].Size
		s.ops.k = s.k
		s.base = s.m.offsets[i]
	} else {
		s.active = -1
		deriv = false
	}
	if deriv {
		s.grad, s.hess = grad[:s.k], hess[:s.k*s.k]
		clear(s.grad)
		clear(s.hess)
	}
	total := 0.0
	bl := s.m.blanket[i]
	if nch := (len(bl) + blanketChunk - 1) / blanketChunk; len(bl) >= chunkedMinElems && nch*(s.k+s.k*s.k) <= chunkedMaxFloats {
		total = s.scoreChunked(bl, nch, deriv, continuous)
		if math.IsInf(total, -1) || math.IsNaN(total) {
			return total
		}
	} else {
		for _, en := range bl {
			total += s.factorElem(int(en.f), int(en.e), deriv, continuous)
			if math.IsInf(total, -1) || math.IsNaN(total) {
				s.resetBatches()
				return total
			}
		}
	}
	for gi := range s.m.groups[i] {
		total += s.factorGroup(&s.m.groups[i][gi], deriv)
		if math.IsInf(total, -1) || math.IsNaN(total) {
			s.resetBatches()
			return total
		}
	}
	if deriv {
		s.flushBatches()
		s.symmetrize()
	}
	return total
}

// scoreChunked scores the blanket elements bl in nch fixed chunks of blanketChunk
// elements, spread over up to nworkers goroutines, each with its own helper scorer
// (own scratch, caches and row batches). Every chunk's score, gradient and Hessian
// are partial sums of their own, added in chunk order, so the result does not depend
// on GOMAXPROCS or on which goroutine ran which chunk. The partial derivatives are
// added to s.grad and s.hess. It returns the summed score, or the first non-finite
// running total (−Inf or NaN) in chunk order.
func (s *scorer) scoreChunked(bl []entry, nch int, deriv, continuous bool) float64 {
	k := s.k
	per := 0
	if deriv {
		per = k + k*k
	}
	if cap(s.chunkF) < nch {
		s.chunkF = make([]float64, nch)
	}
	if cap(s.chunkGH) < nch*per {
		s.chunkGH = make([]float64, nch*per)
	}
	chunkF, chunkGH := s.chunkF[:nch], s.chunkGH[:nch*per]
	for len(s.helpers) < min(s.nworkers, nch) {
		s.helpers = append(s.helpers, s.m.newScorer())
	}
	for _, h := range s.helpers {
		h.x, h.active, h.k, h.base = s.x, s.active, s.k, s.base
		h.ops.k = s.k
		h.epoch++
	}
	parallel.Chunks(nch, s.nworkers, func(w, c int) {
		h := s.helpers[w]
		lo, hi := c*blanketChunk, min((c+1)*blanketChunk, len(bl))
		if deriv {
			gh := chunkGH[c*per : (c+1)*per]
			clear(gh)
			h.grad, h.hess = gh[:k], gh[k:]
		}
		total := 0.0
		for _, en := range bl[lo:hi] {
			total += h.factorElem(int(en.f), int(en.e), deriv, continuous)
			if math.IsInf(total, -1) || math.IsNaN(total) {
				break
			}
		}
		chunkF[c] = total
		if math.IsInf(total, -1) || math.IsNaN(total) {
			h.resetBatches()
		} else if deriv {
			h.flushBatches()
		}
	})
	total := 0.0
	for c := range chunkF {
		total += chunkF[c]
		if math.IsInf(total, -1) || math.IsNaN(total) {
			return total
		}
	}
	if deriv {
		for c := 0; c < nch; c++ {
			gh := chunkGH[c*per : (c+1)*per]
			for p, v := range gh[:k] {
				s.grad[p] += v
			}
			for p, v := range gh[k:] {
				s.hess[p] += v
			}
		}
	}
	return total
}

// symmetrize makes the Hessian exactly symmetric. Dense products and outer
// products add the same terms to [p,q] and [q,p] in different orders, so the two
// triangles can differ in the last bits; the Scorer contract promises a symmetric
// matrix.
func (s *scorer) symmetrize() {
	k := s.k
	for p := 0; p < k; p++ {
		for q := p + 1; q < k; q++ {
			v := 0.5 * (s.hess[p*k+q] + s.hess[q*k+p])
			s.hess[p*k+q], s.hess[q*k+p] = v, v
		}
	}
}

// factorElem returns the log density of element e of factor fi and, with deriv,
// adds its derivatives with respect to the active site to the accumulators. With
// skipConst, an element none of whose arguments depends on the active site
// contributes 0.
func (s *scorer) factorElem(fi, e int, deriv, skipConst bool) float64 {
	fc := s.m.factors[fi]
	d := fc.d
	s.top = 0
	s.ops.ar.top = 0
	na := 0
	vw := fc.width
	if fc.obs != nil {
		for c := 0; c < vw; c++ {
			s.argj[c] = jet{v: fc.obs[e*vw+c]}
		}
	} else {
		s.eval(fc.fam.node, e, s.argj[:vw])
	}
	na = vw
	for _, p := range d.params {
		s.eval(p, elem(p, e), s.argj[na:na+p.width])
		na += p.width
	}
	args := s.argj[:na]
	anyDeriv := false
	for c := range args {
		s.argv[c] = args[c].v
		if args[c].kind != jConst {
			anyDeriv = true
		}
	}
	if skipConst && !anyDeriv {
		return 0
	}
	if !deriv || !anyDeriv {
		return d.fam.LogProb(s.argv[:na], d.k)
	}
	return s.chain(fi, args, 1)
}

// chain returns w·log p at s.argv and adds w times its derivatives with respect to
// the active site, through the argument jets args, to the accumulators.
func (s *scorer) chain(fi int, args []jet, w float64) float64 {
	fc := s.m.factors[fi]
	d := fc.d
	na := len(args)
	d1, d2 := s.d1[:na], s.d2[:na*na]
	var lp float64
	if fc.memo != nil {
		lp = fc.memo.DerivsMemo(s.argv[:na], d.k, d1, d2, &s.memos[fi])
	} else {
		lp = d.fam.Derivs(s.argv[:na], d.k, d1, d2)
	}
	if math.IsInf(lp, 0) || math.IsNaN(lp) {
		return lp
	}
	if w != 1 {
		for a := range d1 {
			d1[a] *= w
		}
		for a := range d2 {
			d2[a] *= w
		}
	}
	for a := range args {
		ja := &args[a]
		if ja.kind == jConst {
			continue
		}
		s.addGrad(d1[a], ja)
		if d1[a] != 0 {
			s.addHess(d1[a], ja)
		}
		for b := range args {
			jb := &args[b]
			if jb.kind == jConst || d2[a*na+b] == 0 {
				continue
			}
			s.addOuter(d2[a*na+b], ja, jb)
		}
	}
	return w * lp
}

// factorGroup returns the summed log density of a group of elements of one factor
// whose parameters are shared (length 1) and whose values are small integers
// independent of the active site, such as z_i ~ Categorical(pi) seen from pi: the
// elements are tallied by value, and each distinct value costs one evaluation.
func (s *scorer) factorGroup(g *group, deriv bool) float64 {
	fc := s.m.factors[g.f]
	d := fc.d
	s.top = 0
	s.ops.ar.top = 0
	if cap(s.tally) < g.values {
		s.tally = make([]float64, g.values)
	}
	tally := s.tally[:g.values]
	for _, e := range g.elems {
		var v float64
		if fc.obs != nil {
			v = fc.obs[e]
		} else {
			v = s.x[fc.fam.offset+int(e)]
		}
		if !(v >= 0 && v < float64(g.values)) {
			clear(tally)
			return math.Inf(-1)
		}
		tally[int(v)]++
	}
	na := 1
	for _, p := range d.params {
		s.eval(p, 0, s.argj[na:na+p.width])
		na += p.width
	}
	args := s.argj[:na]
	anyDeriv := false
	for c := 1; c < na; c++ {
		s.argv[c] = args[c].v
		if args[c].kind != jConst {
			anyDeriv = true
		}
	}
	total := 0.0
	for v, n := range tally {
		if n == 0 {
			continue
		}
		tally[v] = 0
		if math.IsInf(total, -1) || math.IsNaN(total) {
			continue // keep clearing the tally
		}
		args[0] = jet{v: float64(v)}
		s.argv[0] = float64(v)
		if deriv && anyDeriv {
			total += s.chain(int(g.f), args, n)
		} else {
			total += n * d.fam.LogProb(s.argv[:na], d.k)
		}
	}
	return total
}

func (s *scorer) batch(m *dataMatrix) *rowBatch {
	for _, b := range s.batches {
		if b.m == m {
			return b
		}
	}
	b := &rowBatch{m: m, wg: make([]float64, m.rows), wh: make([]float64, m.rows), mark: make([]bool, m.rows)}
	s.batches = append(s.batches, b)
	return b
}

func (b *rowBatch) touch(r int) {
	if !b.mark[r] {
		b.mark[r] = true
		b.touched = append(b.touched, r)
	}
}

func (s *scorer) addGrad(w float64, j *jet) {
	switch j.kind {
	case jUnit:
		s.grad[j.i] += w * j.gc
	case jRow:
		b := s.batch(j.m)
		b.touch(j.i)
		b.wg[j.i] += w * j.gc
	case jDense:
		for p, g := range j.g {
			s.grad[p] += w * g
		}
	}
}

func (s *scorer) addHess(w float64, j *jet) {
	switch j.kind {
	case jUnit:
		s.hess[j.i*s.k+j.i] += w * j.hc
	case jRow:
		if j.hc != 0 {
			b := s.batch(j.m)
			b.touch(j.i)
			b.wh[j.i] += w * j.hc
		}
	case jDense:
		for p, h := range j.h {
			s.hess[p] += w * h
		}
	}
}

// addOuter adds w·∇a ∇bᵀ to the Hessian.
func (s *scorer) addOuter(w float64, a, b *jet) {
	k := s.k
	if a.kind == jUnit && b.kind == jUnit {
		s.hess[a.i*k+b.i] += w * a.gc * b.gc
		return
	}
	if a.kind == jRow && sameBase(a, b) {
		bt := s.batch(a.m)
		bt.touch(a.i)
		bt.wh[a.i] += w * a.gc * b.gc
		return
	}
	ga, _ := s.ops.densify(a)
	gb, _ := s.ops.densify(b)
	for p := 0; p < k; p++ {
		if ga[p] == 0 {
			continue
		}
		hp := s.hess[p*k : p*k+k]
		c := w * ga[p]
		for q := 0; q < k; q++ {
			hp[q] += c * gb[q]
		}
	}
}

func (s *scorer) resetBatches() {
	for _, b := range s.batches {
		for _, r := range b.touched {
			b.wg[r], b.wh[r], b.mark[r] = 0, 0, false
		}
		b.touched = b.touched[:0]
	}
}

// flushBatches applies the row weights: ∇ += Σ wg_r a_r and ∇² += Aᵀ diag(wh) A.
func (s *scorer) flushBatches() {
	k := s.k
	for _, b := range s.batches {
		if len(b.touched) == 0 {
			continue
		}
		if b.m.cols != k {
			panic("graph: row jet of the wrong width") // unreachable: MatVec checks the shapes
		}
		addWeightedRows(s.grad[:k], b.m, b.touched, b.wg)
		// Other terms were added to both triangles; the Gram update goes to the upper
		// one, after which the lower triangle is copied from it.
		addWeightedGram(s.hess, k, b.m, b.significantRows(), b.wh)
		for p := 0; p < k; p++ {
			for q := p + 1; q < k; q++ {
				s.hess[q*k+p] = s.hess[p*k+q]
			}
		}
		for _, r := range b.touched {
			b.wg[r], b.wh[r], b.mark[r] = 0, 0, false
		}
		b.touched = b.touched[:0]
	}
}

// addWeightedRows adds Σ_r w[r]·a_r to g, r over rows, four rows per pass over g.
func addWeightedRows(g []float64, m *dataMatrix, rows []int, w []float64) {
	k := len(g)
	r := 0
	for ; r+4 <= len(rows); r += 4 {
		x0, x1, x2, x3 := m.row(rows[r])[:k], m.row(rows[r+1])[:k], m.row(rows[r+2])[:k], m.row(rows[r+3])[:k]
		w0, w1, w2, w3 := w[rows[r]], w[rows[r+1]], w[rows[r+2]], w[rows[r+3]]
		for p := range g {
			g[p] += w0*x0[p] + w1*x1[p] + w2*x2[p] + w3*x3[p]
		}
	}
	for ; r < len(rows); r++ {
		x0, w0 := m.row(rows[r])[:k], w[rows[r]]
		for p := range g {
			g[p] += w0 * x0[p]
		}
	}
}

// significantRows returns the touched rows whose Hessian term is not negligible
// (gram.Significant).
func (b *rowBatch) significantRows() []int {
	if b.m.norm2 == nil {
		return b.touched
	}
	b.kept = gram.Significant(b.kept, b.touched, b.wh, b.m.norm2, len(b.touched))
	return b.kept
}

// mvCache holds X·v for a MatVec node whose vector is a Vector site other than the
// one being scored: evaluating alpha's score in logistic regression reads every row
// of X·beta, and beta has not moved since the last time.
type mvCache struct {
	src   []float64 // v at which vals was computed
	vals  []float64 // X·v
	ok    bool
	epoch uint64 // the scorer call in which src was last compared with v
}

// value returns element e of X·v. v is compared with the cached src once per
// scorer call (epoch): within one call the state does not change.
func (c *mvCache) value(x *dataMatrix, v []float64, e int, epoch uint64) float64 {
	if c.ok && c.epoch == epoch {
		return c.vals[e]
	}
	c.epoch = epoch
	if !c.ok || !slices.Equal(c.src, v) {
		if c.vals == nil {
			c.vals = make([]float64, x.rows)
			c.src = make([]float64, len(v))
		}
		copy(c.src, v)
		blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: x.rows, Cols: x.cols, Stride: x.cols, Data: x.data},
			blas64.Vector{N: len(v), Data: c.src, Inc: 1}, 0, blas64.Vector{N: x.rows, Data: c.vals, Inc: 1})
		c.ok = true
	}
	return c.vals[e]
}
