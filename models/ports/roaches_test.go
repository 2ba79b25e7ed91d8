package ports

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// negBinomial2LogLPMF is Stan's neg_binomial_2_log_lpmf written from its
// definition with math.Lgamma (not package dist's form).
func negBinomial2LogLPMF(y int, eta, phi float64) float64 {
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	yf, mu := float64(y), math.Exp(eta)
	return lg(yf+phi) - lg(phi) - lg(yf+1) + yf*math.Log(mu/(mu+phi)) + phi*math.Log(phi/(mu+phi))
}

// roachesLogDensity is roaches_negbin.stan's log density at v = (beta[0..3], phi).
func roachesLogDensity(d RoachesData, v []float64) float64 {
	lp := -v[4] // exponential(1)
	for _, b := range v[:4] {
		lp += normalLPDF(b, 0, 2.5)
	}
	for i, y := range d.Y {
		eta := math.Log(d.Exposure2[i]) + v[0] + v[1]*d.Roach1[i] + v[2]*d.Treated[i] + v[3]*d.Senior[i]
		lp += negBinomial2LogLPMF(y, eta, v[4])
	}
	return lp
}

// TestRoachesMatchesStanProgram: the log joint equals the Stan program's log
// density, and the scores' derivatives match finite differences.
func TestRoachesMatchesStanProgram(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 14))
	d := SimulateRoaches(rng, 60, RoachesTruth)
	names, truth := RoachesTruth.Named()
	points := [][]float64{truth}
	for range 10 {
		points = append(points, jitter(rng, truth, 0.2, []bool{false, false, false, false, true}))
	}
	m, err := Roaches(d)
	if err != nil {
		t.Fatal(err)
	}
	checkLogDensity(t, m, points, names, func(v []float64) float64 { return roachesLogDensity(d, v) })
	for _, p := range points[:4] {
		checkDerivs(t, m, stateFrom(t, m, names, p))
	}
}

// TestRoachesData: the data survive CmdStan JSON; the reader and the builder name
// what is wrong.
func TestRoachesData(t *testing.T) {
	t.Parallel()
	d := SimulateRoaches(rand.New(rand.NewPCG(15, 16)), 25, RoachesTruth)
	got, err := ReadRoaches(roundTrip(t, d.StanVars()))
	if err != nil || !slices.Equal(got.Y, d.Y) || !slices.Equal(got.Roach1, d.Roach1) || !slices.Equal(got.Exposure2, d.Exposure2) ||
		!slices.Equal(got.Senior, d.Senior) || !slices.Equal(got.Treated, d.Treated) {
		t.Fatalf("read back %v, %v; wrote %v", got, err, d)
	}
	for _, c := range []struct{ json, want string }{
		{`{"N": 1, "exposure2": [0], "roach1": [1], "senior": [0], "treatment": [1], "y": [3]}`, `"exposure2": element [0] is 0, want a finite value > 0`},
		{`{"N": 1, "exposure2": [1], "roach1": [1], "senior": [0], "treatment": [1], "y": [-3]}`, `"y": element [0] is -3, want at least 0`},
		{`{"N": 2, "exposure2": [1, 1], "roach1": [1], "senior": [0, 0], "treatment": [1, 1], "y": [3, 4]}`, `"roach1": has 1 values, want N = 2`},
	} {
		if _, err := ReadRoaches(readJSON(t, c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadRoaches(%s) = %v, want %q", c.json, err, c.want)
		}
	}
	bad := d
	bad.Senior = bad.Senior[:3]
	if _, err := Roaches(bad); err == nil || !strings.Contains(err.Error(), "roaches_negbin") {
		t.Errorf("Roaches of ragged data: %v", err)
	}
}

// TestRoachesAgainstStan: the posterior means of Roaches (4 × 1000 draws) agree
// with Stan's (4 × 5000, testdata/roaches_negbin_stan.csv) on
// testdata/roaches_negbin.json (N = 262, nmc gen -model roaches_negbin -seed 11;
// scripts/stan/reference.sh) within 4.5 combined MCSE, and every quantity mixes.
func TestRoachesAgainstStan(t *testing.T) {
	if testing.Short() {
		t.Skip("a sampling run")
	}
	t.Parallel()
	d, err := ReadRoaches(readJSONFile(t, "roaches_negbin.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Roaches(d)
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstStan(t, m, "roaches_negbin", 1000, 5, nil, mixes)
}
