package diagnostics

import "math"

// RHat returns the rank-normalized split R-hat of draws x[chain][draw]
// (Vehtari et al. 2021; posterior's rhat): the larger of the basic R-hat of the
// rank-normalized split chains (bulk) and of the rank-normalized split chains
// of |x − median(x)| (tail). Values near 1 indicate convergence; 1.01 is the
// usual threshold.
//
// Because it uses ranks, RHat is finite for draws containing ±Inf. It is NaN
// for fewer than 4 draws per chain, for any NaN draw, for all draws equal, and
// when the folded draws are all equal. It returns an error if x has no chains,
// an empty chain, or chains of different lengths.
func RHat(x [][]float64) (float64, error) {
	q, err := newQuantity(x)
	if err != nil {
		return math.NaN(), err
	}
	return q.rhat(), nil
}

// RHatBasic returns the classic split R-hat of draws x[chain][draw] without
// rank normalization (posterior's rhat_basic): sqrt((B/W + n − 1)/n) over the
// split chains of length n, with B = n·var(chain means) and W the mean
// within-chain variance. It is +Inf when every split chain is constant but the
// chains differ, and NaN for fewer than 4 draws per chain, any NaN or ±Inf
// draw, or all draws equal. It returns an error if x has no chains, an empty
// chain, or chains of different lengths.
func RHatBasic(x [][]float64) (float64, error) {
	q, err := newQuantity(x)
	if err != nil {
		return math.NaN(), err
	}
	return q.rhatBasic(), nil
}

// ESSBasic returns the effective sample size of the split chains of draws
// x[chain][draw] on their raw values (posterior's ess_basic, also called
// ess_mean), the ESS relevant for the mean. It is NaN for fewer than 6 draws
// per chain, any NaN or ±Inf draw, or all draws equal. It returns an error if
// x has no chains, an empty chain, or chains of different lengths.
func ESSBasic(x [][]float64) (float64, error) {
	m, n, err := shape(x)
	if err != nil {
		return math.NaN(), err
	}
	// The raw values' ESS needs no ranks: the draws are not sorted (newQuantity
	// sorts them for the other summaries).
	q := &quantity{ws: &workspace{}, m: m, n: n, x: pool(x)}
	return q.essBasic(), nil
}

// ESSMean is the same as [ESSBasic].
func ESSMean(x [][]float64) (float64, error) { return ESSBasic(x) }

// ESSBulk returns the bulk effective sample size of draws x[chain][draw]: the
// ESS of the rank-normalized split chains (posterior's ess_bulk). It is
// invariant under strictly increasing transforms of x, and finite for draws
// containing ±Inf. It is NaN for fewer than 6 draws per chain, any NaN draw,
// or all draws equal. It returns an error if x has no chains, an empty chain,
// or chains of different lengths.
func ESSBulk(x [][]float64) (float64, error) {
	q, err := newQuantity(x)
	if err != nil {
		return math.NaN(), err
	}
	return q.essBulk(), nil
}

// ESSTail returns the tail effective sample size of draws x[chain][draw]: the
// smaller of ESSQuantile(x, 0.05) and ESSQuantile(x, 0.95), NaN if either is
// NaN (posterior's ess_tail). It returns an error if x has no chains, an
// empty chain, or chains of different lengths.
func ESSTail(x [][]float64) (float64, error) {
	q, err := newQuantity(x)
	if err != nil {
		return math.NaN(), err
	}
	return q.essTail(), nil
}

// ESSQuantile returns the effective sample size for the p-quantile of draws
// x[chain][draw]: the ESS of the split chains of the indicators x ≤ q, with q
// the type-7 quantile of all draws at p; p = 1 is replaced by (S − 0.5)/S
// (posterior's ess_quantile). It is NaN for fewer than 6 draws per chain, any
// NaN or ±Inf draw, all draws equal, or constant split indicators. It returns
// an error if p is outside [0, 1], or if x has no chains, an empty chain, or
// chains of different lengths.
func ESSQuantile(x [][]float64, p float64) (float64, error) {
	if err := checkProb(p); err != nil {
		return math.NaN(), err
	}
	q, err := newQuantity(x)
	if err != nil {
		return math.NaN(), err
	}
	return q.essQuantile(p), nil
}

// ESSMedian returns ESSQuantile(x, 0.5).
func ESSMedian(x [][]float64) (float64, error) { return ESSQuantile(x, 0.5) }

// ESSSD returns the effective sample size for the standard deviation of draws
// x[chain][draw]: the ESS of the split chains of (x − mean(x))², as defined by
// posterior 1.5 and later (posterior 1.4.0 used |x − mean(x)|). It is NaN
// under the same conditions as [ESSBasic]. It returns an error if x has no
// chains, an empty chain, or chains of different lengths.
func ESSSD(x [][]float64) (float64, error) {
	q, err := newQuantity(x)
	if err != nil {
		return math.NaN(), err
	}
	return q.essSD(), nil
}

// MCSEMean returns the Monte Carlo standard error of the mean of draws
// x[chain][draw]: SD(x)/√ESSBasic(x) (posterior's mcse_mean). It is NaN
// whenever ESSBasic or SD is NaN. It returns an error if x has no chains, an
// empty chain, or chains of different lengths.
func MCSEMean(x [][]float64) (float64, error) {
	q, err := newQuantity(x)
	if err != nil {
		return math.NaN(), err
	}
	return q.mcseMean(), nil
}

// MCSESD returns the Monte Carlo standard error of the standard deviation of
// draws x[chain][draw] (posterior's mcse_sd): with c = x − mean(x),
// m₂ = mean(c²), m₄ = mean(c⁴) and e the split ESS of c², it is
// √((m₄ − m₂²)/e / m₂ / 4). It is NaN whenever e is NaN, which includes any
// non-finite draw and all draws equal. It returns an error if x has no chains,
// an empty chain, or chains of different lengths.
func MCSESD(x [][]float64) (float64, error) {
	q, err := newQuantity(x)
	if err != nil {
		return math.NaN(), err
	}
	return q.mcseSD(), nil
}

// MCSEQuantile returns the Monte Carlo standard error of the p-quantile of
// draws x[chain][draw] (posterior's mcse_quantile): with e = ESSQuantile(x, p)
// and a₁, a₂ the 0.1586553 and 0.8413447 quantiles of Beta(e·p + 1,
// e·(1−p) + 1), it is half the distance between the sorted draws at positions
// max(⌊a₁S⌋, 1) and min(⌈a₂S⌉, S). It is NaN whenever e is NaN. It returns an
// error if p is outside [0, 1], or if x has no chains, an empty chain, or
// chains of different lengths.
func MCSEQuantile(x [][]float64, p float64) (float64, error) {
	if err := checkProb(p); err != nil {
		return math.NaN(), err
	}
	q, err := newQuantity(x)
	if err != nil {
		return math.NaN(), err
	}
	return q.mcseQuantile(p), nil
}

// MCSEMedian returns MCSEQuantile(x, 0.5).
func MCSEMedian(x [][]float64) (float64, error) { return MCSEQuantile(x, 0.5) }
