package ports

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// roundTrip writes vars as CmdStan JSON and reads them back.
func roundTrip(t *testing.T, vars []frames.StanVar) *frames.StanData {
	t.Helper()
	var buf bytes.Buffer
	if err := frames.WriteStanJSON(&buf, vars...); err != nil {
		t.Fatal(err)
	}
	sd, err := frames.ReadStanJSON(&buf, "rt.json")
	if err != nil {
		t.Fatal(err)
	}
	return sd
}

// readJSON reads CmdStan JSON data from text.
func readJSON(t *testing.T, text string) *frames.StanData {
	t.Helper()
	sd, err := frames.ReadStanJSON(strings.NewReader(text), "test.json")
	if err != nil {
		t.Fatal(err)
	}
	return sd
}

// readJSONFile reads testdata/name.
func readJSONFile(t *testing.T, name string) *frames.StanData {
	t.Helper()
	sd, err := frames.ReadStanJSONFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return sd
}

// stateFrom returns the state of m whose coordinates named in names take values
// (every coordinate must be named).
func stateFrom(t *testing.T, m *graph.Model, names []string, values []float64) []float64 {
	t.Helper()
	byName := map[string]float64{}
	for i, n := range names {
		byName[n] = values[i]
	}
	var x []float64
	for _, s := range m.Sites() {
		for _, c := range s.Coords() {
			v, ok := byName[c]
			if !ok {
				t.Fatalf("no value for coordinate %s", c)
			}
			x = append(x, v)
		}
	}
	return x
}

// checkLogDensity checks m's log joint against ref, an independent computation of
// the Stan program's log density (up to a constant) at the same named values: at
// each pair of points the differences must agree to 1e-9 relative.
func checkLogDensity(t *testing.T, m *graph.Model, points [][]float64, names []string, ref func(v []float64) float64) {
	t.Helper()
	sc := m.NewScorer()
	x0 := stateFrom(t, m, names, points[0])
	l0, r0 := sc.LogJoint(x0), ref(points[0])
	if math.IsInf(l0, 0) || math.IsNaN(l0) {
		t.Fatalf("log joint at %v is %v", points[0], l0)
	}
	for _, p := range points[1:] {
		l, r := sc.LogJoint(stateFrom(t, m, names, p)), ref(p)
		got, want := l-l0, r-r0
		if math.Abs(got-want) > 1e-9*(1+math.Abs(want)+math.Abs(r0)) {
			t.Errorf("at %v: log joint − log joint(p0) = %.12g, the Stan program's %.12g", p, got, want)
		}
	}
}

// checkDerivs checks the gradient and Hessian of every site on the reals, (0, ∞)
// or an interval at x against central finite differences of its score.
func checkDerivs(t *testing.T, m *graph.Model, x []float64) {
	t.Helper()
	sc := m.NewScorer()
	off := 0
	for i, s := range m.Sites() {
		k := s.Size
		if s.Support == nmc.Discrete || s.Support == nmc.Simplex { // a simplex score is checked by the engine's tests
			off += k
			continue
		}
		grad, hess := make([]float64, k), make([]float64, k*k)
		f := sc.Score(x, i, grad, hess)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			t.Fatalf("site %s: score %v at %v", s.Name, f, x)
		}
		y := append([]float64(nil), x...)
		g1, g2, h := make([]float64, k), make([]float64, k), make([]float64, k*k)
		for j := range k {
			step := 1e-5 * math.Max(1, math.Abs(x[off+j]))
			y[off+j] = x[off+j] + step
			fp := sc.Score(y, i, g1, h)
			y[off+j] = x[off+j] - step
			fm := sc.Score(y, i, g2, h)
			y[off+j] = x[off+j]
			if fd := (fp - fm) / (2 * step); math.Abs(fd-grad[j]) > 1e-5*(1+math.Abs(grad[j])) {
				t.Errorf("site %s: ∂f/∂x[%d] = %.10g, finite differences %.10g", s.Name, j, grad[j], fd)
			}
			for l := range k {
				if fd := (g1[l] - g2[l]) / (2 * step); math.Abs(fd-hess[l*k+j]) > 1e-4*(1+math.Abs(hess[l*k+j])) {
					t.Errorf("site %s: ∂²f/∂x[%d]∂x[%d] = %.10g, finite differences %.10g", s.Name, l, j, hess[l*k+j], fd)
				}
			}
		}
		off += k
	}
}

// stanSummary is one row of a Stan reference summary (scripts/stan/run.R
// --summary): the posterior mean, its Monte Carlo standard error and the sd.
type stanSummary struct {
	mean, sd, mcse float64
}

// readStanSummary reads testdata/NAME_stan.csv, with Stan's 1-based names turned
// into 0-based ones.
func readStanSummary(t *testing.T, name string) map[string]stanSummary {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+"_stan.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	out := map[string]stanSummary{}
	for _, r := range rows[1:] {
		num := func(c string) float64 {
			v, err := strconv.ParseFloat(r[col[c]], 64)
			if err != nil {
				t.Fatalf("%s_stan.csv: %s: %v", name, c, err)
			}
			return v
		}
		v, err := frames.StanToName(r[col["variable"]])
		if err != nil {
			t.Fatal(err)
		}
		out[v] = stanSummary{mean: num("mean"), sd: num("sd"), mcse: num("mcse_mean")}
	}
	return out
}

// mixing is what a sampling test asks of the sampler besides correct means: R-hat
// below MaxRHat and bulk ESS above MinESS for every quantity of the reference.
type mixing struct {
	MaxRHat, MinESS float64
}

// mixes is the standard of a model the default moves sample well.
var mixes = mixing{MaxRHat: 1.01, MinESS: 400}

// checkAgainstStan samples m (4 chains × draws after the adaptive warm-up, seed,
// from the starts init: nil for the model's own, see nmc.Options.Init) and checks, for every quantity of the Stan reference summary, that the posterior
// means agree: |mean − Stan's| ≤ 4.5·√(mcse² + Stan's mcse²) (two-sided p ≈ 7e-6
// per quantity, the MCSE from each run's own bulk ESS), and that the run mixes as
// well as want says.
func checkAgainstStan(t *testing.T, m nmc.Model, name string, draws int, seed uint64, init [][]float64, want mixing) {
	t.Helper()
	ref := readStanSummary(t, name)
	res, err := nmc.Sample(context.Background(), m, &nmc.Options{Chains: 4, Draws: draws, Warmup: nmc.AutoWarmup, Seed: seed, Init: init})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := diagnostics.Summarize(res.Draws, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, r := range rows {
		s, ok := ref[r.Variable]
		if !ok {
			continue
		}
		found++
		z := (r.Mean - s.mean) / math.Hypot(r.MCSEMean, s.mcse)
		t.Logf("%s: mean %.4g (mcse %.2g, ess %.0f, rhat %.4f), Stan %.4g (mcse %.2g), z = %.2f", r.Variable, r.Mean, r.MCSEMean, r.ESSBulk, r.RHat, s.mean, s.mcse, z)
		if math.Abs(z) > 4.5 {
			t.Errorf("%s: posterior mean %.5g, Stan's %.5g: z = %.2f", r.Variable, r.Mean, s.mean, z)
		}
		if !(r.RHat < want.MaxRHat) || !(r.ESSBulk > want.MinESS) {
			t.Errorf("%s: R-hat %.4f, bulk ESS %.0f; want R-hat < %g, ESS > %g", r.Variable, r.RHat, r.ESSBulk, want.MaxRHat, want.MinESS)
		}
	}
	if found != len(ref) {
		t.Errorf("the draws hold %d of the %d quantities of Stan's summary", found, len(ref))
	}
}

// jitter returns p with each value moved by a N(0, scale²) step (kept positive
// where pos[i]).
func jitter(rng *rand.Rand, p []float64, scale float64, pos []bool) []float64 {
	q := append([]float64(nil), p...)
	for i := range q {
		q[i] += scale * rng.NormFloat64()
		if pos != nil && pos[i] {
			q[i] = math.Abs(q[i])
		}
	}
	return q
}

// Log densities of the Stan programs' distributions, with every constant.
func normalLPDF(x, mu, sigma float64) float64 {
	z := (x - mu) / sigma
	return -0.5*z*z - math.Log(sigma) - 0.5*math.Log(2*math.Pi)
}

func halfNormalLPDF(x, sigma float64) float64 { return normalLPDF(x, 0, sigma) + math.Ln2 }

func halfCauchyLPDF(x, scale float64) float64 {
	return math.Log(2/(math.Pi*scale)) - math.Log1p((x/scale)*(x/scale))
}
