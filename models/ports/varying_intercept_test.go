package ports

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// varyingInterceptLogDensity is varying_intercept.stan's log density at
// v = (a[0], …, a[J−1], b, mu_a, sigma_a, sigma_y).
func varyingInterceptLogDensity(d VaryingInterceptData, v []float64) float64 {
	a := v[:d.J]
	b, muA, sigmaA, sigmaY := v[d.J], v[d.J+1], v[d.J+2], v[d.J+3]
	lp := normalLPDF(muA, 0, 10) + normalLPDF(b, 0, 10) + halfNormalLPDF(sigmaA, 1) + halfNormalLPDF(sigmaY, 1)
	for _, x := range a {
		lp += normalLPDF(x, muA, sigmaA)
	}
	for i, g := range d.Group {
		lp += normalLPDF(d.Y[i], a[g]+b*d.X[i], sigmaY)
	}
	return lp
}

// TestVaryingInterceptMatchesStanProgram: VaryingIntercept's log joint equals the
// Stan program's log density, and its scores' derivatives match finite
// differences; the generated data have J groups of skewed sizes.
func TestVaryingInterceptMatchesStanProgram(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 14))
	d, p := SimulateVaryingIntercept(rng, 200, 12, VaryingInterceptTruth)
	sizes := make([]int, d.J)
	for _, g := range d.Group {
		sizes[g]++
	}
	if len(d.Y) != 200 || slices.Min(sizes) < 1 {
		t.Fatalf("%d rows, group sizes %v", len(d.Y), sizes)
	}
	m, err := VaryingIntercept(d)
	if err != nil {
		t.Fatal(err)
	}
	names, truth := p.Named()
	pos := make([]bool, len(truth))
	pos[len(pos)-1], pos[len(pos)-2] = true, true
	points := [][]float64{truth}
	for range 6 {
		points = append(points, jitter(rng, truth, 0.1, pos))
	}
	checkLogDensity(t, m, points, names, func(v []float64) float64 { return varyingInterceptLogDensity(d, v) })
	checkDerivs(t, m, stateFrom(t, m, names, points[1]))
}

// TestVaryingInterceptData: the default data have 919 rows in 85 groups of skewed
// sizes (many of one to three rows, a few large); they survive CmdStan JSON with
// 1-based groups; the reader names what is wrong.
func TestVaryingInterceptData(t *testing.T) {
	t.Parallel()
	d, _ := SimulateVaryingIntercept(rand.New(rand.NewPCG(15, 16)), VaryingInterceptN, VaryingInterceptJ, VaryingInterceptTruth)
	sizes := make([]int, d.J)
	for _, g := range d.Group {
		sizes[g]++
	}
	small := 0
	for _, s := range sizes {
		if s <= 3 {
			small++
		}
	}
	if len(d.Y) != 919 || slices.Min(sizes) < 1 || slices.Max(sizes) < 50 || small < 15 {
		t.Errorf("%d rows, group sizes %v: want 919 rows, every group non-empty, one of 50 or more and at least 15 of at most 3", len(d.Y), sizes)
	}
	vars := d.StanVars()
	if g := vars[2].Ints; slices.Min(g) != 1 || slices.Max(g) != d.J {
		t.Errorf("Stan's groups run from %d to %d, want 1 to %d", slices.Min(g), slices.Max(g), d.J)
	}
	got, err := ReadVaryingIntercept(roundTrip(t, vars))
	if err != nil || got.J != d.J || !slices.Equal(got.Group, d.Group) || !slices.Equal(got.X, d.X) || !slices.Equal(got.Y, d.Y) {
		t.Fatalf("read back differs: %v", err)
	}
	for _, c := range []struct {
		json, want string
	}{
		{`{"N": 2, "J": 2, "group": [1, 3], "x": [0, 1], "y": [1, 2]}`, `"group": element [1] is 3, want in 1…2`},
		{`{"N": 2, "J": 2, "group": [0, 1], "x": [0, 1], "y": [1, 2]}`, `"group": element [0] is 0, want in 1…2`},
		{`{"N": 2, "J": 0, "group": [1, 1], "x": [0, 1], "y": [1, 2]}`, `"J": is 0, want at least 1`},
	} {
		if _, err := ReadVaryingIntercept(readJSON(t, c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.json, err, c.want)
		}
	}
}

// TestVaryingInterceptAgainstStan: the posterior means of VaryingIntercept (4 ×
// 1000 draws) agree with Stan's (4 × 5000, testdata/varying_intercept_stan.csv) on
// testdata/varying_intercept.json (nmc gen -model varying_intercept -seed 11;
// scripts/stan/reference.sh)
// within 4.5 combined MCSE, sigma_a mixing slowly.
func TestVaryingInterceptAgainstStan(t *testing.T) {
	if testing.Short() {
		t.Skip("a sampling run")
	}
	t.Parallel()
	d, err := ReadVaryingIntercept(readJSONFile(t, "varying_intercept.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := VaryingIntercept(d)
	if err != nil {
		t.Fatal(err)
	}
	// sigma_a, the scale of the plate, mixes slowly (bulk ESS 160-410 of 4000 draws,
	// R-hat up to 1.03 over seeds): the dilation of the intercepts with their scale
	// that would fix it is declared by hand today (issue 29 finds it automatically).
	checkAgainstStan(t, m, "varying_intercept", 1000, 5, nil, mixing{MaxRHat: 1.05, MinESS: 100})
}
