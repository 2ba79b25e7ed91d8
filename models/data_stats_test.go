package models

import (
	"math"
	"testing"
)

// zMax is the largest accepted |z| of a Monte Carlo check (two-sided p ≈ 7e-6).
const zMax = 4.5

// checkMean checks that the mean of xs is within zMax standard errors of want, where the
// standard error is sd/√n with sd the distribution's standard deviation (or, when sd is
// 0, the sample standard deviation).
func checkMean(t *testing.T, what string, xs []float64, want, sd float64) {
	t.Helper()
	n := float64(len(xs))
	var s float64
	for _, x := range xs {
		s += x
	}
	mean := s / n
	if sd == 0 {
		var ss float64
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		sd = math.Sqrt(ss / (n - 1))
	}
	if z := (mean - want) / (sd / math.Sqrt(n)); math.Abs(z) > zMax || math.IsNaN(z) {
		t.Errorf("%s: mean %.6g, want %.6g (z = %.2f, n = %d)", what, mean, want, z, len(xs))
	}
}

// checkVar checks that the sample variance of xs (about the known mean mu) is within zMax
// standard errors of want; the standard error √((m4 − v²)/n) uses the sample fourth
// central moment m4.
func checkVar(t *testing.T, what string, xs []float64, mu, want float64) {
	t.Helper()
	n := float64(len(xs))
	var v, m4 float64
	for _, x := range xs {
		d2 := (x - mu) * (x - mu)
		v += d2
		m4 += d2 * d2
	}
	v /= n
	m4 /= n
	se := math.Sqrt((m4 - v*v) / n)
	if z := (v - want) / se; math.Abs(z) > zMax || math.IsNaN(z) {
		t.Errorf("%s: variance %.6g, want %.6g (z = %.2f, n = %d)", what, v, want, z, len(xs))
	}
}

// checkSum checks that Σ(obs − expect) is within zMax of 0 given the summed variance.
func checkSum(t *testing.T, what string, sumDiff, sumVar float64) {
	t.Helper()
	if z := sumDiff / math.Sqrt(sumVar); math.Abs(z) > zMax || math.IsNaN(z) {
		t.Errorf("%s: Σ(observed − expected) = %.4g, sd %.4g (z = %.2f)", what, sumDiff, math.Sqrt(sumVar), z)
	}
}

// checkUniform checks that us look like Uniform(0, 1) draws: mean 1/2, variance 1/12
// with standard errors √(1/12/n) and √((1/80 − 1/144)/n).
func checkUniform(t *testing.T, what string, us []float64) {
	t.Helper()
	checkMean(t, what+" PIT", us, 0.5, math.Sqrt(1.0/12))
	n := float64(len(us))
	var v float64
	for _, u := range us {
		v += (u - 0.5) * (u - 0.5)
	}
	v /= n
	if z := (v - 1.0/12) / math.Sqrt((1.0/80-1.0/144)/n); math.Abs(z) > zMax {
		t.Errorf("%s PIT: variance %.5g, want 1/12 (z = %.2f)", what, v, z)
	}
}
