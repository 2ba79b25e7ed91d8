package graph

import (
	"math"
	"slices"
)

// The mixing of a mixture factor's rows, and the rows' transcendental terms kept
// for the last two states scored. A sampler's step scores the current state and a
// proposal, and the next site's step the state it left, already scored: every
// other score of a sweep reads the rows' exponentials and logarithms of a state
// just scored. They are kept per scorer and factor, keyed by the values of the
// factor's shared scalars (compared bit for bit), so a score equals the one
// computed from scratch bit for bit: LogMix keeps e = exp(lo − hi) and log1p(e),
// LogSumExp the log-sum and the responsibilities.

// mixTerms is one state's rows' terms.
type mixTerms struct {
	key  []float64 // the nodes' values
	vals []float64 // per row: rowTerms() values
	ok   bool
	used uint64
}

// rowTerms returns the number of terms kept per row.
func (mf *mixFactor) rowTerms() int {
	if mf.logMix {
		return 2
	}
	return 1 + len(mf.comps)
}

// rowTerms returns the slot of the rows' terms for this call and whether it holds
// them (reuse: read them) or is to be written (then marked ok by the caller once
// every row is); nil when the run is not the whole factor in row order (a chunk of
// a large blanket).
func (ms *mixScratch) rowTerms(mf *mixFactor, run []entry) (*mixTerms, bool) {
	if len(run) != mf.rows || run[0].e != 0 || int(run[len(run)-1].e) != mf.rows-1 {
		return nil, false
	}
	ms.clock++
	for i := range ms.terms {
		sl := &ms.terms[i]
		if sl.ok && sameBitsJets(sl.key, ms.jets) {
			sl.used = ms.clock
			return sl, true
		}
	}
	sl := &ms.terms[0]
	if ms.terms[1].used < sl.used {
		sl = &ms.terms[1]
	}
	if sl.vals == nil {
		sl.vals = make([]float64, mf.rows*mf.rowTerms())
		sl.key = make([]float64, len(ms.jets))
	}
	for i := range ms.jets {
		sl.key[i] = ms.jets[i].v
	}
	// Not ok until every row is written (mixRows).
	sl.ok, sl.used = false, ms.clock
	return sl, false
}

// sameBitsJets reports whether key holds the jets' values bit for bit.
func sameBitsJets(key []float64, jets []jet) bool {
	return slices.EqualFunc(key, jets, func(k float64, j jet) bool {
		return math.Float64bits(k) == math.Float64bits(j.v)
	})
}

// mixWeight is LogMix's weight θ as its rows read it: log θ, log1p(−θ), 1/θ and
// 1/(1 − θ).
type mixWeight struct{ logT, log1mT, invT, inv1mT float64 }

// row returns log(θe^a + (1 − θ)e^b) as logMix computes it, with the inverses of θ
// and 1 − θ kept (products where it divides), and, with deriv, writes its
// derivatives in (θ, a, b) into d1 (3) and d2 (3×3); ok is false when it is not
// finite. tv, when not nil, holds the row's e = exp(lo − hi) and log1p(e): read
// with reuse, else written.
func (w *mixWeight) row(a, b float64, deriv bool, d1, d2, tv []float64, reuse bool) (float64, bool) {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN(), false
	}
	u, v := w.logT+a, w.log1mT+b
	hi, lo := u, v
	if lo > hi {
		hi, lo = lo, hi
	}
	if math.IsInf(hi, 0) {
		return hi, false
	}
	var e, l1 float64
	if reuse {
		e, l1 = tv[0], tv[1]
	} else {
		e = math.Exp(lo - hi)
		l1 = math.Log1p(e)
		if tv != nil {
			tv[0], tv[1] = e, l1
		}
	}
	l := hi + l1
	if !deriv {
		return l, true
	}
	rHi := 1 / (1 + e)
	p, q := rHi, e*rHi
	if v > u {
		p, q = q, p
	}
	ea, eb := p*w.invT, q*w.inv1mT
	if !(p > 1e-280) {
		ea = math.Exp(a - l)
	}
	if !(q > 1e-280) {
		eb = math.Exp(b - l)
	}
	d1 = d1[:3]
	d1[0], d1[1], d1[2] = ea-eb, p, q
	ta := ea*q + eb*p
	pq := p * q
	d2 = d2[:9]
	d2[0], d2[1], d2[2] = -(ea-eb)*(ea-eb), ta, -ta
	d2[3], d2[4], d2[5] = ta, pq, -pq
	d2[6], d2[7], d2[8] = -ta, -pq, pq
	return l, true
}

// logSumExpRow returns log Σᵢ exp(lvᵢ) = m + log1p(Σ_{i≠max} e^{lvᵢ−m}), m the
// largest lvᵢ, as jetOps.logSumExp computes it, and, with deriv, its derivatives in
// the locals: d1ᵢ = pᵢ = e^{lvᵢ−m}/(1 + Σ), d2ᵢᵢ = pᵢ·Σ_{j≠i} pⱼ (not pᵢ(1 − pᵢ),
// which loses the small weights' digits), d2ᵢⱼ = −pᵢpⱼ. ok is false when the value
// is not finite. tv, when not nil, holds the row's log-sum and p: read with reuse,
// else written.
func (ms *mixScratch) logSumExpRow(deriv bool, tv []float64, reuse bool) (float64, bool) {
	lv := ms.lv
	n := len(lv)
	p := ms.d1
	var lse float64
	if reuse {
		lse = tv[0]
		copy(p, tv[1:])
	} else {
		imax := 0
		for i, v := range lv {
			if math.IsNaN(v) {
				return v, false
			}
			if v > lv[imax] {
				imax = i
			}
		}
		m := lv[imax]
		if math.IsInf(m, 0) {
			return m, false
		}
		sum := 0.0
		for i, v := range lv {
			if i != imax {
				p[i] = math.Exp(v - m)
				sum += p[i]
			}
		}
		p[imax] = 1
		lse = m + math.Log1p(sum)
		if tv == nil && !deriv {
			return lse, true
		}
		r := 1 / (1 + sum)
		for i := range p {
			p[i] *= r
		}
		if tv != nil {
			tv[0] = lse
			copy(tv[1:], p)
		}
		if !deriv {
			return lse, true
		}
	}
	for i := range n {
		rest := 0.0
		for j := range n {
			if j != i {
				rest += p[j]
				ms.d2[i*n+j] = -p[i] * p[j]
			}
		}
		ms.d2[i*n+i] = p[i] * rest
	}
	return lse, true
}
