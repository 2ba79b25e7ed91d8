package graph_test

import (
	"fmt"
	"math"
	"slices"

	"github.com/nmc-go/nmc/nmc/graph"
	"github.com/nmc-go/nmc/nmc/jet"
)

// Go functions, kernels, CholeskyMul, recursions and observations of FuzzModel's
// generator.

// fzProgOp is an instruction of a decoded Go function: register dst = op(a, b),
// with operations defined everywhere (Func's probes at prior draws must find a
// finite output).
type fzProgOp struct{ op, a, b int }

const fzProgOps = 11

func runFuzzProgJet(prog []fzProgOp, in, out []jet.Number) {
	r := append([]jet.Number(nil), in...)
	for _, o := range prog {
		a, b := r[o.a], r[o.b]
		var v jet.Number
		switch o.op {
		case 0:
			v = a.Add(b)
		case 1:
			v = a.Sub(b)
		case 2:
			v = a.Mul(b)
		case 3:
			v = a.Neg()
		case 4:
			v = a.Logistic()
		case 5:
			v = a.Softplus()
		case 6:
			v = a.Square()
		case 7:
			v = a.Tanh()
		case 8:
			v = a.Sin()
		case 9:
			v = a.Div(b.Square().AddConst(1))
		default:
			v = a.Square().Log1p()
		}
		r = append(r, v)
	}
	copy(out, r[len(r)-len(out):])
}

func runFuzzProgFloat(prog []fzProgOp, in []float64, nout int) []float64 {
	r := append([]float64(nil), in...)
	for _, o := range prog {
		a, b := r[o.a], r[o.b]
		var v float64
		switch o.op {
		case 0:
			v = a + b
		case 1:
			v = a - b
		case 2:
			v = a * b
		case 3:
			v = -a
		case 4:
			v = 1 / (1 + math.Exp(-a))
		case 5:
			v = refUnary(opSoftplus, a, 0)
		case 6:
			v = a * a
		case 7:
			v = math.Tanh(a)
		case 8:
			v = math.Sin(a)
		case 9:
			v = a / (1 + b*b)
		default:
			v = math.Log1p(a * a)
		}
		r = append(r, v)
	}
	return r[len(r)-nout:]
}

// funcNode adds a Go function of a and up to two more nodes (at most 8 input
// components) with one or two outputs; as a Builder.Func factor now and then.
func (m *fzModel) funcNode(a *fzNode) {
	ins := []*fzNode{a}
	for range m.byte() % 3 {
		if b := m.pick(func(*fzNode) bool { return true }); b != nil {
			ins = append(ins, b)
		}
	}
	nin := 0
	for _, b := range ins {
		nin += b.l * b.w
	}
	if nin > 8 {
		ins, nin = ins[:1], a.l*a.w
		if nin > 8 {
			return
		}
	}
	nout := 1 + m.byte()%2
	var prog []fzProgOp
	for i := range nout + m.byte()%5 {
		prog = append(prog, fzProgOp{m.byte() % fzProgOps, m.byte() % (nin + i), m.byte() % (nin + i)})
	}
	f := func(_ *jet.Space, in, out []jet.Number) { runFuzzProgJet(prog, in, out) }
	what := fmt.Sprintf("Func(%v, %d inputs)", prog, len(ins))
	// A factor of constant inputs is a constant, which Build refuses unless
	// finite (a Square overflows at 1e200).
	finite, dep := true, false
	var in []float64
	for _, b := range ins {
		if b.dep && (readsNonFinite(b, map[*fzNode]bool{}) || nanProne(b, map[*fzNode]bool{})) {
			return
		}
		finite = finite && constOK(b, false)
		dep = dep || b.dep
		if finite && !b.dep {
			in = append(in, (&refEval{vals: map[*fzNode][]float64{}}).val(b)...)
		}
	}
	if finite && !dep {
		out := runFuzzProgFloat(prog, in, 1)[0]
		finite = !math.IsNaN(out) && !math.IsInf(out, 0)
	}
	if nout == 1 && m.byte()%2 == 0 && finite {
		name := m.name("func")
		m.b.Func(name, f, gnodes(ins)...)
		n := &fzNode{op: opFunc, args: ins, l: 1, w: 1, prog: prog}
		n.g = graph.Func(f, 1, gnodes(ins)...) // the same node, for the description only
		if m.add(n, false, "Builder."+what) != nil {
			m.terms = append(m.terms, fzTerm{x: n, n: 1})
		}
		return
	}
	n := &fzNode{op: opFunc, args: ins, l: 1, w: nout, prog: prog, g: graph.Func(f, nout, gnodes(ins)...)}
	if n = m.add(n, false, what); n != nil && nout > 1 {
		m.nodeOf(opReshape, nout, 1, graph.Components(n.g), false, fmt.Sprintf("Components(#%d)", n.id), n)
	}
}

// readsNonFinite reports whether n is, or reads through its arguments, a node
// of constants that is not finite, or a division by a constant 0: a node that
// depends on a latent can still be infinite at every state (LogMix(θ, a, +Inf),
// p/0), and Build refuses a Func whose output is at every prior draw, as it
// should. seen memoises the walk.
func readsNonFinite(n *fzNode, seen map[*fzNode]bool) bool {
	if r, ok := seen[n]; ok {
		return r
	}
	r := !constOK(n, false) // a node of constants: its values
	for _, a := range n.args {
		r = r || n.dep && readsNonFinite(a, seen)
	}
	if n.op == opDiv && n.dep && !n.args[1].dep { // a division by a constant 0
		r = r || slices.Contains((&refEval{vals: map[*fzNode][]float64{}}).val(n.args[1]), 0)
	}
	seen[n] = r
	return r
}

// nanProne reports whether n reads, through latents, a logarithm, square root or
// fractional or negative power of a node not known to be positive: such a node
// can be NaN at every prior draw (Log of a latent whose prior is N(−2, 0.5)),
// and Build refuses a Func whose output is NaN at all ten of its draws (seed
// 1a5c19e483e217d5, found after 11 min). seen memoises the walk.
func nanProne(n *fzNode, seen map[*fzNode]bool) bool {
	if r, ok := seen[n]; ok {
		return r
	}
	r := false
	if n.dep && len(n.args) > 0 && !n.args[0].pos {
		switch n.op {
		case opLog, opLog1p, opSqrt:
			r = true
		case opPow:
			r = n.p < 0 || n.p != math.Trunc(n.p)
		}
	}
	for _, a := range n.args {
		r = r || a.dep && nanProne(a, seen)
	}
	seen[n] = r
	return r
}

// kernelNode adds AddDiag(kernel(points, α, ρ), jitter) on 1 to 4 points.
func (m *fzModel) kernelNode() *fzNode {
	n, kw := 1+m.byte()%4, 1+m.byte()%2
	pts := make([]float64, n*kw)
	for i := range pts {
		pts[i] = float64(m.byte()%8)*0.5 - 1 + 0.01*float64(i)
	}
	var x *fzNode
	if kw == 1 {
		x = m.constant(pts, n, 1)
	} else {
		x = m.constant(pts, n, kw)
	}
	alpha, rho := m.positive(), m.positive()
	kind := m.byte() % 3
	fn := []func(x, a, r *graph.Node) *graph.Node{graph.ExpQuadCov, graph.Matern32Cov, graph.Matern52Cov}[kind]
	k := &fzNode{op: opKernel, args: []*fzNode{alpha, rho}, l: n, w: n, vals: pts, kern: kind, kw: kw, g: fn(x.g, alpha.g, rho.g)}
	if k = m.add(k, false, fmt.Sprintf("kernel %d", kind)); k == nil {
		return nil
	}
	var jit *fzNode
	switch m.byte() % 3 {
	case 0:
		jit = m.constant([]float64{0.5}, 1, 1)
	case 1:
		jit = m.positive()
	default:
		v := make([]float64, n)
		for i := range v {
			v[i] = fzPos[m.byte()%len(fzPos)]
		}
		jit = m.constant(v, n, 1)
	}
	return m.nodeOf(opAddDiag, n, n, graph.AddDiag(k.g, jit.g), false, fmt.Sprintf("AddDiag(#%d, #%d)", k.id, jit.id), k, jit)
}

// cholMul adds CholeskyMul(cov, eta) for a covariance from the pool (or a new
// kernel) and eta of matching size.
func (m *fzModel) cholMul() {
	cov := m.pick(func(n *fzNode) bool { return n.op == opAddDiag })
	if cov == nil {
		if cov = m.kernelNode(); cov == nil {
			return
		}
	}
	k := cov.l
	eta := m.pick(func(n *fzNode) bool { return n.l*n.w == k && (n.w == 1 || n.l == 1) })
	if eta == nil {
		eta = m.vectorLatent(k)
	}
	m.nodeOf(opCholMul, k, 1, graph.CholeskyMul(cov.g, eta.g), false, fmt.Sprintf("CholeskyMul(#%d, #%d)", cov.id, eta.id), cov, eta)
}

// recursion adds T steps of a decoded update of two scalar registers s, u from
// parameters and data: step t reads step t − 1 (once or several times), as an
// ARMA or GARCH recursion declared in a Go loop; the steps are concatenated and
// observed, or kept in the pool.
func (m *fzModel) recursion() {
	T := 2 + m.byte()%9
	params := []*fzNode{m.real(), m.positive()}
	type ins struct{ op, a, b int }
	var prog []ins
	for i := range 1 + m.byte()%4 {
		prog = append(prog, ins{m.byte() % 8, m.byte() % (5 + i), m.byte() % (5 + i)})
	}
	data := m.fzData(famNormal, T)
	s, u := m.real(), m.constReal()
	var steps []*fzNode
	for t := range T {
		d := m.constant([]float64{data[t]}, 1, 1)
		r := []*fzNode{s, u, params[0], params[1], d}
		for _, o := range prog {
			a, b := r[o.a], r[o.b]
			var v *fzNode
			switch o.op {
			case 0:
				v = m.binary(opAdd, a, b)
			case 1:
				v = m.binary(opSub, a, b)
			case 2:
				v = m.binary(opMul, a, b)
			case 3:
				v = m.unary(opLogistic, a)
			case 4:
				v = m.unary(opSoftplus, a)
			case 5:
				v = m.nodeOf(opLSE, 1, 1, graph.LogSumExp(a.g, b.g), false, "LogSumExp", a, b)
			case 6:
				th := m.unary(opLogistic, params[0])
				v = m.nodeOf(opLogMix, 1, 1, graph.LogMix(th.g, a.g, b.g), false, "LogMix", th, a, b)
			default:
				v = m.binary(opMul, m.binary(opAdd, a, a), m.unary(opLogistic, b)) // a read twice
			}
			if v == nil {
				return
			}
			r = append(r, v)
		}
		s, u = r[len(r)-1], r[len(r)-2]
		steps = append(steps, s)
	}
	all := m.nodeOf(opConcat, T, 1, graph.Concat(gnodes(steps)...), false, fmt.Sprintf("Concat(%d steps)", T), steps...)
	if all != nil && m.byte()%2 == 0 && constOK(all, false) {
		sigma := m.positive()
		d := &fzDist{fam: famNormal, params: []*fzNode{all, sigma}, g: graph.Normal(all.g, sigma.g)}
		m.observe(d, data)
	}
}

// observe declares an observation of d at values (len = d's length · width).
func (m *fzModel) observe(d *fzDist, values []float64) {
	name := m.name("y")
	w := 1
	if d.fam == famMVNCov || d.fam == famMVNChol {
		w = d.params[1].w
	}
	x := &fzNode{op: opConst, l: len(values) / w, w: w, vals: values}
	if countFam(d.fam) {
		ints := make([]int, len(values))
		for i, v := range values {
			ints[i] = int(v)
		}
		m.b.ObserveInts(name, d.g, ints)
	} else {
		m.b.Observe(name, d.g, values)
	}
	m.trace = append(m.trace, fmt.Sprintf("Observe(%s, fam %d, %v)", name, d.fam, values))
	m.terms = append(m.terms, fzTerm{d: d, x: x, n: x.l})
}
