package diagnostics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

// naiveAcov is the biased autocovariance Σ_{i<n−t} d_i d_{i+t} / n of y, by
// the direct double sum.
func naiveAcov(y []float64) []float64 {
	n := len(y)
	mu := meanOf(y)
	out := make([]float64, n)
	for t := range n {
		var s float64
		for i := 0; i+t < n; i++ {
			s += (y[i] - mu) * (y[i+t] - mu)
		}
		out[t] = s / float64(n)
	}
	return out
}

// naiveESS is a literal transcription of spec §6 with every autocovariance
// computed by naiveAcov, used as an independent reference for essKernel.
func naiveESS(y []float64, k, n int) float64 {
	if n < 3 || invalid(y) {
		return math.NaN()
	}
	acov := make([][]float64, k)
	means := make([]float64, k)
	for c := range k {
		acov[c] = naiveAcov(y[c*n : (c+1)*n])
		means[c] = meanOf(y[c*n : (c+1)*n])
	}
	abar := make([]float64, n)
	for t := range n {
		for c := range k {
			abar[t] += acov[c][t] / float64(k)
		}
	}
	w := abar[0] * float64(n) / float64(n-1)
	vp := w * float64(n-1) / float64(n)
	if k > 1 {
		vp += varOf(means)
	}
	rho := make([]float64, n)
	rho[0] = 1
	for t := 1; t < n; t++ {
		rho[t] = 1 - (w-abar[t])/vp
	}
	r := make([]float64, n)
	r[0], r[1] = 1, rho[1]
	even, odd, t := 1.0, rho[1], 0
	for t < n-5 && !math.IsNaN(even+odd) && even+odd > 0 {
		t += 2
		even, odd = rho[t], rho[t+1]
		if even+odd >= 0 {
			r[t], r[t+1] = even, odd
		}
	}
	T := t
	if even > 0 {
		r[T] = even
	}
	for t := 2; t <= T-2; t += 2 {
		if r[t]+r[t+1] > r[t-2]+r[t-1] {
			r[t] = (r[t-2] + r[t-1]) / 2
			r[t+1] = r[t]
		}
	}
	tau := 2.0
	if T >= 2 {
		tau = -1 + r[T]
		for i := range T {
			tau += 2 * r[i]
		}
	}
	sy := float64(k * n)
	tau = max(tau, 1/math.Log10(sy))
	return sy / tau
}

// ar1 returns m chains of n draws of an AR(1) process with coefficient phi.
func ar1(rng *rand.Rand, m, n int, phi float64) [][]float64 {
	x := make([][]float64, m)
	for c := range m {
		x[c] = make([]float64, n)
		v := rng.NormFloat64()
		for i := range n {
			v = phi*v + rng.NormFloat64()
			x[c][i] = v
		}
	}
	return x
}

func TestAcovFFTMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ws := &workspace{}
	for _, n := range []int{7, 97, 250, 1001, 1536} {
		y := ar1(rng, 1, n, 0.9)[0]
		want := naiveAcov(y)
		mu := meanOf(y)
		d := make([]float64, n)
		for i := range d {
			d[i] = y[i] - mu
		}
		got := make([]float64, n)
		ws.acovFFT(got, d)
		for lag := range n {
			if math.Abs(got[lag]-want[lag]) > 1e-12*want[0] {
				t.Fatalf("n=%d lag %d: FFT acov %.17g, direct %.17g", n, lag, got[lag], want[lag])
			}
		}
	}
}

func TestNextn(t *testing.T) {
	for n, want := range map[int]int{1: 1, 7: 8, 11: 12, 13: 15, 500: 500, 1001: 1024, 1537: 1600} {
		if got := nextn(n); got != want {
			t.Errorf("nextn(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestESSKernelLongChains checks the lazily evaluated direct/FFT kernel
// against the naive transcription on chains long enough to use the FFT.
func TestESSKernelLongChains(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ws := &workspace{}
	for _, tc := range []struct {
		m, n int
		phi  float64
	}{{4, 1000, 0.95}, {2, 800, 0.99}, {4, 400, 0.3}, {1, 999, -0.7}, {3, 300, 0.999}} {
		x := ar1(rng, tc.m, tc.n, tc.phi)
		y := splitInto(nil, pool(x), tc.m, tc.n)
		k, n := 2*tc.m, tc.n/2
		got := ws.essKernel(y, k, n)
		want := naiveESS(y, k, n)
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("m=%d n=%d phi=%v: ESS %.17g, naive %.17g", tc.m, tc.n, tc.phi, got, want)
		}
	}
}

func TestW1Intermediates(t *testing.T) {
	q, err := newQuantity(w1)
	if err != nil {
		t.Fatal(err)
	}
	// Ranks and z-values of split chain 1 among the 80 split draws.
	split := splitInto(nil, q.x, 4, 20)
	srt := append([]float64(nil), split...)
	sortedCopyInPlace(srt)
	z := make([]float64, 80)
	rk := make([]int32, 80)
	zScaleInto(z, split, srt, rk, nil)
	wantRank := []float64{14, 23, 10, 61, 58, 25, 41, 59, 66.5, 44.5}
	wantZ := []float64{-0.9550273563, -0.5771132881, -1.175298313, 0.6917464466, 0.5771132881,
		-0.5047888256, 0.01561825659, 0.6144154785, 0.9306687835, 0.1252678212}
	ztab := newZTable(80)
	zt := make([]float64, 80)
	zScaleInto(zt, split, srt, rk, ztab)
	for i := range wantRank {
		if got := blomZ(wantRank[i], 80); math.Abs(got-z[i]) > 1e-15 {
			t.Errorf("z[%d] = %.17g, want rank %v → %.17g", i, z[i], wantRank[i], got)
		}
		checkRef(t, "z", z[i], wantZ[i])
		if zt[i] != z[i] {
			t.Errorf("table z[%d] = %.17g, direct %.17g", i, zt[i], z[i])
		}
	}
	// Autocovariance of split chain 1's raw values (6 significant digits given).
	wantAcov := []float64{0.352021, 0.0770031, -0.0294378, -0.0250867, 0.0335414, 0.0231055,
		-0.0947104, -0.0874123, -0.0637812, -0.0092321}
	got := naiveAcov(split[:10])
	for lag, w := range wantAcov {
		if math.Abs(got[lag]-w) > 5e-7 {
			t.Errorf("acov lag %d = %.9g, want %v", lag, got[lag], w)
		}
	}
	// Averaged autocovariances of the z matrix.
	wantAbar := []float64{0.8566839813, 0.3193915706, 0.0001234554065, -0.2001259437, -0.1704135563,
		-0.1510877718, -0.1741189202, -0.07519789377, -0.007534126354, 0.03062119528}
	for lag, w := range wantAbar {
		var s float64
		for c := range 8 {
			s += naiveAcov(z[c*10 : c*10+10])[lag] / 8
		}
		checkRef(t, "abar", s, w)
	}
	checkRef(t, "rhat_bulk", rhatKernel(z, 8, 10), 1.013225921)
	_, tail := q.rhatParts()
	checkRef(t, "rhat_tail", tail, 1.010973696)
	// posterior 1.4.0's ess_sd: ESS of |x − mean|.
	mu := q.mean()
	abs := make([]float64, 80)
	for i, f := range q.x {
		abs[i] = math.Abs(f - mu)
	}
	checkRef(t, "ess_sd (1.4.0)", q.essSplit(abs), 83.88020426)
}

func sortedCopyInPlace(v []float64) {
	s := sortedCopy(v)
	copy(v, s)
}

// TestNormalQuantileAccuracy checks Φ⁻¹ by Φ(Φ⁻¹(u)) = u with Φ from erfc,
// over the Blom offsets of 4000 ranks. The round trip itself loses about
// (1 + z²)·ε relative through erfc, so the bound is (4 + 2z²)·ε·u.
func TestNormalQuantileAccuracy(t *testing.T) {
	s := 4000
	for r := 1; r <= s; r += 7 {
		u := (float64(r) - 0.375) / (float64(s) + 0.25)
		z := mathext.NormalQuantile(u)
		back := 0.5 * math.Erfc(-z/math.Sqrt2)
		if math.Abs(back-u) > (4+2*z*z)*machEps*u {
			t.Errorf("Φ(Φ⁻¹(%.17g)) = %.17g", u, back)
		}
	}
}

// zScaleInto is an independent reference for zSplitInto: it writes the rank-normalized values of src into dst (same length).
// Ranks are taken jointly over all of src with ties averaged; sorted must hold
// src sorted ascending, and src must not contain NaN. tab may be nil or a
// table for len(src) values. rk is scratch of length len(src).
func zScaleInto(dst, src, sorted []float64, rk []int32, tab *zTable) {
	s := len(src)
	// rk[a] = a+b+2 for a run of equal values at 0-based sorted positions a…b,
	// i.e. twice the 1-based average rank.
	for a := 0; a < s; {
		b := a
		for b+1 < s && sorted[b+1] == sorted[a] {
			b++
		}
		rk[a] = int32(a + b + 2)
		a = b + 1
	}
	if tab != nil && tab.s != s {
		tab = nil
	}
	for i, v := range src {
		a, _ := slices.BinarySearch(sorted, v)
		k := rk[a]
		if tab != nil {
			dst[i] = tab.z[k]
		} else {
			dst[i] = blomZ(float64(k)/2, s)
		}
	}
}

// TestZSplitMatchesReference compares the pair-based rank normalization of
// the split chains with the binary-search reference, on data with ties and
// on odd chain lengths (dropped middle draws).
func TestZSplitMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	cases := [][][]float64{w1, w5, w6, w8, fill(l28, 4, 7), fill(l28, 1, 9)}
	for range 5 {
		m, n := 1+rng.IntN(4), 4+rng.IntN(30)
		x := make([][]float64, m)
		for c := range x {
			x[c] = make([]float64, n)
			for i := range x[c] {
				x[c][i] = float64(rng.IntN(6)) // many ties
			}
		}
		cases = append(cases, x)
	}
	for k, x := range cases {
		m, n := len(x), len(x[0])
		pooled := pool(x)
		split := splitInto(nil, pooled, m, n)
		srt := append([]float64(nil), split...)
		sortedCopyInPlace(srt)
		want := make([]float64, len(split))
		zScaleInto(want, split, srt, make([]int32, len(split)), nil)
		got := make([]float64, len(split))
		zSplitInto(got, sortPairs(nil, pooled), m, n, nil)
		gotTab := make([]float64, len(split))
		zSplitInto(gotTab, sortPairs(nil, pooled), m, n, newZTable(len(split)))
		for i := range want {
			if got[i] != want[i] || gotTab[i] != want[i] {
				t.Fatalf("case %d (m=%d n=%d) position %d: z = %.17g (table %.17g), reference %.17g", k, m, n, i, got[i], gotTab[i], want[i])
			}
		}
	}
}

// TestFoldSortedMatchesSort: folding the sorted draws about their median gives the
// sorted |x − median| of a sort, value for value, with each value's own index, on
// draws with ties, values equal to the median and infinities.
func TestFoldSortedMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for trial := range 200 {
		n := 1 + rng.IntN(60)
		x := make([]float64, n)
		for i := range x {
			switch r := rng.IntN(10); {
			case r < 3:
				x[i] = float64(rng.IntN(5)) // ties, and often the median itself
			case r == 3 && trial%2 == 0:
				x[i] = math.Inf(2*rng.IntN(2) - 1)
			default:
				x[i] = rng.NormFloat64() * 3
			}
		}
		sorted := sortPairs(nil, x)
		vals := make([]float64, n)
		for i, p := range sorted {
			vals[i] = p.v
		}
		med := medianSorted(vals)
		dev := make([]float64, n)
		for i, v := range x {
			dev[i] = math.Abs(v - med)
		}
		if hasNaN(dev) {
			continue // an infinite median: sortedDev does not fold
		}
		want := sortPairs(nil, dev)
		got := foldSorted(nil, sorted, med)
		seen := make([]bool, n)
		for k := range want {
			if got[k].v != want[k].v {
				t.Fatalf("trial %d: folded value %d is %v, a sort gives %v\nx = %v", trial, k, got[k].v, want[k].v, x)
			}
			i := got[k].i
			if seen[i] || dev[i] != got[k].v {
				t.Fatalf("trial %d: entry %d has index %d (seen %v, its |x − med| %v, value %v)", trial, k, i, seen[i], dev[i], got[k].v)
			}
			seen[i] = true
		}
	}
}
