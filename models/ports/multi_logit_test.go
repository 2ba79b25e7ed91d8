package ports

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// categoricalLogitLPMF is Stan's categorical_logit_lpmf (0-based y) from its
// definition: l_y − log Σ_k exp(l_k), the sum taken directly.
func categoricalLogitLPMF(y int, l []float64) float64 {
	s := 0.0
	for _, v := range l {
		s += math.Exp(v)
	}
	return l[y] - math.Log(s)
}

// multiLogitLogDensity is multi_logit.stan's log density at beta (D × (K − 1),
// row-major).
func multiLogitLogDensity(d MultiLogitData, beta []float64) float64 {
	n, p := d.X.Dims()
	k1 := d.K - 1
	lp := 0.0
	for _, b := range beta {
		lp += normalLPDF(b, 0, 5)
	}
	l := make([]float64, d.K)
	for i := range n {
		for c := range k1 {
			l[1+c] = 0
			for j := range p {
				l[1+c] += d.X.At(i, j) * beta[j*k1+c]
			}
		}
		lp += categoricalLogitLPMF(d.Y[i], l)
	}
	return lp
}

// TestMultiLogitMatchesStanProgram: MultiLogit's log joint equals the Stan
// program's log density at random beta; the scores' derivatives match finite
// differences; beta is recorded as beta[d,k] from the column sites.
func TestMultiLogitMatchesStanProgram(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 32))
	d := SimulateMultiLogit(rng, 60, MultiLogitTruth)
	m, err := MultiLogit(d)
	if err != nil {
		t.Fatal(err)
	}
	// The sites are the columns beta_1 … beta_3, each of 3 coordinates.
	var names []string
	for c := 1; c <= 3; c++ {
		for j := range 3 {
			names = append(names, fmt.Sprintf("beta_%d[%d]", c, j))
		}
	}
	// The sites hold beta's columns, Stan's beta is D × (K − 1) row-major: with
	// D = K − 1 = 3 one transposition maps either to the other.
	toStan := func(v []float64) []float64 {
		out := make([]float64, 9)
		for c := range 3 {
			for j := range 3 {
				out[j*3+c] = v[c*3+j]
			}
		}
		return out
	}
	_, truth := MultiLogitTruth.Named()
	var points [][]float64
	for range 8 {
		points = append(points, jitter(rng, toStan(truth), 0.5, nil))
	}
	checkLogDensity(t, m, points, names, func(v []float64) float64 { return multiLogitLogDensity(d, toStan(v)) })
	for _, p := range points[:3] {
		checkDerivs(t, m, stateFrom(t, m, names, p))
	}
	out := make([]float64, len(m.DerivedNames()))
	m.Derive(stateFrom(t, m, names, points[0]), out)
	if want := toStan(points[0]); !slices.Equal(out, want) {
		t.Errorf("beta recorded as %v, want %v", out, want)
	}
	if got := m.DerivedNames(); got[1] != "beta[0,1]" || got[3] != "beta[1,0]" {
		t.Errorf("derived names %v, want beta[d,k] row by row", got)
	}
}

// TestMultiLogitData: the data survive CmdStan JSON (categories 1-based there);
// the reader and the builder name what is wrong.
func TestMultiLogitData(t *testing.T) {
	t.Parallel()
	d := SimulateMultiLogit(rand.New(rand.NewPCG(33, 34)), 30, MultiLogitTruth)
	got, err := ReadMultiLogit(roundTrip(t, d.StanVars()))
	if err != nil || got.K != d.K || !slices.Equal(got.Y, d.Y) || !mat.Equal(got.X, d.X) {
		t.Fatalf("read back %v, %v", got, err)
	}
	for _, c := range []struct{ json, want string }{
		{`{"K": 3, "N": 2, "D": 1, "y": [1, 4], "x": [[0.5], [1]]}`, `"y": element [1] is 4, want in 1…3`},
		{`{"K": 3, "N": 2, "D": 2, "y": [1, 2], "x": [[0.5], [1]]}`, `"x": is 2 × 1, want N × D = 2 × 2`},
		{`{"K": 1, "N": 2, "D": 1, "y": [1, 1], "x": [[0.5], [1]]}`, `"K": is 1, want at least 2`},
		{`{"K": 3, "N": 2, "y": [1, 1], "x": [[0.5], [1]]}`, `"D"`},
	} {
		if _, err := ReadMultiLogit(readJSON(t, c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadMultiLogit(%s) = %v, want %q", c.json, err, c.want)
		}
	}
	bad := d
	bad.Y = bad.Y[:10]
	if _, err := MultiLogit(bad); err == nil || !strings.Contains(err.Error(), "10 categories y and 30 rows of x") {
		t.Errorf("MultiLogit with 10 labels and 30 rows: %v", err)
	}
}

// TestMultiLogitAgainstStan: the posterior means of MultiLogit (4 × 1000 draws)
// agree with Stan's (4 × 5000, testdata/multi_logit_stan.csv) on
// testdata/multi_logit.json (N = 500, nmc gen -model multi_logit -seed 11;
// scripts/stan/reference.sh) within 4.5 combined MCSE, and every quantity mixes.
func TestMultiLogitAgainstStan(t *testing.T) {
	if testing.Short() {
		t.Skip("a sampling run")
	}
	t.Parallel()
	d, err := ReadMultiLogit(readJSONFile(t, "multi_logit.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := MultiLogit(d)
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstStan(t, m, "multi_logit", 1000, 5, nil, mixes)
}
