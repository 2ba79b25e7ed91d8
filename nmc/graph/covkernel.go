package graph

import "math"

// Covariance kernels over data points: nodes of n elements of n components, element
// i being row i of the matrix K[i, j] = k(x_i, x_j), for MultivariateNormalCov.

// kernelKind names a stationary kernel α²·φ(d, ρ) of the distance d between two
// points.
type kernelKind uint8

const (
	expQuad kernelKind = iota
	matern32
	matern52
)

var kernelNames = [...]string{expQuad: "ExpQuadCov", matern32: "Matern32Cov", matern52: "Matern52Cov"}

// kernelOp is a covariance kernel over n fixed points (ExpQuadCov, Matern32Cov,
// Matern52Cov); its args are the amplitude α and the length scale ρ.
type kernelOp struct {
	kind kernelKind
	n    int
	d2   []float64 // n×n squared distances between the points
}

func (o kernelOp) name() string { return kernelNames[o.kind] }

func (o kernelOp) reads(n *Node, _ int, visit func(*Node, int)) {
	visit(n.args[0], 0)
	visit(n.args[1], 0)
}

// phi returns φ(d, ρ) and its first and second derivatives in ρ, for the squared
// distance d2; NaN unless ρ > 0.
func (o kernelOp) phi(d2, rho float64) (f, d1, d2rho float64) {
	if !(rho > 0) {
		return math.NaN(), math.NaN(), math.NaN()
	}
	if d2 == 0 {
		return 1, 0, 0
	}
	switch o.kind {
	case matern32:
		// φ = (1 + s)e^{−s}, s = √3·d/ρ.
		s := math.Sqrt(3*d2) / rho
		e := math.Exp(-s)
		return (1 + s) * e, s * s * e / rho, e * s * s * (s - 3) / (rho * rho)
	case matern52:
		// φ = (1 + s + s²/3)e^{−s}, s = √5·d/ρ.
		s := math.Sqrt(5*d2) / rho
		e := math.Exp(-s)
		return (1 + s + s*s/3) * e, s * s * (1 + s) * e / (3 * rho), e * s * s * (s*s - 3*s - 3) / (3 * rho * rho)
	}
	// φ = exp(−q/2), q = d²/ρ².
	q := d2 / (rho * rho)
	e := math.Exp(-0.5 * q)
	return e, e * q / rho, e * (q*q - 3*q) / (rho * rho)
}

// kernelTable holds φ and its first and second derivatives in ρ at every pair of
// a kernel's points for one value of ρ: each score reads the kernel's n rows, and
// the scores of one state (a block's joint derivatives, the steps of the other
// hyperparameters) read them at the same ρ.
type kernelTable struct {
	rho       float64
	ok        bool
	f, d1, d2 []float64 // n×n, row-major
}

// kernelTable returns the table of the kernel node n (op o) at ρ = rho, computing
// it when the scorer's table is for another ρ: the lower triangle, mirrored (the
// squared distances are symmetric, so the upper entries are the same numbers).
func (s *scorer) kernelTable(n *Node, o kernelOp, rho float64) *kernelTable {
	if s.gp.kernel == nil {
		s.gp.kernel = map[*Node]*kernelTable{}
	}
	t := s.gp.kernel[n]
	if t == nil {
		t = &kernelTable{f: make([]float64, o.n*o.n), d1: make([]float64, o.n*o.n), d2: make([]float64, o.n*o.n)}
		s.gp.kernel[n] = t
	}
	if t.ok && math.Float64bits(t.rho) == math.Float64bits(rho) {
		return t
	}
	m := o.n
	for i := 0; i < m; i++ {
		for j := 0; j <= i; j++ {
			f, d1, d2 := o.phi(o.d2[i*m+j], rho)
			t.f[i*m+j], t.d1[i*m+j], t.d2[i*m+j] = f, d1, d2
			t.f[j*m+i], t.d1[j*m+i], t.d2[j*m+i] = f, d1, d2
		}
	}
	t.rho, t.ok = rho, true
	return t
}

func (o kernelOp) eval(s *scorer, n *Node, e int, out []jet) {
	top := s.top
	hp := s.push(2)
	s.eval(n.args[0], 0, hp[:1])
	s.eval(n.args[1], 0, hp[1:])
	a, r := &hp[0], &hp[1]
	t := s.kernelTable(n, o, r.v)
	lo, hi := e*o.n, (e+1)*o.n
	tf, td1, td2 := t.f[lo:hi], t.d1[lo:hi], t.d2[lo:hi]
	scalar := (a.kind == jConst || a.kind == jUnit) && (r.kind == jConst || r.kind == jUnit)
	if scalar && a.kind == jUnit && r.kind == jUnit && a.i != r.i {
		scalar = false
	}
	if !scalar && a.kind == jUnit && r.kind == jUnit {
		// Functions of two coordinates (a block of α and ρ scored in one pass): K =
		// A·φ written straight into dense jets, as mul would make them.
		o.evalTwo(s, a, r, tf, td1, td2, out)
		s.top = top
		return
	}
	if !scalar {
		amp := s.ops.apply(a, a.v*a.v, 2*a.v, 2)
		for j := range tf {
			k := s.ops.apply(r, tf[j], td1[j], td2[j])
			out[j] = s.ops.mul(&amp, &k)
		}
		s.top = top
		return
	}
	// Constants, or functions of one coordinate c (a scalar site, or the orbit
	// parameter): K = A·φ with A = α², and their first and second derivatives in c.
	kind, c := jConst, 0
	if a.kind == jUnit {
		kind, c = jUnit, a.i
	} else if r.kind == jUnit {
		kind, c = jUnit, r.i
	}
	amp := a.v * a.v
	da, d2a := 2*a.v*a.gc, 2*a.gc*a.gc+2*a.v*a.hc
	gr, hr := r.gc, r.hc
	for j, f := range tf {
		if kind == jConst {
			out[j] = jet{v: amp * f}
			continue
		}
		d1, d2 := td1[j], td2[j]
		df, d2f := d1*gr, d2*gr*gr+d1*hr
		out[j] = jet{v: amp * f, kind: jUnit, i: c, gc: da*f + amp*df, hc: d2a*f + 2*da*df + amp*d2f}
	}
	s.top = top
}

// evalTwo writes the row K_j = A·φ_j, A = α², for α and ρ functions of two
// different coordinates (unit jets a and r) into dense jets over s.ops.k
// coordinates: the gradient has the two entries A′φ and Aφ′, the Hessian the four
// of A″φ, Aφ″ and A′φ′ (the terms mul's product rule gives, without its zeros).
func (kernelOp) evalTwo(s *scorer, a, r *jet, tf, td1, td2 []float64, out []jet) {
	k := s.ops.k
	ia, ir := a.i, r.i
	amp := a.v * a.v
	da, d2a := 2*a.v*a.gc, 2*a.gc*a.gc+2*a.v*a.hc
	for j, f := range tf {
		d1, d2 := td1[j], td2[j]
		df, d2f := d1*r.gc, d2*r.gc*r.gc+d1*r.hc
		g, h := s.ops.ar.get(k), s.ops.ar.get(k*k)
		g[ia], g[ir] = f*da, amp*df
		h[ia*k+ia], h[ir*k+ir] = f*d2a, amp*d2f
		h[ia*k+ir], h[ir*k+ia] = da*df, da*df
		out[j] = jet{v: amp * f, kind: jDense, g: g, h: h}
	}
}

// ExpQuadCov returns the exponentiated quadratic covariance of the points x (Stan's
// gp_exp_quad_cov) with amplitude alpha and length scale rho:
//
//	K[i, j] = α² exp(−‖x_i − x_j‖² / (2ρ²)),
//
// a node of n elements of n components, n = x.Len(), element i being row i. x is
// data: Data(x) for points on a line, Rows(x) for points of several coordinates.
// alpha and rho are scalar nodes (constants or expressions of latents); a ρ ≤ 0
// makes every entry off the diagonal NaN, and so the density −Inf. K is singular
// for points that coincide and nearly so for close points: add a jitter to the
// diagonal with AddDiag (Stan's models add 1e-10 or 1e-9).
func ExpQuadCov(x, alpha, rho *Node) *Node { return kernel(expQuad, x, alpha, rho) }

// Matern32Cov returns the Matérn 3/2 covariance of the points x (Stan's
// gp_matern32_cov): K[i, j] = α²(1 + √3·d/ρ) exp(−√3·d/ρ), d = ‖x_i − x_j‖. Shapes
// as ExpQuadCov.
func Matern32Cov(x, alpha, rho *Node) *Node { return kernel(matern32, x, alpha, rho) }

// Matern52Cov returns the Matérn 5/2 covariance of the points x (Stan's
// gp_matern52_cov): K[i, j] = α²(1 + √5·d/ρ + 5d²/(3ρ²)) exp(−√5·d/ρ). Shapes as
// ExpQuadCov.
func Matern52Cov(x, alpha, rho *Node) *Node { return kernel(matern52, x, alpha, rho) }

func kernel(kind kernelKind, x, alpha, rho *Node) *Node {
	op := kernelOp{kind: kind}
	if err := firstErr(op.name(), x, alpha, rho); err != nil {
		return &Node{op: opCustom, impl: op, length: 1, width: 1, err: err}
	}
	if x.op != opConst {
		return customErr(op, "the points are not data (use Data or Rows)")
	}
	for i, p := range []*Node{alpha, rho} {
		if p.length != 1 || p.width != 1 {
			return customErr(op, "%s has %d elements of width %d, want a scalar", [...]string{"alpha", "rho"}[i], p.length, p.width)
		}
	}
	n, w := x.length, x.width
	op.n = n
	op.d2 = make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			d := 0.0
			for c := 0; c < w; c++ {
				t := x.vals[i*w+c] - x.vals[j*w+c]
				d += t * t
			}
			op.d2[i*n+j], op.d2[j*n+i] = d, d
		}
	}
	return custom(op, n, n, alpha, rho)
}

// addDiagOp adds its second argument to the diagonal of its first (AddDiag).
type addDiagOp struct{}

func (addDiagOp) name() string { return "AddDiag" }

func (addDiagOp) reads(n *Node, e int, visit func(*Node, int)) {
	visit(n.args[0], e)
	d := n.args[1]
	visit(d, elem(d, e))
}

func (addDiagOp) eval(s *scorer, n *Node, e int, out []jet) {
	s.eval(n.args[0], e, out)
	d := n.args[1]
	top := s.top
	dj := s.push(1)
	s.eval(d, elem(d, e), dj)
	out[e] = s.ops.lin(1, &out[e], 1, &dj[0])
	s.top = top
}

// AddDiag returns m + diag(d) (Stan's add_diag) for a square matrix node m (n
// elements of n components, as the kernels make) and d a scalar node, added to
// every diagonal entry, or a node of n scalar elements, one per entry. The
// covariance of a Gaussian process regression's marginal likelihood is
// AddDiag(ExpQuadCov(x, alpha, rho), Mul(sigma, sigma)); a jitter is
// AddDiag(K, C(1e-10)).
func AddDiag(m, d *Node) *Node {
	var op addDiagOp
	if err := firstErr("AddDiag", m, d); err != nil {
		return &Node{op: opCustom, impl: op, length: 1, width: 1, err: err}
	}
	if m.width != m.length {
		return customErr(op, "the matrix has %d elements of width %d, want a square matrix", m.length, m.width)
	}
	if d.width != 1 || (d.length != 1 && d.length != m.length) {
		return customErr(op, "the diagonal has %d elements of width %d, want 1 or %d scalars", d.length, d.width, m.length)
	}
	return custom(op, m.length, m.width, m, d)
}
