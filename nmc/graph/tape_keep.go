package graph

import "slices"

// Keeping a tape's memoised elements. The general path evaluates a scalar
// node in scalar mode by evalScalar, which keeps the jet of a memoised element
// in the scorer's memo table (a unit jet) when it computes it; a tape computes
// the same element in a slot. The instructions that evaluate by the general
// path (tGeneral, tFactor) read the memo: where the tape had not kept an
// element they read, eval computed it again, with jets, and its jet could be
// of another kind than evalScalar's — dense where an argument below it was (a
// hidden Markov model's jet is dense). Its numbers are the same (jetOps on a
// dense jet of one coordinate does evalScalar's arithmetic), but an operation
// with a structured and a dense form (LogMix's and LogSumExp's chain rules
// associate their sums differently) then took the dense one, a few ulps from
// the general path's: FuzzModelFamilies' 86ef5faea0e21c8a (LogMix steps read
// by the next step and by an observation, over a hidden Markov model) and
// e8e1d81e1a4b56ce (LogSumExp steps likewise), a pair orbit's second
// derivative. The element's arguments were evaluated again too (a LogMix step
// twice per score).
//
// So a tape keeps, as evalScalar would have, each memoised element it computes
// that the general path may read (tKeep, in the memo unless an earlier general
// evaluation kept it in this context): before each instruction that evaluates
// by the general path, those computed since the one before. The elements the
// general path may read are those its instructions' node elements and
// factor elements reach through their arguments, as depsOf walks them.
// Constant elements are not kept (their jets have one kind), nor the outputs of
// tGeneral (generalElem keeps them). Values alone (runTapeValues) keep nothing:
// the values do not depend on the jets' kinds.

// keeps inserts the tKeep instructions into the compiled code (before its
// slots are numbered).
func (c *tapeCompiler) keeps() {
	t := c.t
	reach := map[tkey]bool{}
	var walk func(n *Node, e int)
	walk = func(n *Node, e int) {
		k := tkey{n, e}
		if reach[k] {
			return
		}
		reach[k] = true
		argElems(n, e, walk)
	}
	gen := map[uint32]bool{} // tGeneral's output slots
	for _, in := range t.code {
		switch in.op {
		case tGeneral:
			gen[in.out] = true
			argElems(t.nodes[in.a], int(in.b), walk)
		case tFactor:
			for _, p := range c.m.factors[in.a].d.params {
				walk(p, elem(p, int(in.b)))
			}
		}
	}
	bySlot := map[uint32][]tinst{}
	for k, op := range c.elems {
		n := k.n
		if op.kind != tkDep || n.op <= opLatent || n.memo == 0 || n.plan != c.m.plan || n.width != 1 || gen[op.ref] || !reach[k] {
			continue
		}
		bySlot[op.ref] = append(bySlot[op.ref], tinst{op: tKeep, a: op.ref, b: uint32(k.e), aux: uint32(n.memo - 1)})
	}
	if len(bySlot) == 0 {
		return
	}
	for _, ks := range bySlot { // (an Index of an element shares its slot)
		slices.SortFunc(ks, func(x, y tinst) int {
			if x.aux != y.aux {
				return int(x.aux) - int(y.aux)
			}
			return int(x.b) - int(y.b)
		})
	}
	var code, pending []tinst
	for _, in := range t.code {
		if in.op == tGeneral || in.op == tFactor {
			code = append(code, pending...)
			pending = pending[:0]
		}
		code = append(code, in)
		if in.op != tFactor && in.op != tNormal {
			pending = append(pending, bySlot[in.out]...)
		}
	}
	t.code = code
}

// argElems calls visit with each argument element that evaluating element e of
// n reads (every candidate of an At by a node's index), as depsOf walks them.
func argElems(n *Node, e int, visit func(*Node, int)) {
	switch n.op {
	case opConst, opLatent:
	case opSum, opMatVec:
		a := n.args[0]
		for i := 0; i < a.length; i++ {
			visit(a, i)
		}
	case opIndex:
		visit(n.args[0], n.idx[e])
	case opCustom:
		n.impl.reads(n, e, visit)
	case opAt:
		src := n.args[0]
		for i := 0; i < src.length; i++ {
			visit(src, i)
		}
		for _, in := range n.atNode {
			if in != nil {
				visit(in, elem(in, e))
			}
		}
	default:
		for _, a := range n.args {
			visit(a, elem(a, e))
		}
	}
}

// keepSlot is tKeep: slot j as the jet of the element in.b of the memoised node
// in.aux, in the current context, unless an evaluation kept it already; the
// unit jet evalScalar (scalarID) keeps.
func (s *scorer) keepSlot(in *tinst, j *tslot) {
	s.checkCall()
	t := &s.memo[in.aux]
	if t.stamp == nil {
		l := s.plan.memo[in.aux].length
		t.stamp = make([]uint64, l)
		t.jets = make([]jet, l)
	}
	if t.stamp[in.b] == s.gen {
		return
	}
	t.jets[in.b] = jet{v: j.v, kind: jUnit, gc: j.g, hc: j.h}
	t.stamp[in.b] = s.gen
}
