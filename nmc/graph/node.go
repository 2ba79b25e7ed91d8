package graph

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

type opKind uint8

const (
	opConst opKind = iota
	opLatent
	opAdd
	opSub
	opMul
	opDiv
	opNeg
	opExp
	opLog
	opLog1p
	opSqrt
	opPow
	opLogistic
	opSoftplus
	opSum
	opMatVec
	opIndex
	opAt
	opCustom // an operation defined by a nodeOp (op.go)
)

var opNames = [...]string{
	opConst: "Const", opLatent: "Latent", opAdd: "Add", opSub: "Sub", opMul: "Mul", opDiv: "Div",
	opNeg: "Neg", opExp: "Exp", opLog: "Log", opLog1p: "Log1p", opSqrt: "Sqrt", opPow: "Pow",
	opLogistic: "Logistic", opSoftplus: "Softplus", opSum: "Sum", opMatVec: "MatVec",
	opIndex: "Index", opAt: "At", opCustom: "Custom",
}

// A Node is a vectorised expression: Len() elements, each of Width() components.
// Nodes are made by the constructors of this package (C, Vec, Data, Rows, Add, MatVec, …)
// and by Builder.Latent / Builder.Vector. A node built from invalid input carries an
// error, reported by Builder.Build; operations on it propagate the error.
//
// Broadcasting: in element-wise operations an operand of length 1 is repeated over
// the other operand's elements, and an operand of width 1 over the other's
// components.
type Node struct {
	// The fields eval reads for every node come first, in one cache line: a
	// model's nodes are scattered over the heap, and a large graph (10⁵ nodes) does
	// not fit in the caches.
	op     opKind
	memo   int32     // 1 + the node's memoised slot in plan (0: not memoised)
	plan   *memoPlan // the memoPlan of the model compiled last from the node (memo.go)
	args   []*Node
	length int
	width  int
	mid    int32 // the node's number in plan
	err    error

	vals   []float64 // opConst: length*width values, element-major
	x      *dataMatrix
	idx    []int   // opIndex: element e reads idx[e] of args[0]
	power  float64 // opPow
	fam    *family // opLatent
	shape  []int   // plate shape (opLatent plates, opConst Rows), for At
	atData [][]int // opAt: per dimension, data indices (nil if from a node)
	atNode []*Node // opAt: per dimension, an integer-valued node (nil if data)
	id     int     // assigned at Build
	impl   nodeOp  // opCustom: the operation
}

// Len returns the number of elements.
func (n *Node) Len() int { return n.length }

// Width returns the number of components of each element.
func (n *Node) Width() int { return n.width }

// Err returns the error recorded when the node was made, if any.
func (n *Node) Err() error { return n.err }

func (n *Node) String() string {
	if n.fam != nil {
		return fmt.Sprintf("%s (%d×%d)", n.fam.name, n.length, n.width)
	}
	return fmt.Sprintf("%s (%d×%d)", n.opName(), n.length, n.width)
}

// opName names the operation that made n.
func (n *Node) opName() string {
	if n.op == opCustom && n.impl != nil {
		return n.impl.name()
	}
	return opNames[n.op]
}

type dataMatrix struct {
	rows, cols int
	data       []float64 // row-major, stride cols
	norm2      []float64 // squared Euclidean norm of each row (nil: not computed)
}

func (m *dataMatrix) row(i int) []float64 { return m.data[i*m.cols : (i+1)*m.cols] }

func errNode(format string, a ...any) *Node {
	return &Node{op: opConst, length: 1, width: 1, vals: []float64{math.NaN()}, err: fmt.Errorf("graph: "+format, a...)}
}

// firstErr returns an error for the first nil operand of op, or the first error
// carried by an operand.
func firstErr(op string, ns ...*Node) error {
	for i, n := range ns {
		if n == nil {
			if len(ns) == 1 {
				return fmt.Errorf("graph: %s: the operand is a nil node", op)
			}
			return fmt.Errorf("graph: %s: operand %d is a nil node", op, i)
		}
		if n.err != nil {
			return n.err
		}
	}
	return nil
}

func checkFinite(what string, v []float64) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("graph: %s: element %d is %v", what, i, x)
		}
	}
	return nil
}

// C returns a constant scalar node.
func C(v float64) *Node {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return errNode("C: constant is %v", v)
	}
	return &Node{op: opConst, length: 1, width: 1, vals: []float64{v}}
}

// Vec returns a constant node with one element of len(v) components, e.g. the
// concentration of a Dirichlet or the mean of a multivariate normal.
func Vec(v ...float64) *Node {
	if len(v) == 0 {
		return errNode("Vec: no values")
	}
	if err := checkFinite("Vec", v); err != nil {
		return &Node{op: opConst, length: 1, width: 1, vals: []float64{0}, err: err}
	}
	return &Node{op: opConst, length: 1, width: len(v), vals: append([]float64(nil), v...)}
}

// Data returns a constant node with one scalar element per value (a data column).
func Data(v []float64) *Node {
	if len(v) == 0 {
		return errNode("Data: no values")
	}
	if err := checkFinite("Data", v); err != nil {
		return &Node{op: opConst, length: 1, width: 1, vals: []float64{0}, err: err}
	}
	return &Node{op: opConst, length: len(v), width: 1, vals: append([]float64(nil), v...), shape: []int{len(v)}}
}

// Ints returns a constant node with one scalar element per integer.
func Ints(v []int) *Node {
	f := make([]float64, len(v))
	for i, x := range v {
		f[i] = float64(x)
	}
	return Data(f)
}

// Rows returns a constant node with one element per row of rows, each of
// len(rows[0]) components (e.g. the Dirichlet concentrations alpha_m of each class).
func Rows(rows [][]float64) *Node {
	if len(rows) == 0 || len(rows[0]) == 0 {
		return errNode("Rows: no values")
	}
	w := len(rows[0])
	v := make([]float64, 0, len(rows)*w)
	for i, r := range rows {
		if len(r) != w {
			return errNode("Rows: row %d has %d values, want %d", i, len(r), w)
		}
		for j, x := range r {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return errNode("Rows: element [%d,%d] is %v", i, j, x)
			}
		}
		v = append(v, r...)
	}
	return &Node{op: opConst, length: len(rows), width: w, vals: v, shape: []int{len(rows)}}
}

func broadcast(name string, a, b *Node) (length, width int, err error) {
	if err := firstErr(name, a, b); err != nil {
		return 0, 0, err
	}
	length, width = max(a.length, b.length), max(a.width, b.width)
	if (a.length != 1 && a.length != length) || (b.length != 1 && b.length != length) {
		return 0, 0, fmt.Errorf("graph: %s: lengths %d and %d do not broadcast", name, a.length, b.length)
	}
	if (a.width != 1 && a.width != width) || (b.width != 1 && b.width != width) {
		return 0, 0, fmt.Errorf("graph: %s: widths %d and %d do not broadcast", name, a.width, b.width)
	}
	return length, width, nil
}

func binary(op opKind, a, b *Node) *Node {
	l, w, err := broadcast(opNames[op], a, b)
	if err != nil {
		return &Node{op: op, length: 1, width: 1, err: err, args: []*Node{a, b}}
	}
	return &Node{op: op, args: []*Node{a, b}, length: l, width: w}
}

func unary(op opKind, a *Node) *Node {
	if err := firstErr(opNames[op], a); err != nil {
		return &Node{op: op, length: 1, width: 1, err: err}
	}
	return &Node{op: op, args: []*Node{a}, length: a.length, width: a.width}
}

// Add returns a + b element-wise.
func Add(a, b *Node) *Node { return binary(opAdd, a, b) }

// Sub returns a − b element-wise.
func Sub(a, b *Node) *Node { return binary(opSub, a, b) }

// Mul returns a · b element-wise.
func Mul(a, b *Node) *Node { return binary(opMul, a, b) }

// Div returns a / b element-wise.
func Div(a, b *Node) *Node { return binary(opDiv, a, b) }

// Neg returns −a.
func Neg(a *Node) *Node { return unary(opNeg, a) }

// Exp returns exp(a).
func Exp(a *Node) *Node { return unary(opExp, a) }

// Log returns log(a).
func Log(a *Node) *Node { return unary(opLog, a) }

// Log1p returns log(1 + a).
func Log1p(a *Node) *Node { return unary(opLog1p, a) }

// Sqrt returns √a.
func Sqrt(a *Node) *Node { return unary(opSqrt, a) }

// Logistic returns 1 / (1 + exp(−a)).
func Logistic(a *Node) *Node { return unary(opLogistic, a) }

// Softplus returns log(1 + exp(a)).
func Softplus(a *Node) *Node { return unary(opSoftplus, a) }

// Pow returns a^p for a constant exponent p.
func Pow(a *Node, p float64) *Node {
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return errNode("Pow: exponent is %v", p)
	}
	n := unary(opPow, a)
	n.power = p
	return n
}

// Sum returns the sum of every component of every element of a, as a scalar.
func Sum(a *Node) *Node {
	if err := firstErr("Sum", a); err != nil {
		return &Node{op: opSum, length: 1, width: 1, err: err}
	}
	return &Node{op: opSum, args: []*Node{a}, length: 1, width: 1}
}

// Dot returns Σ a_i b_i as a scalar.
func Dot(a, b *Node) *Node { return Sum(Mul(a, b)) }

// MatVec returns the matrix-vector product X·v of a data matrix X (r×c) and a node
// v of c scalar elements (for example a Vector site of regression coefficients):
// r scalar elements, element i = Σ_j X_ij v_j.
func MatVec(x mat.Matrix, v *Node) *Node {
	if err := firstErr("MatVec", v); err != nil {
		return &Node{op: opMatVec, length: 1, width: 1, err: err}
	}
	if x == nil {
		return errNode("MatVec: nil matrix")
	}
	r, c := x.Dims()
	if v.width != 1 || v.length != c {
		return errNode("MatVec: matrix has %d columns but the vector has %d elements of width %d", c, v.length, v.width)
	}
	d := &dataMatrix{rows: r, cols: c, data: make([]float64, r*c)}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			e := x.At(i, j)
			if math.IsNaN(e) || math.IsInf(e, 0) {
				return errNode("MatVec: matrix element [%d,%d] is %v", i, j, e)
			}
			d.data[i*c+j] = e
		}
	}
	d.norm2 = make([]float64, r)
	for i := range d.norm2 {
		for _, e := range d.row(i) {
			d.norm2[i] += e * e
		}
	}
	return &Node{op: opMatVec, args: []*Node{v}, length: r, width: 1, x: d}
}

// Index returns the node whose element e is element idx[e] of a (indexing by
// integer data, 0-based). Use it to broadcast a per-group quantity over
// observations: Index(theta, school).
func Index(a *Node, idx []int) *Node {
	if err := firstErr("Index", a); err != nil {
		return &Node{op: opIndex, length: 1, width: 1, err: err}
	}
	if len(idx) == 0 {
		return errNode("Index: no indices")
	}
	for e, i := range idx {
		if i < 0 || i >= a.length {
			return errNode("Index: index %d (element %d) out of range [0, %d)", i, e, a.length)
		}
	}
	return &Node{op: opIndex, args: []*Node{a}, length: len(idx), width: a.width, idx: append([]int(nil), idx...)}
}

// Idx is one index of At: integer data (By) or an integer-valued node such as a
// discrete latent (ByNode).
type Idx struct {
	data []int
	node *Node
}

// By indexes a plate dimension by integer data (0-based), one index per element.
func By(idx []int) Idx { return Idx{data: idx} }

// ByNode indexes a plate dimension by the values of an integer-valued node, such as
// a discrete latent family (Index(z, item) picks each label's item class). The child
// then depends on every candidate, as in JAGS.
func ByNode(n *Node) Idx { return Idx{node: n} }

// At indexes a plate src of shape (d₀, d₁, …) with one index per dimension, giving
// one element per observation: element e is src[i₀(e), i₁(e), …]. For example the
// Dawid-Skene likelihood reads theta[labeler[j], z[item[j]]]:
//
//	At(theta, By(labeler), ByNode(Index(z, item)))
func At(src *Node, idx ...Idx) *Node {
	if err := firstErr("At", src); err != nil {
		return &Node{op: opAt, length: 1, width: 1, err: err}
	}
	shape := src.shape
	if shape == nil {
		shape = []int{src.length}
	}
	if len(idx) != len(shape) {
		return errNode("At: %d indices for a plate of %d dimensions", len(idx), len(shape))
	}
	n := -1
	out := &Node{op: opAt, args: []*Node{src}, width: src.width, atData: make([][]int, len(idx)), atNode: make([]*Node, len(idx))}
	for d, ix := range idx {
		l := 0
		switch {
		case ix.node != nil:
			if ix.node.err != nil {
				return &Node{op: opAt, length: 1, width: 1, err: ix.node.err}
			}
			if ix.node.width != 1 {
				return errNode("At: index %d: node has width %d, want 1", d, ix.node.width)
			}
			l = ix.node.length
			out.atNode[d] = ix.node
			out.args = append(out.args, ix.node)
		case len(ix.data) > 0:
			l = len(ix.data)
			for e, i := range ix.data {
				if i < 0 || i >= shape[d] {
					return errNode("At: index %d, element %d: value %d out of range [0, %d)", d, e, i, shape[d])
				}
			}
			out.atData[d] = append([]int(nil), ix.data...)
		default:
			return errNode("At: index %d is empty (By of no data, or ByNode of a nil node)", d)
		}
		if l != 1 && n != -1 && n != 1 && l != n {
			return errNode("At: index %d has %d elements, others %d", d, l, n)
		}
		n = max(n, l)
	}
	out.length = n
	return out
}
