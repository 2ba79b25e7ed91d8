package main

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/internal/testutil"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/paper"
)

// testData returns the repository's testdata folder (the data set shared with the Stan and
// JAGS versions, copied into the repository), found from the package directory, and fails the
// test if it is missing: nothing is skipped.
func testData(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "conjugate", "hyperparameters.csv")); err != nil {
		t.Fatalf("repository test data missing (expected testdata/ at the module root): %v", err)
	}
	return dir
}

// mustRun runs nmc with args and fails unless it exits 0 with nothing on stderr.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := runCLI(t, args...)
	if code != 0 || withoutShortRunWarnings(errOut) != "" {
		t.Fatalf("nmc %s: exit status %d, stderr %q\nstdout:\n%s", strings.Join(args, " "), code, errOut, out)
	}
	return out
}

// withoutShortRunWarnings returns stderr without the draws' convergence warnings
// (an R-hat of 1.01 or more, a bulk ESS below 100 per chain: diagnostics.
// ConvergenceWarnings), which the tests' runs of a few dozen draws give as they
// should; TestSampleWarnsConvergence tests them.
func withoutShortRunWarnings(stderr string) string {
	var kept []string
	for _, line := range strings.SplitAfter(stderr, "\n") {
		if !strings.HasPrefix(line, "nmc sample: warning: R-hat of ") && !strings.HasPrefix(line, "nmc sample: warning: bulk ESS of ") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "")
}

// checkPNG checks that path is a PNG image of at least 400 × 250 pixels.
func checkPNG(t *testing.T, path string) { t.Helper(); testutil.CheckPNG(t, path, 400, 250) }

// tinySizes are data sizes that sample in a fraction of a second.
var tinySizes = map[string][]string{
	"blr":                   {"-n", "60", "-k", "3"},
	"robust":                {"-n", "60", "-k", "3"},
	"annotation":            {"-n", "40", "-k", "10"},
	"normal_known_sigma":    {"-n", "20"},
	"gamma_poisson":         {"-n", "20"},
	"dirichlet_categorical": {"-n", "30"},
	"beta_binomial":         {"-n", "5", "-k", "10"},
	// The models ported from Stan (package models/ports).
	"arma11":                 {"-n", "20"},
	"garch11":                {"-n", "20"},
	"linreg_2scalar":         {"-n", "20"},
	"linreg_vector":          {"-n", "20"},
	"varying_intercept":      {"-n", "30", "-k", "5"},
	"normal_mixture":         {"-n", "30"},
	"normal_mixture_overlap": {"-n", "30"},
	"hmm_poisson":            {"-n", "6"},
	"hmm_poisson_overlap":    {"-n", "6"},
	"gp_pois_regr":           {"-n", "5"},
	"gp_pois_regr_nc":        {"-n", "5"},
	"gp_regr":                {"-n", "5"},
	"one_comp_mm_elim_abs":   {"-n", "6"},
	"roaches_negbin":         {"-n", "20"},
	"ordinal_regr":           {"-n", "30"},
	"glmm_poisson":           {"-n", "30", "-k", "5"},
	"glmm_poisson_nc":        {"-n", "30", "-k", "5"},
}

// sampleArgs are flags a model's short test runs need: varying_intercept's scales
// (sigma_a, sigma_y) and one_comp_mm_elim_abs's sigma stay where a start drawn
// from the prior leaves them for hundreds of sweeps without the adaptive warm-up's
// escape moves (BENCHMARKS.md, the ported models), and nmc sample warns of it.
//
// These runs are smoke tests of the command's plumbing on tiny data, so they keep
// the former starts (-start-candidates 1) and per-chain warm-up: with the default
// 8 candidates arma11's sigma (20 steps, 5 warm-up sweeps) stays put in the 40
// draws, and one_comp_mm_elim_abs's two chains on 6 points, slow to mix, end the
// warm-up at its limit with the R-hat of their log joints at 1.06 to 1.6; both
// are warned of. linreg_2scalar's block (alpha, beta), found from the curvature,
// takes them to their fit in the first sweeps, while sigma, drawn from its prior
// (about 8; about 1 a posteriori), is left in the convex tail of its conditional,
// where the Gamma fit's log-scale fallback is rejected (the reverse Gamma density
// of so far a point): in 5 warm-up sweeps it stays put and nmc sample warns of
// it; the adaptive warm-up's escape moves take it out. arma11's 10 draws without
// warm-up (gen's round trip) left sigma unmoved in a chain (theta near -1, sigma
// twice its posterior mean) at some seed whatever the blocks and starts, so
// arma11 runs with the adaptive warm-up too.
var sampleArgs = map[string][]string{"varying_intercept": {"-warmup", "auto"}, "one_comp_mm_elim_abs": {"-warmup", "auto", "-warmup-per-chain", "-start-candidates", "1"},
	"arma11": {"-warmup", "auto"}, "linreg_2scalar": {"-warmup", "auto"}}

func TestSampleEveryModel(t *testing.T) {
	for _, model := range models.Names() {
		t.Run(model, func(t *testing.T) {
			dir := t.TempDir()
			draws := filepath.Join(dir, "draws.csv")
			summary := filepath.Join(dir, "summary.csv")
			args := append([]string{"sample", "-model", model, "-draws", "40", "-warmup", "5", "-chains", "2",
				"-out", draws, "-summary", summary}, tinySizes[model]...)
			args = append(args, sampleArgs[model]...)
			out := mustRun(t, args...)
			if !strings.HasPrefix(out, "model "+model+":") || !strings.Contains(out, "wall time") ||
				!strings.Contains(out, "accept rate") || !strings.Contains(out, "ess_bulk") {
				t.Errorf("output lacks the header, timing, summary or acceptance table:\n%s", out)
			}
			d, err := frames.ReadCSVFile(draws)
			if err != nil {
				t.Fatal(err)
			}
			if d.NumChains() != 2 || d.NumDraws(0) != 40 {
				t.Errorf("draws file has %d chains of %d draws, want 2 of 40", d.NumChains(), d.NumDraws(0))
			}
			vars, _ := readSummaryCSV(t, summary)
			if !slices.Equal(vars, d.Names) {
				t.Errorf("summary variables %v, want the draws' %v", vars, d.Names)
			}
			// nmc summary reads the draws file back.
			if s := mustRun(t, "summary", draws); !strings.Contains(s, d.Names[0]+" ") {
				t.Errorf("nmc summary of the draws does not list %s:\n%s", d.Names[0], s)
			}
			if held := model == "blr" || model == "robust" || model == "annotation"; held != strings.Contains(out, "final PLL") {
				t.Errorf("final PLL printed = %v, want %v:\n%s", !held, held, out)
			}
			spec, err := models.Lookup(model)
			if err != nil {
				t.Fatal(err)
			}
			if spec.Conjugate != strings.Contains(out, "exact mean") {
				t.Errorf("exact posterior printed = %v, want %v", !spec.Conjugate, spec.Conjugate)
			}
		})
	}
}

// TestSampleAutoWarmup: the default warm-up is adaptive, and the header says how long
// each chain warmed up; the fitted step has its row in the site table.
func TestSampleAutoWarmup(t *testing.T) {
	out := mustRun(t, "sample", "-model", "blr", "-n", "200", "-k", "2", "-draws", "30", "-chains", "2")
	if !strings.Contains(out, "draws after adaptive warm-up of ") || !strings.Contains(out, "fitted(alpha, beta)") {
		t.Errorf("output\n%s", out)
	}
	out = mustRun(t, "sample", "-model", "blr", "-n", "200", "-k", "2", "-draws", "30", "-chains", "2", "-warmup", "auto")
	if !strings.Contains(out, "draws after adaptive warm-up of ") {
		t.Errorf("-warmup auto: output\n%s", out)
	}
	// The cost line: wall and CPU time, sweeps per second, and the smallest bulk
	// ESS per second of wall time and of CPU time (Linux reports the CPU time).
	cost := strings.Split(out, "\n")[1]
	want := regexp.MustCompile(`^wall time [0-9.]+s, CPU time [0-9.]+s \([0-9]+ sweeps/s over all chains; min bulk ESS [0-9]+ \((alpha|beta\[[01]\])\): [0-9]+ per second, [0-9]+ per CPU second\)$`)
	if runtime.GOOS == "linux" && !want.MatchString(cost) {
		t.Errorf("cost line %q, want it to match %s", cost, want)
	}
}

func TestSampleOutputs(t *testing.T) {
	dir := t.TempDir()
	pll := filepath.Join(dir, "pll.csv")
	plots := filepath.Join(dir, "figs")
	out := mustRun(t, "sample", "-model", "blr", "-n", "80", "-k", "2", "-draws", "30", "-chains", "3", "-warmup", "5",
		"-pll", pll, "-plots", plots, "-vars", "beta")
	if strings.Contains(out, "\nalpha ") || !strings.Contains(out, "\nbeta[1] ") {
		t.Errorf("-vars beta: table\n%s", out)
	}
	tab, err := frames.ReadTableFile(pll)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tab.Header, []string{"draws", "pll_joint", "pll_pointwise"}) || tab.NumRows() != 90 {
		t.Errorf("-pll file: header %v, %d rows; want draws,pll_joint,pll_pointwise and 3×30 rows", tab.Header, tab.NumRows())
	}
	joint, _ := tab.Column("pll_joint")
	point, _ := tab.Column("pll_pointwise")
	// After one draw both forms are Σ_j log p(y_j | θ_1); later they differ.
	if math.Abs(joint[0]-point[0]) > 1e-9*math.Abs(point[0]) || joint[89] == point[89] {
		t.Errorf("joint %v, %v; pointwise %v, %v: want equal first values and different last ones", joint[0], joint[89], point[0], point[89])
	}
	if !strings.Contains(out, "final PLL "+strconv.FormatFloat(joint[len(joint)-1], 'g', 6, 64)) {
		t.Errorf("printed final PLL differs from the file's %v:\n%s", joint[len(joint)-1], out)
	}
	for _, f := range []string{"trace_beta_0", "density_beta_0", "trace_beta_1", "acceptance", "pll"} {
		checkPNG(t, filepath.Join(plots, f+".png"))
	}
}

// TestSampleSiteTable checks the table of site families: each family counts its
// sites once (not once per chain) and every site makes one proposal per sweep, the
// summed-out classes and the augmented confusion rows one per augmentation round
// (two per sweep).
func TestSampleSiteTable(t *testing.T) {
	out := mustRun(t, "sample", "-model", "annotation", "-n", "40", "-k", "10", "-draws", "40", "-warmup", "5", "-chains", "2")
	const perSite = 2 * (40 + 5) // chains × sweeps
	rows := map[string][]string{}
	inTable := false
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "site":
			inTable = true
		case inTable && len(f) == 6:
			rows[f[0]] = f
		case inTable:
			inTable = false
		}
	}
	// -n 40 items generate 20 training items, each with its class z; theta's count
	// depends on the number of classes and is checked through its proposals. With
	// the Hamiltonian block (pi and theta) a sweep has one augmentation round and
	// one move of the block.
	rounds := map[string]int{"pi": 1, "z": 1, "theta": 1, "hamiltonian": 1}
	for family, wantSites := range map[string]int{"pi": 1, "z": 20, "theta": -1, "hamiltonian": -1} {
		f, ok := rows[family]
		if !ok {
			t.Errorf("no row for site family %s in\n%s", family, out)
			continue
		}
		sites, err1 := strconv.Atoi(f[2])
		proposals, err2 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil {
			t.Errorf("%s: row %q", family, f)
			continue
		}
		if wantSites > 0 && sites != wantSites {
			t.Errorf("%s: %d sites, want %d", family, sites, wantSites)
		}
		want := sites * perSite * rounds[family]
		if family == "hamiltonian" {
			want = 2 * 40 // one move of the whole block per recorded sweep
		}
		if proposals != want {
			t.Errorf("%s: %d proposals for %d sites, want %d", family, proposals, sites, want)
		}
	}
}

// TestSampleMarginaliseClasses: by default the annotation model's classes are
// summed out and drawn in each of a sweep's augmentation rounds (one by default, the
// model having a Hamiltonian block) (proposer
// marginal-draw), still recorded in the draws as classes; -explicit-classes keeps them in
// the sweep (proposer enumerate).
func TestSampleMarginaliseClasses(t *testing.T) {
	dir := t.TempDir()
	out := mustRun(t, "sample", "-model", "annotation", "-n", "40", "-k", "10", "-draws", "40", "-warmup", "5", "-chains", "2",
		"-out", filepath.Join(dir, "d.csv"))
	found := false
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 6 && f[0] == "z" {
			found = true
			if f[1] != "marginal-draw" || f[2] != "20" || f[3] != strconv.Itoa(20*2*45) {
				t.Errorf("z row %q, want the marginal-draw proposer, 20 sites, %d draws", f, 20*2*45)
			}
		}
	}
	if !found {
		t.Fatalf("no z row in\n%s", out)
	}
	d, err := frames.ReadDrawsFiles(filepath.Join(dir, "d.csv"))
	if err != nil {
		t.Fatal(err)
	}
	j := slices.Index(d.Names, "z[0]")
	if j < 0 {
		t.Fatalf("no z[0] in the draws: %v", d.Names)
	}
	for c, ch := range d.Chains {
		for n := j; n < len(ch); n += len(d.Names) {
			if v := ch[n]; v != 0 && v != 1 && v != 2 {
				t.Fatalf("chain %d: z[0] = %v, not a class", c, v)
			}
		}
	}
	out = mustRun(t, "sample", "-model", "annotation", "-n", "40", "-k", "10", "-draws", "40", "-warmup", "5", "-chains", "2",
		"-explicit-classes")
	found = false
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 6 && f[0] == "z" {
			found = true
			if f[1] != "enumerate" {
				t.Errorf("-explicit-classes: z row %q, want the enumerate proposer", f)
			}
		}
	}
	if !found {
		t.Fatalf("-explicit-classes: no z row in\n%s", out)
	}
}

// TestSampleFirstChain: a run split into two tasks with -first-chain writes the
// chains of the whole run, bit for bit, and nmc summary of the tasks' files prints
// the whole run's table.
func TestSampleFirstChain(t *testing.T) {
	dir := t.TempDir()
	run := func(name string, args ...string) (string, string) {
		path := filepath.Join(dir, name)
		args = append([]string{"sample", "-model", "robust", "-n", "60", "-k", "3", "-draws", "30", "-warmup", "10",
			"-seed", "11", "-out", path}, args...)
		return mustRun(t, args...), path
	}
	wholeOut, whole := run("all.csv", "-chains", "4")
	firstOut, first := run("chains_0-1.csv", "-chains", "2", "-first-chain", "0")
	restOut, rest := run("chains_2-3.csv", "-chains", "2", "-first-chain", "2")
	header := func(out string) string { return out[:strings.IndexByte(out, '\n')] }
	if h := header(restOut); !strings.HasSuffix(h, "; chains 2–3 of the run") {
		t.Errorf("-first-chain 2: header %q does not name chains 2–3 of the run", h)
	}
	if h := header(firstOut); strings.Contains(h, "of the run") {
		t.Errorf("-first-chain 0: header %q names a chain range", h)
	}
	// The data (generated from -n, -k and -seed) are the same in every task.
	data := func(out string) string { return strings.SplitN(header(out), ";", 2)[0] }
	if data(firstOut) != data(wholeOut) || data(restOut) != data(wholeOut) {
		t.Errorf("data differ: %q, %q, %q", data(wholeOut), data(firstOut), data(restOut))
	}

	all, err := frames.ReadCSVFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := frames.ReadDrawsFiles(first, rest)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(merged.Names, all.Names) || merged.NumChains() != 4 || all.NumChains() != 4 {
		t.Fatalf("merged: %d chains of %v; whole run: %d chains of %v", merged.NumChains(), merged.Names, all.NumChains(), all.Names)
	}
	for c := range 4 {
		x, y := merged.Chains[c], all.Chains[c]
		if len(x) != len(y) {
			t.Fatalf("chain %d: %d values, whole run %d", c, len(x), len(y))
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				t.Fatalf("chain %d value %d: %v, whole run %v", c, i, x[i], y[i])
			}
		}
	}
	// Each task's file numbers its chains from 0.
	if d, err := frames.ReadCSVFile(rest); err != nil || d.NumChains() != 2 {
		t.Errorf("%s: %v chains, error %v; want 2", rest, d, err)
	}

	want := mustRun(t, "summary", whole)
	if got := mustRun(t, "summary", first, rest); got != want {
		t.Errorf("nmc summary of the tasks' files:\n%s\nwant the whole run's\n%s", got, want)
	}
}

func TestSampleConjugateFiles(t *testing.T) {
	data := testData(t)
	exact, err := models.ReadExactPosterior(filepath.Join(data, "conjugate", "exact_posterior.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, model := range []string{"normal_known_sigma", "gamma_poisson", "beta_binomial", "dirichlet_categorical"} {
		dir := t.TempDir()
		summary := filepath.Join(dir, "summary.csv")
		plots := filepath.Join(dir, "plots")
		mustRun(t, "sample", "-model", model, "-train", filepath.Join(data, "conjugate", model+".csv"),
			"-draws", "500", "-seed", "7", "-summary", summary, "-plots", plots)
		_, vals := readSummaryCSV(t, summary)
		n := 0
		for _, row := range exact {
			if row.Model != model {
				continue
			}
			n++
			got, ok := vals[row.Parameter]
			if !ok {
				t.Errorf("%s: no %s in the summary", model, row.Parameter)
				continue
			}
			// The file's exact mean, against Monte Carlo error.
			if z := (got["mean"] - row.Mean) / got["mcse_mean"]; !(math.Abs(z) < 4.5) {
				t.Errorf("%s %s: mean %v, exact %v, mcse %v: |z| = %.2f ≥ 4.5", model, row.Parameter, got["mean"], row.Mean, got["mcse_mean"], z)
			}
			if z := (got["sd"] - row.SD) / got["mcse_sd"]; !(math.Abs(z) < 4.5) {
				t.Errorf("%s %s: sd %v, exact %v, mcse %v: |z| = %.2f ≥ 4.5", model, row.Parameter, got["sd"], row.SD, got["mcse_sd"], z)
			}
		}
		if n == 0 {
			t.Errorf("%s: not in exact_posterior.csv", model)
		}
		first := exact[slices.IndexFunc(exact, func(r models.ExactRow) bool { return r.Model == model })].Parameter
		checkPNG(t, filepath.Join(plots, "density_"+fileSafe(first)+".png"))
	}
}

func TestSampleExampleFiles(t *testing.T) {
	ex := filepath.Join(testData(t), "examples")
	for _, model := range []string{"blr", "robust"} {
		out := mustRun(t, "sample", "-model", model, "-train", filepath.Join(ex, model+"_train_head1000.csv"),
			"-test", filepath.Join(ex, model+"_test_head1000.csv"), "-draws", "8", "-warmup", "0", "-chains", "2", "-vars", "alpha")
		if !strings.Contains(out, "1000 train rows, 1000 test rows, K = 40") || !strings.Contains(out, "held-out data: 1000 points") {
			t.Errorf("%s: output\n%s", model, out)
		}
	}
	out := mustRun(t, "sample", "-model", "annotation", "-train", filepath.Join(ex, "annotation_train.csv"),
		"-test", filepath.Join(ex, "annotation_test.csv"), "-draws", "4", "-warmup", "0", "-chains", "2", "-vars", "pi")
	if !strings.Contains(out, "5000 train items (12777 labels), 5000 test items (13017 labels), 100 labelers, 3 classes") {
		t.Errorf("annotation: output\n%s", out)
	}
}

func TestHyperparametersMatchFile(t *testing.T) {
	path := filepath.Join(testData(t), "conjugate", "hyperparameters.csv")
	file, err := models.ReadHyperparameters(path)
	if err != nil {
		t.Fatal(err)
	}
	ours := models.ConjugateHyperparameters()
	for model, h := range file {
		for name, v := range h {
			if got, ok := ours[model][name]; !ok || got != v {
				t.Errorf("%s %s: file %v, nmc %v (present %v)", model, name, v, got, ok)
			}
		}
	}
	for model, h := range ours {
		for name := range h {
			if _, ok := file[model][name]; !ok {
				t.Errorf("%s %s: not in %s", model, name, path)
			}
		}
	}
}

func TestGenRoundTrip(t *testing.T) {
	for model, sizes := range tinySizes {
		t.Run(model, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "new")
			out := mustRun(t, append([]string{"gen", "-model", model, "-seed", "3", "-out", dir}, sizes...)...)
			if !strings.Contains(out, "wrote ") {
				t.Errorf("output %q", out)
			}
			var train, test string
			spec, _ := models.Lookup(model)
			switch {
			case model == "blr" || model == "robust" || model == "annotation":
				train, test = filepath.Join(dir, model+"_train.csv"), filepath.Join(dir, model+"_test.csv")
			case spec.StanJSON():
				train = filepath.Join(dir, model+".json")
				if !strings.Contains(out, "parameters: "+strings.Join(spec.SummaryVariables, ",")+"\n") {
					t.Errorf("gen does not list the parameters: %q", out)
				}
			default:
				train = filepath.Join(dir, model+".csv")
			}
			if _, err := os.Stat(filepath.Join(dir, model+"_truth.csv")); err != nil {
				t.Error(err)
			}
			// The files hold exactly the generated data.
			n, _ := strconv.Atoi(sizes[1])
			k := 0
			if len(sizes) > 2 {
				k, _ = strconv.Atoi(sizes[3])
			}
			want, err := models.Generate(model, n, k, 3)
			if err != nil {
				t.Fatal(err)
			}
			got, err := models.Load(model, train, test, "")
			if err != nil {
				t.Fatal(err)
			}
			if got.Size() != want.Size() || describeData(got) != describeData(want) {
				t.Errorf("read back %s (size %d), generated %s (size %d)", describeData(got), got.Size(), describeData(want), want.Size())
			}
			if want.Port != nil && !reflect.DeepEqual(want.Port.StanVars(), got.Port.StanVars()) {
				t.Error("the CmdStan JSON data differ after the round trip")
			}
			_, wantPost, err := want.Build()
			if err != nil {
				t.Fatal(err)
			}
			_, gotPost, err := got.Build()
			if err != nil {
				t.Fatal(err)
			}
			if wantPost != nil && !slices.Equal(wantPost.Params, gotPost.Params) {
				t.Errorf("exact posterior of the files %v, of the generated data %v", gotPost.Params, wantPost.Params)
			}
			if want.RegressionTrain != nil && !slices.Equal(want.RegressionTrain.X.RawMatrix().Data, got.RegressionTrain.X.RawMatrix().Data) {
				t.Error("regression X differs after the round trip")
			}
			if want.AnnotationTrain != nil && (!slices.Equal(want.AnnotationTrain.Label, got.AnnotationTrain.Label) || !slices.Equal(want.AnnotationTest.Item, got.AnnotationTest.Item)) {
				t.Error("annotation labels differ after the round trip")
			}
			args := []string{"sample", "-model", model, "-train", train, "-draws", "10", "-warmup", "0", "-chains", "2"}
			if spec.StanJSON() {
				args[3] = "-data"
			}
			args = append(args, sampleArgs[model]...)
			if test != "" {
				args = append(args, "-test", test)
			}
			mustRun(t, args...)
		})
	}
}

func TestPaperQuick(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "paper")
	out := mustRun(t, "paper", "-quick", "-chains", "2", "-out", dir)
	if !strings.Contains(out, "PLL: joint form, chains interleaved by draw") {
		t.Errorf("header does not state the PLL form:\n%s", out)
	}
	body := mustRead(t, filepath.Join(dir, "table.csv"))
	lines := strings.Split(strings.TrimSpace(body), "\n")
	if len(lines) != 9 {
		t.Errorf("table.csv has %d lines, want a header and 8 experiments:\n%s", len(lines), body)
	}
	for _, x := range paper.Experiments(paper.Quick) {
		if !strings.Contains(body, "\n"+x.Model+",") || !strings.Contains(out, " "+x.Model+" ") {
			t.Errorf("experiment %s missing from table.csv or the printed table", x.Model)
		}
	}
	conj := mustRead(t, filepath.Join(dir, "conjugate.csv"))
	if n := strings.Count(conj, "\n"); n != 1+1+1+1+4 {
		t.Errorf("conjugate.csv has %d lines, want a header and 7 parameters:\n%s", n, conj)
	}
	for _, f := range []string{"pll_blr", "pll_robust", "pll_annotation", "pll_all", "funnel_z", "conjugate"} {
		checkPNG(t, filepath.Join(dir, f+".png"))
	}

	// -models selects experiments.
	out = mustRun(t, "paper", "-quick", "-chains", "2", "-draws", "20", "-out", dir, "-models", "funnel,gamma_poisson")
	if strings.Contains(out, " blr ") || !strings.Contains(out, " gamma_poisson ") || !strings.Contains(out, "2×20") {
		t.Errorf("-models funnel,gamma_poisson -draws 20:\n%s", out)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("y,x1\n1,2\n0,abc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badHeader := filepath.Join(dir, "header.csv")
	if err := os.WriteFile(badHeader, []byte("y,x2\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badCount := filepath.Join(dir, "counts.csv")
	if err := os.WriteFile(badCount, []byte("y\n3\n-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no-such.csv")
	badJSON := filepath.Join(dir, "arma11.json")
	if err := os.WriteFile(badJSON, []byte(`{"T": 3, "y": [1, 2]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args   []string
		status int // exitUsage: the command line alone is wrong; exitFailure: its input or output
		prefix string
		want   []string
	}{
		{[]string{"sample", "-model", "bogus"}, exitUsage, "nmc sample: ", []string{`unknown model "bogus"`, "funnel", "eight_schools"}},
		{[]string{"sample", "-model", "blr", "-train", missing}, exitFailure, "nmc sample: ", []string{missing}},
		{[]string{"sample", "-model", "blr", "-train", bad}, exitFailure, "nmc sample: ", []string{bad + ":3", `"x1"`, `"abc"`}},
		{[]string{"sample", "-model", "blr", "-train", badHeader}, exitFailure, "nmc sample: ", []string{badHeader + ":1", `"x2"`, `"x1"`}},
		{[]string{"sample", "-model", "gamma_poisson", "-train", badCount}, exitFailure, "nmc sample: ", []string{badCount + ":3", "-1"}},
		{[]string{"sample", "-model", "blr", "-draws", "-5"}, exitUsage, "nmc sample: ", []string{"-draws = -5"}},
		{[]string{"sample", "-model", "blr", "-draws", "many"}, exitUsage, "nmc sample: ", []string{"-draws", `"many"`}},
		{[]string{"sample", "-model", "blr", "-chains", "0"}, exitUsage, "nmc sample: ", []string{"-chains = 0"}},
		{[]string{"sample", "-model", "blr", "-warmup", "-1"}, exitUsage, "nmc sample: ", []string{"-warmup = -1"}},
		{[]string{"sample", "-model", "blr", "-warmup", "some"}, exitUsage, "nmc sample: ", []string{"-warmup", `"some"`, "auto"}},
		{[]string{"sample", "-model", "blr", "-first-chain", "-2"}, exitUsage, "nmc sample: ", []string{"-first-chain = -2"}},
		{[]string{"sample", "-model", "blr", "-start", "origin"}, exitUsage, "nmc sample: ", []string{"-start", `"origin"`, "prior", "uniform"}},
		{[]string{"sample", "-model", "blr", "-start-candidates", "-1"}, exitUsage, "nmc sample: ", []string{"-start-candidates = -1"}},
		{[]string{"sample", "-model", "blr", "-warmup-max", "-4"}, exitUsage, "nmc sample: ", []string{"-warmup-max = -4"}},
		{[]string{"sample", "-model", "blr", "-n", "-3"}, exitUsage, "nmc sample: ", []string{"-n = -3"}},
		{[]string{"sample", "-model", "blr", "-n", "1"}, exitUsage, "nmc sample: ", []string{"-n = 1"}},
		{[]string{"sample", "-model", "dirichlet_categorical", "-k", "3"}, exitUsage, "nmc sample: ", []string{"-k = 3", "4 categories"}},
		{[]string{"sample", "-model", "funnel", "-n", "10"}, exitUsage, "nmc sample: ", []string{"funnel has no data"}},
		{[]string{"sample", "-model", "funnel", "-train", bad}, exitUsage, "nmc sample: ", []string{"funnel has no data"}},
		{[]string{"sample", "-model", "blr", "-data", badJSON}, exitUsage, "nmc sample: ", []string{"-data", "blr reads CSV files", "-train"}},
		{[]string{"sample", "-model", "arma11", "-train", badJSON}, exitUsage, "nmc sample: ", []string{"-train", "arma11 reads a CmdStan JSON data file (-data)"}},
		{[]string{"sample", "-model", "arma11", "-data", badJSON, "-n", "10"}, exitUsage, "nmc sample: ", []string{"-n and -k", "-data"}},
		{[]string{"sample", "-model", "arma11", "-data", badJSON, "-train", bad}, exitUsage, "nmc sample: ", []string{"-data", "-train"}},
		{[]string{"sample", "-model", "arma11", "-data", badJSON}, exitFailure, "nmc sample: ", []string{badJSON, `"y": has 2 values, want T = 3`}},
		{[]string{"sample", "-model", "arma11", "-data", missing}, exitFailure, "nmc sample: ", []string{missing}},
		{[]string{"sample", "-model", "blr", "-train", bad, "-n", "10"}, exitUsage, "nmc sample: ", []string{"-n", "-train"}},
		{[]string{"sample", "-model", "gamma_poisson", "-train", badCount, "-test", badCount}, exitUsage, "nmc sample: ", []string{"-test", "no held-out"}},
		{[]string{"sample", "-model", "annotation", "-train", filepath.Join(dir, "annotation_train.csv")}, exitFailure, "nmc sample: ", []string{"annotation_meta.csv"}},
		{[]string{"sample", "-model", "blr", "-vars", "nu"}, exitUsage, "nmc sample: ", []string{`"nu"`, "alpha, beta"}},
		{[]string{"sample", "-model", "funnel", "-pll", filepath.Join(dir, "p.csv")}, exitUsage, "nmc sample: ", []string{"-pll", "funnel"}},
		{[]string{"sample", "-model", "blr", "-explicit-classes"}, exitUsage, "nmc sample: ", []string{"-explicit-classes", "blr", "annotation only"}},
		{[]string{"sample", "-model", "funnel", "extra"}, exitUsage, "nmc sample: ", []string{`"extra"`}},
		{[]string{"gen", "-model", "blr"}, exitUsage, "nmc gen: ", []string{"-out"}},
		{[]string{"gen", "-model", "funnel", "-out", dir}, exitUsage, "nmc gen: ", []string{"funnel has no data"}},
		{[]string{"gen", "-model", "nope", "-out", dir}, exitUsage, "nmc gen: ", []string{`"nope"`}},
		{[]string{"gen", "-model", "blr", "-out", filepath.Join(bad, "sub")}, exitFailure, "nmc gen: ", []string{bad}},
		{[]string{"paper", "-full", "-quick"}, exitUsage, "nmc paper: ", []string{"-full", "-quick"}},
		{[]string{"paper", "-draws", "-5"}, exitUsage, "nmc paper: ", []string{"-draws = -5"}},
		{[]string{"paper", "-models", "blr,bogus"}, exitUsage, "nmc paper: ", []string{`"bogus"`}},
		{[]string{"paper", "-models", "eight_schools"}, exitUsage, "nmc paper: ", []string{"eight_schools", "not one of"}},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, c.args...)
		checkOneLineError(t, code, out, errOut, c.status, c.prefix, c.want...)
	}
}

func TestProgressQuietOffTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if p := newProgress(f, "x", 2, 10); p != nil {
		t.Error("a progress bar on a regular file")
	}
	if p := newProgress(&bytes.Buffer{}, "x", 2, 10); p != nil {
		t.Error("a progress bar on a buffer")
	}
	var p *progress
	p.update(nmc.Progress{Chain: 0, Done: 1, Total: 10}) // a nil bar ignores updates
	p.finish()
	if p.callback() != nil {
		t.Error("a nil bar gives a callback")
	}
}

// TestSampleHeldOutTotalsOnly lowers the memory limit of the pointwise held-out
// values so that only each draw's total is kept: the joint PLL curve is the same as
// with every point kept, the pointwise column is left out and the output says why.
func TestSampleHeldOutTotalsOnly(t *testing.T) {
	dir := t.TempDir()
	args := func(pll string) []string {
		return []string{"sample", "-model", "blr", "-n", "80", "-k", "2", "-draws", "30", "-chains", "3", "-warmup", "5", "-pll", pll}
	}
	full, totals := filepath.Join(dir, "full.csv"), filepath.Join(dir, "totals.csv")
	mustRun(t, args(full)...)
	old := maxPointwiseHeldOut
	maxPointwiseHeldOut = 100 // 40 test points × 3 chains × 35 sweeps is above it
	defer func() { maxPointwiseHeldOut = old }()
	out := mustRun(t, args(totals)...)
	if !strings.Contains(out, "pointwise form not computed") {
		t.Errorf("output does not say the pointwise form was not computed:\n%s", out)
	}
	a, err := frames.ReadTableFile(full)
	if err != nil {
		t.Fatal(err)
	}
	b, err := frames.ReadTableFile(totals)
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := a.Column("pll_joint")
	jb, _ := b.Column("pll_joint")
	if !slices.Equal(ja, jb) {
		t.Errorf("joint PLL with totals only differs: %v vs %v", jb[:3], ja[:3])
	}
	if !slices.Equal(b.Header, []string{"draws", "pll_joint"}) {
		t.Errorf("-pll file with totals only: header %v, want draws,pll_joint", b.Header)
	}
}

// TestSampleLeads: -leads pi adds ten lead-and-follow moves of pi per recorded sweep
// (a row of the site table), -follow -1 lets every site that reads pi follow it,
// -no-joint-moves turns the moves off, and a lead that is not a site or a follow
// threshold that is not a number is an error naming it.
func TestSampleLeads(t *testing.T) {
	args := []string{"sample", "-model", "annotation", "-n", "40", "-k", "10", "-draws", "40", "-warmup", "60", "-chains", "2", "-leads", "pi"}
	row := func(out string) []string {
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) == 6 && f[0] == "lead-follow(pi)" {
				return f
			}
		}
		return nil
	}
	def := mustRun(t, args...)
	f := row(def)
	if f == nil || f[1] != "lead-follow" || f[3] != strconv.Itoa(2*40*10) {
		t.Errorf("-leads pi: site table row %q, want lead-follow(pi) with %d proposals", f, 2*40*10)
	}
	if f := row(mustRun(t, append(args, "-no-joint-moves")...)); f != nil {
		t.Errorf("-no-joint-moves: site table row %q", f)
	}
	// With -follow −1 the classes z follow pi (drawn from their exact conditionals).
	f = row(mustRun(t, append(args, "-follow", "-1")...))
	if f == nil {
		t.Fatal("-follow -1: no lead-follow(pi) row")
	}
	if acc, err := strconv.ParseFloat(f[4], 64); err != nil || !(acc > 0 && acc < 1) {
		t.Errorf("-follow -1: site table row %q, want an acceptance rate in (0, 1)", f)
	}
	code, _, errOut := runCLI(t, "sample", "-model", "annotation", "-n", "40", "-k", "10", "-draws", "10", "-warmup", "60", "-chains", "1", "-leads", "nope")
	if code != 1 || !strings.Contains(errOut, `"nope", which is not a site`) {
		t.Errorf("-leads nope: exit status %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCLI(t, append(args, "-follow", "NaN")...)
	if code != 2 || !strings.Contains(errOut, "-follow = NaN") {
		t.Errorf("-follow NaN: exit status %d, stderr %q", code, errOut)
	}
}

// TestSampleAugmentFlags: by default the annotation model's confusion rows take
// one augmentation step per sweep (proposer dirichlet-augmented) beside the
// Hamiltonian block's move, two with -no-hmc; -augment-rounds sets the rounds,
// -no-augment gives them their summed-out steps back (one per sweep, proposer
// dirichlet), and a negative -augment-rounds or -leapfrogs is a usage error.
func TestSampleAugmentFlags(t *testing.T) {
	args := []string{"sample", "-model", "annotation", "-n", "40", "-k", "10", "-draws", "20", "-warmup", "5", "-chains", "2"}
	theta := func(out string) []string {
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) == 6 && f[0] == "theta" {
				return f
			}
		}
		t.Fatalf("no theta row in\n%s", out)
		return nil
	}
	perSite := func(f []string) int {
		sites, _ := strconv.Atoi(f[2])
		proposals, _ := strconv.Atoi(f[3])
		return proposals / max(sites, 1)
	}
	const sweeps = 2 * (20 + 5)
	for _, c := range []struct {
		flags    []string
		proposer string
		rounds   int
	}{{nil, "dirichlet-augmented", 1}, {[]string{"-no-hmc"}, "dirichlet-augmented", 2}, {[]string{"-augment-rounds", "3"}, "dirichlet-augmented", 3}, {[]string{"-no-augment"}, "dirichlet", 1}} {
		f := theta(mustRun(t, append(args, c.flags...)...))
		if f[1] != c.proposer || perSite(f) != c.rounds*sweeps {
			t.Errorf("%v: theta row %q, want proposer %s and %d proposals per site", c.flags, f, c.proposer, c.rounds*sweeps)
		}
	}
	for _, flag := range []string{"-augment-rounds", "-leapfrogs"} {
		code, _, errOut := runCLI(t, append(args, flag, "-1")...)
		if code != 2 || !strings.Contains(errOut, flag+" = -1") {
			t.Errorf("%s -1: exit status %d, stderr %q", flag, code, errOut)
		}
	}
}

// TestSampleHamiltonianFlags: the annotation model's Hamiltonian block makes one
// move per recorded sweep (a row "hamiltonian", proposer hmc, with its 31 sites:
// pi and 30 confusion rows); -no-hmc removes it, and -leapfrogs changes the moves
// (so the draws) but not their number.
func TestSampleHamiltonianFlags(t *testing.T) {
	args := []string{"sample", "-model", "annotation", "-n", "40", "-k", "10", "-draws", "20", "-warmup", "5", "-chains", "2"}
	row := func(out string) []string {
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) == 6 && f[0] == "hamiltonian" {
				return f
			}
		}
		return nil
	}
	def := mustRun(t, args...)
	f := row(def)
	if f == nil || f[1] != "hmc" || f[2] != "31" || f[3] != strconv.Itoa(2*20) {
		t.Errorf("default: hamiltonian row %q, want proposer hmc, 31 sites (pi and 30 confusion rows), %d moves", f, 2*20)
	}
	if f := row(mustRun(t, append(args, "-no-hmc")...)); f != nil {
		t.Errorf("-no-hmc: hamiltonian row %q, want none", f)
	}
	four := mustRun(t, append(args, "-leapfrogs", "4")...)
	if f := row(four); f == nil || f[3] != strconv.Itoa(2*20) {
		t.Errorf("-leapfrogs 4: hamiltonian row %q, want %d moves", f, 2*20)
	}
	if withoutWall(four) == withoutWall(def) {
		t.Errorf("-leapfrogs 4 gave the default run's draws")
	}
	if withoutWall(mustRun(t, append(args, "-leapfrogs", "32")...)) != withoutWall(def) {
		t.Errorf("-leapfrogs 32 (the default) gave other draws than the default run")
	}
}

// withoutWall returns the output of a run without its wall-time line.
func withoutWall(out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "wall time") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// TestSampleUnusedBlock: a fitted block that every chain left to its sites' own
// steps (robust regression's beta, whose Newton steps accept nearly every proposal)
// says "not used" in the acceptance table instead of a rate, and why below it; the
// acceptance plot is still drawn.
func TestSampleUnusedBlock(t *testing.T) {
	plots := filepath.Join(t.TempDir(), "figs")
	out := mustRun(t, "sample", "-model", "robust", "-n", "300", "-k", "3", "-draws", "40", "-chains", "2", "-plots", plots)
	var row []string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "fitted(beta)" {
			row = f
		}
	}
	if row == nil || strings.Join(row[4:], " ") != "not used 0" {
		t.Errorf("fitted(beta) row %q, want proposals 0 and accept rate \"not used\"\n%s", row, out)
	}
	if !strings.Contains(out, "fitted(beta): not used, left to its sites' own steps") {
		t.Errorf("no reason given for the unused block in\n%s", out)
	}
	checkPNG(t, filepath.Join(plots, "acceptance.png"))
}

// TestSampleWarnsUnmoved: when some proposals were the current point bit for bit the
// acceptance table gains an "unmoved" column, and a site that did not move in the
// recorded draws is warned about in the report and on stderr (printWarnings, with
// the prefixes nmc sample gives it). The result is made by hand: no built-in
// model has such a site (the sampler's side is nmc's TestUnmovedProposals).
func TestSampleWarnsUnmoved(t *testing.T) {
	res := &nmc.Result{
		Sites: []draws.SiteStats{{Name: "x", Proposer: "newton-gaussian", Sites: 1, Proposals: 400, Unmoved: 400},
			{Name: "y", Proposer: "newton-gaussian", Sites: 1, Proposals: 400, Accepted: 390}},
		Stuck: []nmc.StuckSite{{Site: 0, Name: "x", Chains: []int{0, 1}}},
	}
	res.SitesPerChain = [][]draws.SiteStats{res.Sites, res.Sites}
	var b strings.Builder
	printSites(&b, res)
	lines := strings.Split(b.String(), "\n")
	if f := strings.Fields(lines[0]); f[len(f)-1] != "unmoved" {
		t.Errorf("header %q, want a last column unmoved", lines[0])
	}
	if f := strings.Fields(lines[1]); strings.Join(f, " ") != "x newton-gaussian 1 400 0.000 0 400" {
		t.Errorf("row of x %q, want 400 unmoved proposals and an acceptance rate of 0", lines[1])
	}
	b.Reset()
	printWarnings(&b, "nmc sample: warning: ", &runResult{res: res})
	want := `nmc sample: warning: site "x" did not move in the recorded draws of chains 0, 1: of its 800 proposals there (warm-up included) 0 moved it and 800 were its current point bit for bit`
	if !strings.HasPrefix(b.String(), want) || strings.Count(b.String(), "\n") != 1 {
		t.Errorf("warnings %q, want one line starting %q", b.String(), want)
	}
	// Without unmoved proposals the table keeps its six columns.
	res.Sites[0] = draws.SiteStats{Name: "x", Proposer: "newton-gaussian", Sites: 1, Proposals: 400, Accepted: 300}
	b.Reset()
	printSites(&b, res)
	if f := strings.Fields(strings.Split(b.String(), "\n")[1]); len(f) != 6 {
		t.Errorf("row without unmoved proposals %q, want six fields", f)
	}
}

// TestSampleSchedule: -schedule prints the moves of a sweep, one a line, and
// samples nothing; the flags that leave moves out change them: the annotation
// model's Hamiltonian block makes one augmentation round and no lead moves, and
// -no-hmc gives back the extra round and the lead moves of pi.
func TestSampleSchedule(t *testing.T) {
	args := []string{"sample", "-model", "annotation", "-n", "40", "-k", "10", "-schedule"}
	lines := func(out string) []string {
		var names []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			name, _, _ := strings.Cut(l, ":")
			names = append(names, name)
		}
		return names
	}
	out := mustRun(t, args...)
	if got, want := lines(out), []string{"sites", "hamiltonian", "augment"}; !slices.Equal(got, want) {
		t.Errorf("schedule %q, want %q\n%s", got, want, out)
	}
	if strings.Contains(out, "wall time") {
		t.Errorf("-schedule sampled:\n%s", out)
	}
	out = mustRun(t, append(args, "-no-hmc")...)
	if got, want := lines(out), []string{"sites", "augment", "lead-follow(pi)", "augment"}; !slices.Equal(got, want) {
		t.Errorf("-no-hmc: schedule %q, want %q\n%s", got, want, out)
	}
	out = mustRun(t, "sample", "-model", "blr", "-n", "100", "-k", "3", "-schedule", "-warmup", "0", "-no-group-moves")
	if got, want := lines(out), []string{"sites"}; !slices.Equal(got, want) {
		t.Errorf("blr, no warm-up, no group moves: schedule %q, want %q\n%s", got, want, out)
	}
	// The automatic blocks: linreg_2scalar's intercept and slope of uncentred x
	// (about 30 ± 1) are found by default, with their coupling, and -no-blocks and
	// -no-group-moves leave them out.
	lr := []string{"sample", "-model", "linreg_2scalar", "-n", "20", "-schedule"}
	out = mustRun(t, lr...)
	if got, want := lines(out), []string{"sites", "block(alpha, beta)"}; !slices.Equal(got, want) || !strings.Contains(out, "found from the curvature, coupling 0.99") {
		t.Errorf("linreg_2scalar: schedule %q, want %q with the coupling\n%s", got, want, out)
	}
	for _, flag := range []string{"-no-blocks", "-no-group-moves"} {
		out = mustRun(t, append(lr, flag)...)
		if got, want := lines(out), []string{"sites"}; !slices.Equal(got, want) {
			t.Errorf("linreg_2scalar %s: schedule %q, want %q\n%s", flag, got, want, out)
		}
	}
}

// TestSampleWarnsWarmupLimit: a warm-up that ends at -warmup-max without every
// chain settled (here 100 sweeps, below the adaptive warm-up's minimum of 200) is
// warned about on stderr and in the report, naming the chains; with the default
// limit nothing is.
func TestSampleWarnsWarmupLimit(t *testing.T) {
	code, out, errOut := runCLI(t, "sample", "-model", "gamma_poisson", "-warmup-max", "100", "-draws", "50")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "warning: the adaptive warm-up reached its limit of 100 sweeps before the log joint of chains 0, 1, 2, 3 had stopped trending"
	if !strings.Contains(errOut, "nmc sample: "+want) || !strings.Contains(out, want) {
		t.Errorf("stderr %q and report %q do not warn %q", errOut, out, want)
	}
	code, out, errOut = runCLI(t, "sample", "-model", "gamma_poisson", "-draws", "200")
	if code != 0 || strings.Contains(out+errOut, "warning") {
		t.Errorf("default limit: exit %d, output %q %q, want no warning", code, out, errOut)
	}
}

// TestSampleWarnsConvergence: draws whose chains disagree get the R-hat and ESS
// warnings of diagnostics.ConvergenceWarnings after the sampler's own, and draws
// that agree none. The result is made by hand (a run of the sampler whose chains
// disagree depends on the sampler's moves).
func TestSampleWarnsConvergence(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, shift := range []float64{0, 5} {
		d := &draws.Draws{Names: []string{"a", "b"}}
		for c := range 4 {
			ch := make([]float64, 2*500)
			for i := range 500 {
				ch[2*i] = rng.NormFloat64() + shift*float64(c%2)
				ch[2*i+1] = rng.NormFloat64()
			}
			d.Chains = append(d.Chains, ch)
		}
		var b strings.Builder
		printWarnings(&b, "nmc sample: warning: ", &runResult{res: &nmc.Result{Draws: d}})
		got := b.String()
		if shift == 0 && got != "" {
			t.Errorf("agreeing chains: warnings %q", got)
		}
		if shift != 0 && (!strings.Contains(got, "nmc sample: warning: R-hat of a is") ||
			!strings.Contains(got, "nmc sample: warning: bulk ESS of a is") || strings.Contains(got, " b ")) {
			t.Errorf("disagreeing chains: warnings %q, want a's R-hat and bulk ESS", got)
		}
	}
}
