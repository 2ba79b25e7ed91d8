package diagnostics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// RankUniformity is the χ² test of uniformity of ranks in 0 … MaxRank (the ranks of
// simulation-based calibration), made by RankChiSquare.
type RankUniformity struct {
	// MaxRank is the largest possible rank: ranks take the MaxRank+1 values
	// 0 … MaxRank.
	MaxRank int
	// Bins is the number of bins; Counts[b] the number of ranks in bin b and
	// Expected[b] the count expected under uniformity. Bin b holds the ranks r with
	// ⌊r·Bins/(MaxRank+1)⌋ = b.
	Bins     int
	Counts   []int
	Expected []float64
	// ChiSquare is Pearson's statistic Σ_b (Counts[b] − Expected[b])²/Expected[b],
	// DF = Bins − 1 its degrees of freedom and PValue its upper tail probability
	// under the χ²_DF distribution.
	ChiSquare float64
	DF        int
	PValue    float64
}

// RankBin returns the bin of rank r among bins equal-width bins of the ranks
// 0 … maxRank: ⌊r·bins/(maxRank+1)⌋. It does not check its arguments.
func RankBin(r, maxRank, bins int) int {
	return int(int64(r) * int64(bins) / int64(maxRank+1))
}

// checkRanks checks that every rank is in 0 … maxRank and that there is at least
// one; fn names the caller in the errors.
func checkRanks(fn string, ranks []int, maxRank int) error {
	if maxRank < 1 {
		return fmt.Errorf("diagnostics: %s: maximum rank %d, want at least 1", fn, maxRank)
	}
	if len(ranks) == 0 {
		return fmt.Errorf("diagnostics: %s: no ranks", fn)
	}
	for i, r := range ranks {
		if r < 0 || r > maxRank {
			return fmt.Errorf("diagnostics: %s: rank %d (simulation %d) is outside 0 … %d", fn, r, i, maxRank)
		}
	}
	return nil
}

// RankChiSquare tests whether ranks, each in 0 … maxRank, are uniform: the ranks
// are counted in bins equal-width bins (see RankBin; when bins does not divide
// maxRank+1 the bins hold different numbers of rank values and their expected
// counts differ accordingly) and Pearson's χ² statistic is referred to the χ²
// distribution with bins − 1 degrees of freedom. This is the uniformity test of
// simulation-based calibration (Talts et al. 2018); the approximation is good when
// every expected count is 5 or more.
//
// It returns an error when there are no ranks, a rank is out of range, maxRank < 1,
// or bins is not in 2 … maxRank+1.
func RankChiSquare(ranks []int, maxRank, bins int) (RankUniformity, error) {
	if err := checkRanks("rank chi-square", ranks, maxRank); err != nil {
		return RankUniformity{}, err
	}
	if bins < 2 || bins > maxRank+1 {
		return RankUniformity{}, fmt.Errorf("diagnostics: rank chi-square: %d bins, want 2 … %d (the number of rank values)", bins, maxRank+1)
	}
	u := RankUniformity{MaxRank: maxRank, Bins: bins, Counts: make([]int, bins), Expected: make([]float64, bins), DF: bins - 1}
	for _, r := range ranks {
		u.Counts[RankBin(r, maxRank, bins)]++
	}
	values := make([]int, bins) // rank values per bin
	for r := 0; r <= maxRank; r++ {
		values[RankBin(r, maxRank, bins)]++
	}
	n := float64(len(ranks))
	for b := range u.Expected {
		u.Expected[b] = n * float64(values[b]) / float64(maxRank+1)
		d := float64(u.Counts[b]) - u.Expected[b]
		u.ChiSquare += d * d / u.Expected[b]
	}
	u.PValue = distuv.ChiSquared{K: float64(u.DF)}.Survival(u.ChiSquare)
	return u, nil
}

// RankECDFOptions configures RankECDF. The zero value of every field is its
// documented default; a nil *RankECDFOptions means all defaults.
type RankECDFOptions struct {
	// Level is the simultaneous coverage of the band (default 0.95): under
	// uniformity the whole ECDF lies inside the band with this probability. It must
	// be in (0, 1).
	Level float64
	// Points is the number K of equal-width steps of the evaluation grid
	// z = 0, 1/K, …, 1. It must divide maxRank+1, so that under uniformity the
	// number of ranks at or below each grid point is exactly binomial. The default
	// is the largest divisor of maxRank+1 not above min(number of ranks, 200).
	Points int
	// Simulations is the number M of uniform samples simulated to calibrate the
	// band (default 5000).
	Simulations int
	// Seed seeds the simulation of the band (PCG stream 0 of Seed; default 0): the
	// same ranks and options give the same band.
	Seed uint64
}

// RankECDF is the empirical CDF of fractional ranks against the uniform CDF with a
// simultaneous confidence band (Säilynoja, Bürkner and Vehtari 2022), made by
// RankECDFBand. All slices have K+1 entries, one per grid point Z[j] = j/K.
type RankECDF struct {
	// N is the number of ranks, MaxRank their largest possible value and K the
	// number of grid steps.
	N, MaxRank, K int
	// Z is the grid 0, 1/K, …, 1; ECDF[j] is the fraction of ranks r with
	// (r+1)/(MaxRank+1) ≤ Z[j], whose expectation under uniformity is Z[j].
	Z, ECDF []float64
	// Lower and Upper bound the band of the ECDF: under uniformity every
	// ECDF[j] lies in [Lower[j], Upper[j]] at once with probability Level.
	Lower, Upper []float64
	// Level is the simultaneous coverage; Gamma the pointwise tail probability γ
	// that gives it: the band at Z[j] runs between the γ/2 and 1 − γ/2 quantiles
	// of Binomial(N, Z[j]), divided by N.
	Level, Gamma float64
	// Outside is the number of grid points where the ECDF leaves the band; a
	// positive count rejects uniformity at level 1 − Level.
	Outside int
}

// Diff returns the ECDF difference ECDF[j] − Z[j] and the band around it,
// Lower[j] − Z[j] and Upper[j] − Z[j]: what the ECDF-difference plot of
// simulation-based calibration draws.
func (e *RankECDF) Diff() (diff, lower, upper []float64) {
	diff = make([]float64, len(e.Z))
	lower = make([]float64, len(e.Z))
	upper = make([]float64, len(e.Z))
	for j, z := range e.Z {
		diff[j], lower[j], upper[j] = e.ECDF[j]-z, e.Lower[j]-z, e.Upper[j]-z
	}
	return diff, lower, upper
}

// RankECDFBand computes the ECDF of ranks, each in 0 … maxRank, on the grid
// z = j/K and its simultaneous band under uniformity (Säilynoja et al. 2022).
//
// The band is the pointwise binomial interval at each grid point with the tail
// probability γ adjusted for the K − 1 points it covers at once. γ is found by
// simulation, as in the paper's simulation method: M samples of N independent
// uniform values are drawn (with a fixed seed, so the band is reproducible); for each
// the smallest two-sided binomial tail probability over the grid,
// 2·min_j min(P(X_j ≤ c_j), P(X_j ≥ c_j)) with X_j ~ Binomial(N, z_j) and c_j the
// sample's count at or below z_j, is recorded; γ is the (1 − Level) quantile of
// these M values, so that a fraction Level of the simulated ECDFs lie inside the band.
// Discrete ranks are uniform on 0 … maxRank exactly when (r+1)/(maxRank+1) has the
// uniform distribution's probabilities at every grid point, which is why K must
// divide maxRank+1.
//
// It returns an error when there are no ranks, a rank is out of range, maxRank < 1
// or an option is out of range.
func RankECDFBand(ranks []int, maxRank int, opts *RankECDFOptions) (*RankECDF, error) {
	if err := checkRanks("rank ECDF", ranks, maxRank); err != nil {
		return nil, err
	}
	var o RankECDFOptions
	if opts != nil {
		o = *opts
	}
	n := len(ranks)
	switch {
	case o.Level == 0:
		o.Level = 0.95
	case !(o.Level > 0 && o.Level < 1):
		return nil, fmt.Errorf("diagnostics: rank ECDF: level %g, want a value in (0, 1)", o.Level)
	}
	switch {
	case o.Points == 0:
		o.Points = 1
		for k := min(n, 200, maxRank+1); k >= 1; k-- {
			if (maxRank+1)%k == 0 {
				o.Points = k
				break
			}
		}
	case o.Points < 1 || (maxRank+1)%o.Points != 0:
		return nil, fmt.Errorf("diagnostics: rank ECDF: %d points, want a positive divisor of %d (the number of rank values)", o.Points, maxRank+1)
	}
	switch {
	case o.Simulations == 0:
		o.Simulations = 5000
	case o.Simulations < 0:
		return nil, fmt.Errorf("diagnostics: rank ECDF: %d simulations, want a positive number", o.Simulations)
	}
	k := o.Points
	e := &RankECDF{N: n, MaxRank: maxRank, K: k, Level: o.Level,
		Z: make([]float64, k+1), ECDF: make([]float64, k+1), Lower: make([]float64, k+1), Upper: make([]float64, k+1)}
	counts := make([]int, k+1) // counts[j]: ranks at or below grid point j
	per := (maxRank + 1) / k
	for _, r := range ranks {
		counts[r/per+1]++ // (r+1)/(maxRank+1) ≤ j/K ⟺ r/per + 1 ≤ j
	}
	for j := 1; j <= k; j++ {
		counts[j] += counts[j-1]
	}
	tails := newBinomialTails(n, k)
	e.Gamma = tails.cachedGamma(o.Level, o.Simulations, o.Seed)
	for j := 0; j <= k; j++ {
		e.Z[j] = float64(j) / float64(k)
		e.ECDF[j] = float64(counts[j]) / float64(n)
		lo, hi := tails.interval(j, e.Gamma)
		e.Lower[j], e.Upper[j] = float64(lo)/float64(n), float64(hi)/float64(n)
		if counts[j] < lo || counts[j] > hi {
			e.Outside++
		}
	}
	return e, nil
}

// binomialTails holds, for X_j ~ Binomial(n, j/k) at the inner grid points
// j = 1 … k−1, the lower tails P(X_j ≤ c) and upper tails P(X_j ≥ c), c = 0 … n.
type binomialTails struct {
	n, k         int
	lower, upper [][]float64
}

func newBinomialTails(n, k int) *binomialTails {
	t := &binomialTails{n: n, k: k, lower: make([][]float64, k+1), upper: make([][]float64, k+1)}
	// log C(n, c+1) − log C(n, c) = log(n − c) − log(c + 1), shared by every grid point.
	step := make([]float64, n)
	for c := range step {
		step[c] = math.Log(float64(n-c)) - math.Log(float64(c+1))
	}
	logPMF := make([]float64, n+1)
	for j := 1; j < k; j++ {
		p := float64(j) / float64(k)
		lp, lq := math.Log(p), math.Log1p(-p)
		logPMF[0] = float64(n) * lq
		for c := 0; c < n; c++ {
			logPMF[c+1] = logPMF[c] + step[c] + lp - lq
		}
		lo, up := make([]float64, n+1), make([]float64, n+1)
		s := 0.0
		for c := 0; c <= n; c++ {
			s += math.Exp(logPMF[c])
			lo[c] = min(s, 1)
		}
		s = 0
		for c := n; c >= 0; c-- {
			s += math.Exp(logPMF[c])
			up[c] = min(s, 1)
		}
		t.lower[j], t.upper[j] = lo, up
	}
	return t
}

// tail returns min(P(X_j ≤ c), P(X_j ≥ c)) at an inner grid point j.
func (t *binomialTails) tail(j, c int) float64 {
	return min(t.lower[j][c], t.upper[j][c])
}

// interval returns the counts lo, hi of the band at grid point j for tail
// probability gamma: the smallest c with P(X_j ≤ c) ≥ γ/2 and the largest c with
// P(X_j ≥ c) ≥ γ/2. At z = 0 and z = 1 the count is certain (0 and n).
func (t *binomialTails) interval(j int, gamma float64) (lo, hi int) {
	switch j {
	case 0:
		return 0, 0
	case t.k:
		return t.n, t.n
	}
	lo = 0
	for lo < t.n && t.lower[j][lo] < gamma/2 {
		lo++
	}
	hi = t.n
	for hi > 0 && t.upper[j][hi] < gamma/2 {
		hi--
	}
	return lo, hi
}

// gammaKey identifies a calibration of γ: it depends on nothing else.
type gammaKey struct {
	n, k, m int
	level   float64
	seed    uint64
}

// gammaCache holds the calibrated γ's, since every variable of a simulation-based
// calibration asks for the same one.
var gammaCache sync.Map // gammaKey → float64

// cachedGamma returns adjustedGamma, calibrated once per process for each set of
// arguments.
func (t *binomialTails) cachedGamma(level float64, m int, seed uint64) float64 {
	key := gammaKey{n: t.n, k: t.k, m: m, level: level, seed: seed}
	if g, ok := gammaCache.Load(key); ok {
		return g.(float64)
	}
	g := t.adjustedGamma(level, m, seed)
	gammaCache.Store(key, g)
	return g
}

// adjustedGamma returns the pointwise tail probability γ that gives the band
// simultaneous coverage level, calibrated on m simulated uniform samples drawn from
// PCG(seed, 0).
func (t *binomialTails) adjustedGamma(level float64, m int, seed uint64) float64 {
	if t.k < 2 {
		return 1 - level // no inner grid point: nothing to adjust
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	counts := make([]int, t.k)
	gammas := make([]float64, m)
	for s := range gammas {
		clear(counts)
		for range t.n {
			counts[rng.IntN(t.k)]++ // the uniform value falls in grid cell b: below z_{b+1}
		}
		g, c := 1.0, 0
		for j := 1; j < t.k; j++ {
			c += counts[j-1]
			g = min(g, t.tail(j, c))
		}
		gammas[s] = 2 * g
	}
	slices.Sort(gammas)
	// The (1 − level) quantile: at least a fraction level of the samples have
	// a smallest tail probability ≥ γ and so lie inside the band.
	i := int(math.Floor((1 - level) * float64(m)))
	return gammas[min(i, m-1)]
}
