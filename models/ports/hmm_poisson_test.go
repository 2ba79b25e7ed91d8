package ports

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// hmmPoissonLogDensity is hmm_poisson.stan's log density for two states at
// v = (Gamma[0,0], Gamma[0,1], Gamma[1,0], Gamma[1,1], rho[0], rho[1], lambda[0],
// lambda[1]), with the states summed out by enumerating every path (not by the
// forward algorithm).
func hmmPoissonLogDensity(d HMMPoissonData, v []float64) float64 {
	gamma := [2][2]float64{{v[0], v[1]}, {v[2], v[3]}}
	rho, lambda := v[4:6], v[6:8]
	lp := 0.0
	for _, l := range lambda { // Gamma(2, rate 0.2)
		lp += 2*math.Log(0.2) + math.Log(l) - 0.2*l
	}
	poisson := func(y int, l float64) float64 {
		lg, _ := math.Lgamma(float64(y) + 1)
		return float64(y)*math.Log(l) - l - lg
	}
	n := len(d.Y)
	total := 0.0
	for path := range 1 << n {
		z := func(t int) int { return path >> t & 1 }
		p := math.Log(rho[z(0)]) + poisson(d.Y[0], lambda[z(0)])
		for t := 1; t < n; t++ {
			p += math.Log(gamma[z(t-1)][z(t)]) + poisson(d.Y[t], lambda[z(t)])
		}
		total += math.Exp(p)
	}
	return lp + math.Log(total)
}

// TestHMMPoissonMatchesStanProgram: HMMPoisson's log joint, a function of (Gamma,
// rho, lambda__raw), equals the Stan program's log density at lambda =
// (lambda__raw[0], lambda__raw[0] + lambda__raw[1]) with the states summed out by
// enumerating the 2⁷ paths of a 7-step chain; the derivatives of the rates'
// scores match finite differences.
func TestHMMPoissonMatchesStanProgram(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 22))
	for _, truth := range []HMMPoissonParams{HMMPoissonSeparated, HMMPoissonOverlapping} {
		d, _ := SimulateHMMPoisson(rng, 7, truth)
		m, err := HMMPoisson(d)
		if err != nil {
			t.Fatal(err)
		}
		names := []string{"Gamma[0,0]", "Gamma[0,1]", "Gamma[1,0]", "Gamma[1,1]", "rho[0]", "rho[1]", "lambda__raw[0]", "lambda__raw[1]"}
		var points [][]float64
		for range 8 {
			g0, g1, r := rng.Float64(), rng.Float64(), rng.Float64()
			lo := truth.Lambda[0] * (0.5 + rng.Float64())
			points = append(points, []float64{g0, 1 - g0, g1, 1 - g1, r, 1 - r, lo, truth.Lambda[1] - truth.Lambda[0] + rng.NormFloat64()*0.5})
		}
		checkLogDensity(t, m, points, names, func(v []float64) float64 {
			w := slices.Clone(v)
			w[7] = v[6] + v[7]
			return hmmPoissonLogDensity(d, w)
		})
		for _, p := range points[:3] {
			checkDerivs(t, m, stateFrom(t, m, names, p))
		}
	}
}

// TestHMMPoissonData: the data survive CmdStan JSON; the reader and the builder
// name what is wrong.
func TestHMMPoissonData(t *testing.T) {
	t.Parallel()
	d, z := SimulateHMMPoisson(rand.New(rand.NewPCG(23, 24)), 50, HMMPoissonSeparated)
	if len(z) != 50 || slices.Min(z) != 0 || slices.Max(z) != 1 {
		t.Errorf("states %v: want both of the two states", z)
	}
	got, err := ReadHMMPoisson(roundTrip(t, d.StanVars()))
	if err != nil || got.K != 2 || !slices.Equal(got.Y, d.Y) {
		t.Fatalf("read back %v, %v", got, err)
	}
	for _, c := range []struct {
		json, want string
	}{
		{`{"N": 2, "K": 2, "y": [1, -1]}`, `"y": element [1] is -1, want at least 0`},
		{`{"N": 2, "K": 2, "y": [1, 2.5]}`, `"y": element [1] is 2.5, want an integer`},
		{`{"N": 2, "y": [1, 2]}`, `no variable "K"`},
	} {
		if _, err := ReadHMMPoisson(readJSON(t, c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.json, err, c.want)
		}
	}
	if _, err := HMMPoisson(HMMPoissonData{K: 1, Y: []int{1}}); err == nil || !strings.Contains(err.Error(), "K = 1") {
		t.Errorf("one state: %v", err)
	}
}
