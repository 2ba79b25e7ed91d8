package diagnostics

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/mathext"
)

// machEps is R's .Machine$double.eps, the absolute tolerance of posterior's
// "all values equal" test.
const machEps = 2.220446049250313e-16

// invalid is posterior's NA test on a pooled set of values: true if any value
// is NaN or ±Inf, or if max − min < 2.220446049250313e-16 (absolute).
func invalid(v []float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, f := range v {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return true
		}
		lo = min(lo, f)
		hi = max(hi, f)
	}
	return math.Abs(hi-lo) < machEps
}

// splitInto writes the split chains of the chain-major m×n matrix x into dst:
// chain k < m holds the first ⌊n/2⌋ draws of chain k, chain m+k its last ⌊n/2⌋
// draws. For odd n the middle draw is dropped. It returns dst resized to
// 2m·⌊n/2⌋ values.
func splitInto(dst, x []float64, m, n int) []float64 {
	h := n / 2
	dst = slices.Grow(dst[:0], 2*m*h)[:0]
	for k := range m {
		dst = append(dst, x[k*n:k*n+h]...)
	}
	for k := range m {
		dst = append(dst, x[k*n+n-h:k*n+n]...)
	}
	return dst
}

// zTable holds Φ⁻¹((r − 3/8)/(S + 1/4)) for every average rank r = k/2,
// k = 2 … 2S, of S values ranked jointly. It is read-only once built.
type zTable struct {
	s int
	z []float64
}

// newZTable builds the table for s values.
func newZTable(s int) *zTable {
	t := &zTable{s: s, z: make([]float64, 2*s+1)}
	for k := 2; k <= 2*s; k++ {
		t.z[k] = blomZ(float64(k)/2, s)
	}
	return t
}

// blomZ is the rank-normalized value Φ⁻¹((r − 3/8)/(s − 3/4 + 1)) of rank r
// among s values.
func blomZ(r float64, s int) float64 {
	return mathext.NormalQuantile((r - 0.375) / (float64(s) + 0.25))
}

// pair is a value with its index in the pooled chain-major draws.
type pair struct {
	v float64
	i int32
}

// sortPairs sets p to the values of x with their indices, sorted ascending by
// value. x must not contain NaN.
func sortPairs(p []pair, x []float64) []pair {
	p = grow(p, len(x))
	for i, v := range x {
		p[i] = pair{v, int32(i)}
	}
	slices.SortFunc(p, func(a, b pair) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	return p
}

// zSplitInto writes into dst the rank-normalized split chains of the m×n
// chain-major draws whose sorted pairs are given. The split drops the middle
// draw of odd-length chains; ranks are taken jointly over the kept draws
// with ties (exact equality) averaged, and dst has the chain-major layout of
// splitInto. tab may be nil or a table for 2m·⌊n/2⌋ values.
func zSplitInto(dst []float64, sorted []pair, m, n int, tab *zTable) {
	h := n / 2
	s := 2 * m * h
	// splitPos maps a pooled index to its position in the split layout, or
	// −1 for a dropped middle draw.
	splitPos := func(idx int) int {
		c, i := idx/n, idx%n
		switch {
		case i < h:
			return c*h + i
		case i >= n-h:
			return (m+c)*h + i - (n - h)
		}
		return -1
	}
	zRanksInto(dst, sorted, splitPos, s, tab)
}

// zRanksInto rank-normalizes the values of sorted that pos maps to a
// position ≥ 0 in dst: ranks are taken jointly over those s values, ties
// (exact equality) averaged, and z = Φ⁻¹((r − 3/8)/(s + 1/4)) is written to
// dst[pos(i)] for the value with index i. tab may be nil.
func zRanksInto(dst []float64, sorted []pair, pos func(int) int, s int, tab *zTable) {
	if tab != nil && tab.s != s {
		tab = nil
	}
	a := 0 // number of kept values before the current run
	for lo := 0; lo < len(sorted); {
		hi := lo
		for hi+1 < len(sorted) && sorted[hi+1].v == sorted[lo].v {
			hi++
		}
		kept := 0
		for _, p := range sorted[lo : hi+1] {
			if pos(int(p.i)) >= 0 {
				kept++
			}
		}
		if kept > 0 {
			k := 2*a + kept + 1 // twice the average 1-based rank of positions a+1 … a+kept
			var z float64
			if tab != nil {
				z = tab.z[k]
			} else {
				z = blomZ(float64(k)/2, s)
			}
			for _, p := range sorted[lo : hi+1] {
				if j := pos(int(p.i)); j >= 0 {
					dst[j] = z
				}
			}
		}
		a += kept
		lo = hi + 1
	}
}

// rhatKernel is the basic R-hat of the chain-major k×n matrix y:
// sqrt((B/W + n − 1)/n) with B = n·var(chain means) and W the mean chain
// variance. It is NaN if invalid(y).
func rhatKernel(y []float64, k, n int) float64 {
	if invalid(y) {
		return math.NaN()
	}
	means := make([]float64, k)
	var w float64
	for c := range k {
		ch := y[c*n : (c+1)*n]
		mu := meanOf(ch)
		means[c] = mu
		var ss float64
		for _, f := range ch {
			d := f - mu
			ss += d * d
		}
		w += ss / float64(n-1)
	}
	w /= float64(k)
	b := float64(n) * varOf(means)
	return math.Sqrt((b/w + float64(n) - 1) / float64(n))
}

// varOf is the sample variance (divisor n−1) of v; NaN for fewer than 2 values.
func varOf(v []float64) float64 {
	if len(v) < 2 {
		return math.NaN()
	}
	mu := meanOf(v)
	var ss float64
	for _, f := range v {
		d := f - mu
		ss += d * d
	}
	return ss / float64(len(v)-1)
}

// directLags is the number of lags computed by direct sums before the ESS
// kernel switches to FFT autocovariances for the remaining lags.
const directLags = 24

// workspace holds scratch buffers and FFT plans reused across kernel calls by
// one goroutine.
type workspace struct {
	a, b []float64 // general scratch of length S
	dev  []float64 // deviations from chain means, chain-major
	abar []float64 // averaged autocovariances from the FFT, length n
	r    []float64 // truncated autocorrelation sequence
	pad  []float64
	coef []complex128
	ffts map[int]*fourier.FFT
}

// grow returns buf resized to n values (contents unspecified).
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	return buf[:n]
}

// nextn is the smallest integer ≥ n whose only prime factors are 2, 3 and 5.
func nextn(n int) int {
	for m := max(n, 1); ; m++ {
		r := m
		for _, p := range []int{2, 3, 5} {
			for r%p == 0 {
				r /= p
			}
		}
		if r == 1 {
			return m
		}
	}
}

// fft returns a cached real FFT plan of length l.
func (ws *workspace) fft(l int) *fourier.FFT {
	if ws.ffts == nil {
		ws.ffts = make(map[int]*fourier.FFT)
	}
	f, ok := ws.ffts[l]
	if !ok {
		f = fourier.NewFFT(l)
		ws.ffts[l] = f
	}
	return f
}

// acovFFT adds the biased autocovariances (divisor n) of the deviations d of
// one chain, lags 0 … n−1, to acc. It zero-pads d to 2·nextn(n), takes
// |FFT|², transforms back and rescales so that lag 0 equals Σd²/n.
func (ws *workspace) acovFFT(acc, d []float64) {
	n := len(d)
	var ss float64
	for _, v := range d {
		ss += v * v
	}
	if ss == 0 {
		return // constant chain: every autocovariance is exactly 0
	}
	l := 2 * nextn(n)
	ws.pad = grow(ws.pad, l)
	copy(ws.pad, d)
	clear(ws.pad[n:])
	f := ws.fft(l)
	ws.coef = f.Coefficients(grow(ws.coef, l/2+1), ws.pad)
	for i, c := range ws.coef {
		re, im := real(c), imag(c)
		ws.coef[i] = complex(re*re+im*im, 0)
	}
	seq := f.Sequence(ws.pad, ws.coef)
	scale := ss / float64(n) / seq[0]
	for t := range n {
		acc[t] += seq[t] * scale
	}
}

// essKernel is the effective sample size of the chain-major k×n matrix y by
// Geyer's initial positive and monotone sequence estimators as implemented in
// posterior, with the "improved" last term and the cap τ̂ ≥ 1/log10(k·n). It
// is NaN if n < 3 or invalid(y).
func (ws *workspace) essKernel(y []float64, k, n int) float64 {
	if n < 3 || invalid(y) {
		return math.NaN()
	}
	ws.dev = grow(ws.dev, k*n)
	means := make([]float64, k)
	var a0 float64
	for c := range k {
		ch := y[c*n : (c+1)*n]
		d := ws.dev[c*n : (c+1)*n]
		constant := true
		for _, f := range ch {
			if f != ch[0] {
				constant = false
				break
			}
		}
		mu := meanOf(ch)
		means[c] = mu
		if constant {
			clear(d)
			continue
		}
		var ss float64
		for i, f := range ch {
			d[i] = f - mu
			ss += d[i] * d[i]
		}
		a0 += ss / float64(n)
	}
	a0 /= float64(k)
	w := a0 * float64(n) / float64(n-1)
	vplus := w * float64(n-1) / float64(n)
	if k > 1 {
		vplus += varOf(means)
	}

	haveFFT := false
	abar := func(t int) float64 {
		if t == 0 {
			return a0
		}
		if t > directLags && n > 4*directLags {
			if !haveFFT {
				ws.abar = grow(ws.abar, n)
				clear(ws.abar)
				for c := range k {
					ws.acovFFT(ws.abar, ws.dev[c*n:(c+1)*n])
				}
				for i := range ws.abar {
					ws.abar[i] /= float64(k)
				}
				haveFFT = true
			}
			return ws.abar[t]
		}
		var s float64
		for c := range k {
			d := ws.dev[c*n : (c+1)*n]
			var dot float64
			for i := 0; i+t < n; i++ {
				dot += d[i] * d[i+t]
			}
			s += dot / float64(n)
		}
		return s / float64(k)
	}
	rho := func(t int) float64 { return 1 - (w-abar(t))/vplus }

	ws.r = grow(ws.r, 2)
	r := ws.r
	r[0], r[1] = 1, rho(1)
	even, odd := 1.0, r[1]
	t := 0
	for t < n-5 && !math.IsNaN(even+odd) && even+odd > 0 {
		t += 2
		even, odd = rho(t), rho(t+1)
		r = append(r[:t], 0, 0)
		if even+odd >= 0 {
			r[t], r[t+1] = even, odd
		}
	}
	ws.r = r
	tt := t
	if even > 0 {
		r[tt] = even
	}
	for t := 2; t <= tt-2; t += 2 {
		if r[t]+r[t+1] > r[t-2]+r[t-1] {
			v := (r[t-2] + r[t-1]) / 2
			r[t], r[t+1] = v, v
		}
	}
	tau := 2.0
	if tt >= 2 {
		var s float64
		for _, v := range r[:tt] {
			s += v
		}
		tau = -1 + 2*s + r[tt]
	}
	sy := float64(k * n)
	if bound := 1 / math.Log10(sy); tau < bound {
		tau = bound
	}
	return sy / tau
}
