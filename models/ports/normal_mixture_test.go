package ports

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// normalMixtureLogDensity is normal_mixture.stan's log density at v = (mu[0],
// mu[1], sigma[0], sigma[1], theta), log_mix computed in float64 with the larger
// term factored out.
func normalMixtureLogDensity(d NormalMixtureData, v []float64) float64 {
	lp := normalLPDF(v[0], 0, 10) + normalLPDF(v[1], 0, 10) + halfNormalLPDF(v[2], 2) + halfNormalLPDF(v[3], 2) +
		math.Log(630) + 4*math.Log(v[4]) + 4*math.Log(1-v[4]) // Beta(5, 5): 1/B(5, 5) = 9!/(4!·4!) = 630
	for _, y := range d.Y {
		a := math.Log(v[4]) + normalLPDF(y, v[0], v[2])
		b := math.Log(1-v[4]) + normalLPDF(y, v[1], v[3])
		m := math.Max(a, b)
		lp += m + math.Log(math.Exp(a-m)+math.Exp(b-m))
	}
	return lp
}

// TestNormalMixtureMatchesStanProgram: NormalMixture's log joint, a function of
// (mu__raw, sigma, theta) with mu = (mu__raw[0], mu__raw[0] + mu__raw[1]), equals
// the Stan program's log density at (mu, sigma, theta) (the map has a unit
// Jacobian), for overlapping and for separated components; its scores'
// derivatives match finite differences.
func TestNormalMixtureMatchesStanProgram(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 18))
	for _, truth := range []NormalMixtureParams{NormalMixtureOverlapping, NormalMixtureSeparated} {
		d := SimulateNormalMixture(rng, 50, truth)
		m, err := NormalMixture(d)
		if err != nil {
			t.Fatal(err)
		}
		names := []string{"mu__raw[0]", "mu__raw[1]", "sigma[0]", "sigma[1]", "theta"}
		var points [][]float64
		for range 8 {
			lo := truth.Mu[0] + 0.3*rng.NormFloat64()
			hi := truth.Mu[1] + 0.3*rng.NormFloat64()
			points = append(points, []float64{lo, hi - lo, 0.7 + 0.6*rng.Float64(), 0.7 + 0.6*rng.Float64(), 0.2 + 0.3*rng.Float64()})
		}
		checkLogDensity(t, m, points, names, func(v []float64) float64 {
			return normalMixtureLogDensity(d, []float64{v[0], v[0] + v[1], v[2], v[3], v[4]})
		})
		for _, p := range points[:3] {
			checkDerivs(t, m, stateFrom(t, m, names, p))
		}
		out := make([]float64, 2)
		m.Derive(stateFrom(t, m, names, points[0]), out)
		if out[0] != points[0][0] || out[1] != points[0][0]+points[0][1] {
			t.Errorf("mu recorded as %v, want (%v, %v)", out, points[0][0], points[0][0]+points[0][1])
		}
	}
}

// TestNormalMixtureData: the data survive CmdStan JSON; the reader names what is
// wrong.
func TestNormalMixtureData(t *testing.T) {
	t.Parallel()
	d := SimulateNormalMixture(rand.New(rand.NewPCG(19, 20)), 30, NormalMixtureSeparated)
	got, err := ReadNormalMixture(roundTrip(t, d.StanVars()))
	if err != nil || !slices.Equal(got.Y, d.Y) {
		t.Fatalf("read back %v, %v", got, err)
	}
	if _, err := ReadNormalMixture(readJSON(t, `{"N": 3, "y": [1, 2]}`)); err == nil || !strings.Contains(err.Error(), `"y": has 2 values, want N = 3`) {
		t.Errorf("short y: %v", err)
	}
}
