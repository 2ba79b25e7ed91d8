package main

import (
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/internal/testutil"
)

// fixture is a draws file of package frames's test data, written by R
// (frames/testdata/make_posterior_draws.R).
func fixture(name string) string { return filepath.Join("..", "..", "frames", "testdata", name) }

// posteriorSummary reads R posterior's summary of the fixture draws
// (posterior_summary.csv) into variable → column → value, with the variable
// names made 0-based as nmc prints them.
func posteriorSummary(t *testing.T) ([]string, map[string]map[string]float64) {
	t.Helper()
	recs := testutil.ReadCSV(t, fixture("posterior_summary.csv"))
	var vars []string
	vals := make(map[string]map[string]float64)
	for _, r := range recs[1:] {
		v := frames.PosteriorToName(r[0])
		vars = append(vars, v)
		vals[v] = make(map[string]float64)
		for j, s := range r[1:] {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			vals[v][recs[0][j+1]] = x
		}
	}
	return vars, vals
}

// TestSummaryOtherFormats summarizes the same draws written by R posterior
// (draws_df with and without row names), in pandas's layout and 1-based, and
// checks the summaries against posterior's own (summarize_draws, 15
// significant digits).
func TestSummaryOtherFormats(t *testing.T) {
	wantVars, want := posteriorSummary(t)
	dir := t.TempDir()
	var firstTable string
	for _, name := range []string{"posterior_draws_df.csv", "posterior_draws_df_norownames.csv", "pandas_draws.csv", "arviz_draws_1based.csv"} {
		out := filepath.Join(dir, name+".summary.csv")
		code, stdout, stderr := runCLI(t, "summary", "-out", out, fixture(name))
		if code != 0 || stderr != "" {
			t.Fatalf("nmc summary %s: exit status %d, stderr %q", name, code, stderr)
		}
		if firstTable == "" {
			firstTable = stdout
		} else if stdout != firstTable {
			t.Errorf("%s: table differs from posterior_draws_df.csv's:\n%s\nwant\n%s", name, stdout, firstTable)
		}
		vars, got := readSummaryCSV(t, out)
		if !slices.Equal(vars, wantVars) {
			t.Fatalf("%s: variables %v, want %v", name, vars, wantVars)
		}
		for _, v := range vars {
			for col, w := range want[v] {
				g, ok := got[v][col]
				if !ok {
					t.Errorf("%s: %s: no column %s", name, v, col)
					continue
				}
				// R writes 15 significant digits; the estimators are the same.
				if math.Abs(g-w) > 1e-12*max(1, math.Abs(w)) {
					t.Errorf("%s: %s %s = %.15g, posterior gives %.15g", name, v, col, g, w)
				}
			}
		}
	}
}

// TestSummaryMergesSplitRun writes the chains of the fixture run as files of
// one and three chains, as machines of a job array would, and checks that
// summarizing them together gives the whole run's summary; files that hold
// other quantities are refused, naming both files and the first name that
// differs.
func TestSummaryMergesSplitRun(t *testing.T) {
	whole, err := frames.ReadDrawsFile(fixture("posterior_draws_df.csv"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	part := func(name string, d *draws.Draws) string {
		p := filepath.Join(dir, name)
		if err := frames.WriteCSVFile(p, d); err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := part("chain_0.csv", &draws.Draws{Names: whole.Names, Chains: whole.Chains[:1]})
	rest := part("chain_1-3.csv", &draws.Draws{Names: whole.Names, Chains: whole.Chains[1:]})
	code, want, stderr := runCLI(t, "summary", fixture("posterior_draws_df.csv"))
	if code != 0 {
		t.Fatalf("exit status %d, stderr %q", code, stderr)
	}
	code, got, stderr := runCLI(t, "summary", first, rest)
	if code != 0 || got != want {
		t.Errorf("nmc summary %s %s: exit status %d, stderr %q, table\n%s\nwant the whole run's\n%s", first, rest, code, stderr, got, want)
	}

	renamed := &draws.Draws{Names: slices.Clone(whole.Names), Chains: whole.Chains[1:]}
	renamed.Names[2] = "theta"
	other := part("other.csv", renamed)
	code, stdout, stderr := runCLI(t, "summary", first, other)
	checkOneLineError(t, code, stdout, stderr, 1, "nmc summary: ", first, other, `"theta[0]"`, `"theta"`)
}
