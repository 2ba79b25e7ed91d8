package ports

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// orderedLogisticLPMF is Stan's ordered_logistic_lpmf (0-based y) from its
// definition: log(σ(η − c_{y−1}) − σ(η − c_y)), σ(η − c_{−1}) = 1, σ(η − c_{K−1}) = 0.
func orderedLogisticLPMF(y int, eta float64, c []float64) float64 {
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	hi, lo := 1.0, 0.0
	if y > 0 {
		hi = sig(eta - c[y-1])
	}
	if y < len(c) {
		lo = sig(eta - c[y])
	}
	return math.Log(hi - lo)
}

// ordinalLogDensity is ordinal_regr.stan's log density at v = (beta, c).
func ordinalLogDensity(d OrdinalData, v []float64) float64 {
	_, p := d.X.Dims()
	beta, c := v[:p], v[p:]
	lp := 0.0
	for _, b := range beta {
		lp += normalLPDF(b, 0, 2.5)
	}
	for _, ci := range c {
		lp += normalLPDF(ci, 0, 5)
	}
	for i, y := range d.Y {
		lp += orderedLogisticLPMF(y, mat.Dot(d.X.RowView(i), mat.NewVecDense(p, beta)), c)
	}
	return lp
}

// TestOrdinalMatchesStanProgram: Ordinal's log joint, a function of (beta,
// c__raw) with c = cumulative sums of c__raw (a unit Jacobian), equals the Stan
// program's log density at (beta, c); the scores' derivatives match finite
// differences, and c is recorded.
func TestOrdinalMatchesStanProgram(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 22))
	d := SimulateOrdinal(rng, 80, OrdinalTruth)
	m, err := Ordinal(d)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"beta[0]", "beta[1]", "beta[2]", "c__raw[0]", "c__raw[1]", "c__raw[2]"}
	var points [][]float64
	for range 8 {
		p := jitter(rng, OrdinalTruth.Beta, 0.2, nil)
		c0 := OrdinalTruth.C[0] + 0.2*rng.NormFloat64()
		points = append(points, append(p, c0, 1+rng.Float64(), 0.8+rng.Float64()))
	}
	toStan := func(v []float64) []float64 {
		return []float64{v[0], v[1], v[2], v[3], v[3] + v[4], v[3] + v[4] + v[5]}
	}
	checkLogDensity(t, m, points, names, func(v []float64) float64 { return ordinalLogDensity(d, toStan(v)) })
	for _, p := range points[:3] {
		checkDerivs(t, m, stateFrom(t, m, names, p))
	}
	out := make([]float64, len(m.DerivedNames()))
	m.Derive(stateFrom(t, m, names, points[0]), out)
	if want := toStan(points[0])[3:]; !slices.Equal(out[:3], want) {
		t.Errorf("c recorded as %v, want %v", out, want)
	}
}

// TestOrdinalData: the data survive CmdStan JSON (categories 1-based there); the
// reader names what is wrong.
func TestOrdinalData(t *testing.T) {
	t.Parallel()
	d := SimulateOrdinal(rand.New(rand.NewPCG(23, 24)), 30, OrdinalTruth)
	got, err := ReadOrdinal(roundTrip(t, d.StanVars()))
	if err != nil || got.K != d.K || !slices.Equal(got.Y, d.Y) || !mat.Equal(got.X, d.X) {
		t.Fatalf("read back %v, %v", got, err)
	}
	for _, c := range []struct{ json, want string }{
		{`{"K": 3, "N": 2, "P": 1, "y": [1, 4], "x": [[0.5], [1]]}`, `"y": element [1] is 4, want in 1…3`},
		{`{"K": 3, "N": 2, "P": 2, "y": [1, 2], "x": [[0.5], [1]]}`, `"x": is 2 × 1, want N × P = 2 × 2`},
		{`{"K": 1, "N": 2, "P": 1, "y": [1, 1], "x": [[0.5], [1]]}`, `"K": is 1, want at least 2`},
	} {
		if _, err := ReadOrdinal(readJSON(t, c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadOrdinal(%s) = %v, want %q", c.json, err, c.want)
		}
	}
}

// TestOrdinalAgainstStan: the posterior means of Ordinal (4 × 1000 draws; the
// cutpoints c recorded from the raw sites) agree with Stan's (4 × 5000,
// testdata/ordinal_regr_stan.csv) on testdata/ordinal_regr.json (N = 500, nmc gen
// -model ordinal_regr -seed 11; scripts/stan/reference.sh) within 4.5 combined
// MCSE, and every quantity mixes.
func TestOrdinalAgainstStan(t *testing.T) {
	if testing.Short() {
		t.Skip("a sampling run")
	}
	t.Parallel()
	d, err := ReadOrdinal(readJSONFile(t, "ordinal_regr.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Ordinal(d)
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstStan(t, m, "ordinal_regr", 1000, 5, nil, mixes)
}
