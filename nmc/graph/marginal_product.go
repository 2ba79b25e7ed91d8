package graph

import (
	"math"
	"math/bits"
)

// readRun is a run of consecutive state coordinates j … j+n−1 read by the product
// cache, readCoord[r : r+n].
type readRun struct {
	r, j, n int32
}

// margDerivs adds to s.grad and s.hess the derivatives of log Σ_v P_v of a simple
// summed-out group (margSum) through the responsibilities P_v / sum, from its
// products prod (P_v) and picks, the group's elements that select the active site
// (sitePicks), with the arithmetic of margProduct in the same order.
func (s *scorer) margDerivs(prod []float64, sum float64, picks []margPick) {
	nv, k, x := len(prod), s.k, s.x
	if len(s.margG) < nv*k {
		s.margG, s.margH = make([]float64, nv*k), make([]float64, nv*k*k)
		s.margBar = make([]float64, k)
	}
	if s.margDiag(prod, sum, picks) {
		return
	}
	gs, hd := s.margG[:nv*k], s.margH[:nv*k]
	var touched uint64 // values whose gradient is not zero (cleared below)
	for _, pk := range picks {
		v := int(pk.v)
		if prod[v] == 0 {
			continue
		}
		if touched&(1<<v) == 0 {
			touched |= 1 << v
			for a := v * k; a < (v+1)*k; a++ {
				gs[a], hd[a] = 0, 0
			}
		}
		p := x[pk.j]
		gs[v*k+int(pk.c)] += 1 / p
		hd[v*k+int(pk.c)] -= 1 / (p * p)
	}
	if touched == 0 {
		return
	}
	inv := 1 / sum
	if touched&(touched-1) == 0 {
		// One value v reads the active site (a confusion row seen from an item): with
		// r = r_v and g = ∇log P_v, the gradient is r·g and the Hessian
		// r·∇²log P_v + r(1 − r)·g gᵀ, over the non-zero entries of g only.
		v := bits.TrailingZeros64(touched)
		r := prod[v] * inv
		w := r * (1 - r)
		gv, hv := gs[v*k:(v+1)*k], hd[v*k:(v+1)*k]
		for a, ga := range gv {
			if ga == 0 && hv[a] == 0 {
				continue
			}
			s.grad[a] += r * ga
			s.hess[a*k+a] += r * hv[a]
			if ga == 0 {
				continue
			}
			for b, gb := range gv {
				if gb != 0 {
					s.hess[a*k+b] += w * ga * gb
				}
			}
		}
		return
	}
	bar := s.margBar[:k]
	clear(bar)
	for v, p := range prod {
		if touched&(1<<v) == 0 {
			continue
		}
		s.addResponsibility(p*inv, gs[v*k:(v+1)*k], hd[v*k:(v+1)*k], bar)
	}
	for a := 0; a < k; a++ {
		if bar[a] == 0 {
			continue
		}
		for b := 0; b < k; b++ {
			s.hess[a*k+b] -= bar[a] * bar[b]
		}
	}
	return
}

// addResponsibility adds value v's terms of the derivatives of log Σ_v P_v to
// s.grad and s.hess, with r = P_v / Σ P its responsibility, gv = ∇log P_v and hv
// the diagonal of ∇²log P_v (log P_v is a sum of logs of single coordinates):
// r·gv to the gradient, r·hv + r·gv gvᵀ to the Hessian, and r·gv to bar (Σ_v r_v
// ∇log P_v, whose outer product the caller subtracts), over the entries where gv or
// hv is not zero.
func (s *scorer) addResponsibility(r float64, gv, hv, bar []float64) {
	k := len(gv)
	for a := 0; a < k; a++ {
		if gv[a] == 0 && hv[a] == 0 {
			continue
		}
		s.grad[a] += r * gv[a]
		bar[a] += r * gv[a]
		s.hess[a*k+a] += r * hv[a]
		ra := r * gv[a]
		for b := 0; b < k; b++ {
			s.hess[a*k+b] += ra * gv[b]
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// maxSimpleValues bounds the values of a simple group (margDerivs keeps them in a
// bit set).
const maxSimpleValues = 64

// Products of probabilities outside [prodMin, prodMax] are left to the log domain.
const (
	prodMin = 1e-250
	prodMax = 1e250
)

// margProduct is margLSE for a group of Categorical selections, in the probability
// domain: P_v = Π_e p_e(v) (the selected probability of each element at value v),
// log Σ_v P_v, responsibilities P_v / Σ P, and, for the active site, each element's
// ∂ log p = 1/p and ∂² = −1/p² in the coordinate it selects. Every call computes
// from the state (nothing is cached), so it cannot be stale. It reports false, having
// changed nothing, when a product leaves [prodMin, prodMax] (margLSE then works with
// logs).
func (s *scorer) margProduct(g *margGroup, deriv bool) (float64, bool) {
	nv, k := g.values, s.k
	if cap(s.margA) < nv {
		s.margA = make([]float64, nv)
	}
	prod := s.margA[:nv]
	for v := range prod {
		prod[v] = 1
	}
	x := s.x
	for pi := range g.prod {
		pe := &g.prod[pi]
		if pe.simple {
			j := int(pe.j0)
			for v := range prod {
				if v >= int(pe.lim) {
					prod[v] = 0
					continue
				}
				p := x[j]
				j += int(pe.jstep)
				if p > 0 && p <= math.MaxFloat64 {
					prod[v] *= p
				} else {
					prod[v] = 0
				}
			}
			continue
		}
		sel, e := pe.sel, int(pe.e)
		flat := int(sel.base[elem1(len(sel.base), e)])
		dead := false
		for d := range sel.dims {
			dm := &sel.dims[d]
			if int(dm.site[e]) == g.site {
				continue
			}
			v := s.siteValue(int(dm.site[e]))
			if !(v >= 0 && v < float64(dm.size)) || v != math.Trunc(v) {
				dead = true
				break
			}
			flat += dm.stride * int(v)
		}
		y := 0
		if !pe.own {
			yv := s.selValue(s.m.factors[pe.fi], e)
			if !(yv >= 0 && yv < float64(sel.k)) || yv != math.Trunc(yv) {
				dead = true
			}
			y = int(yv)
		}
		for v := range prod {
			f, c := flat, y
			if pe.own {
				c = v
				if v >= sel.k {
					prod[v] = 0
					continue
				}
			} else {
				if v >= int(pe.size) {
					prod[v] = 0
					continue
				}
				f += int(pe.step) * v
			}
			if dead {
				prod[v] = 0
				continue
			}
			p := s.x[sel.src.offset+f*sel.k+c]
			if !(p > 0) || math.IsInf(p, 1) {
				prod[v] = 0
				continue
			}
			prod[v] *= p
		}
	}
	sum := 0.0
	for _, p := range prod {
		if p != 0 && !(p >= prodMin && p <= prodMax) {
			return 0, false
		}
		sum += p
	}
	if sum == 0 {
		return math.Inf(-1), true
	}
	if !(sum >= prodMin && sum <= prodMax) {
		return 0, false
	}
	lse := math.Log(sum)
	if !deriv || s.active < 0 {
		return lse, true
	}
	// Derivatives: per value, the gradient and the diagonal Hessian of log P_v in the
	// active site's coordinates (only elements selecting the active site add).
	if len(s.margG) < nv*k {
		s.margG, s.margH = make([]float64, nv*k), make([]float64, nv*k*k)
		s.margBar = make([]float64, k)
	}
	gs, hd := s.margG[:nv*k], s.margH[:nv*k]
	clear(gs)
	clear(hd)
	touched := false
	for pi := range g.prod {
		pe := &g.prod[pi]
		if pe.simple {
			lo, hi, ok := pe.selecting(s.active, nv)
			if !ok {
				continue
			}
			for v := lo; v < hi; v++ {
				if prod[v] == 0 {
					continue
				}
				c := int(pe.c0) + v*int(pe.cstep)
				p := x[int(pe.j0)+v*int(pe.jstep)]
				gs[v*k+c] += 1 / p
				hd[v*k+c] -= 1 / (p * p)
				touched = true
			}
			continue
		}
		sel, e := pe.sel, int(pe.e)
		flat := int(sel.base[elem1(len(sel.base), e)])
		for d := range sel.dims {
			dm := &sel.dims[d]
			if int(dm.site[e]) != g.site {
				flat += dm.stride * int(s.siteValue(int(dm.site[e])))
			}
		}
		for v := range prod {
			if prod[v] == 0 {
				continue
			}
			f, c := flat, 0
			if pe.own {
				c = v
			} else {
				f += int(pe.step) * v
				c = int(s.selValue(s.m.factors[pe.fi], e))
			}
			if sel.src.site(f) != s.active {
				continue
			}
			p := s.x[sel.src.offset+f*sel.k+c]
			gs[v*k+c] += 1 / p
			hd[v*k+c] -= 1 / (p * p)
			touched = true
		}
	}
	if !touched {
		return lse, true
	}
	bar := s.margBar[:k]
	clear(bar)
	inv := 1 / sum
	for v, p := range prod {
		r := p * inv
		if r == 0 {
			continue
		}
		s.addResponsibility(r, gs[v*k:(v+1)*k], hd[v*k:(v+1)*k], bar)
	}
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			s.hess[a*k+b] -= bar[a] * bar[b]
		}
	}
	return lse, true
}

// margLSE returns log Σ_v exp(a_v) for summed-out group gi, a_v the summed log
// density of its elements with its site at value v, and with deriv adds the
// derivatives with respect to the active coordinates through the responsibilities
// to s.grad and s.hess; picks are the group's elements that select the active site
// (sitePicks; read only by a simple group's derivatives). Row batches must be
// flushed before it is called.
func (s *scorer) margLSE(gi int, deriv bool, picks []margPick) float64 {
	g := &s.m.marg[gi]
	if g.prod != nil && s.orbit == nil && s.fixSite == 0 {
		if f, ok := s.margProduct(g, deriv); ok {
			return f
		}
	}
	nv, k := g.values, s.k
	if cap(s.margA) < nv {
		s.margA = make([]float64, nv)
	}
	a := s.margA[:nv]
	if deriv && len(s.margG) < nv*k {
		s.margG, s.margH = make([]float64, nv*k), make([]float64, nv*k*k)
		s.margBar = make([]float64, k)
	}
	grad, hess := s.grad, s.hess
	top := math.Inf(-1)
	for v := range a {
		s.fix(g.site+1, float64(v))
		if deriv {
			s.grad, s.hess = s.margG[v*k:(v+1)*k], s.margH[v*k*k:(v+1)*k*k]
			clear(s.grad)
			clear(s.hess)
		}
		t := 0.0
		for _, en := range g.elems {
			t += s.factorElem(int(en.f), int(en.e), deriv, false)
			if math.IsInf(t, -1) || math.IsNaN(t) {
				break
			}
		}
		if deriv {
			if math.IsInf(t, -1) || math.IsNaN(t) {
				s.resetBatches()
			} else {
				s.flushBatches()
			}
		}
		a[v] = t
		if math.IsNaN(t) {
			top = t
		} else if !math.IsNaN(top) {
			top = max(top, t)
		}
	}
	s.fix(0, 0)
	s.grad, s.hess = grad, hess
	if math.IsNaN(top) || math.IsInf(top, -1) {
		return top
	}
	sum := 0.0
	for v, t := range a {
		a[v] = math.Exp(t - top)
		sum += a[v]
	}
	lse := top + math.Log(sum)
	if !deriv {
		return lse
	}
	// a now holds the unnormalised responsibilities.
	bar := s.margBar[:k]
	clear(bar)
	inv := 1 / sum
	for v, w := range a {
		r := w * inv
		if r == 0 {
			continue
		}
		gv, hv := s.margG[v*k:(v+1)*k], s.margH[v*k*k:(v+1)*k*k]
		for p := 0; p < k; p++ {
			s.grad[p] += r * gv[p]
			bar[p] += r * gv[p]
			c := r * gv[p]
			hp, vp := s.hess[p*k:(p+1)*k], hv[p*k:(p+1)*k]
			for q := 0; q < k; q++ {
				hp[q] += r*vp[q] + c*gv[q]
			}
		}
	}
	for p := 0; p < k; p++ {
		hp := s.hess[p*k : (p+1)*k]
		for q := 0; q < k; q++ {
			hp[q] -= bar[p] * bar[q]
		}
	}
	return lse
}

// margDiag is margDerivs when the picks are at increasing values (one per value: the
// group's own prior seen from the weights) and at least two of those values have
// P_v > 0: each ∇log P_v then has one non-zero entry, and the general case below is
// done without its k×k loops over zeros, in the same order. It reports false,
// having done nothing, otherwise.
func (s *scorer) margDiag(prod []float64, sum float64, picks []margPick) bool {
	live := 0
	for i, pk := range picks {
		if i > 0 && pk.v <= picks[i-1].v {
			return false
		}
		if prod[pk.v] != 0 {
			live++
		}
	}
	if live < 2 {
		return false
	}
	k, x := s.k, s.x
	bar := s.margBar[:k]
	clear(bar)
	inv := 1 / sum
	for _, pk := range picks {
		v, c := int(pk.v), int(pk.c)
		if prod[v] == 0 {
			continue
		}
		p := x[pk.j]
		g, h := 1/p, -(1 / (p * p))
		r := prod[v] * inv
		s.grad[c] += r * g
		bar[c] += r * g
		s.hess[c*k+c] += r * h
		ra := r * g
		s.hess[c*k+c] += ra * g
	}
	for a := 0; a < k; a++ {
		if bar[a] == 0 {
			continue
		}
		for b := 0; b < k; b++ {
			s.hess[a*k+b] -= bar[a] * bar[b]
		}
	}
	return true
}

// prodOK reports whether p is 0 or in [prodMin, prodMax]. For +0 and the positive
// floats the bit patterns are ordered as the values, so one unsigned comparison
// decides the common cases; of the rest only −0 is 0.
func prodOK(p float64) bool {
	b := math.Float64bits(p)
	return b-prodMinBits <= prodMaxBits-prodMinBits || b == 0 || p == 0
}

// accOK reports whether acc is in [accMin, accMax], by one unsigned comparison of
// its bits (as prodOK).
func accOK(acc float64) bool {
	return math.Float64bits(acc)-accMinBits <= accMaxBits-accMinBits
}

// The bit patterns of accMin and accMax (TestAccBits checks them).
const (
	accMinBits = 0x358dee7a4ad4b81f
	accMaxBits = 0x4a511b0ec57e649a
)

// The bit patterns of prodMin and prodMax (TestProdBits checks them).
const (
	prodMinBits = 0x0c06e93f5da2824c
	prodMaxBits = 0x73d658e3ab795204
)

// Renormalisation bounds of margSum's running product: with a factor in [prodMin,
// prodMax] = [1e-250, 1e250] and the product in [1e-50, 1e50] before it, the new
// product stays a normal float.
const (
	accMin = 1e-50
	accMax = 1e50
)

// ln2 in two parts (as in package math's Log): e·ln2Hi is exact for |e| < 2^20.
const (
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
)
