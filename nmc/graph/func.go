package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	jetpkg "github.com/nmc-go/nmc/nmc/jet"
)

// A GoFunc computes the outputs of a Func node from its inputs: in holds the
// components of every element of every input node, flattened in order (input by
// input, element by element, component by component), and the function writes
// out[0], …, out[nout−1]. It computes over package nmc/jet's Numbers, so that one
// evaluation gives the outputs' derivatives in every input; s is the Space of
// the inputs (for Mark and Release in long loops). The outputs start as NaN.
//
// The function must be deterministic — its outputs' values a function of its
// inputs' values alone — and safe for concurrent use: the chains call it from
// several goroutines at once, each with Numbers of its own Space, and results
// are reused across calls at the same inputs. It must not keep Numbers after it
// returns. An output that is NaN or infinite makes the state impossible where
// the model reads it (a Factor's element of NaN or ±Inf is −Inf; a distribution
// with a NaN parameter has no density). A panic in the function is a bug in it:
// Build reports one at its probe points (see Func), and the sampler stops the
// chain with an error carrying the panic's text.
type GoFunc func(s *jetpkg.Space, in, out []jetpkg.Number)

// Limits of a Func: its input components, and the floats of one evaluation's
// value, gradients and Hessians (nout·(1 + n + n²)).
const (
	maxFuncInputs = 256
	maxFuncFloats = 1 << 22
)

// Func returns a node of one element of nout components computed by the Go
// function f from the inputs: any computation written in plain Go over
// package nmc/jet's Numbers — an ODE integrator, a loop, a special function —
// with exact first and second derivatives in the latents the inputs depend on.
// An ODE solved once gives all its outputs; Components turns them into nout
// scalar elements, to observe or to use in expressions:
//
//	conc := graph.Func(solve, len(times), ka, v, vm, km) // C(t₁), …, C(t_n)
//	b.Observe("y", graph.LogNormal(graph.Log(graph.Components(conc)), sigma), y)
//
// f sees the n components of its inputs as n variables (n at most 256): one
// evaluation gives its value, gradient and n×n Hessian in each output, which the
// engine chains into the active site's derivatives. Results are kept for the
// last few input values seen, across chains and sites, so that a state scored
// for one site and then for the next costs one evaluation.
//
// Build evaluates f at up to 10 draws from the prior (a fixed seed) with
// derivatives: a panic at one of them is a Build error quoting the panic, and so
// is an output that is NaN or infinite at every draw (an output never written,
// say). A node whose inputs are constant data (C, Vec, Data, …) is evaluated when
// made, and a panic there is its error; one of other constant expressions is
// evaluated by Build's checks of constant parameters, which return a panic as
// their error. Errors (a nil f, nout < 1, no inputs, a nil input, more than 256
// input components) are returned by Build.
func Func(f GoFunc, nout int, inputs ...*Node) *Node {
	op := &funcOp{f: f, nout: nout}
	switch {
	case f == nil:
		return customErr(op, "nil function")
	case nout < 1:
		return customErr(op, "%d outputs, want at least 1", nout)
	case len(inputs) == 0:
		return customErr(op, "no inputs")
	}
	if err := firstErr("Func", inputs...); err != nil {
		return &Node{op: opCustom, impl: op, length: 1, width: 1, err: err}
	}
	for _, a := range inputs {
		op.nin += a.length * a.width
	}
	if op.nin > maxFuncInputs {
		return customErr(op, "%d input components, at most %d (its Hessian has n² entries per output)", op.nin, maxFuncInputs)
	}
	if need := op.stride() * nout; need > maxFuncFloats {
		return customErr(op, "%d inputs and %d outputs need %d derivatives per evaluation, at most %d", op.nin, nout, need, maxFuncFloats)
	}
	op.slots = make([]funcSlot, max(2, min(funcSlots, maxFuncFloats/(op.stride()*nout+op.nin))))
	n := custom(op, 1, nout, inputs...)
	if key, ok := constInputs(inputs, op.nin); ok {
		// Constant inputs: evaluate the function now, so that a panic is the
		// node's error, named by what reads it.
		w := op.take()
		copy(w.key, key)
		if err := op.run(w, false); err != nil {
			return &Node{op: opCustom, impl: op, length: 1, width: 1, err: err}
		}
		op.give(w)
	}
	return n
}

// Func adds f(inputs) to the model's log density, f a GoFunc of one output
// (out[0]): Factor(name, Func(f, 1, inputs...)), a likelihood or penalty written
// in plain Go with exact derivatives. An output that is NaN or +Inf makes the
// state impossible (log density −Inf), as does −Inf. Errors are those of Func
// and Factor, returned by Build and naming the factor.
func (b *Builder) Func(name string, f GoFunc, inputs ...*Node) {
	b.Factor(name, Func(f, 1, inputs...))
}

// constInputs returns the components of inputs, flattened, when every input is
// a constant node of data (C, Vec, Data, Ints, Rows), and false otherwise.
func constInputs(inputs []*Node, nin int) ([]float64, bool) {
	key := make([]float64, 0, nin)
	for _, a := range inputs {
		if a.op != opConst || a.x != nil {
			return nil, false
		}
		key = append(key, a.vals[:a.length*a.width]...)
	}
	return key, true
}

// funcPanic is the panic of a Func node's evaluation whose function panicked: a
// bug in the function, which the sampler returns as its chain's error and Build
// as its own (recoverFuncPanic).
type funcPanic struct{ err error }

func (p *funcPanic) Error() string { return p.err.Error() }

// recoverFuncPanic, deferred by Build, returns a Func's panic during Build (the
// value of a constant expression computed by its checks) as Build's error.
func recoverFuncPanic(m **Model, err *error) {
	if r := recover(); r != nil {
		fp, ok := r.(*funcPanic)
		if !ok {
			panic(r)
		}
		*m, *err = nil, fmt.Errorf("graph: Build: %w", fp.err)
	}
}

// funcSlots is the number of input values a Func keeps results for: the current
// and proposed states of several chains.
const funcSlots = 16

// funcOp is the operation of a Func node. Its result cache and pool of
// workspaces are shared by every scorer of the model (all chains), under mu.
type funcOp struct {
	f         GoFunc
	nin, nout int

	mu    sync.Mutex
	slots []funcSlot
	clock uint64
	free  []*funcWork
}

// funcSlot is a cached evaluation: at the input values key, per output its value
// then (when deriv) its gradient and Hessian in the inputs.
type funcSlot struct {
	key, res []float64
	deriv    bool
	used     uint64 // 0: empty
}

// funcWork is one evaluation's scratch: a Space over the inputs, the input and
// output Numbers, the input values and the results (funcSlot's layout).
type funcWork struct {
	sp      *jetpkg.Space
	in, out []jetpkg.Number
	key     []float64
	res     []float64
}

func (o *funcOp) name() string { return "Func" }

// stride is the number of floats of one output's results: value, gradient, Hessian.
func (o *funcOp) stride() int { return 1 + o.nin + o.nin*o.nin }

func (o *funcOp) reads(n *Node, _ int, visit func(*Node, int)) {
	for _, a := range n.args {
		for ae := 0; ae < a.length; ae++ {
			visit(a, ae)
		}
	}
}

func (o *funcOp) eval(s *scorer, n *Node, _ int, out []jet) {
	top := s.top
	ins := s.push(o.nin)
	at := 0
	for _, a := range n.args {
		for ae := 0; ae < a.length; ae++ {
			s.eval(a, ae, ins[at:at+a.width])
			at += a.width
		}
	}
	deriv := false
	for i := range ins {
		if ins[i].kind != jConst {
			deriv = true
			break
		}
	}
	w := o.take()
	for i := range ins {
		w.key[i] = ins[i].v
	}
	if !o.lookup(w.key, deriv, w.res) {
		if err := o.run(w, deriv); err != nil {
			panic(&funcPanic{err}) // a bug in the user's function: the sampler returns it as the chain's error
		}
		o.store(w.key, deriv, w.res)
	}
	st, nin := o.stride(), o.nin
	var fi funcInputs
	if deriv {
		fi = s.ops.inputs(ins)
	}
	for c := range out {
		r := w.res[c*st : (c+1)*st]
		if !deriv {
			out[c] = jet{v: r[0]}
			continue
		}
		out[c] = s.ops.chainInputs(&fi, r[0], r[1:1+nin], r[1+nin:])
	}
	o.give(w)
	s.top = top
}

// run evaluates the function at w.key into w.res, with the inputs as variables
// when deriv (else as constants, and only the values are written). A panic in the
// function is returned as an error quoting it and the inputs.
func (o *funcOp) run(w *funcWork, deriv bool) (err error) {
	w.sp.Reset()
	for i, v := range w.key {
		if deriv {
			w.in[i] = w.sp.Var(i, v)
		} else {
			w.in[i] = jetpkg.Const(v)
		}
	}
	nan := jetpkg.Const(math.NaN())
	for c := range w.out {
		w.out[c] = nan
	}
	if err := o.call(w); err != nil {
		return err
	}
	st, nin := o.stride(), o.nin
	for c, y := range w.out {
		r := w.res[c*st : (c+1)*st]
		r[0] = y.Value()
		if !deriv {
			continue
		}
		for i := 0; i < nin; i++ {
			r[1+i] = y.Deriv(i)
			h := r[1+nin+i*nin : 1+nin+(i+1)*nin]
			for j := range h {
				h[j] = y.Deriv2(i, j)
			}
		}
	}
	return nil
}

// call calls the function, turning a panic into an error.
func (o *funcOp) call(w *funcWork) (err error) {
	defer func() {
		if r := recover(); r != nil {
			at := w.key
			more := ""
			if len(at) > 8 {
				at, more = at[:8], fmt.Sprintf(" … (%d inputs)", len(w.key))
			}
			err = fmt.Errorf("graph: Func: the function panicked at inputs %v%s: %v", at, more, r)
		}
	}()
	o.f(w.sp, w.in, w.out)
	return nil
}

// take returns a workspace from the pool, or a new one.
func (o *funcOp) take() *funcWork {
	o.mu.Lock()
	if k := len(o.free); k > 0 {
		w := o.free[k-1]
		o.free = o.free[:k-1]
		o.mu.Unlock()
		return w
	}
	o.mu.Unlock()
	return &funcWork{
		sp:  jetpkg.NewSpace(o.nin),
		in:  make([]jetpkg.Number, o.nin),
		out: make([]jetpkg.Number, o.nout),
		key: make([]float64, o.nin),
		res: make([]float64, o.stride()*o.nout),
	}
}

// give returns a workspace to the pool.
func (o *funcOp) give(w *funcWork) {
	o.mu.Lock()
	o.free = append(o.free, w)
	o.mu.Unlock()
}

// lookup copies into res the results cached at exactly the input values key
// (with derivatives when deriv) and reports whether there were any.
func (o *funcOp) lookup(key []float64, deriv bool, res []float64) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range o.slots {
		sl := &o.slots[i]
		if sl.used != 0 && (sl.deriv || !deriv) && sameBits(sl.key, key) {
			o.clock++
			sl.used = o.clock
			copy(res, sl.res)
			return true
		}
	}
	return false
}

// store caches the results res at the input values key, in the least recently
// used slot (or the slot of key, if it holds values only and res has derivatives).
func (o *funcOp) store(key []float64, deriv bool, res []float64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.slots[0].key == nil {
		for i := range o.slots {
			o.slots[i].key = make([]float64, o.nin)
			o.slots[i].res = make([]float64, len(res))
		}
	}
	pick := 0
	for i := range o.slots {
		sl := &o.slots[i]
		if sl.used != 0 && sameBits(sl.key, key) {
			pick = i
			break
		}
		if sl.used < o.slots[pick].used {
			pick = i
		}
	}
	sl := &o.slots[pick]
	o.clock++
	copy(sl.key, key)
	copy(sl.res, res)
	sl.deriv, sl.used = deriv, o.clock
}

// checkFuncs evaluates, with derivatives, every Func node that the model reads at
// up to funcProbes states drawn from the prior (Build's probe): it returns an error
// for a function that panics at one of them, or whose output is NaN or infinite at
// all of them, naming what reads the node.
func (m *Model) checkFuncs() error {
	var uses []funcUse
	seen := map[*Node]bool{}
	var walk func(n *Node, what string)
	walk = func(n *Node, what string) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		if _, ok := n.impl.(*funcOp); ok && n.op == opCustom && !isConst(n) {
			uses = append(uses, funcUse{n, what})
		}
		for _, a := range n.args {
			walk(a, what)
		}
		for _, a := range n.atNode {
			walk(a, what)
		}
	}
	for _, fc := range m.factors {
		what := fmt.Sprintf("observed %q", fc.name)
		if fc.fam != nil {
			what = fmt.Sprintf("latent %q", fc.name)
		}
		if _, ok := fc.d.fam.(exprFactor); ok {
			what = fmt.Sprintf("factor %q", fc.name)
		}
		for _, p := range fc.d.params {
			walk(p, what)
		}
	}
	for _, d := range m.derived {
		walk(d.n, fmt.Sprintf("deterministic %q", d.name))
	}
	if len(uses) == 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(0x5eed, 27))
	x := make([]float64, m.dim)
	finite := make([][]bool, len(uses)) // per use and output: finite at some draw
	for ui, u := range uses {
		finite[ui] = make([]bool, u.n.width)
	}
	draws := 0
	for try := 0; try < funcProbes; try++ {
		ok, err := m.probeFuncs(rng, x, uses, finite)
		if err != nil {
			return err
		}
		if ok {
			draws++
		}
	}
	if draws == 0 {
		return nil // no prior draw: Init's own errors say why
	}
	for ui, u := range uses {
		for c, ok := range finite[ui] {
			if !ok {
				return fmt.Errorf("graph: %s: Func: output %d is NaN or infinite at each of %d draws from the prior (is it written?)", u.what, c, draws)
			}
		}
	}
	return nil
}

// funcUse is a Func node that the model reads, and what reads it (for errors).
type funcUse struct {
	n    *Node
	what string
}

// probeFuncs draws x from the prior and evaluates the Func nodes uses there,
// marking in finite the outputs that are finite. It reports whether x was drawn,
// and returns the error of a function that panicked (in Init too: a prior
// parameter can read a Func node).
func (m *Model) probeFuncs(rng *rand.Rand, x []float64, uses []funcUse, finite [][]bool) (drawn bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			drawn, err = false, fmt.Errorf("graph: Init (Build's probe of Func nodes): %v", r)
		}
	}()
	if m.Init(rng, x) != nil {
		return false, nil
	}
	sc := m.pooledValueScorer(x)
	defer m.releaseValueScorer(sc)
	for ui, u := range uses {
		op := u.n.impl.(*funcOp)
		w := op.take()
		key := w.key[:0]
		for _, a := range u.n.args {
			for ae := 0; ae < a.length; ae++ {
				key = sc.values(a, ae, key)
			}
		}
		if err := op.run(w, true); err != nil {
			return true, fmt.Errorf("graph: %s: %w", u.what, err)
		}
		for c := range finite[ui] {
			v := w.res[c*op.stride()]
			finite[ui][c] = finite[ui][c] || !math.IsNaN(v) && !math.IsInf(v, 0)
		}
		op.give(w)
	}
	return true, nil
}

// funcProbes is the number of prior draws at which Build evaluates Func nodes.
const funcProbes = 10
