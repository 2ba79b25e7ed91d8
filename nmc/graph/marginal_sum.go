package graph

import (
	"math"

	"github.com/nmc-go/nmc/internal/simplexfit"
)

// margSum returns total plus log Σ_v exp(a_v) of every summed-out group in margs
// (margLSE), with deriv their derivatives; sp lists the groups of margs with the
// active site's picks (Model.margPicks, Model.allRefs), or is nil.
// Simple groups are scored here from the product cache, all in one loop: P_v is the
// cached product of the group at v (margEntry when stale) times its live elements,
// with the arithmetic of margProduct; the sums Σ_v P_v of all groups are multiplied
// together, as a fraction times a power of two (renormalised by math.Frexp when the
// product leaves [accMin, accMax]), and added with one log at the end, instead of
// one log per group: the same quantity to rounding, at a fraction of the cost (the
// log was a third of a Dawid-Skene sweep). A group with a product or a sum outside
// [prodMin, prodMax], and every group of an orbit score or of a score at a fixed
// value, goes through margLSE. It returns early with the first non-finite running
// total (−Inf or NaN), as a per-group sum would.
func (s *scorer) margSum(margs []int32, sp *sitePicks, deriv bool, total float64) float64 {
	if s.orbit != nil || s.fixSite != 0 || sp == nil {
		for _, gi := range margs {
			total += s.margLSE(int(gi), deriv, nil)
			if math.IsInf(total, -1) || math.IsNaN(total) {
				return total
			}
		}
		return total
	}
	refs, all := sp.refs, sp.picks
	s.margSync()
	x, cp, liveProd := s.x, s.mc.p, s.m.liveProd
	var buf [maxSimpleValues]float64
	// With live elements shared by every simple group, tab[e·nv + v] holds the value
	// of live element e at v, or 0 where the per-group loop below would set P_v to 0
	// (the same products: p·0 = 0 for the finite p ≥ 0 that reach it).
	shared, tn := s.m.sharedLive, s.m.sharedValues
	var tab []float64
	if shared != nil {
		tab = s.liveTable(shared, tn)
	}
	if len(shared) == 1 {
		if sp.dense && sp.uniform {
			return s.margSumDense(sp, tab, deriv, total)
		}
		if sp.one != nil && deriv && s.active >= 0 {
			return s.margSumOne(sp, tab, total)
		}
		return s.margSumLive1(refs, all, tab, deriv, total)
	}
	acc, expo := 1.0, 0
	for n := 0; n+1 < len(refs); n++ {
		r := &refs[n]
		pk := all[r.at:refs[n+1].at]
		if r.pOff >= 0 {
			nv, pOff := int(r.values), int(r.pOff)
			prod := buf[:nv]
			live := liveProd[r.liveLo:r.liveHi]
			sum, ok := 0.0, true
			for v := range prod {
				p := cp[pOff+v] // NaN when out of range
				if tab != nil {
					for e := range shared {
						p *= tab[e*tn+v]
					}
					live = nil
				}
				for _, pe := range live {
					if v >= int(pe.lim) {
						p = 0
						break
					}
					if q := x[int(pe.j0)+v*int(pe.jstep)]; q > 0 && q <= math.MaxFloat64 {
						p *= q
					} else {
						p = 0
						break
					}
				}
				if p != 0 && !(p >= prodMin && p <= prodMax) {
					ok = false
					break
				}
				prod[v] = p
				sum += p
			}
			if ok && (sum == 0 || sum >= prodMin && sum <= prodMax) {
				if sum == 0 {
					return math.Inf(-1)
				}
				switch {
				case !deriv || s.active < 0 || len(pk) == 0:
				case len(pk) == 1 && prod[pk[0].v] != 0:
					// One element selects the active site, at one value v and
					// coordinate c (a label seen from its labeler's confusion row):
					// margDerivs's one-value case with one non-zero entry, the same
					// arithmetic.
					v, c, k := int(pk[0].v), int(pk[0].c), s.k
					p := x[pk[0].j]
					ga, ha := 1/p, -(1 / (p * p))
					inv := 1 / sum
					r := prod[v] * inv
					w := r * (1 - r)
					s.grad[c] += r * ga
					s.hess[c*k+c] += r * ha
					s.hess[c*k+c] += w * ga * ga
				default:
					s.margDerivs(prod, sum, pk)
				}
				acc *= sum
				if !(acc >= accMin && acc <= accMax) {
					frac, e := math.Frexp(acc)
					acc, expo = frac, expo+e
				}
				continue
			}
		}
		total += s.margLSE(int(r.gi), deriv, pk)
		if math.IsInf(total, -1) || math.IsNaN(total) {
			return total
		}
	}
	return addLogScaled(total, acc, expo)
}

// margSumLive1 is margSum's loop over the groups refs (with their picks all) when
// the simple groups share one live element (a mixture's weights), whose value at v
// is t[v] (0 where margSum's loop sets P_v to 0): P_v = cached product · t[v], with
// the arithmetic of margSum in the same order, so that the results are the same bit
// for bit; only the bookkeeping per group is leaner.
func (s *scorer) margSumLive1(refs []margRef, all []margPick, t []float64, deriv bool, total float64) float64 {
	x, cp := s.x, s.mc.p
	var buf [maxSimpleValues]float64
	derivs := deriv && s.active >= 0
	k := s.k
	acc, expo := 1.0, 0
	for n := 0; n+1 < len(refs); n++ {
		r := &refs[n]
		at, end := r.at, refs[n+1].at
		if r.pOff >= 0 {
			nv, pOff := int(r.values), int(r.pOff)
			cs, ts := cp[pOff:pOff+nv], t[:nv]
			prod := buf[:nv]
			sum, ok := 0.0, true
			for v, p := range cs {
				p *= ts[v] // NaN when out of range
				if !prodOK(p) {
					ok = false
					break
				}
				prod[v] = p
				sum += p
			}
			if ok && prodOK(sum) {
				if sum == 0 {
					return math.Inf(-1)
				}
				if derivs && end > at {
					pk := all[at:end]
					if v := int(pk[0].v); len(pk) == 1 && prod[v] != 0 {
						// margSum's one-pick case, the same arithmetic.
						c := int(pk[0].c)
						p := x[pk[0].j]
						ga, ha := 1/p, -(1 / (p * p))
						inv := 1 / sum
						r := prod[v] * inv
						w := r * (1 - r)
						s.grad[c] += r * ga
						s.hess[c*k+c] += r * ha
						s.hess[c*k+c] += w * ga * ga
					} else {
						s.margDerivs(prod, sum, pk)
					}
				}
				acc *= sum
				if !accOK(acc) {
					frac, e := math.Frexp(acc)
					acc, expo = frac, expo+e
				}
				continue
			}
		}
		total += s.margLSE(int(r.gi), deriv, all[at:end])
		if math.IsInf(total, -1) || math.IsNaN(total) {
			return total
		}
	}
	return addLogScaled(total, acc, expo)
}

// margSumDense is margSumLive1 for dense groups with uniform picks (sitePicks): the
// groups' entries are read by position, and the derivatives of the picks' ∂log p =
// 1/p and ∂² = −1/p², the same for every group, are computed once. The arithmetic
// is margSumLive1's (and margDiag's) in the same order: the same results bit for bit.
func (s *scorer) margSumDense(sp *sitePicks, t []float64, deriv bool, total float64) float64 {
	refs := sp.refs
	ng, nv := len(refs)-1, int(sp.nv)
	base := int(refs[0].pOff)
	cp := s.mc.p[base : base+ng*nv]
	ts := t[:nv]
	k := s.k
	var pk []margPick
	var gh [2 * maxSimpleValues]float64 // per pick: 1/p, −1/p²
	if deriv && s.active >= 0 {
		pk = sp.picks[refs[0].at:refs[1].at]
		if len(pk) > maxSimpleValues {
			return s.margSumLive1(refs, sp.picks, t, deriv, total)
		}
		if len(s.margG) < nv*k {
			s.margG, s.margH = make([]float64, nv*k), make([]float64, nv*k*k)
			s.margBar = make([]float64, k)
		}
		for i, p := range pk {
			q := s.x[p.j]
			gh[2*i], gh[2*i+1] = 1/q, -(1 / (q * q))
		}
	}
	lo, hi, ok := s.margBounds()
	inRange := ok && productsInRange(lo, hi, ts)
	if len(pk) == 0 {
		return s.margSumDenseValue(sp, cp, ts, inRange, deriv, total)
	}
	if nv == 3 && k == 3 && len(pk) == 3 && sp.diag {
		tri := true
		for i, p := range pk {
			tri = tri && int(p.v) == i && int(p.c) == i
		}
		if tri {
			return s.margSumDense3(sp, cp, ts, &gh, inRange, total)
		}
	}
	var buf [maxSimpleValues]float64
	acc, expo := 1.0, 0
	for n := 0; n < ng; n++ {
		cs := cp[n*nv : (n+1)*nv]
		prod := buf[:nv]
		sum, ok := 0.0, true
		for v, p := range cs {
			p *= ts[v] // NaN when out of range
			if !prodOK(p) {
				ok = false
				break
			}
			prod[v] = p
			sum += p
		}
		if !ok || !prodOK(sum) {
			total += s.margLSE(int(refs[n].gi), deriv, sp.picks[refs[n].at:refs[n+1].at])
			if math.IsInf(total, -1) || math.IsNaN(total) {
				return total
			}
			continue
		}
		if sum == 0 {
			return math.Inf(-1)
		}
		switch {
		case len(pk) == 0:
		case len(pk) == 1 && prod[pk[0].v] != 0:
			v, c := int(pk[0].v), int(pk[0].c)
			ga, ha := gh[0], gh[1]
			inv := 1 / sum
			r := prod[v] * inv
			w := r * (1 - r)
			s.grad[c] += r * ga
			s.hess[c*k+c] += r * ha
			s.hess[c*k+c] += w * ga * ga
		case sp.diag && s.diagLive(prod, pk):
			bar := s.margBar[:k]
			clear(bar)
			inv := 1 / sum
			for i, p := range pk {
				v, c := int(p.v), int(p.c)
				if prod[v] == 0 {
					continue
				}
				g, h := gh[2*i], gh[2*i+1]
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
		default:
			s.margDerivs(prod, sum, pk)
		}
		acc *= sum
		if !accOK(acc) {
			frac, e := math.Frexp(acc)
			acc, expo = frac, expo+e
		}
	}
	return addLogScaled(total, acc, expo)
}

// margSumOne is margSumLive1 with derivatives for groups that each have one pick
// (sitePicks.one): the picks' 1/p and −1/p² are computed once per coordinate of the
// active site, and the groups are read from one compact list. The arithmetic is
// margSumLive1's in the same order: the same results bit for bit.
func (s *scorer) margSumOne(sp *sitePicks, t []float64, total float64) float64 {
	k := s.k
	var gInv, hInv [maxSimpleValues]float64
	if k > maxSimpleValues {
		return s.margSumLive1(sp.refs, sp.picks, t, true, total)
	}
	for c, p := range s.x[s.base : s.base+k] {
		gInv[c], hInv[c] = 1/p, -(1 / (p * p))
	}
	cp := s.mc.p
	grad, hess := s.grad[:k], s.hess[:k*k]
	acc, expo := 1.0, 0
	for n, o := range sp.one {
		nv, pOff := int(o.values), int(o.pOff)
		var sum, pv float64
		ok := true
		if nv == 3 && len(t) >= 3 {
			// Three values (three classes), unrolled: the same arithmetic.
			cs := cp[pOff : pOff+3 : pOff+3]
			p0, p1, p2 := cs[0]*t[0], cs[1]*t[1], cs[2]*t[2]
			ok = prodOK(p0) && prodOK(p1) && prodOK(p2)
			sum = p0 + p1 + p2
			switch o.v {
			case 0:
				pv = p0
			case 1:
				pv = p1
			default:
				pv = p2
			}
		} else {
			cs, ts := cp[pOff:pOff+nv], t[:nv]
			sum = 0.0
			for v, p := range cs {
				p *= ts[v] // NaN when out of range
				if !prodOK(p) {
					ok = false
					break
				}
				if v == int(o.v) {
					pv = p
				}
				sum += p
			}
		}
		if !ok || !prodOK(sum) {
			total += s.margLSE(int(sp.refs[n].gi), true, sp.of(n))
			if math.IsInf(total, -1) || math.IsNaN(total) {
				return total
			}
			continue
		}
		if sum == 0 {
			return math.Inf(-1)
		}
		// margSumLive1's one-pick case; with P_v = 0 its margDerivs adds nothing.
		if pv != 0 {
			c := int(o.c)
			ga, ha := gInv[c], hInv[c]
			inv := 1 / sum
			r := pv * inv
			w := r * (1 - r)
			grad[c] += r * ga
			hess[c*k+c] += r * ha
			hess[c*k+c] += w * ga * ga
		}
		acc *= sum
		if !accOK(acc) {
			frac, e := math.Frexp(acc)
			acc, expo = frac, expo+e
		}
	}
	return addLogScaled(total, acc, expo)
}

// margSumDense3 is margSumDense for groups of three values whose picks select
// coordinate v of a three-coordinate active site at each value v (the weights of a
// three-component mixture), unrolled, with margDiag's ḡ in registers: the same
// arithmetic in the same order, so the same results bit for bit. gh holds the
// picks' 1/p and −1/p²; inRange: every product and sum is known to be 0 or in
// [prodMin, prodMax] (productsInRange), so their checks are skipped.
func (s *scorer) margSumDense3(sp *sitePicks, cp, ts []float64, gh *[2 * maxSimpleValues]float64, inRange bool, total float64) float64 {
	refs := sp.refs
	grad, hess := s.grad[:3], s.hess[:9]
	t0, t1, t2 := ts[0], ts[1], ts[2]
	g0, h0, g1, h1, g2, h2 := gh[0], gh[1], gh[2], gh[3], gh[4], gh[5]
	acc, expo := 1.0, 0
	for n := 0; n+3 <= len(cp); n += 3 {
		cs := cp[n : n+3 : n+3]
		p0, p1, p2 := cs[0]*t0, cs[1]*t1, cs[2]*t2
		sum := p0 + p1 + p2
		if !inRange && !(prodOK(p0) && prodOK(p1) && prodOK(p2) && prodOK(sum)) {
			g := n / 3
			r := &refs[g]
			total += s.margLSE(int(r.gi), true, sp.picks[r.at:refs[g+1].at])
			if math.IsInf(total, -1) || math.IsNaN(total) {
				return total
			}
			continue
		}
		if sum == 0 {
			return math.Inf(-1)
		}
		if btoi(p0 != 0)+btoi(p1 != 0)+btoi(p2 != 0) < 2 {
			prod := [3]float64{p0, p1, p2}
			s.margDerivs(prod[:], sum, sp.picks[refs[0].at:refs[1].at])
		} else {
			inv := 1 / sum
			var b0, b1, b2 float64 // ḡ: r·g of each value, 0 where P_v = 0
			if p0 != 0 {
				r := p0 * inv
				grad[0] += r * g0
				b0 = r * g0
				hess[0] += r * h0
				hess[0] += b0 * g0
			}
			if p1 != 0 {
				r := p1 * inv
				grad[1] += r * g1
				b1 = r * g1
				hess[4] += r * h1
				hess[4] += b1 * g1
			}
			if p2 != 0 {
				r := p2 * inv
				grad[2] += r * g2
				b2 = r * g2
				hess[8] += r * h2
				hess[8] += b2 * g2
			}
			if b0 != 0 {
				hess[0] -= b0 * b0
				hess[1] -= b0 * b1
				hess[2] -= b0 * b2
			}
			if b1 != 0 {
				hess[3] -= b1 * b0
				hess[4] -= b1 * b1
				hess[5] -= b1 * b2
			}
			if b2 != 0 {
				hess[6] -= b2 * b0
				hess[7] -= b2 * b1
				hess[8] -= b2 * b2
			}
		}
		acc *= sum
		if !accOK(acc) {
			frac, e := math.Frexp(acc)
			acc, expo = frac, expo+e
		}
	}
	return addLogScaled(total, acc, expo)
}

// margSumDenseValue is margSumDense without picks (the value alone: a lead move's
// score, the log joint): cp holds the groups' cached products, ts the live values;
// inRange: every product and sum is known to be 0 or in [prodMin, prodMax]
// (productsInRange), so their checks are skipped.
func (s *scorer) margSumDenseValue(sp *sitePicks, cp, ts []float64, inRange, deriv bool, total float64) float64 {
	nv := len(ts)
	acc, expo := 1.0, 0
	if inRange && nv == 3 {
		// The loop below without its checks, which would all pass: the same sums.
		t0, t1, t2 := ts[0], ts[1], ts[2]
		for n := 0; n+3 <= len(cp); n += 3 {
			cs := cp[n : n+3 : n+3]
			p0, p1, p2 := cs[0]*t0, cs[1]*t1, cs[2]*t2
			sum := p0 + p1 + p2
			if sum == 0 {
				return math.Inf(-1)
			}
			acc *= sum
			if !accOK(acc) {
				frac, e := math.Frexp(acc)
				acc, expo = frac, expo+e
			}
		}
		return addLogScaled(total, acc, expo)
	}
	for n := 0; n+nv <= len(cp); n += nv {
		cs := cp[n : n+nv : n+nv]
		sum, ok := 0.0, true
		if nv == 3 {
			// Three values (three classes), unrolled: the same arithmetic.
			p0, p1, p2 := cs[0]*ts[0], cs[1]*ts[1], cs[2]*ts[2]
			ok = prodOK(p0) && prodOK(p1) && prodOK(p2)
			sum = p0 + p1 + p2
		} else {
			for v, p := range cs {
				p *= ts[v] // NaN when out of range
				if !prodOK(p) {
					ok = false
					break
				}
				sum += p
			}
		}
		if !ok || !prodOK(sum) {
			g := n / nv
			r := &sp.refs[g]
			total += s.margLSE(int(r.gi), deriv, sp.picks[r.at:sp.refs[g+1].at])
			if math.IsInf(total, -1) || math.IsNaN(total) {
				return total
			}
			continue
		}
		if sum == 0 {
			return math.Inf(-1)
		}
		acc *= sum
		if !accOK(acc) {
			frac, e := math.Frexp(acc)
			acc, expo = frac, expo+e
		}
	}
	return addLogScaled(total, acc, expo)
}

// diagLive reports whether at least two of the picks are at values v with P_v > 0
// (margDiag's condition, the picks being at increasing values).
func (s *scorer) diagLive(prod []float64, picks []margPick) bool {
	live := 0
	for _, p := range picks {
		if prod[p.v] != 0 {
			live++
		}
	}
	return live >= 2
}

// steerSimplex steers the Hessian of simplex site i, whose score reads summed-out
// groups, for the Dirichlet proposer (see Builder.Marginalise).
func (s *scorer) steerSimplex(x []float64, i int) {
	k := s.k
	if len(s.steerScratch) < simplexfit.ScratchLen(k) {
		s.steerScratch = make([]float64, simplexfit.ScratchLen(k))
	}
	simplexfit.SteerHessian(s.hess, s.grad, x[s.base:s.base+k], k, s.steerScratch)
}

// addLogScaled returns total + log(acc·2^expo), the log of a running product kept
// as a fraction acc and a binary exponent expo (total itself when the product is 1).
func addLogScaled(total, acc float64, expo int) float64 {
	if acc == 1 && expo == 0 {
		return total
	}
	e := float64(expo)
	return total + (math.Log(acc) + e*ln2Lo + e*ln2Hi)
}
