package graph

// The compiler of a site's tape (tape.go).

// noSlot is an instruction's slot field that is not read.
const noSlot = ^uint32(0)

// tkey is a node element.
type tkey struct {
	n *Node
	e int
}

// Kinds of a compiled node element: a constant known at compile time (its value
// in a slot the tape's constants fill), a value that does not depend on the
// active site, and one that does.
const (
	tkImm uint8 = iota
	tkCst
	tkDep
)

// toperand is a compiled node element: its slot (a constant's as ^ its index in
// tape.imm until the tape is finished), its kind, and a constant's value.
type toperand struct {
	ref  uint32
	kind uint8
	val  float64
}

// tapeCompiler compiles the tape of one site, or of an orbit's score (orb not
// nil, site −1: the coordinates of the orbit's member families are the active
// ones, each with the jet the scorer's ou and ow give it, tape_orbit.go).
type tapeCompiler struct {
	m     *Model
	site  int
	orb   *orbit
	t     *tape
	elems map[tkey]toperand
	dep   map[tkey]bool // reads' answers
	logs  map[uint32]uint32
	slots uint32 // slots other than constants
}

// compileTape returns site i's tape, or nil if its blanket holds elements of a
// factor compiled to selections (scored by runs, selRun) or no element the tape
// scores itself (the general path is then as fast).
func compileTape(m *Model, i int) *tape {
	return compileBlanketTape(m, i, nil, m.blanket[i])
}

// compileBlanketTape returns the tape of blanket bl with site i active, or with
// the member families of orbit o active (o not nil, i −1); nil as compileTape.
func compileBlanketTape(m *Model, i int, o *orbit, bl []entry) *tape {
	c := &tapeCompiler{m: m, site: i, orb: o, t: &tape{bl: bl}, elems: map[tkey]toperand{}, dep: map[tkey]bool{}, logs: map[uint32]uint32{}}
	own := false
	for _, en := range bl {
		if m.sels != nil && m.sels[en.f] != nil {
			return nil
		}
		fc := m.factors[en.f]
		if !isNormalObs(fc) || fc.obs[en.e]-fc.obs[en.e] != 0 { // (observations are finite)
			c.emit(tinst{op: tFactor, a: uint32(en.f), b: uint32(en.e)})
			continue
		}
		e := int(en.e)
		mu := c.node(fc.d.params[0], elem(fc.d.params[0], e))
		sg := c.node(fc.d.params[1], elem(fc.d.params[1], e))
		var sub uint8
		if mu.kind == tkDep {
			sub |= 1
		}
		if sg.kind == tkDep {
			sub |= 2
		}
		if sub == 0 {
			continue // constant in the site: skipped (factorElem's skipConst)
		}
		c.emit(tinst{op: tNormal, sub: sub, a: mu.ref, b: sg.ref, aux: c.scaleOf(sg), c: fc.obs[e]})
		own = true
	}
	if !own {
		return nil
	}
	return c.finish()
}

// emit appends an instruction.
func (c *tapeCompiler) emit(in tinst) { c.t.code = append(c.t.code, in) }

// imm returns a constant operand of value v.
func (c *tapeCompiler) imm(v float64) toperand {
	c.t.imm = append(c.t.imm, v)
	return toperand{ref: ^uint32(len(c.t.imm) - 1), kind: tkImm, val: v}
}

// slot returns a new slot.
func (c *tapeCompiler) slot() uint32 {
	c.slots++
	return c.slots - 1
}

// out emits in with a new output slot and returns the operand of that kind.
func (c *tapeCompiler) out(in tinst, kind uint8) toperand {
	in.out = c.slot()
	c.emit(in)
	return toperand{ref: in.out, kind: kind}
}

// scaleOf returns the slot of tScale's (log σ, 1/σ, 1/σ²) for a Normal's scale σ,
// computed once per scale.
func (c *tapeCompiler) scaleOf(sg toperand) uint32 {
	if l, ok := c.logs[sg.ref]; ok {
		return l
	}
	l := c.out(tinst{op: tScale, a: sg.ref}, tkCst).ref
	c.logs[sg.ref] = l
	return l
}

// node returns the operand of element e of n (of width 1), emitting the
// instructions that compute it the first time.
func (c *tapeCompiler) node(n *Node, e int) toperand {
	k := tkey{n, e}
	if op, ok := c.elems[k]; ok {
		return op
	}
	op := c.compute(n, e)
	c.elems[k] = op
	return op
}

// compute is node for an element not yet compiled: evalScalar's cases, and the
// general path for the others.
func (c *tapeCompiler) compute(n *Node, e int) toperand {
	if n.width != 1 {
		return c.general(n, e)
	}
	switch n.op {
	case opConst:
		return c.imm(n.vals[e])
	case opLatent:
		f := n.fam
		if f.width != 1 {
			break
		}
		if c.orb != nil && c.orb.member[f.id] {
			return c.out(tinst{op: tActive, sub: 1, a: uint32(f.offset + e)}, tkDep)
		}
		if f.site(e) == c.site {
			return c.out(tinst{op: tActive, a: uint32(f.offset + e)}, tkDep)
		}
		return c.out(tinst{op: tLoad, a: uint32(f.offset + e)}, tkCst)
	case opAdd, opSub, opMul, opDiv:
		a0, a1 := n.args[0], n.args[1]
		if a0.width != 1 || a1.width != 1 {
			break
		}
		c.t.evals++
		a, b := c.node(a0, elem(a0, e)), c.node(a1, elem(a1, e))
		return c.binary(n.op, a, b)
	case opNeg, opExp, opLog, opLog1p, opSqrt, opPow, opLogistic, opSoftplus:
		c.t.evals++
		return c.unary(n.op, n.power, c.node(n.args[0], e))
	case opIndex:
		c.t.evals++
		return c.node(n.args[0], n.idx[e])
	case opCustom:
		if fw, ok := n.impl.(forwarder); ok {
			c.t.evals++
			a, ae := fw.forward(n, e)
			if a.width == 1 {
				return c.node(a, ae)
			}
			return c.general(n, e)
		}
	}
	return c.general(n, e)
}

// general returns the operand of element e of n evaluated by the general path
// (eval) at run time.
func (c *tapeCompiler) general(n *Node, e int) toperand {
	kind, sub := tkCst, uint8(0)
	if c.reads(n, e) {
		kind, sub = tkDep, 1
	}
	c.t.nodes = append(c.t.nodes, n)
	return c.out(tinst{op: tGeneral, sub: sub, a: uint32(len(c.t.nodes) - 1), b: uint32(e)}, kind)
}

// binary returns the operand of a op b, folded when both are constants.
func (c *tapeCompiler) binary(op opKind, a, b toperand) toperand {
	if a.kind == tkImm && b.kind == tkImm {
		var v float64
		switch op {
		case opAdd:
			v = a.val + b.val
		case opSub:
			v = a.val - b.val
		case opMul:
			v = a.val * b.val
		default:
			v = quotient(a.val, b.val)
		}
		return c.imm(v)
	}
	ad, bd := a.kind == tkDep, b.kind == tkDep
	in := tinst{a: a.ref, b: b.ref}
	if !ad && !bd {
		in.op = map[opKind]tOp{opAdd: tAddC, opSub: tSubC, opMul: tMulC, opDiv: tDivC}[op]
		return c.out(in, tkCst)
	}
	if (op == opAdd || op == opMul) && ad && !bd {
		// A commutative operation with one dependent operand: the constant first.
		in.a, in.b = b.ref, a.ref
		ad, bd = false, true
	}
	switch op {
	case opAdd:
		in.op = pick3(ad, bd, tAddDD, tAddKD, tAddKD)
	case opSub:
		in.op = pick3(ad, bd, tSubDD, tSubDK, tSubKD)
	case opMul:
		in.op = pick3(ad, bd, tMulDD, tMulKD, tMulKD)
	default:
		in.op = pick3(ad, bd, tDivDD, tDivDK, tDivKD)
	}
	return c.out(in, tkDep)
}

// pick3 returns dd if both operands depend on the active site, dk if a alone does,
// else kd.
func pick3(ad, bd bool, dd, dk, kd tOp) tOp {
	switch {
	case ad && bd:
		return dd
	case ad:
		return dk
	}
	return kd
}

// unary returns the operand of the element-wise operation op (power p) of a,
// folded when a is a constant.
func (c *tapeCompiler) unary(op opKind, p float64, a toperand) toperand {
	square := op == opPow && p == 2
	switch a.kind {
	case tkImm:
		if op == opNeg {
			return c.imm(-1 * a.val)
		}
		f, _, _ := unaryDerivs(op, p, a.val, false)
		return c.imm(f)
	case tkCst:
		in := tinst{op: tUnaryC, sub: uint8(op), a: a.ref, c: p}
		switch {
		case op == opNeg:
			in.op = tNegC
		case square:
			in.op = tSquareC
		case op == opSqrt:
			in.op = tSqrtC
		}
		return c.out(in, tkCst)
	}
	in := tinst{op: tUnaryD, sub: uint8(op), a: a.ref, c: p}
	switch {
	case op == opNeg:
		in.op = tNegD
	case square:
		in.op = tSquareD
	case op == opSqrt:
		in.op = tSqrtD
	}
	return c.out(in, tkDep)
}

// reads reports whether element e of n depends on the active site through the
// argument elements argElems visits (an At node: whether any element of its
// arguments does).
func (c *tapeCompiler) reads(n *Node, e int) bool {
	k := tkey{n, e}
	if d, ok := c.dep[k]; ok {
		return d
	}
	d := false
	switch n.op {
	case opConst:
	case opLatent:
		d = n.fam.site(e) == c.site || c.orb != nil && c.orb.member[n.fam.id]
	case opAt:
		for _, a := range n.args {
			d = d || c.readsAny(a)
		}
		for _, a := range n.atNode {
			d = d || a != nil && c.readsAny(a)
		}
	default:
		argElems(n, e, func(a *Node, ae int) { d = d || c.reads(a, ae) })
	}
	c.dep[k] = d
	return d
}

// readsAny reports whether some element of n depends on the active site.
func (c *tapeCompiler) readsAny(n *Node) bool {
	for e := 0; e < n.length; e++ {
		if c.reads(n, e) {
			return true
		}
	}
	return false
}

// operands returns the slot fields instruction in reads.
func operands(in *tinst) []*uint32 {
	switch in.op {
	case tLoad, tActive, tGeneral, tFactor:
		return nil
	case tScale, tNegC, tNegD, tUnaryC, tUnaryD, tSquareC, tSquareD, tSqrtC, tSqrtD, tKeep:
		return []*uint32{&in.a}
	case tMulAddDK, tMulAddDD:
		if in.sub&24 != 0 {
			return []*uint32{&in.a, &in.b, &in.aux, &in.e}
		}
		return []*uint32{&in.a, &in.b, &in.aux}
	case tNormal, tMulAddC, tSubMulC, tMulAddKD, tAxpyKD, tAxpyDD, tSubMulKD:
		return []*uint32{&in.a, &in.b, &in.aux}
	case tSubMulAdd, tSubMulAddC:
		return []*uint32{&in.a, &in.b, &in.aux, &in.e}
	case tAddSqrtDD, tAddSqrtKD:
		switch in.sub { // a or b aux·e² (fuse)
		case 1:
			return []*uint32{&in.b, &in.aux, &in.e}
		case 2:
			return []*uint32{&in.a, &in.aux, &in.e}
		}
	}
	return []*uint32{&in.a, &in.b} // binary, tMulSquare, tAddSqrt
}

// finish numbers the slots, the constants first, fuses instructions and returns
// the tape.
func (c *tapeCompiler) finish() *tape {
	c.keeps()
	t := c.t
	nImm := uint32(len(t.imm))
	fix := func(r *uint32) {
		if *r >= 1<<31 { // a constant's
			*r = ^*r
		} else {
			*r += nImm
		}
	}
	for k := range t.code {
		in := &t.code[k]
		for _, r := range operands(in) {
			fix(r)
		}
		switch in.op {
		case tFactor, tKeep:
		default:
			fix(&in.out)
		}
	}
	t.slots = int(nImm + c.slots)
	uses := make([]int32, t.slots)
	for k := range t.code {
		for _, r := range operands(&t.code[k]) {
			uses[*r]++
		}
	}
	t.pre, t.code, t.preLoads = splitPre(t.code, nImm, t.slots)
	t.pre, t.code = fuse(t.pre, uses), fuse(t.code, uses)
	t.code, t.normals, t.scales = batchNormals(t.code)
	t.pre, t.code = chains(t.pre, &t.chains), chains(t.code, &t.chains)
	t.code = chainNormals(t)
	t.pre, t.code = sameRuns(t.pre, &t.chains), sameRuns(t.code, &t.chains)
	compact(t)
	return t
}

// slotFields returns the slot fields of instruction in, in the final tape
// (after fuse and chains), the slots it writes and reads.
func slotFields(in *tinst) []*uint32 {
	switch in.op {
	case tFactor, tNormals, tChain, tRun:
		return nil
	case tLoad, tActive, tGeneral:
		return []*uint32{&in.out}
	case tNormal, tKeep:
		return operands(in)
	}
	return append(operands(in), &in.out)
}

// compact numbers t's slots again in the order the tape first reads or writes
// them, the constants first (those it reads), leaving out the slots no
// instruction reads or writes (the intermediate results of fused
// instructions): the slots a step of a recursion reads and writes are next to
// each other, and the array is smaller.
func compact(t *tape) {
	nImm := uint32(len(t.imm))
	var order []*tinst // the instructions in the order they run, each once
	seen := map[*tinst]bool{}
	var walk func(code []tinst)
	walk = func(code []tinst) {
		for k := range code {
			in := &code[k]
			if seen[in] {
				continue
			}
			seen[in] = true
			switch in.op {
			case tChain:
				walk(t.chains[in.a:in.b])
				walk(t.normals[in.aux:in.e])
			case tRun:
				walk(t.chains[in.a:in.b])
			case tNormals:
				walk(t.scales[in.aux:in.e])
				walk(t.normals[in.a:in.b])
			default:
				order = append(order, in)
			}
		}
	}
	walk(t.pre)
	walk(t.code)
	renum := make([]uint32, t.slots)
	for k := range renum {
		renum[k] = noSlot
	}
	var imm []float64
	for _, in := range order { // the constants first
		for _, r := range slotFields(in) {
			if *r < nImm && renum[*r] == noSlot {
				renum[*r] = uint32(len(imm))
				imm = append(imm, t.imm[*r])
			}
		}
	}
	n := uint32(len(imm))
	for _, in := range order {
		for _, r := range slotFields(in) {
			if renum[*r] == noSlot {
				renum[*r] = n
				n++
			}
		}
	}
	for _, in := range order {
		for _, r := range slotFields(in) {
			*r = renum[*r]
		}
	}
	t.imm, t.slots = imm, int(n)
}

// valueOps are the instructions of values alone (splitPre).
var valueOps = map[tOp]bool{tLoad: true, tAddC: true, tSubC: true, tMulC: true, tDivC: true, tNegC: true,
	tUnaryC: true, tSquareC: true, tSubSquareC: true, tSqrtC: true, tMulAddC: true, tSubMulC: true, tSubMulAddC: true}

// splitPre moves out of code the instructions of values that read only
// coordinates and constants (slots below nImm), the loads first, keeping their
// order: they read no slot that code writes, and code reads theirs after them.
func splitPre(code []tinst, nImm uint32, slots int) (pre, rest []tinst, loads int) {
	inPre := make([]bool, slots)
	for k := range nImm {
		inPre[k] = true
	}
	var ops []tinst
	for _, in := range code {
		ok := valueOps[in.op]
		for _, r := range operands(&in) {
			ok = ok && inPre[*r]
		}
		switch {
		case ok && in.op == tLoad:
			pre = append(pre, in)
			inPre[in.out] = true
		case ok:
			ops = append(ops, in)
			inPre[in.out] = true
		default:
			rest = append(rest, in)
		}
	}
	return append(pre, ops...), rest, len(pre)
}

// fuse replaces runs of instructions whose intermediate results have no other
// reader (uses: the readers of each slot in the whole tape) by the fused
// instructions that compute the same, in one step.
func fuse(code []tinst, uses []int32) []tinst {
	var out []tinst
	for i := 0; i < len(code); i++ {
		in := code[i]
		if i+1 < len(code) && in.op != tFactor && in.op != tNormal && in.op != tKeep && uses[in.out] == 1 {
			if f, ok := fuse2(&in, &code[i+1]); ok {
				i++
				if (f.op == tSubMulKD || f.op == tSubMulC) && i+1 < len(code) && uses[f.out] == 1 {
					nx := &code[i+1]
					add := map[tOp]tOp{tSubMulKD: tAddDD, tSubMulC: tAddC}[f.op]
					if nx.op == add && (nx.a == f.out) != (nx.b == f.out) {
						e := nx.a
						if e == f.out {
							e = nx.b
						}
						op := map[tOp]tOp{tSubMulKD: tSubMulAdd, tSubMulC: tSubMulAddC}[f.op]
						f = tinst{op: op, a: f.a, b: f.b, aux: f.aux, e: e, out: nx.out}
						i++
					}
				}
				out = append(out, f)
				continue
			}
		}
		out = append(out, in)
	}
	// A square with one reader and the product-sum after it that reads it as a
	// factor: the product-sum squares the factor itself. A difference k − d
	// likewise (an ARMA error times a coefficient): the product-sum takes the
	// difference itself, k in its slot e.
	out = foldFactor(out, uses, tSquareD, 1, 2, func(q, p *tinst) uint32 { return p.a })
	out = foldFactor(out, uses, tSubKD, 8, 16, func(q, p *tinst) uint32 { q.e = p.a; return p.b })
	// A product-sum and the square root after it of it alone.
	for i := 0; i+1 < len(out); i++ {
		p, q := &out[i], &out[i+1]
		if (p.op == tMulAddDK || p.op == tMulAddDD) && uses[p.out] == 1 && q.op == tSqrtD && q.a == p.out {
			p.sub |= 4
			p.out = q.out
			out = append(out[:i+1], out[i+2:]...)
		}
	}
	// k·d² and the root of the sum after it that reads it alone.
	for i := 0; i+1 < len(out); i++ {
		p, q := &out[i], &out[i+1]
		if p.op != tMulSquare || uses[p.out] != 1 || q.op != tAddSqrtDD && q.op != tAddSqrtKD || q.a == q.b {
			continue
		}
		switch p.out {
		case q.a:
			q.sub, q.a = 1, noSlot
		case q.b:
			q.sub, q.b = 2, noSlot
		default:
			continue
		}
		q.aux, q.e = p.a, p.b
		out = append(out[:i], out[i+1:]...)
	}
	return out
}

// foldFactor removes each instruction of op with one reader that the product-sum
// (tMulAddDK, tMulAddDD) after it reads as one factor: the product-sum computes
// it itself, sub fa or fb saying which factor, reading the slot operand returns
// (which may set more of the product-sum's fields).
func foldFactor(out []tinst, uses []int32, op tOp, fa, fb uint8, operand func(q, p *tinst) uint32) []tinst {
	for i := 0; i+1 < len(out); i++ {
		p, q := &out[i], &out[i+1]
		if p.op != op || uses[p.out] != 1 || q.op != tMulAddDK && q.op != tMulAddDD || q.sub != 0 || q.a == q.b || q.aux == p.out {
			continue
		}
		switch p.out {
		case q.a:
			q.sub, q.a = fa, operand(q, p)
		case q.b:
			q.sub, q.b = fb, operand(q, p)
		default:
			continue
		}
		out = append(out[:i], out[i+1:]...)
	}
	return out
}

// fuse2 returns the fused instruction of p and its only reader q, which follows it.
func fuse2(p, q *tinst) (tinst, bool) {
	t := p.out
	other := func() (uint32, bool) { // q's operand other than t
		switch {
		case q.a == t && q.b != t:
			return q.b, true
		case q.b == t && q.a != t:
			return q.a, true
		}
		return 0, false
	}
	f := tinst{out: q.out, aux: noSlot}
	switch {
	case p.op == tMulC && q.op == tAddC:
		r, ok := other()
		f.op, f.a, f.b, f.aux = tMulAddC, p.a, p.b, r
		return f, ok
	case p.op == tSubC && q.op == tMulC:
		k, ok := other()
		f.op, f.a, f.b, f.aux = tSubMulC, p.a, p.b, k
		return f, ok
	case p.op == tMulC && q.op == tAddKD && q.a == t:
		f.op, f.a, f.b, f.aux = tMulAddKD, p.a, p.b, q.b
		return f, true
	case p.op == tMulKD && q.op == tAddKD && q.b == t:
		f.op, f.a, f.b, f.aux = tAxpyKD, q.a, p.b, p.a
		return f, true
	case p.op == tMulKD && q.op == tAddDD:
		x, ok := other()
		f.op, f.a, f.b, f.aux = tAxpyDD, x, p.b, p.a
		return f, ok
	case p.op == tSubKD && q.op == tMulKD && q.b == t:
		f.op, f.a, f.b, f.aux = tSubMulKD, p.a, p.b, q.a
		return f, true
	case p.op == tSquareD && q.op == tMulKD && q.b == t:
		f.op, f.a, f.b = tMulSquare, q.a, p.a
		return f, true
	case p.op == tMulDD && q.op == tAddKD && q.b == t:
		f.op, f.a, f.b, f.aux = tMulAddDK, p.a, p.b, q.a
		return f, true
	case p.op == tMulDD && q.op == tAddDD:
		x, ok := other()
		f.op, f.a, f.b, f.aux = tMulAddDD, p.a, p.b, x
		return f, ok
	case p.op == tAddDD && q.op == tSqrtD && q.a == t:
		f.op, f.a, f.b = tAddSqrtDD, p.a, p.b
		return f, true
	case p.op == tAddKD && q.op == tSqrtD && q.a == t:
		f.op, f.a, f.b = tAddSqrtKD, p.a, p.b
		return f, true
	case p.op == tSubC && q.op == tSquareC && q.a == t:
		f.op, f.a, f.b = tSubSquareC, p.a, p.b
		return f, true
	}
	return tinst{}, false
}

// batchNormals moves the Normal observations of code and the scales' terms they
// read (tScale) into their own lists, each run of them into one tNormals
// instruction placed before the next instruction that adds to the score or may
// end the run early (tFactor, tGeneral), or at the end: the terms are added in
// the same order, the instructions they move past only write slots of their
// own, and a tScale is still run before the Normals that read its slot.
func batchNormals(code []tinst) (out, normals, scales []tinst) {
	n0, s0 := 0, 0
	flush := func() {
		if len(normals) > n0 || len(scales) > s0 {
			out = append(out, tinst{op: tNormals, a: uint32(n0), b: uint32(len(normals)), aux: uint32(s0), e: uint32(len(scales))})
			n0, s0 = len(normals), len(scales)
		}
	}
	for _, in := range code {
		switch in.op {
		case tNormal:
			normals = append(normals, in)
			continue
		case tScale:
			scales = append(scales, in)
			continue
		case tFactor, tGeneral:
			flush()
		}
		out = append(out, in)
	}
	flush()
	return out, normals, scales
}
