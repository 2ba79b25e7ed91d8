package graph

import (
	"fmt"
	"math"
)

// densityOp is LogDensity: arguments x, then the distribution's parameters.
type densityOp struct{ d *Dist }

func (densityOp) name() string { return "LogDensity" }

func (densityOp) reads(n *Node, e int, visit func(*Node, int)) {
	for _, a := range n.args {
		visit(a, elem(a, e))
	}
}

func (o densityOp) eval(s *scorer, n *Node, e int, out []jet) {
	top, arTop := s.top, s.ops.ar.top
	na := 0
	for _, a := range n.args {
		na += a.width
	}
	args := s.push(na)
	na = 0
	anyDeriv := false
	for _, a := range n.args {
		ja := args[na : na+a.width]
		s.eval(a, elem(a, e), ja)
		for c := range ja {
			anyDeriv = anyDeriv || ja[c].kind != jConst
		}
		na += a.width
	}
	vals := s.ops.ar.get(na)
	for i := range args {
		vals[i] = args[i].v
	}
	fam, k := o.d.fam, o.d.k
	if !anyDeriv {
		out[0] = jet{v: fam.LogProb(vals, k)}
	} else {
		d1, d2 := s.ops.ar.get(na), s.ops.ar.get(na*na)
		lp := fam.Derivs(vals, k, d1, d2)
		if math.IsNaN(lp) || math.IsInf(lp, 0) {
			out[0] = jet{v: lp}
		} else {
			out[0] = s.ops.chainJet(lp, args, d1, d2)
		}
	}
	if math.IsInf(out[0].v, -1) && fam.CheckParams(vals[n.args[0].width:], k) != nil {
		// Invalid parameters (a negative rate) make the state impossible, also
		// where −Inf would read as one term's being impossible (a mixture's
		// component, a hidden Markov model's state).
		out[0] = jet{v: math.NaN()}
	}
	if out[0].kind != jDense {
		// Nothing taken from the arena since arTop is still in use (the value
		// scorers of Derive and Init never reset it).
		s.ops.ar.top = arTop
	}
	s.top = top
}

// LogDensity returns the log density (or mass) of d at x, element-wise: element e is
// log p(x_e | parameters of d at e), x and the parameters broadcasting over the
// longest of them (a length-1 node is repeated). x's width is d's value width (1
// for scalar families). Its derivatives in x and in the parameters are the family's
// exact ones (package dist). It is Stan's normal_lpdf(x | mu, sigma) and its
// kin: the terms of a mixture (LogMix, LogSumExp) or of any likelihood written with
// Factor. Outside the support the value is −Inf; at invalid parameters it is NaN
// (an impossible state in a Factor, and in LogMix, LogSumExp and HMMMarginal).
func LogDensity(d *Dist, x *Node) *Node {
	if d == nil {
		return customErr(densityOp{}, "nil distribution")
	}
	op := densityOp{d: d}
	if d.err != nil {
		return &Node{op: opCustom, impl: op, length: 1, width: 1, err: fmt.Errorf("graph: LogDensity: %w", d.err)}
	}
	if err := firstErr(op.name(), x); err != nil {
		return &Node{op: opCustom, impl: op, length: 1, width: 1, err: err}
	}
	vw, _ := d.fam.Layout(d.k)
	if x.width != vw {
		return customErr(op, "the value has width %d, %s takes values of width %d", x.width, d.fam.Name(), vw)
	}
	args := append([]*Node{x}, d.params...)
	l := 1
	for _, a := range args {
		l = max(l, a.length)
	}
	if x.length != 1 && x.length != l {
		return customErr(op, "the value has %d elements, the parameters %d", x.length, l)
	}
	names := d.fam.ParamNames()
	for i, p := range d.params {
		if p.length != 1 && p.length != l {
			return customErr(op, "%s parameter %s has %d elements, others %d", d.fam.Name(), names[i], p.length, l)
		}
	}
	return custom(op, l, 1, args...)
}
