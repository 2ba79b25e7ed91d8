package diagnostics

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

func TestRankChiSquareByHand(t *testing.T) {
	t.Parallel()
	// Ranks 0 … 3 in 2 bins: {0, 1} and {2, 3}. Counts 3 and 1 of 4, expected 2 and 2:
	// χ² = (1 + 1)/2 = 1 on 1 degree of freedom; P(χ²₁ > 1) = 2(1 − Φ(1)) = 0.31731…
	// (erfc(1/√2)).
	u, err := RankChiSquare([]int{0, 1, 1, 3}, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	if u.Counts[0] != 3 || u.Counts[1] != 1 || u.Expected[0] != 2 || u.Expected[1] != 2 {
		t.Errorf("counts %v expected %v, want [3 1] and [2 2]", u.Counts, u.Expected)
	}
	if u.ChiSquare != 1 || u.DF != 1 {
		t.Errorf("χ² = %v on %d df, want 1 on 1", u.ChiSquare, u.DF)
	}
	if want := math.Erfc(1 / math.Sqrt2); math.Abs(u.PValue-want) > 1e-12 {
		t.Errorf("p = %.17g, want %.17g", u.PValue, want)
	}
	// Uneven bins: ranks 0 … 4 in 2 bins hold {0, 1, 2} and {3, 4}, expected 3/5 and 2/5.
	u, err = RankChiSquare([]int{0, 1, 2, 3, 4}, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	if u.Expected[0] != 3 || u.Expected[1] != 2 || u.ChiSquare != 0 || u.PValue != 1 {
		t.Errorf("uneven bins: expected %v, χ² %v, p %v; want [3 2], 0, 1", u.Expected, u.ChiSquare, u.PValue)
	}
}

func TestRankChiSquareErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ranks         []int
		maxRank, bins int
	}{
		{nil, 9, 2}, {[]int{0, 10}, 9, 2}, {[]int{-1}, 9, 2}, {[]int{0}, 0, 2}, {[]int{0}, 9, 1}, {[]int{0}, 9, 11},
	} {
		if _, err := RankChiSquare(c.ranks, c.maxRank, c.bins); err == nil {
			t.Errorf("RankChiSquare(%v, %d, %d): no error", c.ranks, c.maxRank, c.bins)
		}
	}
	for _, o := range []*RankECDFOptions{{Level: 1}, {Level: -0.5}, {Points: 3}, {Points: -1}, {Simulations: -2}} {
		if _, err := RankECDFBand([]int{0, 5, 9}, 9, o); err == nil {
			t.Errorf("RankECDFBand with %+v: no error", *o)
		}
	}
}

// TestRankChiSquareUniform checks the test's size: for uniform ranks its p-values are
// uniform, so P(p < 0.05) = 0.05 (Monte Carlo sd of the fraction of 2000 tests:
// √(0.05·0.95/2000) = 0.0049).
func TestRankChiSquareUniform(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 1))
	const tests, n, maxRank = 2000, 200, 99
	rejected := 0
	ranks := make([]int, n)
	for range tests {
		for i := range ranks {
			ranks[i] = rng.IntN(maxRank + 1)
		}
		u, err := RankChiSquare(ranks, maxRank, 10)
		if err != nil {
			t.Fatal(err)
		}
		if u.PValue < 0.05 {
			rejected++
		}
	}
	if f := float64(rejected) / tests; math.Abs(f-0.05) > 4.5*0.0049 {
		t.Errorf("uniform ranks rejected at 5%% in a fraction %.4f of tests, want 0.05 ± 0.022", f)
	}
}

func TestRankECDFBandByHand(t *testing.T) {
	t.Parallel()
	ranks := []int{0, 3, 3, 9, 7, 5}
	e, err := RankECDFBand(ranks, 9, &RankECDFOptions{Points: 5})
	if err != nil {
		t.Fatal(err)
	}
	// Grid z = 0, 0.2, …, 1; (r+1)/10 ≤ z counts ranks ≤ 10z − 1: ≤1, ≤3, ≤5, ≤7, ≤9.
	want := []float64{0, 1.0 / 6, 3.0 / 6, 4.0 / 6, 5.0 / 6, 1}
	for j, w := range want {
		if math.Abs(e.ECDF[j]-w) > 1e-15 || math.Abs(e.Z[j]-float64(j)/5) > 1e-15 {
			t.Errorf("grid point %d: z %v ECDF %v, want %v, %v", j, e.Z[j], e.ECDF[j], float64(j)/5, w)
		}
	}
	if e.Lower[0] != 0 || e.Upper[0] != 0 || e.Lower[5] != 1 || e.Upper[5] != 1 {
		t.Errorf("band at the ends [%v, %v] and [%v, %v], want [0, 0] and [1, 1]", e.Lower[0], e.Upper[0], e.Lower[5], e.Upper[5])
	}
	// The band at each inner point is the binomial interval of the adjusted γ.
	for j := 1; j < 5; j++ {
		b := distuv.Binomial{N: 6, P: float64(j) / 5}
		lo, hi := int(math.Round(e.Lower[j]*6)), int(math.Round(e.Upper[j]*6))
		if b.CDF(float64(lo)) < e.Gamma/2-1e-12 || (lo > 0 && b.CDF(float64(lo-1)) >= e.Gamma/2+1e-12) {
			t.Errorf("grid point %d: lower count %d is not the γ/2 quantile (γ = %g)", j, lo, e.Gamma)
		}
		if up := 1 - b.CDF(float64(hi-1)); up < e.Gamma/2-1e-12 || (hi < 6 && 1-b.CDF(float64(hi)) >= e.Gamma/2+1e-12) {
			t.Errorf("grid point %d: upper count %d is not the 1 − γ/2 quantile (γ = %g)", j, hi, e.Gamma)
		}
	}
	diff, lower, upper := e.Diff()
	for j := range diff {
		if diff[j] != e.ECDF[j]-e.Z[j] || lower[j] != e.Lower[j]-e.Z[j] || upper[j] != e.Upper[j]-e.Z[j] {
			t.Errorf("Diff at %d: %v %v %v", j, diff[j], lower[j], upper[j])
		}
	}
}

// TestRankECDFBandCoverage checks the band's simultaneous coverage: uniform ranks
// leave it in about 5% of samples (Monte Carlo sd of the fraction of 1000 samples:
// 0.0069; the band itself is calibrated from 5000 samples, adding a little), while
// the adjusted γ lies between the Bonferroni value 0.05/(K−1) and 0.05.
func TestRankECDFBandCoverage(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 2))
	const samples, n, maxRank = 1000, 100, 99
	ranks := make([]int, n)
	outside := 0
	var gamma float64
	for s := range samples {
		for i := range ranks {
			ranks[i] = rng.IntN(maxRank + 1)
		}
		e, err := RankECDFBand(ranks, maxRank, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s == 0 {
			gamma = e.Gamma
			if e.K != 100 {
				t.Errorf("default grid K = %d, want 100", e.K)
			}
		} else if e.Gamma != gamma {
			t.Fatalf("γ changed between samples of the same size: %v, %v", gamma, e.Gamma)
		}
		if e.Outside > 0 {
			outside++
		}
	}
	if gamma < 0.05/99 || gamma > 0.05 {
		t.Errorf("adjusted γ = %v, want it between 0.05/99 and 0.05", gamma)
	}
	if f := float64(outside) / samples; math.Abs(f-0.05) > 0.035 {
		t.Errorf("uniform ranks left the 95%% band in a fraction %.3f of samples, want 0.05 ± 0.035", f)
	}
}

// TestRankECDFBandDetects checks that ranks piled at both ends (a posterior too
// narrow) leave the band.
func TestRankECDFBandDetects(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 3))
	ranks := make([]int, 200)
	for i := range ranks {
		ranks[i] = rng.IntN(100)
		if i%3 == 0 {
			ranks[i] = 99 * rng.IntN(2)
		}
	}
	e, err := RankECDFBand(ranks, 99, nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := RankChiSquare(ranks, 99, 10)
	if err != nil {
		t.Fatal(err)
	}
	if e.Outside == 0 || u.PValue > 1e-6 {
		t.Errorf("ranks piled at the ends: %d grid points outside the band, χ² p = %g; want some, and p < 1e-6", e.Outside, u.PValue)
	}
}
