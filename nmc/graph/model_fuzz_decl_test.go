package graph_test

import (
	"fmt"

	"github.com/nmc-go/nmc/nmc/graph"
)

// The latents, factors and faults of FuzzModel's generator.

// plainLatent declares Latent(name, d, shape) with a real or positive scalar prior
// whose parameters are earlier nodes.
func (m *fzModel) plainLatent() *fzNode {
	positive, n := m.byte()%2 == 0, 1+m.byte()%3
	var shape []int
	if n > 1 || m.byte()%2 == 0 {
		shape = []int{n}
	}
	d := m.scalarDist(positive, false, n)
	name := m.name("z")
	lt := &fzLatent{kind: latPlain, name: name}
	x := &fzNode{op: opLatentVal, l: n, w: 1, lat: lt, pos: positive, dep: true, g: m.b.Latent(name, d.g, shape...)}
	return m.latent(lt, x, d, nil, fmt.Sprintf("Latent(%s, fam %d, shape %v)", name, d.fam, shape))
}

func (m *fzModel) latent(lt *fzLatent, x *fzNode, d *fzDist, jac []*fzNode, what string) *fzNode {
	if x = m.add(x, false, what); x == nil {
		return nil
	}
	m.lats = append(m.lats, lt)
	m.terms = append(m.terms, fzTerm{d: d, x: x, n: x.l, jac: jac})
	return x
}

// vectorLatent declares Vector(name, k, d).
func (m *fzModel) vectorLatent(k int) *fzNode {
	d := m.scalarDist(false, false, k)
	name := m.name("v")
	lt := &fzLatent{kind: latVector, name: name}
	x := &fzNode{op: opLatentVal, l: k, w: 1, lat: lt, dep: true, g: m.b.Vector(name, k, d.g)}
	return m.latent(lt, x, d, nil, fmt.Sprintf("Vector(%s, %d, fam %d)", name, k, d.fam))
}

// orderedLatent declares Ordered or PositiveOrdered of 2 or 3 components.
func (m *fzModel) orderedLatent() *fzNode {
	positive, k := m.byte()%2 == 0, 2+m.byte()%2
	d := m.scalarDist(positive && m.byte()%3 != 0, false, k)
	name := m.name("o")
	lt := &fzLatent{kind: latOrdered, name: name + graph.RawSuffix}
	var g *graph.Node
	if positive {
		lt.kind = latPosOrdered
		g = m.b.PositiveOrdered(name, k, d.g)
	} else {
		g = m.b.Ordered(name, k, d.g)
	}
	x := &fzNode{op: opLatentVal, l: k, w: 1, lat: lt, pos: positive, dep: true, g: g}
	if x = m.latent(lt, x, d, nil, fmt.Sprintf("Ordered(%s, %d, positive %v, fam %d)", name, k, positive, d.fam)); x != nil {
		m.derived = append(m.derived, fzDerived{name: name, n: x})
	}
	return x
}

// boundedLatent declares Bounded with bounds that are nodes: both (upper = lower +
// a positive node, or 0 and 1 − a unit node, as GARCH's β₁ < 1 − α₁), or one.
func (m *fzModel) boundedLatent() *fzNode {
	n := 1 + m.byte()%2
	var shape []int
	if n > 1 {
		shape = []int{n}
	}
	var lower, upper *fzNode
	switch m.byte() % 4 {
	case 0:
		lower = m.param(false, n)
		upper = m.binary(opAdd, lower, m.param(true, n))
	case 1:
		lower = m.constant([]float64{0}, 1, 1)
		upper = m.binary(opSub, m.constant([]float64{1}, 1, 1), m.unitScalar())
	case 2:
		lower = m.param(false, n)
	default:
		upper = m.param(false, n)
	}
	if (lower != nil && lower.l != 1 && lower.l != n) || (upper != nil && upper.l != 1 && upper.l != n) {
		return nil
	}
	if lower != nil && upper != nil && !lower.dep && !upper.dep {
		// Constant bounds: lower + a positive value can round to lower (at
		// 3.9e106), which Build refuses, as it should.
		r := &refEval{vals: map[*fzNode][]float64{}}
		for e := range n {
			if !(r.at(lower, e, 0) < r.at(upper, e, 0)) {
				return nil
			}
		}
	}
	d := &fzDist{fam: famFlat, g: graph.Flat()}
	if m.byte()%3 != 0 {
		d = m.scalarDist(false, false, n)
	}
	name := m.name("b")
	lt := &fzLatent{kind: latBounded, name: name + graph.RawSuffix, lower: lower, upper: upper}
	var gl, gu *graph.Node
	var jac []*fzNode
	x := &fzNode{op: opLatentVal, l: n, w: 1, lat: lt, dep: true}
	if lower != nil {
		gl = lower.g
		x.args = append(x.args, lower)
	}
	if upper != nil {
		gu = upper.g
		x.args = append(x.args, upper)
	}
	if lower != nil && upper != nil {
		jac = []*fzNode{lower, upper}
	}
	x.g = m.b.Bounded(name, gl, gu, d.g, shape...)
	if x = m.latent(lt, x, d, jac, fmt.Sprintf("Bounded(%s, n %d, fam %d)", name, n, d.fam)); x != nil {
		m.derived = append(m.derived, fzDerived{name: name, n: x})
	}
	return x
}

// dirichletLatent declares a plate of rows Dirichlet latents of k components.
func (m *fzModel) dirichletLatent(k, rows int) *fzNode {
	alpha := make([]float64, k)
	for i := range alpha {
		alpha[i] = fzPos[1+m.byte()%(len(fzPos)-1)]
	}
	a := m.constant(alpha, 1, k)
	var shape []int
	if rows > 1 {
		shape = []int{rows}
	}
	d := &fzDist{fam: famDirichlet, params: []*fzNode{a}, g: graph.Dirichlet(a.g)}
	name := m.name("p")
	lt := &fzLatent{kind: latPlain, name: name}
	x := &fzNode{op: opLatentVal, l: rows, w: k, lat: lt, pos: true, unit: true, dep: true, g: m.b.Latent(name, d.g, shape...)}
	return m.latent(lt, x, d, nil, fmt.Sprintf("Dirichlet(%s, %d×%d)", name, rows, k))
}

// mvn returns a multivariate normal of dimension n with a kernel covariance or a
// Cholesky factor whose entries are nodes, and a mean of width n (or a scalar).
func (m *fzModel) mvn() *fzDist {
	var cov *fzNode
	chol := m.byte()%3 == 0
	if chol {
		n := 1 + m.byte()%3
		rows := make([]*fzNode, n)
		for i := range rows {
			comps := make([]*fzNode, n)
			for j := range comps {
				switch {
				case j < i:
					comps[j] = m.real()
				case j == i:
					comps[j] = m.positive()
				default:
					comps[j] = m.real() // above the diagonal: not read
				}
			}
			if rows[i] = m.nodeOf(opStack, 1, n, graph.Stack(gnodes(comps)...), false, "Stack (row of L)", comps...); rows[i] == nil {
				return nil
			}
		}
		cov = m.nodeOf(opConcat, n, n, graph.Concat(gnodes(rows)...), false, "Concat (L)", rows...)
	} else {
		cov = m.pick(func(n *fzNode) bool { return n.op == opAddDiag })
		if cov == nil || m.byte()%2 == 0 {
			cov = m.kernelNode()
		}
	}
	if cov == nil {
		return nil
	}
	n := cov.l
	if !chol && !cov.dep && !wellConditioned(cov) {
		// A constant covariance that is not positive definite in float64 (a
		// kernel of amplitude 2.5^256 over close points: K + 0.5·I is rank one to
		// rounding), which Build rightly refuses (seed 9f5206e0453ab68a).
		return nil
	}
	mu := m.pick(func(a *fzNode) bool { return (a.w == n && a.l <= 2) || scalar(a) })
	if mu == nil {
		mu = m.constReal()
	}
	d := &fzDist{fam: famMVNCov, params: []*fzNode{mu, cov}}
	if chol {
		d.fam = famMVNChol
		d.g = graph.MultivariateNormalCholesky(mu.g, cov.g)
	} else {
		d.g = graph.MultivariateNormalCov(mu.g, cov.g)
	}
	return d
}

// wellConditioned reports whether the constant covariance node cov is positive
// definite with room to spare: each pivot of its Cholesky factor at least 1e-8
// of its diagonal entry, so that Build's factorisation agrees.
func wellConditioned(cov *fzNode) bool {
	k := (&refEval{vals: map[*fzNode][]float64{}}).val(cov)
	l, ok := refCholesky(k, cov.l)
	if !ok {
		return false
	}
	for i := range cov.l {
		if !(l[i*cov.l+i]*l[i*cov.l+i] >= 1e-8*k[i*cov.l+i]) {
			return false
		}
	}
	return true
}

// mvnStep declares Latent(name, MVN) or observes data under an MVN.
func (m *fzModel) mvnStep() {
	d := m.mvn()
	if d == nil {
		return
	}
	n := d.params[1].l
	if m.byte()%2 == 0 {
		m.observe(d, m.fzData(famNormal, n*distLen(d)))
		return
	}
	if d.params[0].l != 1 {
		return
	}
	name := m.name("f")
	lt := &fzLatent{kind: latPlain, name: name}
	x := &fzNode{op: opLatentVal, l: 1, w: n, lat: lt, dep: true, g: m.b.Latent(name, d.g)}
	if x = m.latent(lt, x, d, nil, fmt.Sprintf("MVN latent %s (%d, fam %d)", name, n, d.fam)); x != nil && n > 1 {
		m.nodeOf(opReshape, n, 1, graph.Components(x.g), false, fmt.Sprintf("Components(#%d)", x.id), x)
	}
}

// simplexRows returns a node of rows elements of k components, each a
// probability vector: a constant, a Dirichlet latent, or the softmax of real
// nodes (exp(v − LogSumExp(v))).
func (m *fzModel) simplexRows(k, rows int) *fzNode {
	switch m.byte() % 3 {
	case 0:
		v := make([]float64, k*rows)
		for r := range rows {
			s := 0.0
			for j := range k {
				v[r*k+j] = float64(1 + m.byte()%4)
				s += v[r*k+j]
			}
			for j := range k {
				v[r*k+j] /= s
			}
		}
		return m.constant(v, rows, k)
	case 1:
		return m.dirichletLatent(k, rows)
	}
	out := make([]*fzNode, rows)
	for r := range out {
		comps := make([]*fzNode, k)
		for j := range comps {
			comps[j] = m.real()
		}
		v := m.nodeOf(opStack, 1, k, graph.Stack(gnodes(comps)...), false, "Stack", comps...)
		lse := m.nodeOf(opLSEComp, 1, 1, graph.LogSumExp(v.g), false, "LogSumExp comps", v)
		if out[r] = m.unary(opExp, m.binary(opSub, v, lse)); out[r] == nil {
			return nil
		}
	}
	if rows == 1 {
		return out[0]
	}
	return m.nodeOf(opConcat, rows, k, graph.Concat(gnodes(out)...), false, "Concat rows", out...)
}

// hmm declares a hidden Markov model of K = 2 or 3 states and N ≤ 6 steps, with
// HiddenMarkov or as a Factor of HMMMarginal.
func (m *fzModel) hmm() {
	k, n := 2+m.byte()%2, 1+m.byte()%6
	var logOmega *fzNode
	cols := make([]*fzNode, k)
	if m.byte()%2 == 0 {
		counts := m.byte()%2 == 0
		fam := famNormal
		if counts {
			fam = famPoisson
		}
		y := m.constant(m.fzData(fam, n), n, 1)
		for j := range cols {
			d := &fzDist{fam: fam}
			if counts {
				d.params = []*fzNode{m.positive()}
				d.g = graph.Poisson(d.params[0].g)
			} else {
				d.params = []*fzNode{m.real(), m.positive()}
				d.g = graph.Normal(d.params[0].g, d.params[1].g)
			}
			if cols[j] = m.nodeOf(opDensity, n, 1, graph.LogDensity(d.g, y.g), false, "LogDensity column", append([]*fzNode{y}, d.params...)...); cols[j] == nil {
				return
			}
			cols[j].d = d
		}
	} else {
		for j := range cols {
			cols[j] = m.pick(func(a *fzNode) bool { return a.w == 1 && (a.l == 1 || a.l == n) })
			if cols[j] == nil {
				cols[j] = m.constReal()
			}
		}
		if l, _, _ := broadcastShape(cols...); l != n {
			n = l
		}
	}
	logOmega = m.nodeOf(opStack, n, k, graph.Stack(gnodes(cols)...), false, "Stack (log omega)", cols...)
	gamma, rho := m.simplexRows(k, k), m.simplexRows(k, 1)
	if logOmega == nil || gamma == nil || rho == nil {
		return
	}
	h := &fzNode{op: opHMM, args: []*fzNode{logOmega, gamma, rho}, l: 1, w: 1}
	h.dep = logOmega.dep || gamma.dep || rho.dep
	if !h.dep && !constOK(h, false) {
		return // a constant factor that is not finite: Build refuses it, as it should
	}
	name := m.name("hmm")
	if m.byte()%2 == 0 {
		h.g = graph.HMMMarginal(logOmega.g, gamma.g, rho.g)
		m.b.Factor(name, h.g)
	} else {
		m.b.HiddenMarkov(name, logOmega.g, gamma.g, rho.g)
		h.g = graph.HMMMarginal(logOmega.g, gamma.g, rho.g) // the description's copy
		m.hmms = append(m.hmms, fzHMM{name: name, n: n, k: k})
	}
	if h = m.add(h, false, fmt.Sprintf("HMM %s (N %d, K %d)", name, n, k)); h != nil {
		m.terms = append(m.terms, fzTerm{x: h, n: 1})
	}
}

// factor declares Factor(name, a) for a width-1 node that depends on a latent.
func (m *fzModel) factor() {
	a := m.pick(func(a *fzNode) bool { return a.w == 1 && a.dep })
	if a == nil {
		return
	}
	name := m.name("fac")
	m.b.Factor(name, a.g)
	m.trace = append(m.trace, fmt.Sprintf("Factor(%s, #%d)", name, a.id))
	m.terms = append(m.terms, fzTerm{x: a, n: a.l})
}

// observeStep observes data under a scalar family whose parameters are nodes.
func (m *fzModel) observeStep() {
	d := m.scalarDist(m.byte()%2 == 0, true, 0)
	m.observe(d, m.fzData(d.fam, distLen(d)))
}

// regression observes y ~ Normal(η, s), η a linear predictor of 16 to 19 rows,
// which the engine scores as a whole (linMinRows): a latent read by a data index,
// plus or minus a scalar times another one read by an index, a scalar times a data
// column, and a scalar.
func (m *fzModel) regression() {
	rows := 16 + m.byte()%4
	indexed := func() *fzNode {
		p := m.pick(func(n *fzNode) bool { return n.op == opLatentVal && n.w == 1 })
		if p == nil {
			return nil
		}
		idx := make([]int, rows)
		for i := range idx {
			idx[i] = m.byte() % p.l
		}
		n := m.nodeOf(opIndex, rows, 1, graph.Index(p.g, idx), false, fmt.Sprintf("Index(#%d, %v)", p.id, idx), p)
		if n != nil {
			n.idx = idx
		}
		return n
	}
	eta := indexed()
	if eta == nil {
		return
	}
	if b := indexed(); b != nil && m.byte()%3 != 0 {
		op := []fzOp{opAdd, opSub}[m.byte()%2]
		if t := m.binary(opMul, m.real(), b); t != nil {
			eta = m.binary(op, eta, t)
		}
	}
	if eta != nil && m.byte()%2 == 0 {
		x := m.constant(m.fzData(famNormal, rows), rows, 1)
		if t := m.binary(opMul, x, m.real()); t != nil {
			eta = m.binary(opAdd, t, eta)
		}
	}
	if eta != nil && m.byte()%2 == 0 {
		eta = m.binary(opAdd, eta, m.real())
	}
	if eta == nil {
		return
	}
	d := &fzDist{fam: famNormal, params: []*fzNode{eta, m.positive()}}
	d.g = graph.Normal(d.params[0].g, d.params[1].g)
	m.observe(d, m.fzData(famNormal, rows))
}

func (m *fzModel) deterministic() {
	a := m.pick(func(a *fzNode) bool { return a.l*a.w <= 16 })
	if a == nil {
		return
	}
	name := m.name("det")
	m.b.Deterministic(name, a.g)
	m.derived = append(m.derived, fzDerived{name: name, n: a})
}

// derivedName is the column name Model.DerivedNames gives component c of element
// e of a derived node of l elements of width w (one-dimensional plates).
func derivedName(name string, l, w, e, c int) string {
	switch {
	case l == 1 && w == 1:
		return name
	case w == 1:
		return fmt.Sprintf("%s[%d]", name, e)
	case l == 1:
		return fmt.Sprintf("%s[%d]", name, c)
	}
	return fmt.Sprintf("%s[%d,%d]", name, e, c)
}

// badNode adds a node of a bad shape (its graph node must carry an error).
func (m *fzModel) badNode(what string, g *graph.Node) {
	m.add(&fzNode{op: opConst, l: 1, w: 1, vals: []float64{0}, g: g}, true, what)
}

// faultStep declares one thing Build must refuse: a bad shape, a nil node, a bad
// size, a duplicate name.
func (m *fzModel) faultStep() {
	two, three := graph.Data([]float64{1, 2}), graph.Data([]float64{1, 2, 3})
	row := graph.Rows([][]float64{{0.5, 0.5}})
	sq := m.kernelNode()
	if sq == nil {
		return
	}
	k := sq.l
	switch m.byte() % 20 {
	case 0:
		m.badNode("Add(2, 3)", graph.Add(two, three))
	case 1:
		m.badNode("Stack(width 2)", graph.Stack(row, graph.C(1)))
	case 2:
		m.badNode("Concat(widths 1, 2)", graph.Concat(two, row))
	case 3:
		m.badNode("Reshape(3 as 2×2)", graph.Reshape(three, 2, 2))
	case 4:
		m.badNode("LogMix(lengths 2, 3)", graph.LogMix(graph.C(0.5), two, three))
	case 5:
		m.badNode("LogDensity(Normal, width 2)", graph.LogDensity(graph.Normal(graph.C(0), graph.C(1)), row))
	case 6:
		g := graph.Rows([][]float64{{0.5, 0.5, 0}, {0.5, 0.5, 0}})
		m.badNode("HMMMarginal(Gamma 2×3)", graph.HMMMarginal(graph.Stack(two, two), g, row))
	case 7:
		m.badNode("HMMMarginal(rho width 3)", graph.HMMMarginal(graph.Stack(two, two),
			graph.Rows([][]float64{{0.5, 0.5}, {0.5, 0.5}}), graph.Rows([][]float64{{0.2, 0.3, 0.5}})))
	case 8:
		mu := make([]float64, k+1)
		m.fault("MVN mean of the wrong width", func(name string) {
			m.b.Latent(name, graph.MultivariateNormalCov(graph.Rows([][]float64{mu}), sq.g))
		})
	case 9:
		m.fault("Latent parameter of 2 elements for 3", func(name string) {
			m.b.Latent(name, graph.Normal(two, graph.C(1)), 3)
		})
	case 10:
		m.fault("Observe 3 values for 2", func(name string) {
			m.b.Observe(name, graph.Normal(two, graph.C(1)), []float64{1, 2, 3})
		})
	case 11:
		m.fault("Ordered of 1", func(name string) { m.b.Ordered(name, 1, graph.Normal(graph.C(0), graph.C(1))) })
	case 12:
		m.fault("Bounded without bounds", func(name string) { m.b.Bounded(name, nil, nil, graph.Flat()) })
	case 13:
		m.fault("Bounded by a width-2 bound", func(name string) { m.b.Bounded(name, row, nil, graph.Flat()) })
	case 14:
		a := m.real()
		if !a.dep {
			a = m.plainLatent()
			if a == nil {
				return
			}
		}
		m.badNode("ExpQuadCov(points not data)", graph.ExpQuadCov(a.g, graph.C(1), graph.C(1)))
	case 15:
		m.badNode("AddDiag(not square)", graph.AddDiag(graph.Rows([][]float64{{1, 2, 3}, {1, 2, 3}}), graph.C(1)))
	case 16:
		m.badNode("CholeskyMul(eta of k+1)", graph.CholeskyMul(sq.g, graph.Data(make([]float64, k+1))))
	case 17:
		m.fault("Factor of width 2", func(name string) { m.b.Factor(name, row) })
	case 18:
		switch m.byte() % 4 {
		case 0:
			m.badNode("Add(nil)", graph.Add(nil, two))
		case 1:
			m.badNode("LogSumExp()", graph.LogSumExp())
		case 2:
			m.badNode("Func(nil input)", graph.Func(func(*jetSpace, []jetNumber, []jetNumber) {}, 1, nil))
		default:
			m.badNode("Func(0 outputs)", graph.Func(func(*jetSpace, []jetNumber, []jetNumber) {}, 0, two))
		}
	default:
		if len(m.lats) == 0 {
			return
		}
		base := m.lats[0].name
		m.fault("duplicate name "+base, func(string) { m.b.Latent(base, graph.Normal(graph.C(0), graph.C(1))) })
	}
}
