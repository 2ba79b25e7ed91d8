package graph

// A jet is a value with its gradient and Hessian with respect to the k coordinates
// of the active site. Most jets are structured, so that nothing of size k×k is
// built per observation:
//
//	jConst: independent of the site (∇ = 0, ∇² = 0);
//	jUnit:  ∇ = gc·e_i,   ∇² = hc·e_i e_iᵀ      (a function of coordinate i alone);
//	jRow:   ∇ = gc·a,     ∇² = hc·a aᵀ           (a function of aᵀx, a = row i of a data matrix);
//	jDense: ∇ = g,        ∇² = h (k×k)           (anything else; from the scorer's arena).
//
// Structured jets stay structured under every scalar function, and under sums and
// products with jets of the same base; only the mixing of different bases densifies.
type jet struct {
	v      float64
	kind   jetKind
	i      int // jUnit: coordinate; jRow: row
	m      *dataMatrix
	gc, hc float64
	g, h   []float64
}

type jetKind uint8

const (
	jConst jetKind = iota
	jUnit
	jRow
	jDense
)

func sameBase(a, b *jet) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case jUnit:
		return a.i == b.i
	case jRow:
		return a.i == b.i && a.m == b.m
	}
	return false
}

// arena hands out float64 scratch for dense jets; reset per factor element.
type arena struct {
	buf []float64
	top int
}

func (a *arena) get(n int) []float64 {
	if a.top+n > len(a.buf) {
		// grow: old slices stay valid (they point into the old buffer)
		nb := make([]float64, max(2*len(a.buf), a.top+n, 1024))
		a.buf = nb
		a.top = 0
	}
	s := a.buf[a.top : a.top+n]
	a.top += n
	clear(s)
	return s
}

// jetOps carries the site dimension and the arena.
type jetOps struct {
	k  int
	ar arena
}

// densify writes ∇ and ∇² of a into fresh dense slices.
func (o *jetOps) densify(a *jet) (g, h []float64) {
	k := o.k
	g, h = o.ar.get(k), o.ar.get(k*k)
	switch a.kind {
	case jUnit:
		g[a.i] = a.gc
		h[a.i*k+a.i] = a.hc
	case jRow:
		r := a.m.row(a.i)
		for p := 0; p < k; p++ {
			g[p] = a.gc * r[p]
			if a.hc != 0 {
				hp := h[p*k : p*k+k]
				s := a.hc * r[p]
				for q := 0; q < k; q++ {
					hp[q] = s * r[q]
				}
			}
		}
	case jDense:
		copy(g, a.g)
		copy(h, a.h)
	}
	return g, h
}

// gradient returns ∇a as densify writes it, without its Hessian: a dense jet's own
// slice (not to be written to), else a fresh one.
func (o *jetOps) gradient(a *jet) []float64 {
	if a.kind == jDense {
		return a.g
	}
	k := o.k
	g := o.ar.get(k)
	switch a.kind {
	case jUnit:
		g[a.i] = a.gc
	case jRow:
		r := a.m.row(a.i)
		for p := 0; p < k; p++ {
			g[p] = a.gc * r[p]
		}
	}
	return g
}

// lin returns ca·a + cb·b.
func (o *jetOps) lin(ca float64, a *jet, cb float64, b *jet) jet {
	v := ca*a.v + cb*b.v
	switch {
	case a.kind == jConst && b.kind == jConst:
		return jet{v: v}
	case b.kind == jConst:
		r := o.scale(ca, a)
		r.v = v
		return r
	case a.kind == jConst:
		r := o.scale(cb, b)
		r.v = v
		return r
	case sameBase(a, b):
		return jet{v: v, kind: a.kind, i: a.i, m: a.m, gc: ca*a.gc + cb*b.gc, hc: ca*a.hc + cb*b.hc}
	}
	ga, ha := o.densify(a)
	gb, hb := o.densify(b)
	for p := range ga {
		ga[p] = ca*ga[p] + cb*gb[p]
	}
	for p := range ha {
		ha[p] = ca*ha[p] + cb*hb[p]
	}
	return jet{v: v, kind: jDense, g: ga, h: ha}
}

// scale returns c·a (value included).
func (o *jetOps) scale(c float64, a *jet) jet {
	switch a.kind {
	case jConst:
		return jet{v: c * a.v}
	case jDense:
		g, h := o.ar.get(o.k), o.ar.get(o.k*o.k)
		for p := range g {
			g[p] = c * a.g[p]
		}
		for p := range h {
			h[p] = c * a.h[p]
		}
		return jet{v: c * a.v, kind: jDense, g: g, h: h}
	}
	return jet{v: c * a.v, kind: a.kind, i: a.i, m: a.m, gc: c * a.gc, hc: c * a.hc}
}

// apply returns φ(a) given φ(a.v), φ'(a.v), φ”(a.v).
func (o *jetOps) apply(a *jet, f, d1, d2 float64) jet {
	switch a.kind {
	case jConst:
		return jet{v: f}
	case jUnit, jRow:
		return jet{v: f, kind: a.kind, i: a.i, m: a.m, gc: d1 * a.gc, hc: d2*a.gc*a.gc + d1*a.hc}
	}
	k := o.k
	g, h := o.ar.get(k), o.ar.get(k*k)
	for p := 0; p < k; p++ {
		g[p] = d1 * a.g[p]
		s := d2 * a.g[p]
		hp, ap := h[p*k:p*k+k], a.h[p*k:p*k+k]
		for q := 0; q < k; q++ {
			hp[q] = s*a.g[q] + d1*ap[q]
		}
	}
	return jet{v: f, kind: jDense, g: g, h: h}
}

// mul returns a·b.
func (o *jetOps) mul(a, b *jet) jet {
	v := a.v * b.v
	switch {
	case a.kind == jConst && b.kind == jConst:
		return jet{v: v}
	case b.kind == jConst:
		return o.scale(b.v, a)
	case a.kind == jConst:
		return o.scale(a.v, b)
	case sameBase(a, b):
		return jet{v: v, kind: a.kind, i: a.i, m: a.m,
			gc: b.v*a.gc + a.v*b.gc,
			hc: b.v*a.hc + a.v*b.hc + 2*a.gc*b.gc}
	}
	k := o.k
	ga, ha := o.densify(a)
	gb, hb := o.densify(b)
	g, h := o.ar.get(k), o.ar.get(k*k)
	if k == 1 { // scalar mode: the unit jets' arithmetic, as the scalar path's
		g[0] = b.v*ga[0] + a.v*gb[0]
		h[0] = b.v*ha[0] + a.v*hb[0] + 2*ga[0]*gb[0]
		return jet{v: v, kind: jDense, g: g, h: h}
	}
	for p := 0; p < k; p++ {
		g[p] = b.v*ga[p] + a.v*gb[p]
		for q := 0; q < k; q++ {
			h[p*k+q] = b.v*ha[p*k+q] + a.v*hb[p*k+q] + ga[p]*gb[q] + gb[p]*ga[q]
		}
	}
	return jet{v: v, kind: jDense, g: g, h: h}
}
