package diagnostics

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestLOOPITByHand checks a case computed by hand: weights 0.1 … 0.4 and a tie
// split at one half.
func TestLOOPITByHand(t *testing.T) {
	y := []float64{0, 1}
	yrep := [][]float64{{-1, 2}, {0.5, 1}, {-2, 0}, {3, 5}}
	lw := [][]float64{
		{math.Log(1), math.Log(2), math.Log(3), math.Log(4)}, // normalised: 0.1 0.2 0.3 0.4
		{0, 0, 0, 0},
	}
	pit, err := LOOPIT(y, yrep, lw, nil)
	if err != nil {
		t.Fatal(err)
	}
	// obs 0: replicates −1 (0.1) and −2 (0.3) below 0 → 0.4.
	// obs 1: replicate 0 below (0.25), replicate 1 tied (0.25 × 1/2) → 0.375.
	want := []float64{0.4, 0.375}
	for i := range want {
		if math.Abs(pit[i]-want[i]) > 1e-12 {
			t.Errorf("PIT[%d] = %v, want %v", i, pit[i], want[i])
		}
	}
	// A random tie split stays within [below, below+tied].
	pit, err = LOOPIT(y, yrep, lw, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(pit[0]-0.4) > 1e-12 || pit[1] < 0.25 || pit[1] > 0.5 {
		t.Errorf("randomised PIT = %v, want [0.4, in [0.25, 0.5]]", pit)
	}
	// Equal weights (nil) = the plain predictive PIT.
	pit, err = LOOPIT(y, yrep, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pit[0] != 0.5 || pit[1] != 0.375 {
		t.Errorf("unweighted PIT = %v, want [0.5 0.375]", pit)
	}
}

// ksStat is the Kolmogorov–Smirnov distance of x from the uniform distribution.
func ksStat(x []float64) float64 {
	x = slices.Clone(x)
	slices.Sort(x)
	n := float64(len(x))
	d := 0.0
	for i, v := range x {
		d = max(d, float64(i+1)/n-v, v-float64(i)/n)
	}
	return d
}

// TestLOOPITUniform draws the observations and the replicates from the same
// normal distribution: the PIT values are uniform (the KS distance stays below
// its 1% critical value 1.63/√n); replicates from a narrower distribution fail.
func TestLOOPITUniform(t *testing.T) {
	const n, S = 400, 1000
	rng := rand.New(rand.NewPCG(7, 8))
	y := make([]float64, n)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	yrep := make([][]float64, S)
	narrow := make([][]float64, S)
	for s := range yrep {
		yrep[s] = make([]float64, n)
		narrow[s] = make([]float64, n)
		for i := range n {
			yrep[s][i] = rng.NormFloat64()
			narrow[s][i] = 0.5 * rng.NormFloat64()
		}
	}
	crit := 1.63 / math.Sqrt(n)
	pit, err := LOOPIT(y, yrep, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := ksStat(pit); d > crit {
		t.Errorf("calibrated replicates: KS distance %.4f > %.4f", d, crit)
	}
	pit, err = LOOPIT(y, narrow, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := ksStat(pit); d < crit {
		t.Errorf("replicates too narrow: KS distance %.4f < %.4f (should be detected)", d, crit)
	}
}

// TestLOOPITLogLikNormal checks the PSIS LOO-PIT of a normal mean with known
// unit variance and a flat prior against the exact leave-one-out predictive
// y_i | y_−i ~ N(ȳ_−i, 1 + 1/(n−1)), with the draws of μ from the exact posterior
// N(ȳ, 1/n); observation 0 is an outlier. The tolerance is 5 Monte Carlo standard errors √(p(1−p)/S) of a
// proportion over S independent draws, doubled for the importance weighting.
func TestLOOPITLogLikNormal(t *testing.T) {
	const n, chains, D = 6, 2, 4000
	rng := rand.New(rand.NewPCG(3, 4))
	y := make([]float64, n)
	sum := 0.0
	for i := range y {
		y[i] = 1 + rng.NormFloat64()
		if i == 0 {
			y[i] = 3 // an outlier, whose LOO predictive differs from the full-data one
		}
		sum += y[i]
	}
	ybar := sum / n
	ll := LogLik{N: n}
	var yrep [][]float64
	for range chains {
		ch := make([]float64, D*n)
		for d := range D {
			mu := ybar + rng.NormFloat64()/math.Sqrt(n)
			r := make([]float64, n)
			for i := range n {
				z := y[i] - mu
				ch[d*n+i] = -0.5*z*z - 0.5*math.Log(2*math.Pi)
				r[i] = mu + rng.NormFloat64()
			}
			yrep = append(yrep, r)
		}
		ll.Chains = append(ll.Chains, ch)
	}
	pit, k, err := LOOPITLogLik(y, yrep, ll, nil)
	if err != nil {
		t.Fatal(err)
	}
	S := float64(chains * D)
	distinct := 0
	for i := range n {
		m := (sum - y[i]) / (n - 1)
		want := distuv.Normal{Mu: m, Sigma: math.Sqrt(1 + 1.0/(n-1))}.CDF(y[i])
		tol := 2 * 5 * math.Sqrt(want*(1-want)/S)
		if math.Abs(pit[i]-want) > tol {
			t.Errorf("PIT[%d] = %.4f, exact %.4f (tolerance %.4f)", i, pit[i], want, tol)
		}
		// The full-data predictive N(ȳ, 1 + 1/n) differs from the leave-one-out one
		// by more than the tolerance for outlying observations: count them.
		full := distuv.Normal{Mu: ybar, Sigma: math.Sqrt(1 + 1.0/n)}.CDF(y[i])
		if math.Abs(full-want) > tol {
			distinct++
			t.Logf("observation %d: PSIS LOO-PIT %.4f, exact LOO %.4f, full-data %.4f, k̂ %.2f", i, pit[i], want, full, k[i])
		}
		if !(k[i] < 0.7) {
			t.Errorf("k̂[%d] = %v, want < 0.7 for this easy model", i, k[i])
		}
	}
	if distinct == 0 {
		t.Errorf("no observation tells the leave-one-out PIT from the full-data one: the test cannot fail")
	}
	t.Logf("%d of %d observations distinguish LOO from the full-data PIT", distinct, n)
}

func TestLOOPITErrors(t *testing.T) {
	y := []float64{0, 1}
	ok := [][]float64{{0, 1}, {1, 2}}
	cases := []struct {
		name string
		y    []float64
		yrep [][]float64
		lw   [][]float64
		want string
	}{
		{"no observations", nil, ok, nil, "no observations"},
		{"one replicate", y, ok[:1], nil, "1 replicates"},
		{"NaN y", []float64{math.NaN(), 0}, ok, nil, "observation 0 is NaN"},
		{"short replicate", y, [][]float64{{0, 1}, {1}}, nil, "replicate 1 has 1 values"},
		{"Inf replicate", y, [][]float64{{0, 1}, {1, math.Inf(1)}}, nil, "replicate 1 of observation 1"},
		{"weights rows", y, ok, [][]float64{{0, 0}}, "log weights for 1 observations"},
		{"weights cols", y, ok, [][]float64{{0, 0}, {0}}, "observation 1 has 1 log weights"},
		{"NaN weight", y, ok, [][]float64{{0, math.NaN()}, {0, 0}}, "log weight 1 of observation 0"},
		{"all -Inf", y, ok, [][]float64{{0, 0}, {math.Inf(-1), math.Inf(-1)}}, "all log weights of observation 1"},
	}
	for _, c := range cases {
		_, err := LOOPIT(c.y, c.yrep, c.lw, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	ll := LogLik{N: 2, Chains: [][]float64{{0, 0, 0, 0}}}
	if _, _, err := LOOPITLogLik(y, ok[:1], ll, nil); err == nil || !strings.Contains(err.Error(), "1 replicates, log-likelihood has 2 draws") {
		t.Errorf("replicate count: error %v", err)
	}
	if _, _, err := LOOPITLogLik([]float64{0}, ok, ll, nil); err == nil || !strings.Contains(err.Error(), "y has 1") {
		t.Errorf("observation count: error %v", err)
	}
}
