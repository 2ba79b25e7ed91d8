package graph

import (
	"fmt"
	"math"
	"slices"
	"sync"
)

// Each node element once per evaluation. A model's expressions form a directed
// acyclic graph: a recursion built in a Go loop reads node t − 1 from node t and
// from the observation of step t, a scalar parameter is read by every element of
// a plate, a forward algorithm's α_t reads every α_{t−1}. Walking the expressions
// as trees would evaluate such an element once per path: quadratic or exponential
// in the length of the recursion. Instead, when a model is compiled, its nodes are
// numbered in topological order (a memoPlan) and the nodes some of whose elements
// can be read more than once in one evaluation — a node read by several parents,
// a length-1 node broadcast over a longer parent, a node read through an index
// that repeats — are memoised: each scorer keeps, per memoised node, the jets of
// its elements with the evaluation context they were computed in (memoTab), and
// returns the kept jets when the context is the current one. Every other node
// element is read at most once per evaluation of its one reader, so, by induction
// from the factor elements, every node element is evaluated at most once per
// context. The compile-time walks (the sites an element depends on, whether a node
// reads a latent) use the same numbering and are linear in the graph's size.
//
// The evaluation context is a counter (scorer.gen) advanced whenever something an
// evaluation reads may change: at every call (Score, LogJoint, ScoreOrbit, …),
// around values, and whenever the state, the active site, the orbit or a fixed
// summed-out value changes within a call (newContext); a call that advances the
// MatVec caches' epoch alone gets a new context too (checkCall). Dense jets'
// gradients and Hessians are copied into an arena (scorer.memoAr) that lives until
// the context ends.

// memoPlan numbers the nodes of one compiled model (shared with the model that
// scores its augmented sites, compiled from the same declarations).
type memoPlan struct {
	nodes []*Node // every node read by a factor or a derived quantity, arguments first
	memo  []*Node // the memoised nodes (Node.memo − 1), in the order of nodes
	// cn holds the nodes in compact form for evalScalar (scalar.go), by Node.mid,
	// with the values its records point into.
	cn     []cnode
	consts []float64
	index  []int32
	fams   []*family
	// latent: per node (Node.mid), whether it reads a latent.
	latent []bool
	// depSets: per memoised node and element, the sites the element depends on
	// (made by the first collectDeps, once the sites are numbered).
	depSets  [][][]int
	mark     []uint32 // per site: the stamp of the walk that added it
	stamp    uint32
	largest  []int // the largest memoised set merged by the current walk
	depsDone bool
	// walkMu serialises collectDeps's walks, which write mark, stamp, largest
	// and (the first time) depSets: the chains' scorers share the plan and find
	// a node's sites on first use (nodeDeps), from their own goroutines.
	walkMu sync.Mutex
}

// memoVerify (tests) re-evaluates every memoised element found in its table and
// panics if the result differs from the kept jets in any bit: a stale table
// (a context not advanced where it should have been) shows at once.
var memoVerify = false

// newMemoPlan numbers the nodes read by the factors and derived quantities and,
// with memoise, chooses the memoised ones. Nodes belong to the plan of the model
// compiled last from them: a model that no longer owns a node evaluates it without
// memoising (as correct, possibly slower).
func newMemoPlan(factors []*factor, derived []namedNode, memoise bool) *memoPlan {
	p := &memoPlan{}
	var visit func(n *Node)
	visit = func(n *Node) {
		if n == nil || n.plan == p {
			return
		}
		n.plan, n.memo = p, 0
		for _, a := range n.args {
			visit(a)
		}
		n.mid = int32(len(p.nodes))
		p.nodes = append(p.nodes, n)
	}
	for _, fc := range factors {
		if fc.fam != nil {
			visit(fc.fam.node)
		}
		for _, q := range fc.d.params {
			visit(q)
		}
	}
	for _, d := range derived {
		visit(d.n)
	}

	// refs: per node, how many times one evaluation context can read an element of
	// it, saturated at 2.
	refs := make([]uint8, len(p.nodes))
	add := func(a *Node, r uint8) {
		refs[a.mid] = min(2, refs[a.mid]+r)
	}
	// many is 2 if a reader of l elements that reads a of length la element by
	// element reads some element of a twice (broadcast), else 1.
	many := func(l, la int) uint8 {
		if la == 1 && l > 1 {
			return 2
		}
		return 1
	}
	p.latent = make([]bool, len(p.nodes))
	for _, n := range p.nodes {
		lat := n.op == opLatent
		for _, a := range n.args {
			lat = lat || p.latent[a.mid]
		}
		p.latent[n.mid] = lat
		switch n.op {
		case opConst, opLatent:
		case opSum: // one element reads every element of its argument
			add(n.args[0], 1)
		case opMatVec: // every row reads every element of the vector
			add(n.args[0], many(n.length, 1))
		case opIndex:
			add(n.args[0], repeats(n.idx, n.args[0].length))
		case opAt:
			p.atRefs(n, add)
		case opCustom:
			p.customRefs(n, add)
		default: // element-wise
			for _, a := range n.args {
				add(a, many(n.length, a.length))
			}
		}
	}
	for _, fc := range factors {
		for _, q := range fc.d.params {
			add(q, many(fc.length, q.length))
		}
	}
	for _, d := range derived {
		add(d.n, 1)
	}
	for _, n := range p.nodes {
		if memoise && refs[n.mid] >= 2 && n.op != opConst && n.op != opLatent {
			p.memo = append(p.memo, n)
			n.memo = int32(len(p.memo))
		}
	}
	p.compact()
	return p
}

// repeats returns 2 if some index in idx (each in [0, n)) occurs twice, else 1.
func repeats(idx []int, n int) uint8 {
	seen := make([]bool, n)
	for _, i := range idx {
		if seen[i] {
			return 2
		}
		seen[i] = true
	}
	return 1
}

// atRefs counts At node n's reads of its arguments: the plate read once per
// element unless two elements read the same one or an index is a node (any
// candidate), the index nodes element by element.
func (p *memoPlan) atRefs(n *Node, add func(*Node, uint8)) {
	src := n.args[0]
	shape := src.shape
	if shape == nil {
		shape = []int{src.length}
	}
	r := uint8(1)
	flat := make([]int, n.length)
	for d := range shape {
		data := n.atData[d]
		if data == nil {
			r = 2
			break
		}
		for e := range flat {
			flat[e] = flat[e]*shape[d] + data[elem1(len(data), e)]
		}
	}
	if r == 1 {
		r = repeats(flat, src.length)
	}
	add(src, r)
	for _, in := range n.atNode {
		if in != nil {
			if in.length == 1 && n.length > 1 {
				add(in, 2)
			} else {
				add(in, 1)
			}
		}
	}
}

// customRefs counts a nodeOp node's reads of its arguments' elements, as its
// reads method lists them.
func (p *memoPlan) customRefs(n *Node, add func(*Node, uint8)) {
	count := map[*Node][]uint8{}
	for e := 0; e < n.length; e++ {
		n.impl.reads(n, e, func(a *Node, ae int) {
			c := count[a]
			if c == nil {
				c = make([]uint8, a.length)
				count[a] = c
			}
			c[ae] = min(2, c[ae]+1)
		})
	}
	for a, c := range count {
		if slices.Contains(c, 2) {
			add(a, 2)
		} else {
			add(a, 1)
		}
	}
}

// isConst reports whether n reads no latent.
func isConst(n *Node) bool {
	if n.plan != nil && int(n.mid) < len(n.plan.latent) && n.plan.nodes[n.mid] == n {
		return !n.plan.latent[n.mid]
	}
	seen := map[*Node]bool{}
	var reads func(n *Node) bool
	reads = func(n *Node) bool {
		if n.op == opLatent {
			return true
		}
		if seen[n] {
			return false
		}
		seen[n] = true
		return slices.ContainsFunc(n.args, reads)
	}
	return !reads(n)
}

// collectDeps adds to deps the sites that element e of n depends on, each once.
// For a node of a compiled model's plan, the sets of the memoised nodes' elements
// are found once (bottom-up) and merged, so that a walk costs the distinct
// elements it reaches.
func collectDeps(n *Node, e int, deps []int) []int {
	p := n.plan
	if p == nil {
		p = &memoPlan{} // no plan: no sets kept (a walk over the tree)
	}
	p.walkMu.Lock()
	defer p.walkMu.Unlock()
	p.prepareDeps()
	p.newWalk(deps)
	return p.deps(n, e, deps)
}

// newWalk starts a walk whose sites so far are deps.
func (p *memoPlan) newWalk(deps []int) {
	p.stamp++
	if p.stamp == 0 { // wrapped: clear the marks
		clear(p.mark)
		p.stamp = 1
	}
	p.largest = nil
	for _, s := range deps {
		p.addSite(nil, s)
	}
}

// addSite appends site s to deps unless the current walk has added it.
func (p *memoPlan) addSite(deps []int, s int) []int {
	if s >= len(p.mark) {
		p.mark = append(p.mark, make([]uint32, s+1-len(p.mark))...)
	}
	if p.mark[s] == p.stamp {
		return deps
	}
	p.mark[s] = p.stamp
	return append(deps, s)
}

// prepareDeps finds the site sets of the memoised nodes' elements, in
// topological order so that each walk merges its memoised arguments' sets. An
// element whose set equals the largest set it merged, or its previous element's,
// shares that slice.
func (p *memoPlan) prepareDeps() {
	if p.depsDone {
		return
	}
	p.depsDone = true
	p.depSets = make([][][]int, len(p.memo))
	for i, n := range p.memo {
		sets := make([][]int, n.length)
		for e := range sets {
			p.newWalk(nil)
			d := p.depsOf(n, e, nil)
			switch {
			case len(d) == len(p.largest):
				d = p.largest
			case e > 0 && slices.Equal(d, sets[e-1]):
				d = sets[e-1]
			}
			sets[e] = slices.Clip(d)
		}
		p.depSets[i] = sets
	}
}

// deps adds the sites element e of n depends on, through its set if n is memoised.
func (p *memoPlan) deps(n *Node, e int, deps []int) []int {
	if n.memo != 0 && n.plan == p && p.depSets != nil && p.depSets[n.memo-1] != nil {
		set := p.depSets[n.memo-1][e]
		if len(set) > len(p.largest) {
			p.largest = set
		}
		for _, s := range set {
			deps = p.addSite(deps, s)
		}
		return deps
	}
	return p.depsOf(n, e, deps)
}

// depsOf adds the sites element e of n depends on through its arguments.
func (p *memoPlan) depsOf(n *Node, e int, deps []int) []int {
	switch n.op {
	case opConst:
		return deps
	case opLatent:
		return p.addSite(deps, n.fam.site(e))
	case opSum, opMatVec: // every element of the argument
		a := n.args[0]
		if a.op == opLatent && a.fam.vector {
			return p.addSite(deps, a.fam.first)
		}
		for i := 0; i < a.length; i++ {
			deps = p.deps(a, i, deps)
		}
		return deps
	case opIndex:
		return p.deps(n.args[0], n.idx[e], deps)
	case opCustom:
		n.impl.reads(n, e, func(a *Node, ae int) { deps = p.deps(a, ae, deps) })
		return deps
	case opAt:
		src := n.args[0]
		shape := src.shape
		if shape == nil {
			shape = []int{src.length}
		}
		// Enumerate every candidate along node-indexed dimensions.
		var rec func(d, flat int)
		rec = func(d, flat int) {
			if d == len(shape) {
				deps = p.deps(src, flat, deps)
				return
			}
			if data := n.atData[d]; data != nil {
				rec(d+1, flat*shape[d]+data[elem1(len(data), e)])
				return
			}
			for i := 0; i < shape[d]; i++ {
				rec(d+1, flat*shape[d]+i)
			}
		}
		rec(0, 0)
		for _, in := range n.atNode {
			if in != nil {
				deps = p.deps(in, elem(in, e), deps)
			}
		}
		return deps
	}
	for _, a := range n.args {
		deps = p.deps(a, elem(a, e), deps)
	}
	return deps
}

// memoTab is a scorer's table of one memoised node: per element, the context its
// jets were computed in (0: never) and its Width() jets.
type memoTab struct {
	stamp []uint64
	jets  []jet
}

// memoSmall is the most elements of a memoised node whose table a new scorer
// makes at once, in one array with the other small nodes' in the plan's
// (topological) order, so that a long recursion's tables are read in sequence; a
// larger node's table is made when first read.
const memoSmall = 64

// newMemoTabs returns a scorer's tables of plan's memoised nodes.
func newMemoTabs(p *memoPlan) []memoTab {
	if p == nil {
		return nil
	}
	tabs := make([]memoTab, len(p.memo))
	ne, nj := 0, 0
	for _, n := range p.memo {
		if n.length <= memoSmall {
			ne += n.length
			nj += n.length * n.width
		}
	}
	stamps, jets := make([]uint64, ne), make([]jet, nj)
	for i, n := range p.memo {
		if n.length <= memoSmall {
			l, w := n.length, n.length*n.width
			tabs[i] = memoTab{stamp: stamps[:l:l], jets: jets[:w:w]}
			stamps, jets = stamps[l:], jets[w:]
		}
	}
	return tabs
}

// newCall starts a scorer call: a new call for the MatVec caches (epoch) and a new
// evaluation context.
func (s *scorer) newCall() {
	s.epoch++
	s.newContext()
}

// newContext starts a new evaluation context: the memoised jets of the previous
// one are no longer read. Call it whenever the state, the active site or orbit, or
// a summed-out site's fixed value changes.
func (s *scorer) newContext() {
	s.gen++
	s.genEpoch = s.epoch
	s.memoAr.top = 0
}

// checkCall starts a new context if the epoch moved since the last one began (a
// call that advanced s.epoch itself, not by newCall).
func (s *scorer) checkCall() {
	if s.genEpoch != s.epoch {
		s.newContext()
	}
}

// fix sets the site whose value is fixed while a summed-out group is scored (1 +
// the site; 0: none) and that value, in a new context.
func (s *scorer) fix(site int, v float64) {
	s.fixSite, s.fixVal = site, v
	s.newContext()
}

// evalMemo is eval of a memoised node of s's plan: the jets of element e from the
// node's table when they were computed in the current context, else computed
// (evalNode) and kept. The jets handed out are read-only: their dense gradients
// and Hessians may be the table's.
func (s *scorer) evalMemo(n *Node, e int, out []jet) {
	s.checkCall()
	t := &s.memo[n.memo-1]
	if t.stamp == nil {
		t.stamp = make([]uint64, n.length)
		t.jets = make([]jet, n.length*n.width)
	}
	w := n.width
	kept := t.jets[e*w : (e+1)*w]
	if t.stamp[e] == s.gen {
		if memoVerify && !s.verifying {
			s.verifyMemo(n, e, kept)
		}
		copy(out, kept)
		return
	}
	s.evalNode(n, e, out)
	for c := range out {
		// A dense jet's gradient and Hessian are in the factor element's arena:
		// keep a copy until the context ends.
		j := out[c]
		if j.kind == jDense {
			k := len(j.g)
			g, h := s.memoAr.get(k), s.memoAr.get(k*k)
			copy(g, j.g)
			copy(h, j.h)
			j.g, j.h = g, h
		}
		kept[c] = j
	}
	t.stamp[e] = s.gen
}

// evalNode writes the jets of element e of n into out as eval does, without
// looking n up in its table: eval's next call computes (s.computing).
func (s *scorer) evalNode(n *Node, e int, out []jet) {
	s.computing = true
	s.eval(n, e, out)
}

// verifyMemo panics if element e of n, evaluated again, differs from kept. The
// arguments are read from the tables without verifying them again (each was
// verified where it was found, or computed in this context), so that a check costs
// one evaluation of the node.
func (s *scorer) verifyMemo(n *Node, e int, kept []jet) {
	top := s.top
	again := s.push(n.width)
	s.verifying = true
	evals := s.evals
	s.evalNode(n, e, again)
	s.evals = evals // not an evaluation of the score
	s.verifying = false
	for c := range again {
		if a, b := &again[c], &kept[c]; !sameJet(a, b) && !s.sameScalar(a, b) {
			panic(fmt.Sprintf("graph: memoised %s element %d component %d is stale: kept %+v (value bits %#x), evaluated %+v (%#x)", n, e, c, *b, math.Float64bits(b.v), *a, math.Float64bits(a.v)))
		}
	}
	s.top = top
}

// sameScalar reports whether kept is the scalar form of evaluated: scalarID keeps
// the jet of a node it evaluates through the general path (an HMMMarginal, say)
// as unitJet(fromJet(…)), the same value and derivatives in the one active
// coordinate.
func (s *scorer) sameScalar(evaluated, kept *jet) bool {
	if !s.scalarMode() || kept.kind == jDense {
		return false
	}
	a := unitJet(fromJet(evaluated))
	return sameJet(&a, kept)
}

// sameJet reports whether a and b are the same jet, bit for bit but for the
// bits of a NaN (the scalar and the jet paths may give NaNs of different sign,
// and no result reads those bits).
func sameJet(a, b *jet) bool {
	same := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) || x != x && y != y }
	if !same(a.v, b.v) || a.kind != b.kind {
		return false
	}
	switch a.kind {
	case jUnit:
		return a.i == b.i && same(a.gc, b.gc) && same(a.hc, b.hc)
	case jRow:
		return a.i == b.i && a.m == b.m && same(a.gc, b.gc) && same(a.hc, b.hc)
	case jDense:
		return slices.EqualFunc(a.g, b.g, same) && slices.EqualFunc(a.h, b.h, same)
	}
	return true
}
