package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/internal/testutil"
)

// looData is a file of diagnostics's PSIS-LOO test vectors, made with R's loo
// 2.5.1 (diagnostics/testdata/loo/README.md).
func looData(parts ...string) string {
	return filepath.Join(append([]string{"..", "..", "diagnostics", "testdata", "loo"}, parts...)...)
}

// looChains returns the chain files of a case of the test vectors.
func looChains(t *testing.T, name string) []string {
	t.Helper()
	files, err := filepath.Glob(looData(name, "output_*.csv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no chain files for %s: %v", name, err)
	}
	return files
}

// readCSVTable reads a CSV file into its header and records.
func readCSVTable(t *testing.T, path string) ([]string, [][]string) {
	t.Helper()
	recs := testutil.ReadCSV(t, path)
	return recs[0], recs[1:]
}

// parseR parses a number written by R or by nmc (NA, Inf).
func parseR(t *testing.T, s string) float64 {
	t.Helper()
	s = strings.TrimSpace(s)
	if s == "NA" {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// closeTo reports whether got equals want to 1e-10 relative (equal infinities
// and NaNs count as equal).
func closeTo(got, want float64) bool {
	if math.IsNaN(want) || math.IsInf(want, 0) {
		return got == want || (math.IsNaN(got) && math.IsNaN(want))
	}
	return math.Abs(got-want) <= 1e-10*math.Abs(want)
}

// TestLooWorkedCase runs nmc loo on the worked case's CmdStan files and checks
// -out and -pointwise against R's loo 2.5.1, and the printed table.
func TestLooWorkedCase(t *testing.T) {
	dir := t.TempDir()
	out, pw := filepath.Join(dir, "est.csv"), filepath.Join(dir, "pw.csv")
	stdout := mustRun(t, append([]string{"loo", "-out", out, "-pointwise", pw}, looChains(t, ".")...)...)
	for _, want := range []string{
		"Computed from 1200 by 12 log-likelihood matrix",
		"elpd_loo    -37.7 13.9",
		"Monte Carlo SE of elpd_loo is NA.",
		"   (0.7, 1]   (bad)       1     8.3%   11",
		"elpd_waic    -37.8 13.9",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	header, got := readCSVTable(t, out)
	if strings.Join(header, ",") != "name,estimate,se" {
		t.Errorf("-out header %v", header)
	}
	_, want := readCSVTable(t, looData("expected_estimates.csv"))
	if len(got) != 6 || len(want) != 6 {
		t.Fatalf("-out has %d rows, R %d, want 6", len(got), len(want))
	}
	for i := range want {
		if got[i][0] != want[i][0] {
			t.Errorf("-out row %d is %s, want %s", i, got[i][0], want[i][0])
		}
		for j := 1; j <= 2; j++ {
			if g, w := parseR(t, got[i][j]), parseR(t, want[i][j]); !closeTo(g, w) {
				t.Errorf("%s column %d: %v, R %v", got[i][0], j, g, w)
			}
		}
	}
	gh, gp := readCSVTable(t, pw)
	wh, wp := readCSVTable(t, looData("expected_pointwise.csv"))
	if len(gp) != 12 || len(wp) != 12 {
		t.Fatalf("-pointwise has %d rows, R %d, want 12", len(gp), len(wp))
	}
	col := map[string]int{}
	for j, h := range gh {
		col[h] = j
	}
	for j, h := range wh {
		g, ok := col[h]
		if !ok {
			t.Fatalf("-pointwise lacks column %s (has %v)", h, gh)
		}
		for i := range wp {
			if a, b := parseR(t, gp[i][g]), parseR(t, wp[i][j]); !closeTo(a, b) {
				t.Errorf("observation %d, %s: %v, R %v", i, h, a, b)
			}
		}
	}
}

// TestCompareCLI writes pointwise files of two models with nmc loo and
// compares them with nmc compare, against R's loo_compare.
func TestCompareCLI(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, name := range []string{"autocorr", "autocorr_b"} {
		f := filepath.Join(dir, name+".csv")
		mustRun(t, append([]string{"loo", "-pointwise", f}, looChains(t, name)...)...)
		files = append(files, f)
	}
	out := filepath.Join(dir, "cmp.csv")
	stdout := mustRun(t, append([]string{"compare", "-out", out}, files...)...)
	if !strings.Contains(stdout, "elpd_diff se_diff") || !strings.Contains(stdout, "autocorr_b  0.0") {
		t.Errorf("nmc compare printed\n%s", stdout)
	}
	header, got := readCSVTable(t, out)
	if strings.Join(header[:3], ",") != "model,elpd_diff,se_diff" {
		t.Errorf("-out header %v", header)
	}
	_, want := readCSVTable(t, looData("compare", "expected_compare.csv"))
	if len(got) != len(want) {
		t.Fatalf("%d rows, R %d", len(got), len(want))
	}
	for i := range want {
		if got[i][0] != want[i][0] {
			t.Errorf("row %d: model %s, R %s", i, got[i][0], want[i][0])
		}
		for j := 1; j <= 2; j++ {
			if g, w := parseR(t, got[i][j]), parseR(t, want[i][j]); !closeTo(g, w) {
				t.Errorf("%s column %s: %v, R %v", got[i][0], header[j], g, w)
			}
		}
	}
}

// TestLooBadInput checks the one-line errors of nmc loo and nmc compare.
func TestLooBadInput(t *testing.T) {
	dir := t.TempDir()
	small := looChains(t, "small")
	src, err := os.ReadFile(small[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(src)), "\n")
	write := func(name string, lines []string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// replace sets field j of data line i (1-based after the header) to v.
	replace := func(name string, i, j int, v string) string {
		l := append([]string(nil), lines...)
		f := strings.Split(l[i], ",")
		f[j] = v
		l[i] = strings.Join(f, ",")
		return write(name, l)
	}
	nan := replace("nan.csv", 3, 4, "NaN")
	inf := replace("inf.csv", 5, 2, "Inf")
	short := write("short.csv", lines[:20])
	noLL := write("nolog.csv", []string{"lp__,x.1", "1,2", "3,4"})
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"loo", small[1], nan}, []string{"nan.csv", "column log_lik[3]", "draw 2", "NaN"}},
		{[]string{"loo", inf, small[1]}, []string{"inf.csv", "column log_lik[1]", "draw 4", "+Inf"}},
		{[]string{"loo", small[1], short}, []string{"short.csv has 19 draws", "has 49"}},
		{[]string{"loo", noLL}, []string{"nolog.csv", "no log_lik[i] columns"}},
		{[]string{"loo", "-var", "mu", small[0]}, []string{"output_1.csv", "no mu[i] columns"}},
		{[]string{"loo", small[0], looChains(t, ".")[0]}, []string{"output_1.csv has 12 log_lik columns", "has 10"}},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		checkOneLineError(t, code, stdout, stderr, exitFailure, "nmc loo: ", tc.want...)
	}
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	mustRun(t, append([]string{"loo", "-pointwise", a}, looChains(t, "small")...)...)
	mustRun(t, append([]string{"loo", "-pointwise", b}, looChains(t, "tiny")...)...)
	bad := write("bad.csv", []string{"elpd_loo,p_loo", "-1,0.1", "x,0.2"})
	for _, tc := range []struct {
		args   []string
		status int
		want   []string
	}{
		{[]string{"compare", a, b}, exitFailure, []string{"b.csv", "column elpd_loo has 4 observations", "a.csv has 10"}},
		{[]string{"compare", a, bad}, exitFailure, []string{"bad.csv", "line 3, column elpd_loo"}},
		{[]string{"compare", a, noLL}, exitFailure, []string{"nolog.csv", "no column elpd_loo"}},
		{[]string{"compare", a}, exitUsage, []string{"at least two"}},
		{[]string{"compare", a, filepath.Join(dir, "..", filepath.Base(dir), "a.csv")}, exitUsage, []string{"both name a model a"}},
		{[]string{"loo"}, exitUsage, []string{"no input files"}},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		checkOneLineError(t, code, stdout, stderr, tc.status, "nmc "+tc.args[0]+": ", tc.want...)
	}
}

// TestLooNmcFormat converts the worked case to one nmc draws CSV file (four
// chains in one file) and checks that nmc loo gives the same -out file as on
// the CmdStan files.
func TestLooNmcFormat(t *testing.T) {
	dir := t.TempDir()
	d, err := frames.ReadDrawsFiles(looChains(t, ".")...)
	if err != nil {
		t.Fatal(err)
	}
	nmcFile := filepath.Join(dir, "draws.csv")
	if err := frames.WriteCSVFile(nmcFile, d); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	outA := mustRun(t, append([]string{"loo", "-out", a}, looChains(t, ".")...)...)
	outB := mustRun(t, "loo", "-out", b, nmcFile)
	if outA != outB {
		t.Errorf("printed output differs:\n%s\n---\n%s", outA, outB)
	}
	if ca, cb := mustRead(t, a), mustRead(t, b); ca != cb {
		t.Errorf("-out differs:\n%s\n---\n%s", ca, cb)
	}
}
