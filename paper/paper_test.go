package paper

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/internal/testutil"
)

// TestRunQuick runs every experiment at the Quick sizes and checks the table's
// numbers: every conjugate estimate within 4 MCSEs of its exact posterior mean,
// robust regression converged, and the files written.
func TestRunQuick(t *testing.T) {
	start := time.Now()
	var done []string
	rep, err := Run(context.Background(), Config{Sizes: Quick, Seed: 1, ExperimentDone: func(r Row) { done = append(done, r.Model) }})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the quick run took %v, want at most 20 s", d)
	}
	var want []string
	for _, x := range Experiments(Quick) {
		want = append(want, x.Model)
	}
	var got []string
	for _, r := range rep.Rows {
		got = append(got, r.Model)
		if r.Chains != DefaultChains || r.Draws < 1 || r.Wall <= 0 {
			t.Errorf("%s: %d chains × %d draws in %v", r.Model, r.Chains, r.Draws, r.Wall)
		}
	}
	if !slices.Equal(got, want) || !slices.Equal(done, want) {
		t.Fatalf("rows %v, ExperimentDone %v, want %v", got, done, want)
	}

	// Every parameter of the four conjugate models: 1 + 1 + 1 + 4.
	if len(rep.Conjugate) != 7 {
		t.Errorf("%d conjugate rows, want 7", len(rep.Conjugate))
	}
	for _, c := range rep.Conjugate {
		if !(math.Abs(c.Z) < 4) {
			t.Errorf("%s %s: mean %v, exact %v, mcse %v: z = %.2f", c.Model, c.Variable, c.Mean, c.ExactMean, c.MCSE, c.Z)
		}
		if !(math.Abs(c.SD-c.ExactSD) < 0.2*c.ExactSD) {
			t.Errorf("%s %s: sd %v, exact %v", c.Model, c.Variable, c.SD, c.ExactSD)
		}
	}

	robust := rep.Rows[slices.IndexFunc(rep.Rows, func(r Row) bool { return r.Model == "robust" })]
	total := robust.Chains * robust.Draws
	if !(robust.MaxRHat < 1.05) || !(robust.MinESS > 100) {
		t.Errorf("robust regression not converged: max R-hat %.3f, min ESS %.0f", robust.MaxRHat, robust.MinESS)
	}
	if robust.SamplesToConvergence < 1 || robust.SamplesToConvergence > total/10 {
		t.Errorf("robust regression: samples to convergence %d of %d pooled draws, want at most a tenth", robust.SamplesToConvergence, total)
	}
	for _, r := range rep.Rows {
		held := r.Model == "blr" || r.Model == "robust" || r.Model == "annotation"
		if held != !math.IsNaN(r.FinalPLL) || held != (r.SamplesToConvergence > 0) {
			t.Errorf("%s: final PLL %v, samples to convergence %d", r.Model, r.FinalPLL, r.SamplesToConvergence)
		}
	}
	for _, c := range rep.Curves {
		r := rep.Rows[slices.IndexFunc(rep.Rows, func(r Row) bool { return r.Model == c.Model })]
		if len(c.Joint) != r.Chains*r.Draws || c.Joint[len(c.Joint)-1] != r.FinalPLL {
			t.Errorf("%s: curve of %d points ending at %v; row: %d×%d draws, final PLL %v", c.Model, len(c.Joint), c.Joint[len(c.Joint)-1], r.Chains, r.Draws, r.FinalPLL)
		}
	}

	dir := t.TempDir()
	figures, tables, err := rep.WriteFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range figures {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".png"))
		checkPNG(t, f)
	}
	if want := []string{"funnel_z", "pll_blr", "pll_robust", "pll_annotation", "pll_all", "conjugate"}; !slices.Equal(names, want) {
		t.Errorf("figures %v, want %v", names, want)
	}
	if len(tables) != 2 {
		t.Fatalf("tables %v, want table.csv and conjugate.csv", tables)
	}
	rhat := csvColumn(t, tables[0], "max_rhat")
	if len(rhat) != len(rep.Rows) || rhat[2] != robust.MaxRHat {
		t.Errorf("table.csv max_rhat %v, want the rows' (robust %v)", rhat, robust.MaxRHat)
	}
	// The CPU time and the smallest ESS per CPU second, where the platform gives
	// the CPU time (Linux does).
	cpu, perCPU := csvColumn(t, tables[0], "cpu_seconds"), csvColumn(t, tables[0], "min_ess_per_cpu_second")
	if runtime.GOOS == "linux" && (len(cpu) != len(rep.Rows) || !(cpu[2] > 0) || perCPU[2] != robust.MinESS/cpu[2]) {
		t.Errorf("table.csv cpu_seconds %v, min_ess_per_cpu_second %v; robust's min ESS %v", cpu, perCPU, robust.MinESS)
	}
	z := csvColumn(t, tables[1], "z")
	if len(z) != len(rep.Conjugate) || z[0] != rep.Conjugate[0].Z {
		t.Errorf("conjugate.csv z %v, want the comparisons'", z)
	}

	var text bytes.Buffer
	if err := rep.WriteTable(&text); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteConjugateTable(&text); err != nil {
		t.Fatal(err)
	}
	for _, x := range want {
		if !strings.Contains(text.String(), " "+x+" ") {
			t.Errorf("text table lacks %s:\n%s", x, text.String())
		}
	}
}

// TestRunSameSeed: the same configuration gives the same numbers.
func TestRunSameSeed(t *testing.T) {
	cfg := Config{Sizes: Quick, Models: []string{"blr", "beta_binomial"}, Chains: 2, Draws: 40, Seed: 3}
	a, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Rows {
		ra, rb := a.Rows[i], b.Rows[i]
		if ra.FinalPLL != rb.FinalPLL && !(math.IsNaN(ra.FinalPLL) && math.IsNaN(rb.FinalPLL)) || ra.MinESS != rb.MinESS || ra.MaxRHat != rb.MaxRHat {
			t.Errorf("%s: %+v then %+v", ra.Model, ra, rb)
		}
	}
	if a.Conjugate[0] != b.Conjugate[0] {
		t.Errorf("conjugate %+v then %+v", a.Conjugate[0], b.Conjugate[0])
	}
	if len(a.Rows) != 2 || a.Rows[0].Model != "blr" || a.Rows[0].Draws != 40 || a.Rows[0].Chains != 2 {
		t.Errorf("rows %+v", a.Rows)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Models: []string{"bogus"}}, `unknown model "bogus"`},
		{Config{Models: []string{"eight_schools"}}, "eight_schools is not one of the paper's experiments"},
		{Config{Chains: -1}, "Chains = -1"},
		{Config{Draws: -2}, "Draws = -2"},
		{Config{Experiments: []Experiment{{Model: "blr", N: 100, K: 2}}}, "blr: 0 draws"},
		{Config{Experiments: []Experiment{{Model: "blr", N: 1, K: 2, Draws: 5}}}, "n = 1"},
	} {
		_, err := Run(context.Background(), c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want it to contain %q", c.cfg, err, c.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, Config{Sizes: Quick}); err == nil {
		t.Error("a cancelled run: no error")
	}
}

func TestCurvePoints(t *testing.T) {
	c := make([]float64, 1000)
	for i := range c {
		c[i] = -float64(i)
	}
	c[1] = math.Inf(-1)
	x, y := curvePoints(c, 30)
	if len(x) > 30 || x[0] != 1 || x[len(x)-1] != 1000 {
		t.Fatalf("x = %v, want at most 30 points from 1 to 1000", x)
	}
	for i := range x {
		if i > 0 && !(x[i] > x[i-1]) {
			t.Errorf("x not increasing: %v", x)
		}
		if x[i] == 2 {
			t.Errorf("the −Inf point was kept")
		}
		if y[i] != c[int(x[i])-1] {
			t.Errorf("point %d: (%v, %v), want y = %v", i, x[i], y[i], c[int(x[i])-1])
		}
	}
}

func TestMinESSMaxRHat(t *testing.T) {
	rows := []diagnostics.ConvergenceRow{{ESSBulk: 50, RHat: 1.01}, {ESSBulk: math.NaN(), RHat: math.NaN()}, {ESSBulk: 20, RHat: 1.2}, {ESSBulk: 90, RHat: 1.0}}
	if e, r := minESSMaxRHat(rows); e != 20 || r != 1.2 {
		t.Errorf("minESSMaxRHat = %v, %v; want 20, 1.2", e, r)
	}
	if e, r := minESSMaxRHat(rows[1:2]); !math.IsNaN(e) || !math.IsNaN(r) {
		t.Errorf("all NaN: %v, %v; want NaN, NaN", e, r)
	}
}

// TestDiagnosedDraws checks that the table's ESS and R-hat read every recorded
// draw after a warm-up and the second half of each chain without one.
func TestDiagnosedDraws(t *testing.T) {
	d := &draws.Draws{Names: []string{"a", "b"}, Chains: [][]float64{{1, 2, 3, 4, 5, 6, 7, 8}, {9, 10, 11, 12, 13, 14, 15, 16}}}
	if got := diagnosedDraws(d, true); got != d {
		t.Errorf("after a warm-up: %v, want all draws %v", got.Chains, d.Chains)
	}
	got := diagnosedDraws(d, false)
	want := [][]float64{{5, 6, 7, 8}, {13, 14, 15, 16}}
	if len(got.Chains) != 2 || !slices.Equal(got.Chains[0], want[0]) || !slices.Equal(got.Chains[1], want[1]) {
		t.Errorf("without warm-up: %v, want the second halves %v", got.Chains, want)
	}
}

// checkPNG checks that path is a PNG image of at least 400 × 250 pixels.
func checkPNG(t *testing.T, path string) { t.Helper(); testutil.CheckPNG(t, path, 400, 250) }

// csvColumn returns the values of the named column of the CSV file at path.
func csvColumn(t *testing.T, path, name string) []float64 {
	t.Helper()
	recs := testutil.ReadCSV(t, path)
	j := slices.Index(recs[0], name)
	if j < 0 {
		t.Fatalf("%s: no column %q in %v", path, name, recs[0])
	}
	var out []float64
	for _, r := range recs[1:] {
		v, err := strconv.ParseFloat(r[j], 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	return out
}

// TestNoGroupMoves checks that Config.NoGroupMoves reaches the sampler: Neal's
// funnel with its group move mixes its log scale z far better than the paper's
// plain single-site NMC (measured at the default sizes: min bulk ESS 6391 over the
// draws after warm-up against 163 over the second halves of 4 × 2500 draws without).
func TestNoGroupMoves(t *testing.T) {
	run := func(off bool) Row {
		rep, err := Run(context.Background(), Config{Models: []string{"funnel"}, Seed: 1, NoGroupMoves: off})
		if err != nil {
			t.Fatal(err)
		}
		return rep.Rows[0]
	}
	on, off := run(false), run(true)
	if !(on.MinESS > 1000) || !(on.MaxRHat < 1.01) {
		t.Errorf("funnel with group moves: min ESS %.0f, max R-hat %.3f; want ESS > 1000 and R-hat < 1.01", on.MinESS, on.MaxRHat)
	}
	if !(off.MinESS < on.MinESS/4) {
		t.Errorf("funnel without group moves: min ESS %.0f, with %.0f; want the plain sampler far slower to mix", off.MinESS, on.MinESS)
	}
}
