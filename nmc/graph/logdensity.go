package graph

import (
	"fmt"
	"math"
	"slices"
)

// logDensityOp is the element-wise log density of data under a distribution whose
// parameters are nodes (LogDensity): element e is log p(values[e] | params at e).
type logDensityOp struct {
	d      *Dist
	values []float64 // length × vw values, element-major
	vw     int       // the distribution's value width
	na     int       // arguments of one call of the family: vw + Σ parameter widths
}

func (logDensityOp) name() string { return "LogDensity" }

func (o *logDensityOp) reads(n *Node, e int, visit func(*Node, int)) {
	for _, p := range o.d.params {
		visit(p, elem(p, e))
	}
}

// opScratch is a scorer's scratch for the nodeOps that keep their own.
type opScratch struct {
	// LogDensity's arguments, their values and the family's derivatives. An element
	// evaluates its parameters before it uses them, so a LogDensity in the
	// parameters of another is done with them before the outer one starts.
	ldArgs     []jet
	ldArgv     []float64
	ldD1, ldD2 []float64
	// hmm: per HMMMarginal node, its forward recursion's buffers.
	hmm map[*Node]*hmmScratch
}

// logDensity returns LogDensity's scratch for na arguments.
func (x *opScratch) logDensity(na int) (args []jet, argv, d1, d2 []float64) {
	if len(x.ldArgv) < na {
		x.ldArgs = make([]jet, na)
		x.ldArgv = make([]float64, na)
		x.ldD1 = make([]float64, na)
		x.ldD2 = make([]float64, na*na)
	}
	return x.ldArgs[:na], x.ldArgv[:na], x.ldD1[:na], x.ldD2[:na*na]
}

func (o *logDensityOp) eval(s *scorer, n *Node, e int, out []jet) {
	vw, na := o.vw, o.na
	// The parameters' jets go on the stack (a parameter may itself be a LogDensity,
	// which uses the shared scratch), then into the scratch.
	top := s.top
	pj := s.push(na - vw)
	at := 0
	for _, p := range o.d.params {
		s.eval(p, elem(p, e), pj[at:at+p.width])
		at += p.width
	}
	args, argv, d1, d2 := s.ext.logDensity(na)
	for c := 0; c < vw; c++ {
		args[c] = jet{v: o.values[e*vw+c]}
		argv[c] = args[c].v
	}
	live := false
	for c := range pj {
		args[vw+c] = pj[c]
		argv[vw+c] = pj[c].v
		if pj[c].kind != jConst {
			live = true
		}
	}
	s.top = top
	fam, k := o.d.fam, o.d.k
	if !live {
		out[0] = jet{v: o.checked(fam.LogProb(argv, k), argv)}
		return
	}
	lp := fam.Derivs(argv, k, d1, d2)
	if math.IsInf(lp, 0) || math.IsNaN(lp) {
		out[0] = jet{v: o.checked(lp, argv)}
		return
	}
	out[0] = s.chainJet(lp, args[vw:], d1[vw:], d2, na, vw)
}

// checked returns lp, or NaN when lp is not finite because the parameters are
// invalid (a negative rate), so that an invalid parameter makes the state impossible
// wherever the node is used: a hidden Markov model would otherwise read −Inf as one
// state's data being impossible.
func (o *logDensityOp) checked(lp float64, argv []float64) float64 {
	if math.IsInf(lp, 1) || (math.IsInf(lp, -1) && o.d.fam.CheckParams(argv[o.vw:], o.d.k) != nil) {
		return math.NaN()
	}
	return lp
}

// chainJet returns the jet of φ(p₀(x), p₁(x), …) given φ's value lp, its
// derivatives d1[a] = ∂φ/∂p_a and d2[(off+a)·stride + off+b] = ∂²φ/∂p_a∂p_b, and the
// arguments' jets ps: structured when every argument that depends on the active
// site has the same base, else dense.
func (s *scorer) chainJet(lp float64, ps []jet, d1, d2 []float64, stride, off int) jet {
	var base *jet
	same := true
	for a := range ps {
		if ps[a].kind == jConst {
			continue
		}
		if base == nil {
			base = &ps[a]
		} else if !sameBase(base, &ps[a]) {
			same = false
		}
	}
	if base == nil {
		return jet{v: lp}
	}
	d2at := func(a, b int) float64 { return d2[(off+a)*stride+off+b] }
	if same && base.kind != jDense {
		gc, hc := 0.0, 0.0
		for a := range ps {
			ja := &ps[a]
			if ja.kind == jConst {
				continue
			}
			gc += d1[a] * ja.gc
			hc += d1[a] * ja.hc
			for b := range ps {
				if jb := &ps[b]; jb.kind != jConst {
					hc += d2at(a, b) * ja.gc * jb.gc
				}
			}
		}
		return jet{v: lp, kind: base.kind, i: base.i, m: base.m, gc: gc, hc: hc}
	}
	k := s.ops.k
	g, h := s.ops.ar.get(k), s.ops.ar.get(k*k)
	for a := range ps {
		ja := &ps[a]
		if ja.kind == jConst {
			continue
		}
		addGradOf(g, d1[a], ja)
		addHessOf(h, k, d1[a], ja)
		for b := range ps {
			if jb := &ps[b]; jb.kind != jConst {
				if c := d2at(a, b); c != 0 {
					addCrossOuter(h, k, c, ja, jb)
				}
			}
		}
	}
	return jet{v: lp, kind: jDense, g: g, h: h}
}

// LogDensity returns the log density of each element of values under d, whose
// parameters are nodes: element e is log p(values[e] | d's parameters at e), as
// Stan's poisson_lpmf(y[t] | lambda) written per element. values holds Len
// elements of d's value width, element-major, where Len is the longest parameter
// length (parameters of length 1 broadcast) or, when every parameter has length 1,
// len(values) over the value width. The node has Len scalar elements, with the
// exact first and second derivatives of the family (package dist) chained through
// the parameters' jets.
//
// It writes the emissions of a hidden Markov model, one column per state:
//
//	logOmega := graph.Stack(graph.LogDensity(graph.Poisson(lambda1), y), graph.LogDensity(graph.Poisson(lambda2), y))
//
// An element whose value is outside the support is −Inf; one whose parameters are
// invalid (a negative rate) is NaN, which makes the log density of any factor that
// reads it −Inf. Build reports a nil or invalid distribution, values that are NaN
// or Inf, a number of values that does not fit the parameters' lengths, and values
// outside the support (of the family for the constant parameters given), naming the
// element.
func LogDensity(d *Dist, values []float64) *Node {
	var op logDensityOp
	if d == nil {
		return customErr(&op, "nil distribution")
	}
	if d.err != nil {
		return &Node{op: opCustom, impl: &op, length: 1, width: 1, err: fmt.Errorf("graph: LogDensity: %w", d.err)}
	}
	name := d.fam.Name()
	vw, pw := d.fam.Layout(d.k)
	n := 1
	for _, p := range d.params {
		n = max(n, p.length)
	}
	for i, p := range d.params {
		if p.length != 1 && p.length != n {
			return customErr(&op, "%s parameter %s has %d elements, others %d", name, d.fam.ParamNames()[i], p.length, n)
		}
	}
	if n == 1 && len(values) > vw {
		n = len(values) / vw
	}
	if len(values) == 0 || len(values) != n*vw {
		return customErr(&op, "%s: %d values, want %d (%d elements of width %d)", name, len(values), n*vw, n, vw)
	}
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return customErr(&op, "%s: value %d (element %d) is %v", name, i, i/vw, v)
		}
	}
	op = logDensityOp{d: d, values: slices.Clone(values), vw: vw, na: vw}
	for _, w := range pw {
		op.na += w
	}
	if err := op.checkValues(n); err != nil {
		return &Node{op: opCustom, impl: &op, length: 1, width: 1, err: err}
	}
	return custom(&op, n, 1, d.params...)
}

// checkValues checks every element's value against the support: with its constant
// parameters' values (Const, Vec, Data, Rows nodes) when all are such, else against
// the kind of support the family has for any parameters.
func (o *logDensityOp) checkValues(n int) error {
	fam, k, vw := o.d.fam, o.d.k, o.vw
	args := make([]float64, o.na)
	for e := 0; e < n; e++ {
		copy(args, o.values[e*vw:(e+1)*vw])
		at, known := vw, true
		for _, p := range o.d.params {
			pe := elem(p, e)
			for c := 0; c < p.width; c++ {
				if p.op == opConst {
					args[at+c] = p.vals[pe*p.width+c]
				} else {
					args[at+c], known = math.NaN(), false
				}
			}
			at += p.width
		}
		v := o.values[e*vw : (e+1)*vw]
		if known {
			if err := fam.CheckParams(args[vw:], k); err != nil {
				return fmt.Errorf("graph: LogDensity: element %d: %w", e, err)
			}
			if !fam.InSupport(args, k) {
				return fmt.Errorf("graph: LogDensity: element %d: value %v is outside the support of %s", e, v, fam.Name())
			}
			continue
		}
		kind, lo, hi, nv := fam.Support(args[vw:], k)
		if !valueInKind(v, kind, lo, hi, nv) {
			return fmt.Errorf("graph: LogDensity: element %d: value %v is outside the support of %s", e, v, fam.Name())
		}
	}
	return nil
}
