package dist

import "math"

// By-rows evaluation of OrderedLogistic (RowsDeriver, SharedRowsDeriver): an
// ordinal regression's rows share the cutpoints, so the terms that depend on the
// cutpoints only are computed once per call — e^{c_j}, and for each inner
// category the factor 1 − e^{c_{j−1}−c_j} of its probability with its derivative
// terms — and a row costs one exponential, e^{−η}, and one logarithm: with
// u = e^{c_{j−1}−η} = e^{−a} and v = e^{c_j−η} = e^{−b}, σ(a) = 1/(1 + u),
// σ(−a) = u/(1 + u), σ(b) = 1/(1 + v) and σ(−b) = v/(1 + v), each to full relative
// accuracy (ordLogisticTerms takes one exponential per sigmoid and one for the
// inner factor). The rows' probabilities are multiplied, and the logarithm taken of
// the product only when it nears underflow (logProd), so that a call takes about one
// logarithm per few hundred rows. Rows whose η or cutpoints are too large in
// magnitude for these products to stay normal, and rows whose probability is not a
// normal number, are evaluated by ordLogisticTerms.

// ordRowsMaxCuts is the most cutpoints a by-rows call takes (more: ok = false).
const ordRowsMaxCuts = 32

// ordRowsBound bounds |η| and |c_j| in the by-rows formulas: e^{±c}, e^{±η} and
// their products u and v then lie in [e^{−340}, e^{340}], normal and finite.
const ordRowsBound = 170

// ordCuts holds the cutpoint terms of one by-rows call.
type ordCuts struct {
	k      int
	c, ec  [ordRowsMaxCuts]float64 // c_j and e^{c_j}
	em     [ordRowsMaxCuts]float64 // category j (1 … k−2): e^{c_{j−1}−c_j} − 1
	w, ww  [ordRowsMaxCuts]float64 // category j: w = 1/(e^{c_j−c_{j−1}} − 1) and w(1 + w)
	bounds bool                    // every |c_j| ≤ ordRowsBound
}

// set computes the terms of cutpoints c (k − 1 of them); false if there are too
// many or they are not finite and strictly increasing (the caller then evaluates
// row by row, where Derivs says which rows that makes invalid).
func (oc *ordCuts) set(c []float64, k int) bool {
	if k < 2 || len(c) != k-1 || len(c) > ordRowsMaxCuts {
		return false
	}
	oc.k, oc.bounds = k, true
	for j, cj := range c {
		if !finite(cj) || j > 0 && !(c[j-1] < cj) {
			return false
		}
		oc.c[j], oc.ec[j] = cj, math.Exp(cj)
		oc.bounds = oc.bounds && math.Abs(cj) <= ordRowsBound
		if j > 0 {
			em := math.Expm1(c[j-1] - cj)
			w := -(1 + em) / em
			oc.em[j], oc.w[j], oc.ww[j] = em, w, w*(1+w)
		}
	}
	return true
}

// row adds to sum the log probability of category j (valid) at a finite η and
// returns ordLogisticTerms' derivatives in a and b.
func (oc *ordCuts) row(sum *logProd, j int, eta float64) (da, db, daa, dab, dbb float64) {
	lower, upper := j > 0, j < oc.k-1
	if !oc.bounds || math.Abs(eta) > ordRowsBound {
		return oc.terms(sum, j, eta)
	}
	e := math.Exp(-eta)
	p := 1.0
	if lower {
		u := oc.ec[j-1] * e
		sa := 1 / (1 + u)
		sna := u * sa
		p *= sa
		da, daa = sna, -sa*sna
	}
	if upper {
		v := oc.ec[j] * e
		sb := 1 / (1 + v)
		snb := v * sb
		p *= snb
		db, dbb = -sb, -sb*snb
	}
	if lower && upper {
		p *= -oc.em[j]
		w, ww := oc.w[j], oc.ww[j]
		da += w
		db -= w
		daa -= ww
		dbb -= ww
		dab = ww
	}
	if p < minNormal {
		return oc.terms(sum, j, eta)
	}
	sum.mul(p)
	return da, db, daa, dab, dbb
}

// terms is row by ordLogisticTerms, as Derivs evaluates a row.
func (oc *ordCuts) terms(sum *logProd, j int, eta float64) (da, db, daa, dab, dbb float64) {
	lower, upper := j > 0, j < oc.k-1
	var a, b, ba float64
	if lower {
		a = eta - oc.c[j-1]
	}
	if upper {
		b = eta - oc.c[j]
	}
	if lower && upper {
		ba = oc.c[j-1] - oc.c[j]
	}
	lp, da, db, daa, dab, dbb := ordLogisticTerms(lower, upper, a, b, ba)
	sum.log += lp
	return da, db, daa, dab, dbb
}

// logProd sums logarithms of probabilities by multiplying them, taking the
// logarithm of the product when it falls below 2⁻⁶⁶⁴ (≈ 10⁻²⁰⁰); a probability
// below 2⁻³³² is taken in logarithms at once, so the product stays a normal number.
// The zero logProd is not ready: start from newLogProd.
type logProd struct {
	log, prod float64
}

func newLogProd() logProd { return logProd{prod: 1} }

// mul adds log p, for p in (0, 1].
func (l *logProd) mul(p float64) {
	if p < 0x1p-332 {
		l.log += math.Log(p)
		return
	}
	l.prod *= p
	if l.prod < 0x1p-664 {
		l.log += math.Log(l.prod)
		l.prod = 1
	}
}

// total returns the sum of the logarithms added.
func (l *logProd) total() float64 { return l.log + math.Log(l.prod) }

// category returns y's category, or false if y is not one of k.
func category(y float64, k int) (int, bool) {
	if !isInt(y) || y < 0 || y >= float64(k) {
		return 0, false
	}
	return int(y), true
}

var (
	_ RowsDeriver       = OrderedLogistic{}
	_ SharedRowsDeriver = OrderedLogistic{}
)

// DerivsRows evaluates rows whose η is v[r] (vary = 1) and whose cutpoints are
// shared, with derivatives in η (wrt = 1) or in one cutpoint (wrt = 2 + i for c_i);
// see RowsDeriver.
func (OrderedLogistic) DerivsRows(x, v, args []float64, k, vary, wrt int, d1, d2 []float64, _ *Memo) (float64, bool) {
	deriv := d1 != nil && d2 != nil
	if vary != 1 || len(args) != k+1 || (deriv && (wrt < 1 || wrt > k)) {
		return 0, false
	}
	var oc ordCuts
	if !oc.set(args[2:], k) {
		return 0, false
	}
	if !deriv {
		return oc.rows(x, v, func(int, int, float64, float64, float64, float64, float64) {}), true
	}
	return oc.rows(x, v, func(r, j int, da, db, daa, dab, dbb float64) {
		switch wrt {
		case 1:
			d1[r], d2[r] = da+db, daa+2*dab+dbb
		case 1 + j: // c_{j−1}, the lower cut
			d1[r], d2[r] = -da, daa
		case 2 + j: // c_j, the upper cut
			d1[r], d2[r] = -db, dbb
		default:
			d1[r], d2[r] = 0, 0
		}
	}), true
}

// rows sums the log probabilities of rows x (categories) at η = v and calls
// each with the row's index r, its category j and its derivatives in a and b
// (ordLogisticTerms); −Inf, without further calls, at a row that is not a category
// or whose η is not finite.
func (oc *ordCuts) rows(x, v []float64, each func(r, j int, da, db, daa, dab, dbb float64)) float64 {
	total := newLogProd()
	for r, y := range x {
		j, ok := category(y, oc.k)
		if !ok || !finite(v[r]) {
			return negInf
		}
		da, db, daa, dab, dbb := oc.row(&total, j, v[r])
		each(r, j, da, db, daa, dab, dbb)
	}
	return total.total()
}

// DerivsSharedRows sums the rows' derivatives in η and the cutpoints whose bits are
// set in wrt (vary = 1: η is v[r]); see SharedRowsDeriver.
func (OrderedLogistic) DerivsSharedRows(x, v, args []float64, k, vary int, wrt uint64, g1, g2 []float64, _ *Memo) (float64, bool) {
	n := k + 1
	if vary != 1 || len(args) != n || wrt == 0 || wrt&1 != 0 || n >= 64 || wrt>>uint(n) != 0 {
		return 0, false
	}
	var oc ordCuts
	if !oc.set(args[2:], k) {
		return 0, false
	}
	has := func(a int) bool { return wrt&(1<<uint(a)) != 0 }
	add := func(a, b int, h float64) {
		if has(a) && has(b) {
			g2[a*n+b] += h
			if a != b {
				g2[b*n+a] += h
			}
		}
	}
	return oc.rows(x, v, func(_, j int, da, db, daa, dab, dbb float64) {
		lo, up := 1+j, 2+j // the argument indices of c_{j−1} and c_j
		if has(1) {
			g1[1] += da + db
		}
		add(1, 1, daa+2*dab+dbb)
		if j > 0 {
			if has(lo) {
				g1[lo] -= da
			}
			add(1, lo, -(daa + dab))
			add(lo, lo, daa)
		}
		if j < k-1 {
			if has(up) {
				g1[up] -= db
			}
			add(1, up, -(dab + dbb))
			add(up, up, dbb)
		}
		if j > 0 && j < k-1 {
			add(lo, up, dab)
		}
	}), true
}
