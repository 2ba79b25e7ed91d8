package graph_test

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc/graph"
)

// The model generator of FuzzModel: fuzzer bytes decoded into a description of a
// model (fzNode, fzLatent, fzTerm) and, node by node, the same model declared with
// package graph, each fzNode holding the graph node made from it, so that the two
// share one graph: a node read by several others is one node in both.

// fzOp is the operation of an fzNode.
type fzOp int

const (
	opConst fzOp = iota
	opLatentVal
	opAdd
	opSub
	opMul
	opDiv
	opNeg
	opExp
	opLog
	opLog1p
	opSqrt
	opLogistic
	opSoftplus
	opPow
	opSum
	opIndex
	opMatVec
	opConcat
	opStack
	opReshape
	opLSE     // element-wise across nodes
	opLSEComp // over each element's components
	opLSEElem // over a width-1 node's elements
	opLogMix
	opDensity
	opFunc
	opKernel
	opAddDiag
	opCholMul
	opHMM
)

// fzNode is a node of the description: its operation, arguments, shape, what is
// known of its values (pos: > 0, unit: in (0, 1)), whether it depends on a latent,
// and the graph node made from it.
type fzNode struct {
	id        int
	op        fzOp
	args      []*fzNode
	l, w      int
	vals      []float64 // constants, a MatVec's matrix, a kernel's points
	idx       []int
	p         float64
	lat       *fzLatent
	d         *fzDist
	prog      []fzProgOp
	kern, kw  int
	pos, unit bool
	dep       bool
	g         *graph.Node
}

type fzDist struct {
	fam    fzFam
	params []*fzNode
	g      *graph.Dist
}

// Kinds of latents.
const (
	latPlain = iota
	latVector
	latOrdered
	latPosOrdered
	latBounded
)

// fzLatent is a latent: its raw coordinates are x[off:off+size] (found by
// Model.Offset after Build), its value node reads them.
type fzLatent struct {
	kind         int
	name         string // of its family (with RawSuffix when constrained)
	off, size    int
	lower, upper *fzNode
}

// fzTerm is a term of the log density: Σ_e log p(x_e) over n elements (d not nil),
// or the sum of a factor's elements, plus a log Jacobian log(jac[1] − jac[0]).
type fzTerm struct {
	d   *fzDist
	x   *fzNode
	n   int
	jac []*fzNode
}

type fzDerived struct {
	name string
	n    *fzNode
}

type fzHMM struct {
	name string
	n, k int
}

// fzModel is a decoded model: its description and its builder.
type fzModel struct {
	p       *fuzzProg
	b       *graph.Builder
	all     []*fzNode // every node, by id
	pool    []*fzNode // nodes to read
	lats    []*fzLatent
	terms   []fzTerm
	derived []fzDerived
	hmms    []fzHMM
	faults  []string // declarations that must make Build fail
	names   int
	trace   []string
	err     error // a node whose error was not predicted (or a predicted one without)
	// more adds the families FuzzModelFamilies covers to scalarDist's choices
	// (FuzzModel's inputs decode as they did before them).
	more bool
}

func (m *fzModel) name(prefix string) string {
	m.names++
	return fmt.Sprintf("%s%d", prefix, m.names)
}

func (m *fzModel) byte() int { return int(m.p.byte()) }

// add records n, checks its graph node's error against the prediction (bad),
// and puts a good node in the pool.
func (m *fzModel) add(n *fzNode, bad bool, what string) *fzNode {
	n.id = len(m.all)
	m.all = append(m.all, n)
	for _, a := range n.args {
		n.dep = n.dep || a.dep
	}
	switch {
	case n.g == nil:
		if m.err == nil {
			m.err = fmt.Errorf("%s: nil graph node", what)
		}
	case bad && n.g.Err() == nil:
		if m.err == nil {
			m.err = fmt.Errorf("%s: no error for a bad shape", what)
		}
	case !bad && n.g.Err() != nil:
		if m.err == nil {
			m.err = fmt.Errorf("%s: unexpected error %v", what, n.g.Err())
		}
	case !bad && (n.g.Len() != n.l || n.g.Width() != n.w):
		if m.err == nil {
			m.err = fmt.Errorf("%s: shape %d×%d, want %d×%d", what, n.g.Len(), n.g.Width(), n.l, n.w)
		}
	}
	m.trace = append(m.trace, fmt.Sprintf("#%d %s %d×%d", n.id, what, n.l, n.w))
	if bad {
		m.fault(what, func(name string) { m.b.Factor(name, n.g) })
		return nil
	}
	if len(m.pool) < 64 {
		m.pool = append(m.pool, n)
	}
	return n
}

// fault declares something Build must refuse.
func (m *fzModel) fault(what string, declare func(name string)) {
	name := m.name("bad")
	declare(name)
	m.faults = append(m.faults, what)
}

// constOK reports whether n depends on a latent or its values are finite (and
// positive when pos): Build refuses a constant parameter that is not, as it
// should, and the generator declares only what must build.
func constOK(n *fzNode, pos bool) bool {
	if n.dep {
		return true
	}
	for _, v := range (&refEval{vals: map[*fzNode][]float64{}}).val(n) {
		if math.IsNaN(v) || math.IsInf(v, 0) || (pos && !(v > 0)) {
			return false
		}
	}
	return true
}

// pick returns a pool node satisfying ok, chosen by the next byte, or nil.
func (m *fzModel) pick(ok func(*fzNode) bool) *fzNode {
	return m.pickIf(func(n *fzNode) bool { return ok(n) && constOK(n, false) })
}

// pickAny is pick without the finiteness condition on constants.
func (m *fzModel) pickAny(ok func(*fzNode) bool) *fzNode { return m.pickIf(ok) }

func (m *fzModel) pickIf(ok func(*fzNode) bool) *fzNode {
	var c []*fzNode
	for _, n := range m.pool {
		if ok(n) {
			c = append(c, n)
		}
	}
	if len(c) == 0 {
		m.byte()
		return nil
	}
	return c[m.byte()%len(c)]
}

var (
	fzReals = []float64{-2, -1, -0.5, 0, 0.5, 1, 1.5, 2.5}
	fzPos   = []float64{0.5, 1, 1.5, 2, 3}
)

func (m *fzModel) constant(vals []float64, l, w int) *fzNode {
	n := &fzNode{op: opConst, l: l, w: w, vals: vals, pos: true, unit: true}
	for _, v := range vals {
		n.pos = n.pos && v > 0
		n.unit = n.unit && v > 0 && v < 1
	}
	if l == 1 && w == 1 {
		n.g = graph.C(vals[0])
	} else if w == 1 {
		n.g = graph.Data(vals)
	} else {
		rows := make([][]float64, l)
		for i := range rows {
			rows[i] = vals[i*w : (i+1)*w]
		}
		n.g = graph.Rows(rows)
	}
	return m.add(n, false, fmt.Sprintf("const %v", vals))
}

func (m *fzModel) constReal() *fzNode {
	return m.constant([]float64{fzReals[m.byte()%len(fzReals)]}, 1, 1)
}

func (m *fzModel) constPos() *fzNode {
	return m.constant([]float64{fzPos[m.byte()%len(fzPos)]}, 1, 1)
}

func scalar(n *fzNode) bool { return n.l == 1 && n.w == 1 }

// real returns a scalar node (an earlier one or a constant); pos a positive one.
func (m *fzModel) real() *fzNode {
	if m.byte()%4 == 0 {
		return m.constReal()
	}
	if n := m.pick(scalar); n != nil {
		return n
	}
	return m.constReal()
}

func (m *fzModel) positive() *fzNode {
	if m.byte()%4 == 0 {
		return m.constPos()
	}
	if n := m.pick(func(n *fzNode) bool { return scalar(n) && n.pos && constOK(n, true) }); n != nil {
		return n
	}
	return m.constPos()
}

func (m *fzModel) unitScalar() *fzNode {
	if n := m.pick(func(n *fzNode) bool { return scalar(n) && n.unit }); n != nil {
		return n
	}
	return m.unary(opLogistic, m.real())
}

// param returns a width-1 node of length 1 or l (l = 0: any length), positive
// when pos.
func (m *fzModel) param(pos bool, l int) *fzNode {
	if m.byte()%3 == 0 {
		if pos {
			return m.constPos()
		}
		return m.constReal()
	}
	n := m.pick(func(n *fzNode) bool {
		return n.w == 1 && (n.l == 1 || l == 0 || n.l == l) && (!pos || n.pos && constOK(n, true)) && n.l <= 12
	})
	if n != nil {
		return n
	}
	if pos {
		return m.constPos()
	}
	return m.constReal()
}

func broadcastShape(nodes ...*fzNode) (l, w int, ok bool) {
	l, w = 1, 1
	for _, a := range nodes {
		l, w = max(l, a.l), max(w, a.w)
	}
	for _, a := range nodes {
		if (a.l != 1 && a.l != l) || (a.w != 1 && a.w != w) {
			return 0, 0, false
		}
	}
	return l, w, true
}

func (m *fzModel) binary(op fzOp, a, b *fzNode) *fzNode {
	l, w, ok := broadcastShape(a, b)
	n := &fzNode{op: op, args: []*fzNode{a, b}, l: max(l, 1), w: max(w, 1)}
	fns := map[fzOp]func(a, b *graph.Node) *graph.Node{opAdd: graph.Add, opSub: graph.Sub, opMul: graph.Mul, opDiv: graph.Div}
	n.g = fns[op](a.g, b.g)
	switch op {
	case opAdd:
		n.pos = a.pos && b.pos
	case opMul:
		n.pos, n.unit = a.pos && b.pos, a.unit && b.unit
	case opDiv:
		n.pos = a.pos && b.pos
	}
	return m.add(n, !ok, fmt.Sprintf("binary %d(#%d, #%d)", op, a.id, b.id))
}

func (m *fzModel) unary(op fzOp, a *fzNode) *fzNode {
	n := &fzNode{op: op, args: []*fzNode{a}, l: a.l, w: a.w}
	switch op {
	case opNeg:
		n.g = graph.Neg(a.g)
	case opExp:
		n.g, n.pos = graph.Exp(a.g), true
	case opLog:
		n.g = graph.Log(a.g)
	case opLog1p:
		n.g = graph.Log1p(a.g)
	case opSqrt:
		n.g, n.pos = graph.Sqrt(a.g), a.pos
	case opLogistic:
		n.g, n.pos, n.unit = graph.Logistic(a.g), true, true
	case opSoftplus:
		n.g, n.pos = graph.Softplus(a.g), true
	case opPow:
		n.p = []float64{2, 3, 0.5, -1, 1.5, -2}[m.byte()%6]
		n.g, n.pos = graph.Pow(a.g, n.p), a.pos
	}
	return m.add(n, false, fmt.Sprintf("unary %d(#%d)", op, a.id))
}

func (m *fzModel) nodeOf(op fzOp, l, w int, g *graph.Node, bad bool, what string, args ...*fzNode) *fzNode {
	n := &fzNode{op: op, args: args, l: l, w: w, g: g, pos: true, unit: true}
	for _, a := range args {
		n.pos, n.unit = n.pos && a.pos, n.unit && a.unit
	}
	if op != opIndex && op != opConcat && op != opStack && op != opReshape && op != opSum {
		n.pos, n.unit = false, false
	}
	if op == opSum {
		n.unit = false
	}
	return m.add(n, bad, what)
}

func gnodes(ns []*fzNode) []*graph.Node {
	out := make([]*graph.Node, len(ns))
	for i, n := range ns {
		out[i] = n.g
	}
	return out
}

// expr decodes one expression over pool nodes and adds it.
func (m *fzModel) expr() {
	any := func(*fzNode) bool { return true }
	a := m.pickAny(any)
	if a == nil {
		a = m.constReal()
	}
	switch m.byte() % 20 {
	case 0, 1, 2:
		op := []fzOp{opAdd, opSub, opMul, opDiv}[m.byte()%4]
		b := m.pick(func(b *fzNode) bool { _, _, ok := broadcastShape(a, b); return ok })
		if b == nil {
			b = m.constReal()
		}
		if op == opDiv && m.byte()%2 == 0 {
			b = m.positive()
		}
		m.binary(op, a, b)
	case 3, 4:
		m.unary([]fzOp{opNeg, opExp, opLog, opLog1p, opSqrt, opLogistic, opSoftplus, opPow}[m.byte()%8], a)
	case 5:
		m.nodeOf(opSum, 1, 1, graph.Sum(a.g), false, fmt.Sprintf("Sum(#%d)", a.id), a)
	case 6:
		idx := make([]int, 1+m.byte()%4)
		for i := range idx {
			idx[i] = m.byte() % a.l
		}
		n := m.nodeOf(opIndex, len(idx), a.w, graph.Index(a.g, idx), false, fmt.Sprintf("Index(#%d, %v)", a.id, idx), a)
		if n != nil {
			n.idx = idx
		}
	case 7:
		if a.w != 1 || a.l > 6 {
			return
		}
		r := 1 + m.byte()%3
		x := make([]float64, r*a.l)
		for i := range x {
			x[i] = fzReals[m.byte()%len(fzReals)]
		}
		n := m.nodeOf(opMatVec, r, 1, graph.MatVec(mat.NewDense(r, a.l, x), a.g), false, fmt.Sprintf("MatVec(#%d)", a.id), a)
		if n != nil {
			n.vals = x
		}
	case 8:
		ns := []*fzNode{a}
		for range m.byte() % 3 {
			if b := m.pick(func(b *fzNode) bool { return b.w == a.w && b.l <= 8 }); b != nil {
				ns = append(ns, b)
			}
		}
		l := 0
		for _, b := range ns {
			l += b.l
		}
		m.nodeOf(opConcat, l, a.w, graph.Concat(gnodes(ns)...), false, "Concat", ns...)
	case 9:
		if a.w != 1 {
			m.nodeOf(opReshape, a.l*a.w, 1, graph.Components(a.g), false, fmt.Sprintf("Components(#%d)", a.id), a)
			return
		}
		ns := []*fzNode{a}
		for range 1 + m.byte()%3 {
			if b := m.pick(func(b *fzNode) bool { _, _, ok := broadcastShape(append(ns, b)...); return b.w == 1 && ok }); b != nil {
				ns = append(ns, b)
			}
		}
		l, _, _ := broadcastShape(ns...)
		m.nodeOf(opStack, l, len(ns), graph.Stack(gnodes(ns)...), false, "Stack", ns...)
	case 10:
		t := a.l * a.w
		if t%2 == 0 && m.byte()%2 == 0 {
			m.nodeOf(opReshape, t/2, 2, graph.Reshape(a.g, t/2, 2), false, fmt.Sprintf("Reshape(#%d, %d, 2)", a.id, t/2), a)
			return
		}
		m.nodeOf(opReshape, 1, t, graph.Reshape(a.g, 1, t), false, fmt.Sprintf("Reshape(#%d, 1, %d)", a.id, t), a)
	case 11, 12:
		switch {
		case m.byte()%2 == 0 && a.w > 1:
			m.nodeOf(opLSEComp, a.l, 1, graph.LogSumExp(a.g), false, fmt.Sprintf("LogSumExp(#%d) comps", a.id), a)
		case a.w == 1 && a.l > 1 && m.byte()%2 == 0:
			m.nodeOf(opLSEElem, 1, 1, graph.LogSumExp(a.g), false, fmt.Sprintf("LogSumExp(#%d) elems", a.id), a)
		default:
			ns := []*fzNode{a}
			for range 1 + m.byte()%3 {
				if b := m.pick(func(b *fzNode) bool { _, _, ok := broadcastShape(append(ns, b)...); return ok }); b != nil {
					ns = append(ns, b)
				}
			}
			if len(ns) == 1 {
				ns = append(ns, m.constReal())
			}
			l, w, _ := broadcastShape(ns...)
			m.nodeOf(opLSE, l, w, graph.LogSumExp(gnodes(ns)...), false, "LogSumExp", ns...)
		}
	case 13:
		th := m.unitScalar()
		if m.byte()%3 == 0 {
			if u := m.pick(func(b *fzNode) bool { return b.unit && b.w == 1 && (b.l == 1 || a.l == 1 || b.l == a.l) }); u != nil {
				th = u
			}
		}
		b := m.pick(func(b *fzNode) bool { _, _, ok := broadcastShape(th, a, b); return ok })
		if b == nil {
			b = m.constReal()
		}
		l, w, _ := broadcastShape(th, a, b)
		m.nodeOf(opLogMix, l, w, graph.LogMix(th.g, a.g, b.g), false, fmt.Sprintf("LogMix(#%d, #%d, #%d)", th.id, a.id, b.id), th, a, b)
	case 14, 15:
		m.density(a)
	case 16:
		m.funcNode(a)
	case 17:
		m.kernelNode()
	case 18:
		m.recursion()
	case 19:
		m.cholMul()
	}
}

// scalarDist decodes a scalar family (positive: with positive support) and its
// parameters, of length 1 or l (0: any).
func (m *fzModel) scalarDist(positive, counts bool, l int) *fzDist {
	fams := []fzFam{famNormal, famCauchy, famStudentT}
	if positive {
		fams = []fzFam{famLogNormal, famGamma, famExponential}
		if counts {
			fams = append(fams, famPoisson)
		}
	}
	if m.more {
		if positive {
			fams = append(fams, famWeibull)
			if counts {
				fams = append(fams, famNegBin2, famNegBin2Log)
			}
		} else {
			fams = append(fams, famLogistic)
		}
	}
	d := &fzDist{fam: fams[m.byte()%len(fams)]}
	p := func(pos bool) *fzNode {
		n := m.param(pos, l)
		if l == 0 && n.l > 1 {
			l = n.l
		}
		return n
	}
	switch d.fam {
	case famNormal:
		d.params = []*fzNode{p(false), p(true)}
		d.g = graph.Normal(d.params[0].g, d.params[1].g)
	case famCauchy:
		d.params = []*fzNode{p(false), p(true)}
		d.g = graph.Cauchy(d.params[0].g, d.params[1].g)
	case famStudentT:
		d.params = []*fzNode{p(true), p(false), p(true)}
		d.g = graph.StudentT(d.params[0].g, d.params[1].g, d.params[2].g)
	case famLogNormal:
		d.params = []*fzNode{p(false), p(true)}
		d.g = graph.LogNormal(d.params[0].g, d.params[1].g)
	case famGamma:
		d.params = []*fzNode{p(true), p(true)}
		d.g = graph.Gamma(d.params[0].g, d.params[1].g)
	case famExponential:
		d.params = []*fzNode{p(true)}
		d.g = graph.Exponential(d.params[0].g)
	case famPoisson:
		d.params = []*fzNode{p(true)}
		d.g = graph.Poisson(d.params[0].g)
	case famLogistic:
		d.params = []*fzNode{p(false), p(true)}
		d.g = graph.LogisticDist(d.params[0].g, d.params[1].g)
	case famWeibull:
		d.params = []*fzNode{p(true), p(true)}
		d.g = graph.Weibull(d.params[0].g, d.params[1].g)
	case famNegBin2:
		d.params = []*fzNode{p(true), p(true)}
		d.g = graph.NegBinomial2(d.params[0].g, d.params[1].g)
	case famNegBin2Log:
		d.params = []*fzNode{p(false), p(true)}
		d.g = graph.NegBinomial2Log(d.params[0].g, d.params[1].g)
	}
	return d
}

func distLen(d *fzDist) int {
	l := 1
	for _, p := range d.params {
		if d.fam != famMVNCov && d.fam != famMVNChol || p == d.params[0] {
			l = max(l, p.l)
		}
	}
	return l
}

// fzData returns n values for a family: reals, positive values or counts.
func (m *fzModel) fzData(f fzFam, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		switch {
		case countFam(f):
			v[i] = float64(m.byte() % 6)
		case f == famLogNormal || f == famGamma || f == famExponential || f == famWeibull:
			v[i] = []float64{0.2, 0.7, 1, 1.8, 3.5}[m.byte()%5]
		default:
			v[i] = []float64{-1.5, -0.3, 0, 0.7, 2.1, 3.3}[m.byte()%6]
		}
	}
	return v
}

// density adds LogDensity(d, x) for x the node a (a scalar family at a width-1
// node) or data.
func (m *fzModel) density(a *fzNode) {
	positive := m.byte()%2 == 0
	l := 0
	if a.w == 1 && !positive {
		l = a.l
	}
	d := m.scalarDist(positive, true, l)
	x := a
	if positive || a.w != 1 {
		x = m.constant(m.fzData(d.fam, distLen(d)), distLen(d), 1)
	}
	n := max(distLen(d), x.l)
	m.nodeOf(opDensity, n, 1, graph.LogDensity(d.g, x.g), false, fmt.Sprintf("LogDensity(%d, #%d)", d.fam, x.id), append([]*fzNode{x}, d.params...)...).d = d
}
