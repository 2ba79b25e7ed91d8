package graph

import (
	"fmt"
	"math"
)

// lseMode says what a LogSumExp node sums over.
type lseMode uint8

const (
	lseArgs       lseMode = iota // element-wise across the arguments
	lseComponents                // one argument: over the components of each element
	lseElements                  // one argument of width 1: over its elements
)

// lseOp is LogSumExp.
type lseOp struct{ mode lseMode }

func (lseOp) name() string { return "LogSumExp" }

func (o lseOp) reads(n *Node, e int, visit func(*Node, int)) {
	switch o.mode {
	case lseArgs:
		for _, a := range n.args {
			visit(a, elem(a, e))
		}
	case lseComponents:
		visit(n.args[0], e)
	case lseElements:
		a := n.args[0]
		for i := 0; i < a.length; i++ {
			visit(a, i)
		}
	}
}

func (o lseOp) eval(s *scorer, n *Node, e int, out []jet) {
	top := s.top
	switch o.mode {
	case lseComponents:
		a := n.args[0]
		ja := s.push(a.width)
		s.eval(a, e, ja)
		out[0] = s.ops.logSumExp(ja)
	case lseElements:
		a := n.args[0]
		ja := s.push(a.length)
		for i := range ja {
			s.eval(a, i, ja[i:i+1])
		}
		out[0] = s.ops.logSumExp(ja)
	default:
		// Each argument's element, all its components one argument after another;
		// then per component the arguments' jets side by side.
		at := s.push(len(n.args))
		width := 0
		for _, a := range n.args {
			width += a.width
		}
		all := s.push(width)
		off := 0
		for _, a := range n.args {
			s.eval(a, elem(a, e), all[off:off+a.width])
			off += a.width
		}
		for c := range out {
			off = 0
			for j, a := range n.args {
				if a.width > 1 {
					at[j] = all[off+c]
				} else {
					at[j] = all[off]
				}
				off += a.width
			}
			out[c] = s.ops.logSumExp(at)
		}
	}
	s.top = top
}

// logSumExp returns the jet of log Σᵢ exp(aᵢ): its value m + log1p(Σ_{i≠max} e^{aᵢ−m})
// with m the largest aᵢ, and, with pᵢ = e^{aᵢ−LSE} (Σ pᵢ = 1), ∇ = Σ pᵢ∇aᵢ = ḡ and
// ∇² = Σ pᵢ∇²aᵢ + Σ pᵢ(∇aᵢ − ḡ)(∇aᵢ − ḡ)ᵀ, the second sum being the covariance of
// the gradients under p (the same as Σ pᵢ∇aᵢ∇aᵢᵀ − ḡḡᵀ, without its cancellation).
// Arguments at −Inf contribute nothing; all at −Inf give −Inf, any NaN gives NaN and
// any +Inf gives +Inf (without derivatives).
func (o *jetOps) logSumExp(args []jet) jet {
	imax := -1
	for i := range args {
		v := args[i].v
		if math.IsNaN(v) {
			return jet{v: math.NaN()}
		}
		if imax < 0 || v > args[imax].v {
			imax = i
		}
	}
	if imax < 0 {
		return jet{v: math.Inf(-1)}
	}
	m := args[imax].v
	if math.IsInf(m, 0) {
		return jet{v: m}
	}
	sum := 0.0
	for i := range args {
		if i != imax {
			sum += math.Exp(args[i].v - m)
		}
	}
	lse := m + math.Log1p(sum)
	if len(args) == 1 {
		return args[0]
	}
	b, structured := commonBase(args)
	if structured {
		if b == nil {
			return jet{v: lse}
		}
		gbar, hc := 0.0, 0.0
		for i := range args {
			if a := &args[i]; a.kind != jConst {
				p := math.Exp(a.v - lse)
				if p == 0 {
					continue // far below the others, or −Inf
				}
				gbar += p * a.gc
				hc += p * a.hc
			}
		}
		for i := range args {
			a := &args[i]
			p := math.Exp(a.v - lse)
			if p == 0 {
				continue
			}
			d := -gbar
			if a.kind != jConst {
				d += a.gc
			}
			hc += p * d * d
		}
		return jet{v: lse, kind: b.kind, i: b.i, m: b.m, gc: gbar, hc: hc}
	}
	k := o.k
	g, h := o.ar.get(k), o.ar.get(k*k)
	for i := range args {
		if a := &args[i]; a.kind != jConst {
			p := math.Exp(a.v - lse)
			if p == 0 {
				continue
			}
			o.addGrad(g, p, a)
			o.addHess(h, p, a)
		}
	}
	d := o.ar.get(k)
	pConst := 0.0 // the constant arguments' weights: each adds p·ḡḡᵀ
	for i := range args {
		a := &args[i]
		p := math.Exp(a.v - lse)
		if p == 0 {
			continue
		}
		if a.kind == jConst {
			pConst += p
			continue
		}
		for q := range d {
			d[q] = -g[q]
		}
		o.addGrad(d, 1, a)
		o.addOuter(h, p, d, d)
	}
	if pConst > 0 {
		o.addOuter(h, pConst, g, g)
	}
	return jet{v: lse, kind: jDense, g: g, h: h}
}

// LogSumExp returns log Σ exp(·), computed stably (the largest term factored out),
// with exact gradient and Hessian:
//
//   - of two or more nodes, element-wise across them: element e, component c is
//     log Σⱼ exp(nodes[j][e, c]), broadcasting as Add does (a node of length 1 over
//     the others' elements, one of width 1 over their components);
//   - of one node of width k > 1, over the components of each element: Len()
//     scalar elements (the per-observation log-sum of a Stack of component log
//     densities, Stan's log_sum_exp of a vector);
//   - of one node of width 1 and n elements, over its elements: one scalar (Stan's
//     log_sum_exp of a vector held as scalar elements, such as a Vector site or
//     Data). To reduce each element of a width-1 node separately there is nothing
//     to sum: the node is its own LogSumExp.
//
// A term at −Inf contributes nothing (all terms at −Inf give −Inf). A two-component
// mixture written out, log(λ·N(y | μ₁, σ) + (1 − λ)·N(y | μ₂, σ)):
//
//	lp1 := graph.Add(graph.Log(lambda), graph.LogDensity(graph.Normal(mu1, sigma), y))
//	lp2 := graph.Add(graph.Log1p(graph.Neg(lambda)), graph.LogDensity(graph.Normal(mu2, sigma), y))
//	b.Factor("y", graph.LogSumExp(lp1, lp2))
//
// (LogMix is this with λ's terms built in.)
func LogSumExp(nodes ...*Node) *Node {
	op := lseOp{}
	if len(nodes) == 0 {
		return customErr(op, "no nodes")
	}
	if err := firstErr(op.name(), nodes...); err != nil {
		return &Node{op: opCustom, impl: op, length: 1, width: 1, err: err}
	}
	if len(nodes) == 1 {
		a := nodes[0]
		switch {
		case a.width > 1:
			return custom(lseOp{mode: lseComponents}, a.length, 1, a)
		case a.length > 1:
			return custom(lseOp{mode: lseElements}, 1, 1, a)
		}
		return a
	}
	l, w, err := broadcastAll(op.name(), nodes)
	if err != nil {
		return &Node{op: opCustom, impl: op, length: 1, width: 1, err: err}
	}
	return custom(op, l, w, nodes...)
}

// broadcastAll returns the length and width of an element-wise operation on nodes
// (non-nil and without errors): each node's length is 1 or the largest, and so is
// its width.
func broadcastAll(name string, nodes []*Node) (length, width int, err error) {
	length, width = 1, 1
	for _, a := range nodes {
		length, width = max(length, a.length), max(width, a.width)
	}
	for i, a := range nodes {
		if a.length != 1 && a.length != length {
			return 0, 0, fmt.Errorf("graph: %s: node %d has %d elements, others %d", name, i, a.length, length)
		}
		if a.width != 1 && a.width != width {
			return 0, 0, fmt.Errorf("graph: %s: node %d has width %d, others %d", name, i, a.width, width)
		}
	}
	return length, width, nil
}

// logMixOp is LogMix: arguments θ, a, b.
type logMixOp struct{}

func (logMixOp) name() string { return "LogMix" }

func (logMixOp) reads(n *Node, e int, visit func(*Node, int)) {
	for _, a := range n.args {
		visit(a, elem(a, e))
	}
}

func (logMixOp) eval(s *scorer, n *Node, e int, out []jet) {
	top := s.top
	var ja [3][]jet
	for j, a := range n.args {
		ja[j] = s.push(a.width)
		s.eval(a, elem(a, e), ja[j])
	}
	args := s.push(3)
	var d1 [3]float64
	var d2 [9]float64
	for c := range out {
		for j := range args {
			if len(ja[j]) > 1 {
				args[j] = ja[j][c]
			} else {
				args[j] = ja[j][0]
			}
		}
		v, ok := logMix(args[0].v, args[1].v, args[2].v, &d1, &d2)
		if !ok {
			out[c] = jet{v: v}
			continue
		}
		out[c] = s.ops.chainJet(v, args, d1[:], d2[:])
	}
	s.top = top
}

// logMix returns log(θe^a + (1 − θ)e^b) and, when it is finite (ok), its first
// and second derivatives in (θ, a, b). With u = log θ + a, w = log1p(−θ) + b, the
// responsibilities p = e^{u−L}, q = e^{w−L} and e_a = e^{a−L} = p/θ,
// e_b = e^{b−L} = q/(1 − θ):
//
//	∂θ = e_a − e_b, ∂a = p, ∂b = q,
//	∂θθ = −(e_a − e_b)², ∂θa = e_a q + e_b p = −∂θb, ∂aa = ∂bb = pq = −∂ab,
//
// every term a product of quantities in [0, 1/θ] and [0, 1/(1 − θ)], so nothing is
// lost when θ is near 0 or 1 or when |a − b| is large.
func logMix(theta, a, b float64, d1 *[3]float64, d2 *[9]float64) (float64, bool) {
	if !(theta >= 0 && theta <= 1) {
		return math.NaN(), false
	}
	return logMixLogs(theta, math.Log(theta), math.Log1p(-theta), a, b, d1, d2)
}

// logMixLogs is logMix given θ in [0, 1], log θ and log1p(−θ) (a mixture factor's
// rows share them: mixrows.go).
func logMixLogs(theta, logTheta, log1mTheta, a, b float64, d1 *[3]float64, d2 *[9]float64) (float64, bool) {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN(), false
	}
	u, w := logTheta+a, log1mTheta+b
	hi, lo := u, w
	if lo > hi {
		hi, lo = lo, hi
	}
	if math.IsInf(hi, 0) {
		return hi, false
	}
	// The responsibilities from one exponential: the larger 1/(1 + e), the smaller
	// e/(1 + e), e = e^{lo−hi} ≤ 1.
	e := math.Exp(lo - hi)
	l := hi + math.Log1p(e)
	rHi := 1 / (1 + e)
	p, q := rHi, e*rHi
	if w > u {
		p, q = q, p
	}
	// e_a = p/θ and e_b = q/(1 − θ), from the exponentials where they underflow.
	ea, eb := p/theta, q/(1-theta)
	if !(p > 1e-280) {
		ea = math.Exp(a - l)
	}
	if !(q > 1e-280) {
		eb = math.Exp(b - l)
	}
	d1[0], d1[1], d1[2] = ea-eb, p, q
	ta := ea*q + eb*p
	pq := p * q
	*d2 = [9]float64{
		-(ea - eb) * (ea - eb), ta, -ta,
		ta, pq, -pq,
		-ta, -pq, pq,
	}
	return l, true
}

// LogMix returns log(θ·e^a + (1 − θ)·e^b) element-wise (Stan's log_mix), the log
// density of a two-component mixture with weight θ in [0, 1] given each
// component's log density a and b. It is computed as the LogSumExp of log θ + a and
// log1p(−θ) + b, with exact gradient and Hessian in θ, a and b formed from the
// responsibilities, so it keeps full precision for θ near 0 or 1 and for |a − b| in
// the hundreds (well-separated components). Its arguments broadcast as Add's do; a
// θ outside [0, 1] gives NaN (an impossible state in a Factor). The mixture
// y_i ~ λ·N(μ₁, σ) + (1 − λ)·N(μ₂, σ):
//
//	b.Factor("y", graph.LogMix(lambda,
//		graph.LogDensity(graph.Normal(graph.Index(mu, []int{0}), sigma), graph.Data(y)),
//		graph.LogDensity(graph.Normal(graph.Index(mu, []int{1}), sigma), graph.Data(y))))
func LogMix(theta, a, b *Node) *Node {
	op := logMixOp{}
	if err := firstErr(op.name(), theta, a, b); err != nil {
		return &Node{op: opCustom, impl: op, length: 1, width: 1, err: err}
	}
	l, w, err := broadcastAll(op.name(), []*Node{theta, a, b})
	if err != nil {
		return &Node{op: opCustom, impl: op, length: 1, width: 1, err: err}
	}
	return custom(op, l, w, theta, a, b)
}
