package ports

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// garch11LogDensity is garch11.stan's log density (flat priors: the likelihood
// alone), written out independently of the graph, at v = (mu, alpha0, alpha1,
// beta1).
func garch11LogDensity(d GARCH11Data, v []float64) float64 {
	mu, alpha0, alpha1, beta1 := v[0], v[1], v[2], v[3]
	sigma := d.Sigma1
	lp := normalLPDF(d.Y[0], mu, sigma)
	for t := 1; t < len(d.Y); t++ {
		e := d.Y[t-1] - mu
		sigma = math.Sqrt(alpha0 + alpha1*e*e + beta1*sigma*sigma)
		lp += normalLPDF(d.Y[t], mu, sigma)
	}
	return lp
}

// TestGARCH11MatchesStanProgram: GARCH11's log joint, a function of (mu, alpha0,
// alpha1, u) with beta1 = (1 − alpha1)·u (the Bounded latent's raw site u), equals
// the Stan program's log density at (mu, alpha0, alpha1, beta1) plus
// log(1 − alpha1), the Jacobian of u ↦ beta1 (so that beta1 is flat on
// (0, 1 − alpha1) as in Stan); its scores' derivatives match finite differences.
func TestGARCH11MatchesStanProgram(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	d := SimulateGARCH11(rng, 60, GARCH11Truth, GARCH11Sigma1)
	m, err := GARCH11(d)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"mu", "alpha0", "alpha1", "beta1__raw"}
	var points [][]float64
	for range 10 {
		a1 := 0.05 + 0.9*rng.Float64()
		points = append(points, []float64{0.5 + 0.3*rng.NormFloat64(), 0.05 + rng.Float64(), a1, 0.05 + 0.9*rng.Float64()})
	}
	checkLogDensity(t, m, points, names, func(v []float64) float64 {
		beta1 := (1 - v[2]) * v[3]
		return garch11LogDensity(d, []float64{v[0], v[1], v[2], beta1}) + math.Log(1-v[2])
	})
	for _, p := range points[:4] {
		checkDerivs(t, m, stateFrom(t, m, names, p))
	}
	// beta1 is recorded as (1 − alpha1)·u.
	x := stateFrom(t, m, names, points[0])
	out := make([]float64, 1)
	m.Derive(x, out)
	if want := (1 - points[0][2]) * points[0][3]; math.Abs(out[0]-want) > 1e-15 {
		t.Errorf("beta1 = %v, want %v", out[0], want)
	}
}

// TestGARCH11Data: the data survive CmdStan JSON; the reader names what is wrong.
func TestGARCH11Data(t *testing.T) {
	t.Parallel()
	d := SimulateGARCH11(rand.New(rand.NewPCG(7, 8)), 30, GARCH11Truth, 1.5)
	got, err := ReadGARCH11(roundTrip(t, d.StanVars()))
	if err != nil || !slices.Equal(got.Y, d.Y) || got.Sigma1 != 1.5 {
		t.Fatalf("read back %v, %v; wrote %v", got, err, d)
	}
	for _, c := range []struct {
		json, want string
	}{
		{`{"T": 2, "y": [1, 2], "sigma1": 0}`, `"sigma1": is 0, want > 0`},
		{`{"T": 1, "y": [1], "sigma1": 1}`, `"T": is 1, want at least 2`},
		{`{"T": 2, "y": [1, 2]}`, `no variable "sigma1"`},
	} {
		if _, err := ReadGARCH11(readJSON(t, c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.json, err, c.want)
		}
	}
}

// TestGARCH11AgainstStan: the posterior means of GARCH11 (4 × 1000 draws) agree
// with Stan's (4 × 5000, testdata/garch11_stan.csv) on testdata/garch11.json
// (T = 200, nmc gen -model garch11 -seed 11; scripts/stan/reference.sh) within 4.5
// combined MCSE, the ridge of (alpha0, beta1) mixing slowly.
func TestGARCH11AgainstStan(t *testing.T) {
	if testing.Short() {
		t.Skip("a sampling run")
	}
	t.Parallel()
	d, err := ReadGARCH11(readJSONFile(t, "garch11.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := GARCH11(d)
	if err != nil {
		t.Fatal(err)
	}
	// alpha0 and beta1 lie along a ridge (the stationary variance
	// alpha0/(1 − alpha1 − beta1) is what the data fix): single-site steps give them
	// a bulk ESS of about 55 of 4000 draws and R-hat near 1.07 (issue 29's blocks
	// from the curvature are what would mix them); the means still agree with Stan's.
	checkAgainstStan(t, m, "garch11", 1000, 5, nil, mixing{MaxRHat: 1.15, MinESS: 25})
}
