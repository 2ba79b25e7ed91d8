package diagnostics

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// quantity holds the draws of one scalar quantity with values that several
// diagnostics share: the pooled draws, their sorted order and the sorted
// absolute deviations from the median. It is used by one goroutine at a time.
type quantity struct {
	m, n   int
	x      []float64 // pooled draws, chain-major (x[c*n+i])
	sorted []float64 // x sorted ascending; nil if x holds a NaN
	nan    bool      // x holds a NaN
	pairs  []pair    // x with indices, sorted by value; nil if x holds a NaN
	dev    []float64 // sorted |x − median|, computed lazily
	fpairs []pair    // |x − median| with indices, sorted, computed with dev
	ws     *workspace
	ztab   *zTable // optional Φ⁻¹ table for the split size
}

// newQuantity validates x and prepares a quantity with its own workspace.
func newQuantity(x [][]float64) (*quantity, error) {
	m, n, err := shape(x)
	if err != nil {
		return nil, err
	}
	q := &quantity{ws: &workspace{}}
	q.reset(pool(x), m, n)
	return q, nil
}

// reset points q at the pooled chain-major draws x of m chains of n draws.
func (q *quantity) reset(x []float64, m, n int) {
	q.m, q.n, q.x = m, n, x
	q.nan = hasNaN(x)
	q.dev = q.dev[:0]
	if q.nan {
		q.sorted, q.pairs = nil, nil
		return
	}
	q.pairs = sortPairs(q.pairs, x)
	q.sorted = grow(q.sorted, len(x))
	for i, p := range q.pairs {
		q.sorted[i] = p.v
	}
}

// s is the total number of draws.
func (q *quantity) s() int { return q.m * q.n }

func (q *quantity) mean() float64 { return meanOf(q.x) }

func (q *quantity) sd() float64 { return sdOf(q.x) }

func (q *quantity) median() float64 {
	if q.nan {
		return math.NaN()
	}
	return medianSorted(q.sorted)
}

func (q *quantity) quantile(p float64) float64 {
	if q.nan {
		return math.NaN()
	}
	return quantileSorted(q.sorted, p)
}

// sortedDev returns the sorted absolute deviations |x − median| of all draws,
// and sets q.fpairs. It must not be called when x holds a NaN.
func (q *quantity) sortedDev() []float64 {
	if len(q.dev) == 0 {
		med := medianSorted(q.sorted)
		q.dev = grow(q.dev, len(q.x))
		for i, f := range q.x {
			q.dev[i] = math.Abs(f - med)
		}
		if hasNaN(q.dev) { // Inf − Inf when the median is infinite
			return q.dev
		}
		q.fpairs = foldSorted(q.fpairs, q.pairs, med)
		for i, p := range q.fpairs {
			q.dev[i] = p.v
		}
	}
	return q.dev
}

// foldSorted sets f to the pairs of sorted (ascending, no NaN) folded about med,
// |v − med| with their indices, sorted ascending, and returns it. Read outwards
// from med, each side of sorted is already in order (rounding is monotone), so a
// merge of the two sides replaces a sort. Equal values may be ordered differently
// from a sort's order; the ranks average ties by value, so nothing read from f
// changes.
func foldSorted(f, sorted []pair, med float64) []pair {
	f = grow(f, len(sorted))
	hi := sort.Search(len(sorted), func(i int) bool { return sorted[i].v >= med })
	lo := hi - 1
	for k := range f {
		if lo >= 0 && (hi >= len(sorted) || med-sorted[lo].v <= sorted[hi].v-med) {
			f[k] = pair{math.Abs(sorted[lo].v - med), sorted[lo].i}
			lo--
		} else {
			f[k] = pair{math.Abs(sorted[hi].v - med), sorted[hi].i}
			hi++
		}
	}
	return f
}

func (q *quantity) mad() float64 {
	if q.nan {
		return math.NaN()
	}
	d := q.sortedDev()
	if hasNaN(d) {
		return math.NaN()
	}
	return madConst * medianSorted(d)
}

// zSplit rank-normalizes the split chains of the draws whose sorted pairs
// are given. The result is in ws.a.
func (q *quantity) zSplit(sorted []pair) []float64 {
	q.ws.a = grow(q.ws.a, 2*q.m*(q.n/2))
	zSplitInto(q.ws.a, sorted, q.m, q.n, q.ztab)
	return q.ws.a
}

// rhatParts returns the bulk and tail (folded) rank-normalized split R-hat.
func (q *quantity) rhatParts() (bulk, tail float64) {
	if q.n < 4 || q.nan {
		return math.NaN(), math.NaN()
	}
	return q.rhatPartsOf(q.zSplit(q.pairs))
}

// rhatPartsOf is rhatParts given z = q.zSplit(q.pairs), the split chains' rank
// normalization (q.n ≥ 4, no NaN); it overwrites z.
func (q *quantity) rhatPartsOf(z []float64) (bulk, tail float64) {
	h := q.n / 2
	bulk = rhatKernel(z, 2*q.m, h)
	if hasNaN(q.sortedDev()) {
		return bulk, math.NaN()
	}
	z = q.zSplit(q.fpairs)
	tail = rhatKernel(z, 2*q.m, h)
	return bulk, tail
}

func (q *quantity) rhat() float64 {
	b, t := q.rhatParts()
	return max(b, t)
}

func (q *quantity) rhatBasic() float64 {
	if q.n < 4 {
		return math.NaN()
	}
	q.ws.b = splitInto(q.ws.b, q.x, q.m, q.n)
	return rhatKernel(q.ws.b, 2*q.m, q.n/2)
}

// essSplit is the ESS kernel on the split of the chain-major values v.
func (q *quantity) essSplit(v []float64) float64 {
	if q.n < 4 {
		return math.NaN()
	}
	q.ws.b = splitInto(q.ws.b, v, q.m, q.n)
	return q.ws.essKernel(q.ws.b, 2*q.m, q.n/2)
}

func (q *quantity) essBasic() float64 { return q.essSplit(q.x) }

func (q *quantity) essBulk() float64 {
	if q.n < 4 {
		return math.NaN()
	}
	if q.nan {
		// posterior ranks the split draws, so a NaN that is a dropped middle
		// draw does not make ess_bulk NaN.
		sp := splitInto(nil, q.x, q.m, q.n)
		if hasNaN(sp) {
			return math.NaN()
		}
		z := make([]float64, len(sp))
		zRanksInto(z, sortPairs(nil, sp), func(i int) int { return i }, len(sp), q.ztab)
		return q.ws.essKernel(z, 2*q.m, q.n/2)
	}
	z := q.zSplit(q.pairs)
	return q.ws.essKernel(z, 2*q.m, q.n/2)
}

// rhatESSBulk returns rhat() and essBulk(), the same values, with the split chains'
// rank normalization computed once for the bulk R-hat and the bulk ESS (neither
// kernel writes its input).
func (q *quantity) rhatESSBulk() (rhat, essBulk float64) {
	if q.n < 4 || q.nan {
		return q.rhat(), q.essBulk()
	}
	z := q.zSplit(q.pairs)
	essBulk = q.ws.essKernel(z, 2*q.m, q.n/2)
	b, t := q.rhatPartsOf(z)
	return max(b, t), essBulk
}

func (q *quantity) essQuantile(p float64) float64 {
	if q.n < 4 || invalid(q.x) {
		return math.NaN()
	}
	s := float64(q.s())
	if p == 1 {
		p = (s - 0.5) / s
	}
	th := quantileSorted(q.sorted, p)
	ind := make([]float64, len(q.x))
	for i, f := range q.x {
		if f <= th {
			ind[i] = 1
		}
	}
	return q.essSplit(ind)
}

func (q *quantity) essTail() float64 {
	return min(q.essQuantile(0.05), q.essQuantile(0.95))
}

func (q *quantity) essSD() float64 {
	mu := q.mean()
	sq := make([]float64, len(q.x))
	for i, f := range q.x {
		d := f - mu
		sq[i] = d * d
	}
	return q.essSplit(sq)
}

func (q *quantity) mcseMean() float64 {
	return q.sd() / math.Sqrt(q.essBasic())
}

func (q *quantity) mcseSD() float64 {
	mu := q.mean()
	sq := make([]float64, len(q.x))
	var m2, m4 float64
	for i, f := range q.x {
		d := f - mu
		sq[i] = d * d
		m2 += sq[i]
		m4 += sq[i] * sq[i]
	}
	ess := q.essSplit(sq)
	s := float64(q.s())
	m2 /= s
	m4 /= s
	varvar := (m4 - m2*m2) / ess
	return math.Sqrt(varvar / m2 / 4)
}

// Literal constants ≈ Φ(−1) and Φ(1) used by posterior's mcse_quantile.
const (
	probMinus1SD = 0.1586553
	probPlus1SD  = 0.8413447
)

func (q *quantity) mcseQuantile(p float64) float64 {
	ess := q.essQuantile(p)
	if math.IsNaN(ess) {
		return math.NaN()
	}
	b := distuv.Beta{Alpha: ess*p + 1, Beta: ess*(1-p) + 1}
	a1 := b.Quantile(probMinus1SD)
	a2 := b.Quantile(probPlus1SD)
	s := q.s()
	i1 := max(int(math.Floor(a1*float64(s))), 1)
	i2 := min(int(math.Ceil(a2*float64(s))), s)
	return (q.sorted[i2-1] - q.sorted[i1-1]) / 2
}
