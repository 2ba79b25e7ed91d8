package graph

import "math"

// jointFast is JointGrad's fast path (see jointPlan). It reports false, having
// written nothing useful, when a coordinate the pass reads is not in (0,
// MaxFloat64] (JointGrad then takes the general path) or, returning NaN, when a
// product of the table's groups could leave [prodMin, prodMax] (JointGrad then
// declines); else it returns 0, or −Inf (or NaN) when a site's score does.
func (s *scorer) jointFast(p *jointPlan, x []float64, sites []int, grad []float64, value bool) (float64, bool) {
	m := s.m
	if len(s.jointCnt) < m.dim {
		s.jointCnt = make([]float64, m.dim)
	}
	if len(s.jointTab) < len(p.rows) {
		s.jointTab = make([][8]float64, len(p.rows))
	}
	if len(s.jointNorm) < p.groups {
		s.jointNorm = make([]float64, p.groups)
	}
	cnt, tab := s.jointCnt[:m.dim], s.jointTab[:len(p.rows)]
	norm := s.jointNorm[:p.groups] // each group's Σ_v P_gv, bucket by bucket, then long
	// The shared live elements' product at each value, t[v]; then the table, and the
	// least and largest coordinate it holds.
	var t, sv [maxSimpleValues]float64
	nt := max(p.nShared, 3)
	for v := range nt {
		t[v] = 1
	}
	for _, pe := range p.shared {
		for v := range p.nShared {
			if v >= int(pe.lim) {
				t[v] = 0
				continue
			}
			q := x[int(pe.j0)+v*int(pe.jstep)]
			if !positiveBits(q) {
				return 0, false
			}
			t[v] *= q
		}
	}
	// The bits of floats ≥ +0 are ordered as the floats, and those of −0, negative
	// numbers and NaN are above every positive finite one's: the least and largest
	// bits of the coordinates tell both their bounds and whether all are in (0,
	// MaxFloat64].
	loBits, hiBits := uint64(math.MaxUint64), uint64(0)
	for r, row := range p.rows {
		j, st := int(row.j), int(row.step)
		q0, q1, q2 := x[j], x[j+st], x[j+2*st]
		b0, b1, b2 := math.Float64bits(q0), math.Float64bits(q1), math.Float64bits(q2)
		loBits, hiBits = min(loBits, min(b0, b1, b2)), max(hiBits, max(b0, b1, b2))
		e := &tab[r]
		e[0], e[1], e[2] = q0, q1, q2
		e[4], e[5], e[6] = 0, 0, 0
	}
	if len(p.rows) > 0 && (loBits == 0 || hiBits > maxPositiveBits) {
		return 0, false
	}
	lo, hi := math.Float64frombits(loBits), math.Float64frombits(hiBits)
	t0, t1, t2 := t[0], t[1], t[2]
	if len(p.rows) > 0 || p.none > 0 {
		// Every product of the table's groups is t_v times 1 … maxRows rows, each
		// coordinate in [lo, hi]: rounding is monotone, so the products of the
		// bounds bound the products (to a few ulps: the pass multiplies in another
		// order, (t·a)·(b·c)…), and the sums are at most 3 times the largest.
		// Within [prodMin, prodMax/6] every responsibility is exact to rounding.
		if !(t0 > 0 && t1 > 0 && t2 > 0) {
			return 0, false
		}
		blo, bhi := min(t0, t1, t2), max(t0, t1, t2)
		okRange := blo >= prodMin && bhi <= prodMax/6
		for range p.maxRows {
			blo, bhi = blo*lo, bhi*hi
			okRange = okRange && blo >= prodMin && bhi <= prodMax/6
		}
		if !okRange {
			return math.NaN(), false // declined (nmc.JointGradienter)
		}
	}
	var s0, s1, s2 float64 // the shared elements' expected counts at values 0, 1, 2
	if p.none > 0 {
		inv := p.none / (t0 + t1 + t2)
		s0, s1, s2 = t0*inv, t1*inv, t2*inv
	}
	// The groups, bucket by bucket (each loop in a function of its own, so that
	// its values stay in registers).
	t3 := [3]float64{t0, t1, t2}
	var r0, r1, r2 float64
	for n := 1; n <= 6; n++ {
		mult := p.mult[n]
		switch n {
		case 1:
			r0, r1, r2 = jointRows1(tab, p.rows1, mult, norm[:len(mult)], &t3, value)
		case 2:
			r0, r1, r2 = jointRows2(tab, p.rows2, mult, norm[:len(mult)], &t3, value)
		case 3:
			r0, r1, r2 = jointRows3(tab, p.rows3, mult, norm[:len(mult)], &t3, value)
		case 4:
			r0, r1, r2 = jointRows4(tab, p.rows4, mult, norm[:len(mult)], &t3, value)
		case 5:
			r0, r1, r2 = jointRows5(tab, p.rows5, mult, norm[:len(mult)], &t3, value)
		case 6:
			r0, r1, r2 = jointRows6(tab, p.rows6, mult, norm[:len(mult)], &t3, value)
		}
		s0, s1, s2 = s0+r0, s1+r1, s2+r2
		norm = norm[len(mult):]
	}
	for _, l := range p.long {
		r0, r1, r2 = jointRowsLong(tab, l.n, l.rows, l.mult, norm[:len(l.mult)], &t3, value)
		s0, s1, s2 = s0+r0, s1+r1, s2+r2
		norm = norm[len(l.mult):]
	}
	sv[0], sv[1], sv[2] = s0, s1, s2
	// The table's counts into the coordinates' (every count of cnt is 0 here, or
	// with rowsOwn every count of clear).
	if p.rowsOwn {
		for r, row := range p.rows {
			e := &tab[r]
			j, st := int(row.j), int(row.step)
			cnt[j] = e[4]
			cnt[j+st] = e[5]
			cnt[j+2*st] = e[6]
		}
	} else {
		for r, row := range p.rows {
			e := &tab[r]
			j, st := int(row.j), int(row.step)
			cnt[j] += e[4]
			cnt[j+st] += e[5]
			cnt[j+2*st] += e[6]
		}
	}
	logOther := 0.0
	if len(p.other) > 0 {
		var ok bool
		if logOther, ok = s.jointOther(p, x, t[:p.nShared], sv[:], cnt, value); !ok {
			s.jointClear(p, cnt)
			return 0, false
		}
	}
	for _, pe := range p.shared {
		for v := 0; v < p.nShared && v < int(pe.lim); v++ {
			cnt[int(pe.j0)+v*int(pe.jstep)] += sv[v]
		}
	}
	// Each site's gradient: its prior's, or its score's without the summed-out
	// groups, plus its coordinates' expected counts over their values.
	// Consecutive priorOnly sites whose coordinates follow one another in x (all
	// of Dawid-Skene's) are taken together.
	f := 0.0
	at := 0
	for si := 0; si < len(sites); si++ {
		i := sites[si]
		site := &m.sites[i]
		k, off := site.Size, m.offsets[i]
		if p.priorOnly[i] {
			for si+1 < len(sites) {
				next := sites[si+1]
				if !p.priorOnly[next] || m.offsets[next] != off+k {
					break
				}
				k += m.sites[next].Size
				si++
			}
		}
		g := grad[at : at+k]
		at += k
		switch {
		case p.priorOnly[i]:
			if !jointPriorGrad(g, p.priorC[off:off+k], x[off:off+k], cnt[off:off+k]) {
				f = math.Inf(-1)
			}
		case p.siteFast[i]:
			if sf := s.score(x, i, g, s.jointHess(k), false); math.IsInf(sf, 0) || math.IsNaN(sf) {
				f = sf
			}
			for c, cn := range cnt[off : off+k] {
				if cn != 0 {
					g[c] += cn / x[off+c]
				}
			}
		default:
			if sf := s.score(x, i, g, s.jointHess(k), true); math.IsInf(sf, 0) || math.IsNaN(sf) {
				f = sf
			}
		}
		if f != 0 {
			break
		}
	}
	s.jointClear(p, cnt)
	if !value || f != 0 {
		return f, true
	}
	return s.jointValue(p, x, t0+t1+t2, logOther), true
}

// jointRows1 is jointFast's pass over the groups of one row of the table: rows b,
// multiplicities mult, shared products t. It adds each group's responsibilities
// times its multiplicity to its rows' expected counts, writes its sum into nb
// when value, and returns the responsibilities' sums at values 0, 1, 2. The
// products are taken as (t·a)·(b·c)·(d·e)…, a short chain.
func jointRows1(tab [][8]float64, b []int32, mult, nb []float64, t *[3]float64, value bool) (s0, s1, s2 float64) {
	t0, t1, t2 := t[0], t[1], t[2]
	mult, nb = mult[:len(b)], nb[:len(b)]
	for g, r := range b {
		e := &tab[r]
		w0, w1, w2 := t0*e[0], t1*e[1], t2*e[2]
		sum := w0 + w1 + w2
		if value {
			nb[g] = sum
		}
		inv := mult[g] / sum
		w0, w1, w2 = w0*inv, w1*inv, w2*inv
		s0, s1, s2 = s0+w0, s1+w1, s2+w2
		addRowCounts(e, w0, w1, w2)
	}
	return s0, s1, s2
}

// jointRows2 is jointRows1 for the groups of two rows.
func jointRows2(tab [][8]float64, b [][2]int32, mult, nb []float64, t *[3]float64, value bool) (s0, s1, s2 float64) {
	t0, t1, t2 := t[0], t[1], t[2]
	mult, nb = mult[:len(b)], nb[:len(b)]
	for g := range b {
		rs := &b[g]
		ea, eb := &tab[rs[0]], &tab[rs[1]]
		w0 := (t0 * ea[0]) * eb[0]
		w1 := (t1 * ea[1]) * eb[1]
		w2 := (t2 * ea[2]) * eb[2]
		sum := w0 + w1 + w2
		if value {
			nb[g] = sum
		}
		inv := mult[g] / sum
		w0, w1, w2 = w0*inv, w1*inv, w2*inv
		s0, s1, s2 = s0+w0, s1+w1, s2+w2
		addRowCounts(ea, w0, w1, w2)
		addRowCounts(eb, w0, w1, w2)
	}
	return s0, s1, s2
}

// jointRows3 is jointRows1 for the groups of three rows.
func jointRows3(tab [][8]float64, b [][3]int32, mult, nb []float64, t *[3]float64, value bool) (s0, s1, s2 float64) {
	t0, t1, t2 := t[0], t[1], t[2]
	mult, nb = mult[:len(b)], nb[:len(b)]
	for g := range b {
		rs := &b[g]
		ea, eb, ec := &tab[rs[0]], &tab[rs[1]], &tab[rs[2]]
		w0 := (t0 * ea[0]) * (eb[0] * ec[0])
		w1 := (t1 * ea[1]) * (eb[1] * ec[1])
		w2 := (t2 * ea[2]) * (eb[2] * ec[2])
		sum := w0 + w1 + w2
		if value {
			nb[g] = sum
		}
		inv := mult[g] / sum
		w0, w1, w2 = w0*inv, w1*inv, w2*inv
		s0, s1, s2 = s0+w0, s1+w1, s2+w2
		addRowCounts(ea, w0, w1, w2)
		addRowCounts(eb, w0, w1, w2)
		addRowCounts(ec, w0, w1, w2)
	}
	return s0, s1, s2
}

// addRowCounts adds a group's responsibilities w0, w1, w2 to a row's expected
// counts (entries 4–6 of its table line).
func addRowCounts(e *[8]float64, w0, w1, w2 float64) {
	e[4] += w0
	e[5] += w1
	e[6] += w2
}

// jointRows4 is jointRows1 for the groups of four rows.
func jointRows4(tab [][8]float64, b [][4]int32, mult, nb []float64, t *[3]float64, value bool) (s0, s1, s2 float64) {
	t0, t1, t2 := t[0], t[1], t[2]
	mult, nb = mult[:len(b)], nb[:len(b)]
	for g := range b {
		rs := &b[g]
		ea, eb, ec, ed := &tab[rs[0]], &tab[rs[1]], &tab[rs[2]], &tab[rs[3]]
		w0 := (t0 * ea[0]) * (eb[0] * ec[0]) * ed[0]
		w1 := (t1 * ea[1]) * (eb[1] * ec[1]) * ed[1]
		w2 := (t2 * ea[2]) * (eb[2] * ec[2]) * ed[2]
		sum := w0 + w1 + w2
		if value {
			nb[g] = sum
		}
		inv := mult[g] / sum
		w0, w1, w2 = w0*inv, w1*inv, w2*inv
		s0, s1, s2 = s0+w0, s1+w1, s2+w2
		addRowCounts(ea, w0, w1, w2)
		addRowCounts(eb, w0, w1, w2)
		addRowCounts(ec, w0, w1, w2)
		addRowCounts(ed, w0, w1, w2)
	}
	return s0, s1, s2
}

// jointRows5 is jointRows1 for the groups of five rows.
func jointRows5(tab [][8]float64, b [][5]int32, mult, nb []float64, t *[3]float64, value bool) (s0, s1, s2 float64) {
	t0, t1, t2 := t[0], t[1], t[2]
	mult, nb = mult[:len(b)], nb[:len(b)]
	for g := range b {
		rs := &b[g]
		ea, eb, ec, ed, ee := &tab[rs[0]], &tab[rs[1]], &tab[rs[2]], &tab[rs[3]], &tab[rs[4]]
		w0 := (t0 * ea[0]) * (eb[0] * ec[0]) * (ed[0] * ee[0])
		w1 := (t1 * ea[1]) * (eb[1] * ec[1]) * (ed[1] * ee[1])
		w2 := (t2 * ea[2]) * (eb[2] * ec[2]) * (ed[2] * ee[2])
		sum := w0 + w1 + w2
		if value {
			nb[g] = sum
		}
		inv := mult[g] / sum
		w0, w1, w2 = w0*inv, w1*inv, w2*inv
		s0, s1, s2 = s0+w0, s1+w1, s2+w2
		addRowCounts(ea, w0, w1, w2)
		addRowCounts(eb, w0, w1, w2)
		addRowCounts(ec, w0, w1, w2)
		addRowCounts(ed, w0, w1, w2)
		addRowCounts(ee, w0, w1, w2)
	}
	return s0, s1, s2
}

// jointRows6 is jointRows1 for the groups of six rows.
func jointRows6(tab [][8]float64, b [][6]int32, mult, nb []float64, t *[3]float64, value bool) (s0, s1, s2 float64) {
	t0, t1, t2 := t[0], t[1], t[2]
	mult, nb = mult[:len(b)], nb[:len(b)]
	for g := range b {
		rs := &b[g]
		ea, eb, ec, ed, ee, ef := &tab[rs[0]], &tab[rs[1]], &tab[rs[2]], &tab[rs[3]], &tab[rs[4]], &tab[rs[5]]
		w0 := (t0 * ea[0]) * (eb[0] * ec[0]) * (ed[0] * ee[0]) * ef[0]
		w1 := (t1 * ea[1]) * (eb[1] * ec[1]) * (ed[1] * ee[1]) * ef[1]
		w2 := (t2 * ea[2]) * (eb[2] * ec[2]) * (ed[2] * ee[2]) * ef[2]
		sum := w0 + w1 + w2
		if value {
			nb[g] = sum
		}
		inv := mult[g] / sum
		w0, w1, w2 = w0*inv, w1*inv, w2*inv
		s0, s1, s2 = s0+w0, s1+w1, s2+w2
		addRowCounts(ea, w0, w1, w2)
		addRowCounts(eb, w0, w1, w2)
		addRowCounts(ec, w0, w1, w2)
		addRowCounts(ed, w0, w1, w2)
		addRowCounts(ee, w0, w1, w2)
		addRowCounts(ef, w0, w1, w2)
	}
	return s0, s1, s2
}

// jointRowsLong is jointRows1 for the groups of n rows, n ≥ 7 (b: n per group).
func jointRowsLong(tab [][8]float64, n int, b []int32, mult, nb []float64, t *[3]float64, value bool) (s0, s1, s2 float64) {
	t0, t1, t2 := t[0], t[1], t[2]
	nb = nb[:len(mult)]
	for g := range mult {
		rs := b[n*g : n*g+n : n*g+n]
		w0, w1, w2 := t0, t1, t2
		for _, r := range rs {
			e := &tab[r]
			w0 *= e[0]
			w1 *= e[1]
			w2 *= e[2]
		}
		sum := w0 + w1 + w2
		if value {
			nb[g] = sum
		}
		inv := mult[g] / sum
		w0, w1, w2 = w0*inv, w1*inv, w2*inv
		s0, s1, s2 = s0+w0, s1+w1, s2+w2
		for _, r := range rs {
			e := &tab[r]
			addRowCounts(e, w0, w1, w2)
		}
	}
	return s0, s1, s2
}

// jointValue returns the log joint at x from the pass just made: the groups' sums
// Σ_v P_gv in s.jointNorm (each merged group's times its multiplicity; the groups
// without rows sum to tsum), the log of the other groups' sums logOther, the priors
// of the priorOnly sites and the rest (jointPlan.allSimple).
func (s *scorer) jointValue(p *jointPlan, x []float64, tsum, logOther float64) float64 {
	// The groups' sums multiplied together (margSum's running product, in four
	// products taken in turn: prodSums), and one log.
	acc := scaledProd{acc: 1}
	for range int(p.none) {
		acc.mul(tsum)
	}
	norm := s.jointNorm[:p.groups]
	for n := 1; n <= 6; n++ {
		mult := p.mult[n]
		prodSums(&acc, norm[:len(mult)], mult)
		norm = norm[len(mult):]
	}
	for _, l := range p.long {
		prodSums(&acc, norm[:len(l.mult)], l.mult)
		norm = norm[len(l.mult):]
	}
	// The priors: Σ_j priorC[j]·log x_j, one log per distinct priorC.
	total := p.priorKSum
	for _, pt := range p.priorTerms {
		if pt.c == 0 {
			for _, j := range pt.coords {
				if !positiveBits(x[j]) {
					return math.Inf(-1)
				}
			}
			continue
		}
		pr := scaledProd{acc: 1}
		for _, j := range pt.coords {
			q := x[j]
			if !positiveBits(q) {
				return math.Inf(-1)
			}
			if prodOK(q) {
				pr.mul(q)
			} else {
				total += pt.c * math.Log(q)
			}
		}
		total += pt.c * pr.log()
	}
	s.x, s.active = x, -1
	s.newCall()
	for _, en := range p.rest {
		total += s.factorElem(int(en.f), int(en.e), false, false)
		if math.IsInf(total, -1) || math.IsNaN(total) {
			return total
		}
	}
	for _, li := range p.restLin {
		total += s.linearOrElems(int(li), false, false)
		if math.IsInf(total, -1) || math.IsNaN(total) {
			return total
		}
	}
	return addLogScaled(total+logOther, acc.acc, acc.expo)
}

// scaledProd is a running product of positive factors, each in [prodMin, prodMax],
// as a fraction acc in [accMin, accMax] times 2^expo (margSum's running product).
type scaledProd struct {
	acc  float64
	expo int
}

// mul multiplies the product by q, in [prodMin, prodMax].
func (a *scaledProd) mul(q float64) {
	a.acc, a.expo = mulScaled(a.acc, a.expo, q)
}

// mulScaled returns acc·q as a fraction in [accMin, accMax] times 2^expo; acc in
// [accMin, accMax], q in [prodMin, prodMax].
func mulScaled(acc float64, expo int, q float64) (float64, int) {
	acc *= q
	if !accOK(acc) {
		return rescale(acc, expo)
	}
	return acc, expo
}

// rescale returns acc as a fraction in [0.5, 1) times 2^expo.
func rescale(acc float64, expo int) (float64, int) {
	frac, e := math.Frexp(acc)
	return frac, expo + e
}

// prodSums multiplies the sums nb[g], each mult[g] times, into acc. Each sum is
// in [prodMin, prodMax] (jointFast's range check): it is taken as 2^e·f, f in
// [1, 2), from its bits; the exponents are added and the fractions multiplied in
// two products taken in turn (two chains of multiplications that do not wait on
// each other, and no test per factor), each folded into acc after at most 256
// factors (< 2^256).
func prodSums(acc *scaledProd, nb, mult []float64) {
	const fracBits, oneBits = 1<<52 - 1, 1023 << 52
	nb = nb[:len(mult)]
	fa, fb, e, n := 1.0, 1.0, 0, 0
	for g, mt := range mult {
		b := math.Float64bits(nb[g])
		f := math.Float64frombits(b&fracBits | oneBits)
		k := int(mt)
		e += k * (int(b>>52) - 1023)
		if k == 1 {
			fa, fb = fb, fa*f
			if n++; n == 512 {
				acc.fold(fa, fb, e)
				fa, fb, e, n = 1, 1, 0, 0
			}
			continue
		}
		for range k {
			fa, fb = fb, fa*f
			if n++; n == 512 {
				acc.fold(fa, fb, e)
				fa, fb, e, n = 1, 1, 0, 0
			}
		}
	}
	acc.fold(fa, fb, e)
}

// fold multiplies the product by fa·fb·2^e, fa and fb in [prodMin, prodMax].
func (a *scaledProd) fold(fa, fb float64, e int) {
	a.mul(fa)
	a.mul(fb)
	a.expo += e
}

// log returns the log of the product.
func (a *scaledProd) log() float64 {
	return addLogScaled(0, a.acc, a.expo)
}

// jointClear clears the expected counts the pass may have set that the next pass
// does not set anew (jointPlan.clear).
func (s *scorer) jointClear(p *jointPlan, cnt []float64) {
	for _, j := range p.clear {
		cnt[j] = 0
	}
}

// jointPriorGrad writes into g the gradient (pc_c + cs_c)/x_c of a priorOnly site
// (pc: its prior's α − 1, cs: its expected counts), with one division for two
// coordinates when their product is a normal float: 1/x_a = x_b/(x_a·x_b). It
// reports false when some x_c is not in (0, MaxFloat64].
func jointPriorGrad(g, pc, xs, cs []float64) bool {
	pc, xs, cs = pc[:len(g)], xs[:len(g)], cs[:len(g)]
	ok := true
	c := 0
	for ; c+1 < len(g); c += 2 {
		qa, qb := xs[c], xs[c+1]
		ok = ok && positiveBits(qa) && positiveBits(qb)
		ga, gb := pc[c]+cs[c], pc[c+1]+cs[c+1]
		if d := qa * qb; math.Float64bits(d)-minNormalBits <= maxPositiveBits-minNormalBits {
			inv := 1 / d
			g[c], g[c+1] = ga*(qb*inv), gb*(qa*inv)
		} else {
			g[c], g[c+1] = ga/qa, gb/qb
		}
	}
	if c < len(g) {
		q := xs[c]
		ok = ok && positiveBits(q)
		g[c] = (pc[c] + cs[c]) / q
	}
	return ok
}

// minNormalBits is the bit pattern of the least positive normal float64.
const minNormalBits = 0x0010000000000000

// jointOther is the pass over the groups outside the table (jointPlan.other):
// their responsibilities added to the coordinates' expected counts cnt and to the
// shared live elements' sv, with t the shared elements' product at each value. It
// returns the sum of the logs of their sums Σ_v P_gv when value. It reports false
// when a coordinate read is not in (0, MaxFloat64] or a product or sum is outside
// [prodMin, prodMax] and not 0.
func (s *scorer) jointOther(p *jointPlan, x, t, sv, cnt []float64, value bool) (float64, bool) {
	var buf [maxSimpleValues]float64
	logSum := 0.0
	for _, g := range p.other {
		prod := buf[:g.values]
		sum := 0.0
		for v := range prod {
			q := 1.0
			if v < len(t) {
				q = t[v]
			} else if p.shared != nil {
				q = 0
			}
			for _, pe := range g.elems {
				if v >= int(pe.lim) {
					q = 0
					break
				}
				c := x[int(pe.j0)+v*int(pe.jstep)]
				if !positiveBits(c) {
					return 0, false
				}
				q *= c
			}
			if !prodOK(q) {
				return 0, false
			}
			prod[v] = q
			sum += q
		}
		if sum == 0 || !prodOK(sum) {
			return 0, false // no value possible (the general path returns −Inf), or out of range
		}
		if value {
			logSum += math.Log(sum)
		}
		inv := 1 / sum
		for v, q := range prod {
			if q == 0 {
				continue
			}
			r := q * inv
			if v < len(t) && p.shared != nil {
				sv[v] += r
			}
			for _, pe := range g.elems {
				cnt[int(pe.j0)+v*int(pe.jstep)] += r
			}
		}
	}
	return logSum, true
}
