package ports

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// arma11LogDensity is arma11.stan's log density, written out independently of the
// graph: the recursion in float64 and every term with its constants.
func arma11LogDensity(y []float64, v []float64) float64 {
	mu, phi, theta, sigma := v[0], v[1], v[2], v[3]
	lp := normalLPDF(mu, 0, 10) + normalLPDF(phi, 0, 2) + normalLPDF(theta, 0, 2) + halfCauchyLPDF(sigma, 2.5)
	err := y[0] - (mu + phi*mu)
	lp += normalLPDF(err, 0, sigma)
	for t := 1; t < len(y); t++ {
		err = y[t] - (mu + phi*y[t-1] + theta*err)
		lp += normalLPDF(err, 0, sigma)
	}
	return lp
}

// TestARMA11MatchesStanProgram: ARMA11's log joint equals the Stan program's log
// density (differences between random states, to 1e-9), and its scores' gradients
// and Hessians match finite differences.
func TestARMA11MatchesStanProgram(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	d := SimulateARMA11(rng, 60, ARMA11Truth)
	m, err := ARMA11(d)
	if err != nil {
		t.Fatal(err)
	}
	names, truth := ARMA11Truth.Named()
	pos := []bool{false, false, false, true}
	points := [][]float64{truth}
	for range 10 {
		points = append(points, jitter(rng, truth, 0.2, pos))
	}
	checkLogDensity(t, m, points, names, func(v []float64) float64 { return arma11LogDensity(d.Y, v) })
	for _, p := range points[:4] {
		checkDerivs(t, m, stateFrom(t, m, names, p))
	}
}

// TestARMA11Data: the data survive CmdStan JSON; the reader names what is wrong.
func TestARMA11Data(t *testing.T) {
	t.Parallel()
	d := SimulateARMA11(rand.New(rand.NewPCG(3, 4)), 25, ARMA11Truth)
	got, err := ReadARMA11(roundTrip(t, d.StanVars()))
	if err != nil || !slices.Equal(got.Y, d.Y) {
		t.Fatalf("read back %v, %v; wrote %v", got.Y, err, d.Y)
	}
	for _, c := range []struct {
		json, want string
	}{
		{`{"T": 3, "y": [1, 2]}`, `"y": has 2 values, want T = 3`},
		{`{"T": 0, "y": []}`, `"T": is 0, want at least 1`},
		{`{"T": 2.0, "y": [1, 2]}`, `"T": value is 2.0, want an integer`},
		{`{"y": [1, 2]}`, `no variable "T"`},
		{`{"T": 2, "y": [1, "NaN"]}`, `"y": element [1] is "NaN", want a finite number`},
	} {
		_, err := ReadARMA11(readJSON(t, c.json))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.json, err, c.want)
		}
	}
	if _, err := ARMA11(ARMA11Data{}); err == nil {
		t.Error("ARMA11 of no data: no error")
	}
}

// TestARMA11AgainstStan: the posterior means of ARMA11 (4 × 1000 draws from starts
// with |theta| < 1) agree with
// Stan's (4 × 5000 draws, testdata/arma11_stan.csv) on testdata/arma11.json
// (T = 200, nmc gen -model arma11 -seed 12; scripts/stan/reference.sh) within 4.5
// combined MCSE.
func TestARMA11AgainstStan(t *testing.T) {
	if testing.Short() {
		t.Skip("a sampling run")
	}
	t.Parallel()
	d, err := ReadARMA11(readJSONFile(t, "arma11.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ARMA11(d)
	if err != nil {
		t.Fatal(err)
	}
	// Dispersed starts inside the invertible region |theta| < 1: from the model's
	// own starts (prior draws, theta ~ N(0, 2²)) a chain that starts with
	// |theta| > 1, where the recursion explodes, stays there with sigma near 1e12
	// (R-hat 3.7 at this seed; issue 29's starts that cannot trap a chain).
	var init [][]float64
	for c := range 4 {
		v := -0.6 + 0.4*float64(c)
		init = append(init, stateFrom(t, m, []string{"mu", "phi", "theta", "sigma"}, []float64{v, -v, v, 1 + 0.2*float64(c)}))
	}
	checkAgainstStan(t, m, "arma11", 1000, 5, init, mixes)
}
