package graph

import (
	"math"
	"slices"

	"github.com/nmc-go/nmc/internal/parallel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// values appends the component values of element e of n to dst (no derivatives),
// in a call of its own.
func (s *scorer) values(n *Node, e int, dst []float64) []float64 {
	s.newCall()
	saved := s.active
	s.active = -1
	dst = s.appendValues(n, e, dst)
	s.active = saved
	s.newContext()
	return dst
}

// appendValues appends the component values of element e of n to dst, in the
// current context (s.active must be −1).
func (s *scorer) appendValues(n *Node, e int, dst []float64) []float64 {
	top := s.top
	out := s.push(n.width)
	s.eval(n, e, out)
	for _, j := range out {
		dst = append(dst, j.v)
	}
	s.top = top
	return dst
}

func elem(n *Node, e int) int {
	if n.length == 1 {
		return 0
	}
	return e
}

// eval writes the jets of element e of n into out (length n.width), each element
// of a memoised node once per evaluation context (evalMemo, memo.go). The jets
// handed out are read-only.
func (s *scorer) eval(n *Node, e int, out []jet) {
	if n.memo != 0 && !s.computing && n.plan == s.plan {
		s.evalMemo(n, e, out)
		return
	}
	s.computing = false
	if n.op > opLatent {
		s.evals++
	}
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
		if s.fixSite != 0 && f.site(e) == s.fixSite-1 {
			// A summed-out site, at the value being scored (margLSE).
			for c := range out {
				out[c] = jet{v: s.fixVal}
			}
			return
		}
		if s.active >= 0 && f.site(e) == s.active {
			for c := range out {
				out[c] = jet{v: s.x[base+c], kind: jUnit, i: f.coord(e, c), gc: 1}
			}
			return
		}
		if s.orbit != nil && s.orbit.member[f.id] {
			// Along a group's orbit: x(t) with dx/dt and d²x/dt² at t = 0 (or,
			// for JointHessian's blocks, coordinate oi[j] of several: block.go).
			for c := range out {
				j := base + c
				out[c] = jet{v: s.x[j], kind: jUnit, gc: s.ou[j], hc: s.ow[j]}
				if s.oi != nil {
					out[c].i = int(s.oi[j])
				}
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
				out[c].v = quotient(pa.v, bv)
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
			if n.op == opNeg {
				out[c] = s.ops.scale(-1, &ja[c])
				continue
			}
			f, d1, d2 := unaryDerivs(n.op, n.power, ja[c].v, ja[c].kind != jConst)
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
				v := dot(row, src)
				out[0] = jet{v: v, kind: jRow, i: e, m: n.x, gc: 1}
				return
			}
			if s.orbit != nil && s.orbit.member[f.id] && s.oi == nil {
				// Along a group's orbit: Xᵢ·v(t) with Xᵢ·dv/dt and Xᵢ·d²v/dt².
				// (A block scored in one pass, s.oi set, has one direction per
				// coordinate: the dense jet below.)
				u, w := s.ou[f.offset:f.offset+len(row)], s.ow[f.offset:f.offset+len(row)]
				out[0] = jet{v: dot(row, src), kind: jUnit, gc: dot(row, u), hc: dot(row, w)}
				return
			}
			if s.oi == nil || !s.orbit.member[f.id] {
				out[0] = jet{v: s.mv[n.id].value(n.x, src, e, s.epoch)}
				return
			}
			// A block scored in one pass: coordinate j of v is block coordinate
			// oi[j] with dx/dt = ou[j] and d²x/dt² = ow[j] (0 in a one-pass block).
			k := s.ops.k
			g, h := s.ops.ar.get(k), s.ops.ar.get(k*k)
			for i, xi := range row {
				j := f.offset + i
				p := int(s.oi[j])
				g[p] += xi * s.ou[j]
				h[p*k+p] += xi * s.ow[j]
			}
			out[0] = jet{v: dot(row, src), kind: jDense, g: g, h: h}
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
	case opCustom:
		n.impl.eval(s, n, e, out)
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

// mvCache holds X·v for a MatVec node whose vector is a Vector site, at the last
// two values of v seen: evaluating alpha's score in logistic regression reads every
// row of X·beta, and beta has not moved since the last time; scoring beta itself
// alternates between the current and the proposed beta. A slot is reused only for
// exactly the v it was computed at, so the cache is never stale.
//
// A v that is not in a slot but is, coordinate by coordinate, exactly the
// floating-point product c·w of one number c and the v = w of a slot — the point a
// group move proposes along a dilation of the Vector site about 0 at one rate,
// w·e^{rate·t}, and its warm-up probe — takes its product from that slot's as
// c·(X·w), n multiplications instead of the n×k of X·v (logistic regression's
// "scale(alpha, beta)" group: one product of four a sweep). c·(X·w) and X·(c·w)
// agree to rounding, not bit for bit, so a score at such a v can differ in its last
// bits from a cold scorer's at the same state (which computes X·v): a result then
// depends on the history of the scorer as well as on the state, to rounding. The
// slot's key is v, so its values are X·v to rounding whichever way they were made.
// Every other miss computes X·v from scratch.
type mvCache struct {
	slots [2]mvSlot
	cur   int    // slot of the current scorer call
	epoch uint64 // the scorer call in which cur was found (0: none)
	clock uint64 // for least-recently-used replacement

	par parallel.Group // spreads a product's chunks over the cores
}

// mvSlot is X·v at one v.
type mvSlot struct {
	src  []float64 // v at which vals was computed
	vals []float64 // X·v
	ok   bool
	used uint64

	// chunk computes one chunk of vals (product), made once so that a product
	// spread over the cores does not allocate.
	chunk func(w, ch int)
}

// mvChunk is the number of rows of one chunk of the product X·v.
const mvChunk = 4096

// value returns element e of X·v.
func (c *mvCache) value(x *dataMatrix, v []float64, e int, epoch uint64) float64 {
	return c.vector(x, v, epoch, 1)[e]
}

// vector returns X·v (owned by the cache: valid until the next call with another v).
// v is compared with the slots once per scorer call (epoch): within one call the state
// does not change. A miss computes X·v in fixed chunks of rows spread over up to
// workers goroutines.
func (c *mvCache) vector(x *dataMatrix, v []float64, epoch uint64, workers int) []float64 {
	if c.epoch == epoch && c.slots[c.cur].ok {
		return c.slots[c.cur].vals
	}
	c.clock++
	c.epoch = epoch
	for i := range c.slots {
		if sl := &c.slots[i]; sl.ok && slices.Equal(sl.src, v) {
			sl.used, c.cur = c.clock, i
			return sl.vals
		}
	}
	from, scale := -1, 0.0
	for i := range c.slots {
		if sl := &c.slots[i]; sl.ok {
			if f, ok := scaleOf(sl.src, v); ok {
				from, scale = i, f
				break
			}
		}
	}
	c.cur = 0
	if c.slots[1].used < c.slots[0].used {
		c.cur = 1
	}
	sl := &c.slots[c.cur]
	if sl.vals == nil {
		sl.vals = make([]float64, x.rows)
		sl.src = make([]float64, len(v))
	}
	copy(sl.src, v)
	sl.ok, sl.used = true, c.clock
	if from >= 0 {
		// v = scale·w exactly, w the key of slot from (possibly sl itself).
		for r, y := range c.slots[from].vals {
			sl.vals[r] = scale * y
		}
		return sl.vals
	}
	if nch := (x.rows + mvChunk - 1) / mvChunk; nch > 1 && workers > 1 {
		if sl.chunk == nil {
			sl.chunk = func(_, ch int) { sl.product(x, ch) }
		}
		c.par.Chunks(nch, workers, sl.chunk)
	} else {
		for ch := 0; ch < nch; ch++ {
			sl.product(x, ch)
		}
	}
	return sl.vals
}

// scaleOf returns a number c with c·w[j] == v[j] for every j (float64 products),
// and true, when v is w scaled by one factor exactly; else false. c is found from
// the largest |w[j]|, as v[j]/w[j] or within two units in the last place of it
// (a factor e gives v[j] = fl(e·w[j]), and fl(v[j]/w[j]) is within two ulps of e).
// A w of zeros gives false (v is then w itself, or not a multiple of it).
func scaleOf(w, v []float64) (float64, bool) {
	if len(w) != len(v) {
		return 0, false
	}
	big := -1
	for j, y := range w {
		if a := math.Abs(y); a > 0 && (big < 0 || a > math.Abs(w[big])) {
			big = j
		}
	}
	if big < 0 {
		return 0, false
	}
	c0 := v[big] / w[big]
	if c0 == 0 || math.IsInf(c0, 0) || math.IsNaN(c0) {
		return 0, false
	}
	up1, down1 := math.Nextafter(c0, math.Inf(1)), math.Nextafter(c0, math.Inf(-1))
	for _, c := range [...]float64{c0, up1, down1, math.Nextafter(up1, math.Inf(1)), math.Nextafter(down1, math.Inf(-1))} {
		if scaledBy(w, v, c) {
			return c, true
		}
	}
	return 0, false
}

// scaledBy reports whether c·w[j] == v[j] for every j.
func scaledBy(w, v []float64, c float64) bool {
	for j, y := range w {
		if c*y != v[j] {
			return false
		}
	}
	return true
}

// product writes rows [ch·mvChunk, (ch+1)·mvChunk) of X·src into vals.
func (sl *mvSlot) product(x *dataMatrix, ch int) {
	lo, hi := ch*mvChunk, min((ch+1)*mvChunk, x.rows)
	blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: hi - lo, Cols: x.cols, Stride: x.cols, Data: x.data[lo*x.cols : hi*x.cols]},
		blas64.Vector{N: len(sl.src), Data: sl.src, Inc: 1}, 0, blas64.Vector{N: hi - lo, Data: sl.vals[lo:hi], Inc: 1})
}
