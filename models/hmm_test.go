package models

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/sbc"
)

// TestPoissonHMMCalibrated: simulation-based calibration of the two-state Poisson
// HMM with ordered rates (N = 20 counts): with 200 simulations, 99 thinned draws
// each and the χ² test on 10 bins, every ranked quantity — the rates, the
// transition rows, the initial distribution and three of the hidden states drawn by
// forward filtering, backward sampling — has p > 0.001 (a correct sampler fails one
// with probability 0.001 per quantity; the seed is fixed).
func TestPoissonHMMCalibrated(t *testing.T) {
	t.Parallel()
	const n, sims, bins, threshold = 20, 200, 10, 0.001
	sim := PoissonHMMSimulator(n, 2)
	keep := map[string]bool{"z[0]": true, fmt.Sprintf("z[%d]", n/2): true, fmt.Sprintf("z[%d]", n-1): true}
	ranked := func(rng *rand.Rand) (nmc.Model, map[string]float64, error) {
		m, truth, err := sim(rng)
		for name := range truth {
			if name[0] == 'z' && !keep[name] {
				delete(truth, name)
			}
		}
		return m, truth, err
	}
	res, err := sbc.Run(context.Background(), sbc.Config{Simulator: ranked, Sims: sims, Seed: 27})
	if err != nil {
		t.Fatal(err)
	}
	tests, err := res.Uniformity(bins)
	if err != nil {
		t.Fatal(err)
	}
	for v, u := range tests {
		t.Logf("%s: χ² = %.2f on %d df, p = %.4g, counts %v", res.Variables[v], u.ChiSquare, u.DF, u.PValue, u.Counts)
		if !(u.PValue > threshold) {
			t.Errorf("ranks of %s are not uniform: χ² = %.2f on %d df, p = %.3g ≤ %g; counts %v", res.Variables[v], u.ChiSquare, u.DF, u.PValue, threshold, u.Counts)
		}
	}
}

// TestPoissonHMMErrors: PoissonHMM names what is wrong with its input.
func TestPoissonHMMErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		y    []int
		k    int
		want string
	}{
		{nil, 2, "models: poisson_hmm: no counts"},
		{[]int{1, 2}, 1, "models: poisson_hmm: k = 1 states, want at least 2"},
		{[]int{1, -2}, 2, "models: poisson_hmm: count 1 is -2, want ≥ 0"},
	} {
		if _, err := PoissonHMM(c.y, c.k); err == nil || err.Error() != c.want {
			t.Errorf("PoissonHMM(%v, %d): %v, want %q", c.y, c.k, err, c.want)
		}
	}
}
