package graph

import (
	"math"

	"github.com/nmc-go/nmc/internal/special"
)

// Scalar jets. When the active coordinates are one (a scalar site, or a group's
// orbit parameter) or none (values only), every jet is constant or a function of
// that one coordinate: a value, a first and a second derivative. evalScalar
// computes such jets for the nodes of width 1 in registers, without the jet
// structs, the scratch stack and the calls of eval's general path; it is what a
// recursion of scalar nodes costs per step. Its arithmetic is jetOps's on
// constant and unit jets, operation for operation, so both paths give the same
// bits, and they share the memoised tables (a scalar jet is kept as the unit or
// constant jet eval would have made). Operations it does not know are evaluated by
// the general path and their jets read back.

// forwarder is a nodeOp whose element e is one element of one argument, as is:
// Concat, and Reshape of scalars into scalars.
type forwarder interface {
	forward(n *Node, e int) (a *Node, ae int)
}

func (o concatOp) forward(n *Node, e int) (*Node, int) { return o.find(n, e) }

// scalarMode reports whether the jets of the current evaluation are scalar: at most
// one active coordinate.
func (s *scorer) scalarMode() bool {
	return s.k == 1 || (s.active < 0 && s.orbit == nil)
}

// unitJet returns the jet of value v, derivatives g and h, and kind unit (dep)
// or constant.
func unitJet(v, g, h float64, dep bool) jet {
	if !dep {
		return jet{v: v}
	}
	return jet{v: v, kind: jUnit, gc: g, hc: h}
}

// fromJet returns a jet's value and derivatives in the one active coordinate.
func fromJet(j *jet) (v, g, h float64, dep bool) {
	switch j.kind {
	case jConst:
		return j.v, 0, 0, false
	case jUnit:
		return j.v, j.gc, j.hc, true
	case jRow:
		a := j.m.row(j.i)[0]
		return j.v, j.gc * a, j.hc * a * a, true
	}
	return j.v, j.g[0], j.h[0], true
}

// cnode is a node in the compact form evalScalar reads: the plan's nodes in
// topological order, 24 bytes each, instead of the Node structs scattered over the
// heap (a recursion of 10⁵ nodes does not fit in the caches as Nodes).
type cnode struct {
	op     opKind
	direct bool  // evalScalar computes it (else the general path, and reads its jet)
	memo   int32 // as Node.memo
	length int32
	a, b   int32 // the arguments' numbers (Node.mid), −1 for none
	// aux: opConst, the first value in memoPlan.consts; opPow, its exponent there;
	// opIndex, the first index in memoPlan.index; opLatent, the family in
	// memoPlan.fams.
	aux int32
}

// compact fills p.cn and the tables its records point into.
func (p *memoPlan) compact() {
	p.cn = make([]cnode, len(p.nodes))
	for i, n := range p.nodes {
		c := cnode{op: n.op, memo: n.memo, length: int32(n.length), a: -1, b: -1, aux: -1}
		if len(n.args) > 0 {
			c.a = n.args[0].mid
		}
		if len(n.args) > 1 {
			c.b = n.args[1].mid
		}
		w1 := n.width == 1
		switch n.op {
		case opConst:
			c.direct = w1
			c.aux = int32(len(p.consts))
			p.consts = append(p.consts, n.vals...)
		case opLatent:
			c.direct = w1 && n.fam.width == 1
			c.aux = int32(len(p.fams))
			p.fams = append(p.fams, n.fam)
		case opAdd, opSub, opMul, opDiv:
			c.direct = n.args[0].width == 1 && n.args[1].width == 1
		case opNeg, opExp, opLog, opLog1p, opSqrt, opPow, opLogistic, opSoftplus:
			c.direct = w1
			if n.op == opPow {
				c.aux = int32(len(p.consts))
				p.consts = append(p.consts, n.power)
			}
		case opIndex:
			c.direct = w1
			c.aux = int32(len(p.index))
			for _, i := range n.idx {
				p.index = append(p.index, int32(i))
			}
		case opCustom:
			_, fw := n.impl.(forwarder)
			c.direct = w1 && fw
		}
		p.cn[i] = c
	}
}

// evalScalar returns the value of element e of n (of width 1) and its first and
// second derivatives in the active coordinate, dep false for a constant (s must be
// in scalarMode).
func (s *scorer) evalScalar(n *Node, e int) (v, g, h float64, dep bool) {
	if n.plan == nil || n.plan != s.plan {
		// Not this model's node (a model compiled later from it owns it).
		top := s.top
		out := s.push(1)
		s.eval(n, e, out)
		s.top = top
		return fromJet(&out[0])
	}
	return s.scalarID(n.mid, e)
}

// scalarID is evalScalar of the plan's node id.
func (s *scorer) scalarID(id int32, e int) (v, g, h float64, dep bool) {
	c := &s.plan.cn[id]
	if c.memo == 0 {
		return s.scalarNode(id, c, e)
	}
	s.checkCall()
	t := &s.memo[c.memo-1]
	if t.stamp == nil {
		t.stamp = make([]uint64, c.length)
		t.jets = make([]jet, c.length)
	}
	if t.stamp[e] == s.gen {
		if memoVerify && !s.verifying {
			s.verifyMemo(s.plan.nodes[id], e, t.jets[e:e+1])
		}
		return fromJet(&t.jets[e])
	}
	v, g, h, dep = s.scalarNode(id, c, e)
	t.jets[e] = unitJet(v, g, h, dep)
	t.stamp[e] = s.gen
	return v, g, h, dep
}

// elemOf is elem for the plan's node id.
func (s *scorer) elemOf(id int32, e int) int {
	if s.plan.cn[id].length == 1 {
		return 0
	}
	return e
}

// scalarNode is scalarID without the table of the node.
func (s *scorer) scalarNode(id int32, c *cnode, e int) (v, g, h float64, dep bool) {
	if !c.direct {
		// Any other operation: its jet from the general path.
		top := s.top
		out := s.push(1)
		s.evalNode(s.plan.nodes[id], e, out)
		s.top = top
		return fromJet(&out[0])
	}
	switch c.op {
	case opConst:
		return s.plan.consts[int(c.aux)+e], 0, 0, false
	case opLatent:
		f := s.plan.fams[c.aux]
		x := s.x[f.offset+e]
		site := f.site(e)
		switch {
		case s.fixSite != 0 && site == s.fixSite-1:
			return s.fixVal, 0, 0, false
		case s.active >= 0 && site == s.active:
			return x, 1, 0, true
		case s.orbit != nil && s.orbit.member[f.id]:
			return x, s.ou[f.offset+e], s.ow[f.offset+e], true
		}
		return x, 0, 0, false
	case opAdd, opSub, opMul, opDiv:
		s.evals++
		av, ag, ah, ad := s.scalarID(c.a, s.elemOf(c.a, e))
		bv, bg, bh, bd := s.scalarID(c.b, s.elemOf(c.b, e))
		switch c.op {
		case opAdd:
			return scalarLin(1, av, ag, ah, ad, 1, bv, bg, bh, bd)
		case opSub:
			return scalarLin(1, av, ag, ah, ad, -1, bv, bg, bh, bd)
		case opMul:
			return scalarMul(av, ag, ah, ad, bv, bg, bh, bd)
		}
		rv, rg, rh, rd := scalarApply(bv, bg, bh, bd, 1/bv, -1/(bv*bv), 2/(bv*bv*bv))
		_, g, h, d := scalarMul(av, ag, ah, ad, rv, rg, rh, rd)
		return quotient(av, bv), g, h, d
	case opNeg, opExp, opLog, opLog1p, opSqrt, opPow, opLogistic, opSoftplus:
		s.evals++
		av, ag, ah, ad := s.scalarID(c.a, e)
		if c.op == opNeg {
			return -1 * av, -1 * ag, -1 * ah, ad
		}
		var p float64
		if c.op == opPow {
			p = s.plan.consts[c.aux]
		}
		if !ad {
			f, _, _ := unaryDerivs(c.op, p, av, false)
			return f, 0, 0, false
		}
		f, d1, d2 := unaryDerivs(c.op, p, av, true)
		return scalarApply(av, ag, ah, ad, f, d1, d2)
	case opIndex:
		s.evals++
		return s.scalarID(c.a, int(s.plan.index[int(c.aux)+e]))
	}
	// opCustom, a forwarder.
	s.evals++
	n := s.plan.nodes[id]
	a, ae := n.impl.(forwarder).forward(n, e)
	return s.evalScalar(a, ae)
}

// scalarLin is jetOps.lin of constant and unit jets: ca·a + cb·b.
func scalarLin(ca, av, ag, ah float64, ad bool, cb, bv, bg, bh float64, bd bool) (v, g, h float64, dep bool) {
	v = ca*av + cb*bv
	switch {
	case !ad && !bd:
		return v, 0, 0, false
	case !bd:
		return v, ca * ag, ca * ah, true
	case !ad:
		return v, cb * bg, cb * bh, true
	}
	return v, ca*ag + cb*bg, ca*ah + cb*bh, true
}

// scalarMul is jetOps.mul of constant and unit jets: a·b.
func scalarMul(av, ag, ah float64, ad bool, bv, bg, bh float64, bd bool) (v, g, h float64, dep bool) {
	switch {
	case !ad && !bd:
		return av * bv, 0, 0, false
	case !bd:
		return bv * av, bv * ag, bv * ah, true
	case !ad:
		return av * bv, av * bg, av * bh, true
	}
	return av * bv, bv*ag + av*bg, bv*ah + av*bh + 2*ag*bg, true
}

// scalarApply is jetOps.apply of a constant or unit jet: φ(a) given φ(a.v),
// φ'(a.v) and φ”(a.v).
func scalarApply(av, ag, ah float64, ad bool, f, d1, d2 float64) (v, g, h float64, dep bool) {
	if !ad {
		return f, 0, 0, false
	}
	return f, d1 * ag, d2*ag*ag + d1*ah, true
}

// quotient is the value of a/b as the engine computes it, a·(1/b) (the
// reciprocal's jet serves the derivatives), but a/b where 1/b overflows (a
// finite nonzero b below 2⁻¹⁰²⁴ in size): Div(Exp(a), Exp(b)) at a, b near −740
// is e^(a−b), not +Inf.
func quotient(a, b float64) float64 {
	r := 1 / b
	if r-r != 0 && b != 0 && b == b { // ±Inf from a finite nonzero b
		return a / b
	}
	return a * r
}

// unaryDerivs returns φ(v) of the element-wise operation op (power p for opPow)
// and, with deriv, φ'(v) and φ”(v) (opNeg is not one of them).
func unaryDerivs(op opKind, p, v float64, deriv bool) (f, d1, d2 float64) {
	switch op {
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
		f = math.Pow(v, p)
		if deriv {
			d1 = p * math.Pow(v, p-1)
			d2 = p * (p - 1) * math.Pow(v, p-2)
		}
	case opLogistic:
		f = special.Logistic(v)
		d1 = f * (1 - f)
		d2 = d1 * (1 - 2*f)
	case opSoftplus:
		f = special.Log1pExp(v)
		if deriv {
			d1 = special.Logistic(v)
			d2 = d1 * (1 - d1)
		}
	}
	return f, d1, d2
}
