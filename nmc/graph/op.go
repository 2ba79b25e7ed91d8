package graph

import "fmt"

// A nodeOp is an operation whose nodes have kind opCustom: how an element of such a
// node reads its arguments' elements and how its jets are computed from theirs. The
// operations of this file (Concat, Stack, Reshape) and of the files beside it are
// nodeOps; the built-in kinds of node.go are evaluated by eval's switch.
//
// The node's args list every node the operation reads, so that the walks over a
// model's nodes (constness, the latents an index reads, the MatVec numbering) see
// them without knowing the operation.
type nodeOp interface {
	// name is the operation's name in error messages (Concat, LogSumExp, …).
	name() string
	// reads calls visit(a, ae) for every element ae of an argument a that element e
	// of n reads (the sites element e depends on are those of what it reads).
	reads(n *Node, e int, visit func(a *Node, ae int))
	// eval writes the jets of the components of element e of n into out
	// (len(out) = n.width), evaluating the argument elements it reads with s.eval
	// (on scratch from s.push, released before it returns) and combining them
	// with s.ops.
	eval(s *scorer, n *Node, e int, out []jet)
}

// custom returns a node of kind opCustom made by op from args, with length and
// width, or a node carrying the first error of args. The node keeps a copy of
// args: a caller's slice passed as Concat(nodes...) or LogSumExp(terms...) and
// filled again for the next step of a loop must not change the node made.
func custom(op nodeOp, length, width int, args ...*Node) *Node {
	if err := firstErr(op.name(), args...); err != nil {
		return &Node{op: opCustom, impl: op, length: 1, width: 1, err: err}
	}
	return &Node{op: opCustom, impl: op, args: append([]*Node(nil), args...), length: length, width: width}
}

// customErr returns a node of kind opCustom carrying an error of op.
func customErr(op nodeOp, format string, a ...any) *Node {
	return &Node{op: opCustom, impl: op, length: 1, width: 1, err: fmt.Errorf("graph: "+op.name()+": "+format, a...)}
}

// concatOp joins its arguments' elements one after another (Concat): element e
// is element e − start[i] of argument i, start[i] the elements before it.
type concatOp struct{ start []int }

func (concatOp) name() string { return "Concat" }

func (o concatOp) find(n *Node, e int) (*Node, int) {
	if len(o.start) == n.length { // every argument a single element
		return n.args[e], 0
	}
	lo, hi := 0, len(o.start)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if o.start[mid] <= e {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return n.args[lo], e - o.start[lo]
}

func (o concatOp) reads(n *Node, e int, visit func(*Node, int)) {
	a, ae := o.find(n, e)
	visit(a, ae)
}

func (o concatOp) eval(s *scorer, n *Node, e int, out []jet) {
	a, ae := o.find(n, e)
	s.eval(a, ae, out)
}

// Concat returns the elements of its arguments one after another: a node of
// Σ Len() elements of their common width. A recursion built in a Go loop, one
// scalar node per step, becomes one vector node, observed as a whole:
//
//	mu := make([]*graph.Node, T) // mu[t] reads mu[t−1]
//	…
//	b.Observe("y", graph.Normal(graph.Concat(mu...), sigma), y)
func Concat(nodes ...*Node) *Node {
	var op concatOp
	if len(nodes) == 0 {
		return customErr(op, "no nodes")
	}
	if err := firstErr("Concat", nodes...); err != nil {
		return &Node{op: opCustom, impl: op, length: 1, width: 1, err: err}
	}
	w, l := nodes[0].width, 0
	op.start = make([]int, len(nodes))
	for i, a := range nodes {
		if a.width != w {
			return customErr(op, "node %d has width %d, node 0 width %d", i, a.width, w)
		}
		op.start[i] = l
		l += a.length
	}
	return custom(op, l, w, nodes...)
}

// stackOp makes component c of element e from element e of argument c (Stack).
type stackOp struct{}

func (stackOp) name() string { return "Stack" }

func (stackOp) reads(n *Node, e int, visit func(*Node, int)) {
	for _, a := range n.args {
		visit(a, elem(a, e))
	}
}

func (stackOp) eval(s *scorer, n *Node, e int, out []jet) {
	for c, a := range n.args {
		s.eval(a, elem(a, e), out[c:c+1])
	}
}

// Stack returns the node whose element e has one component per argument,
// component c being element e of nodes[c]: scalar nodes become one vector element
// (the mean of a MultivariateNormal, say), and columns of equal length become rows.
// Every argument has width 1 and the same length, or length 1 (broadcast).
func Stack(nodes ...*Node) *Node {
	var op stackOp
	if len(nodes) == 0 {
		return customErr(op, "no nodes")
	}
	if err := firstErr("Stack", nodes...); err != nil {
		return &Node{op: opCustom, impl: op, length: 1, width: 1, err: err}
	}
	l := 1
	for _, a := range nodes {
		l = max(l, a.length)
	}
	for i, a := range nodes {
		if a.width != 1 {
			return customErr(op, "node %d has width %d, want 1", i, a.width)
		}
		if a.length != 1 && a.length != l {
			return customErr(op, "node %d has %d elements, others %d", i, a.length, l)
		}
	}
	return custom(op, l, len(nodes), nodes...)
}

// reshapeOp reads its argument's components in element-major order (Reshape).
type reshapeOp struct{}

func (reshapeOp) name() string { return "Reshape" }

func (reshapeOp) reads(n *Node, e int, visit func(*Node, int)) {
	a := n.args[0]
	first, last := e*n.width/a.width, ((e+1)*n.width-1)/a.width
	for ae := first; ae <= last; ae++ {
		visit(a, ae)
	}
}

func (reshapeOp) eval(s *scorer, n *Node, e int, out []jet) {
	a := n.args[0]
	if a.width == 1 {
		for c := range out {
			s.eval(a, e*n.width+c, out[c:c+1])
		}
		return
	}
	top := s.top
	buf := s.push(a.width)
	for c := range out {
		flat := e*n.width + c
		ae, ac := flat/a.width, flat%a.width
		if c == 0 || ac == 0 {
			s.eval(a, ae, buf)
		}
		out[c] = buf[ac]
	}
	s.top = top
}

// Reshape returns a's components, taken in element-major order, as length
// elements of width components each; length·width must be a.Len()·a.Width().
// Reshape(v, 1, k) turns a Vector site's k scalar elements into one vector
// element (a MultivariateNormal's value or mean); Components undoes it.
func Reshape(a *Node, length, width int) *Node {
	var op reshapeOp
	if err := firstErr("Reshape", a); err != nil {
		return &Node{op: opCustom, impl: op, length: 1, width: 1, err: err}
	}
	if length <= 0 || width <= 0 || length*width != a.length*a.width {
		return customErr(op, "%d×%d components cannot be read as %d×%d", a.length, a.width, length, width)
	}
	if length == a.length && width == a.width {
		return a
	}
	return custom(op, length, width, a)
}

// Components returns the components of a's elements as scalar elements, in
// element-major order: the k coordinates of a Dirichlet or MultivariateNormal
// site as k scalars, to index or to use in element-wise expressions.
func Components(a *Node) *Node {
	if a == nil || a.err != nil {
		return Reshape(a, 1, 1)
	}
	return Reshape(a, a.length*a.width, 1)
}
