package diagnostics

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// ErrNoChains is returned when draws have no chains at all.
var ErrNoChains = errors.New("diagnostics: no chains")

// shape checks that x holds at least one chain, that every chain has draws,
// and that all chains have the same length. It returns M and N.
func shape(x [][]float64) (m, n int, err error) {
	if len(x) == 0 {
		return 0, 0, ErrNoChains
	}
	n = len(x[0])
	for c, ch := range x {
		if len(ch) == 0 {
			return 0, 0, fmt.Errorf("diagnostics: chain %d has no draws", c)
		}
		if len(ch) != n {
			return 0, 0, fmt.Errorf("diagnostics: ragged chains: chain %d has %d draws, chain 0 has %d", c, len(ch), n)
		}
	}
	return len(x), n, nil
}

// checkProb returns an error unless p is in [0, 1].
func checkProb(p float64) error {
	if !(p >= 0 && p <= 1) {
		return fmt.Errorf("diagnostics: probability p = %v is outside [0, 1]", p)
	}
	return nil
}

// pool returns all draws of x chain after chain in one new slice.
func pool(x [][]float64) []float64 {
	out := make([]float64, 0, len(x)*len(x[0]))
	for _, ch := range x {
		out = append(out, ch...)
	}
	return out
}

// hasNaN reports whether v contains a NaN.
func hasNaN(v []float64) bool {
	for _, f := range v {
		if f != f {
			return true
		}
	}
	return false
}

// sortedCopy returns v sorted ascending, or nil if v contains a NaN.
func sortedCopy(v []float64) []float64 {
	if hasNaN(v) {
		return nil
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s
}

// meanOf is the arithmetic mean of v.
func meanOf(v []float64) float64 {
	var s float64
	for _, f := range v {
		s += f
	}
	return s / float64(len(v))
}

// sdOf is the sample standard deviation of v (divisor n−1). It is NaN if v
// holds a NaN or ±Inf, or has fewer than 2 values.
func sdOf(v []float64) float64 {
	n := len(v)
	if n < 2 {
		return math.NaN()
	}
	mu := meanOf(v)
	var ss float64
	for _, f := range v {
		d := f - mu
		ss += d * d
	}
	return math.Sqrt(ss / float64(n-1))
}

// medianSorted is the median of the sorted values s.
func medianSorted(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	a, b := s[n/2-1], s[n/2]
	if m := (a + b) / 2; !math.IsInf(m, 0) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return m
	}
	// a + b overflowed although both are finite (e.g. two draws of 1.7e308):
	// halve first, which is exact for such large values and is what R's
	// long-double mean gives.
	return a/2 + b/2
}

// quantileSorted is the R type-7 quantile of the sorted values s at p ∈ [0, 1].
func quantileSorted(s []float64, p float64) float64 {
	n := len(s)
	index := 1 + float64(n-1)*p
	lo := math.Floor(index)
	hi := math.Ceil(index)
	h := index - lo
	a, b := s[int(lo)-1], s[int(hi)-1]
	if index > lo && b != a {
		if q := (1-h)*a + h*b; !math.IsInf(q, 0) || math.IsInf(a, 0) || math.IsInf(b, 0) {
			return q
		}
		// The form above rounded past the largest float although a and b are
		// finite (both near ±MaxFloat64); this form stays between them.
		return a + h*(b-a)
	}
	return a
}

// madConst is the consistency constant of MAD used by R, as a decimal literal.
const madConst = 1.4826

// madSorted is 1.4826 times the median absolute deviation of the sorted values
// s from their median. It uses dev as scratch of length len(s), and leaves dev
// holding the sorted deviations.
func madSorted(s, dev []float64) float64 {
	med := medianSorted(s)
	for i, f := range s {
		dev[i] = math.Abs(f - med)
	}
	slices.Sort(dev)
	if hasNaN(dev) { // Inf − Inf when the median is infinite.
		return math.NaN()
	}
	return madConst * medianSorted(dev)
}

// Mean returns the arithmetic mean of all draws x[chain][draw]. It is NaN if
// any draw is NaN or if draws of both infinite signs occur, and ±Inf if draws
// of only one infinite sign occur. It returns an error if x has no chains,
// an empty chain, or chains of different lengths.
func Mean(x [][]float64) (float64, error) {
	if _, _, err := shape(x); err != nil {
		return math.NaN(), err
	}
	return meanOf(pool(x)), nil
}

// SD returns the sample standard deviation (divisor S−1) of all S draws
// x[chain][draw]. It is NaN if any draw is NaN or ±Inf, or if S = 1. It
// returns an error if x has no chains, an empty chain, or chains of different
// lengths.
func SD(x [][]float64) (float64, error) {
	if _, _, err := shape(x); err != nil {
		return math.NaN(), err
	}
	return sdOf(pool(x)), nil
}

// Median returns the median of all draws x[chain][draw]; for an even number
// of draws it is the average (a+b)/2 of the two middle values. It is NaN if
// any draw is NaN. It returns an error if x has no chains, an empty chain, or
// chains of different lengths.
func Median(x [][]float64) (float64, error) {
	if _, _, err := shape(x); err != nil {
		return math.NaN(), err
	}
	s := sortedCopy(pool(x))
	if s == nil {
		return math.NaN(), nil
	}
	return medianSorted(s), nil
}

// MAD returns the median absolute deviation of all draws x[chain][draw] from
// their median, times 1.4826 (R's mad). It is NaN if any draw is NaN. It
// returns an error if x has no chains, an empty chain, or chains of different
// lengths.
func MAD(x [][]float64) (float64, error) {
	if _, _, err := shape(x); err != nil {
		return math.NaN(), err
	}
	s := sortedCopy(pool(x))
	if s == nil {
		return math.NaN(), nil
	}
	return madSorted(s, make([]float64, len(s))), nil
}

// Quantile returns the R type-7 quantile at probability p of all draws
// x[chain][draw]: with s₁ ≤ … ≤ s_S the sorted draws and h = 1+(S−1)p, the
// linear interpolation (1−{h})·s_⌊h⌋ + {h}·s_⌈h⌉. It is NaN if any draw is NaN.
// It returns an error if p is outside [0, 1], or if x has no chains, an empty
// chain, or chains of different lengths.
func Quantile(x [][]float64, p float64) (float64, error) {
	if _, _, err := shape(x); err != nil {
		return math.NaN(), err
	}
	if err := checkProb(p); err != nil {
		return math.NaN(), err
	}
	s := sortedCopy(pool(x))
	if s == nil {
		return math.NaN(), nil
	}
	return quantileSorted(s, p), nil
}
