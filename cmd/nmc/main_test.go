package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/internal/testutil"
)

// runCLI runs nmc with args and returns the exit status, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// checkOneLineError checks that a run failed with exit status status (exitUsage or
// exitFailure) and exactly one line on stderr that starts with prefix and contains
// every string in want.
func checkOneLineError(t *testing.T, code int, stdout, stderr string, status int, prefix string, want ...string) {
	t.Helper()
	if code != status {
		t.Errorf("exit status %d, want %d (stderr %q)", code, status, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout %q, want nothing", stdout)
	}
	if !strings.HasSuffix(stderr, "\n") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr %q, want exactly one line", stderr)
	}
	if !strings.HasPrefix(stderr, prefix) {
		t.Errorf("stderr %q, want prefix %q", stderr, prefix)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr %q does not contain %q", stderr, w)
		}
	}
	if strings.Contains(stderr, "goroutine ") {
		t.Errorf("stderr holds a stack trace: %q", stderr)
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		code, out, errOut := runCLI(t, args...)
		if code != 0 || errOut != "" {
			t.Errorf("nmc %v: exit status %d, stderr %q; want 0 and nothing", args, code, errOut)
		}
		for _, c := range commands {
			if !strings.Contains(out, "\n  "+c.name+" ") {
				t.Errorf("nmc %v: usage does not list command %q:\n%s", args, c.name, out)
			}
		}
	}
	for _, c := range commands {
		for _, args := range [][]string{{c.name, "-h"}, {c.name, "-help"}, {"help", c.name}} {
			code, out, errOut := runCLI(t, args...)
			if code != 0 || errOut != "" {
				t.Errorf("nmc %v: exit status %d, stderr %q; want 0 and nothing", args, code, errOut)
			}
			if !strings.HasPrefix(out, "Usage: nmc "+c.name+" ") {
				t.Errorf("nmc %v: stdout %q, want a usage message", args, out)
			}
		}
	}
	code, out, _ := runCLI(t, "summary", "-h")
	if code != 0 || !strings.Contains(out, "-out file") {
		t.Errorf("nmc summary -h does not describe -out:\n%s", out)
	}
}

func TestBadCommandLine(t *testing.T) {
	cases := []struct {
		args   []string
		prefix string
		want   []string
	}{
		{nil, "nmc: ", []string{"no command"}},
		{[]string{"bogus"}, "nmc: ", []string{`unknown command "bogus"`}},
		{[]string{"-v"}, "nmc: ", []string{"-v"}},
		{[]string{"help", "bogus"}, "nmc help: ", []string{`"bogus"`}},
		{[]string{"summary", "-bogus"}, "nmc summary: ", []string{"-bogus"}},
		{[]string{"summary", "a.csv", "-bogus"}, "nmc summary: ", []string{"-bogus"}},
		{[]string{"summary", "-out"}, "nmc summary: ", []string{"-out"}},
		{[]string{"sample", "-bogus"}, "nmc sample: ", []string{"-bogus"}},
		{[]string{"gen", "-bogus"}, "nmc gen: ", []string{"-bogus"}},
		{[]string{"paper", "-bogus"}, "nmc paper: ", []string{"-bogus"}},
		{[]string{"summary"}, "nmc summary: ", []string{"no input files"}},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, c.args...)
		checkOneLineError(t, code, out, errOut, exitUsage, c.prefix, c.want...)
	}
}

func TestModelRequired(t *testing.T) {
	for _, name := range []string{"sample", "gen"} {
		code, out, errOut := runCLI(t, name)
		checkOneLineError(t, code, out, errOut, exitUsage, "nmc "+name+": -model is required", "blr", "dirichlet_categorical")
	}
}

func TestInternalError(t *testing.T) {
	saved := commands
	t.Cleanup(func() { commands = saved })
	commands = append(commands[:len(commands):len(commands)], &command{
		name: "crash",
		flags: func(*flag.FlagSet) func(*env, []string) error {
			return func(*env, []string) error {
				var m map[string]int
				m["x"] = 1 // a nil-map write panics
				return nil
			}
		},
	})
	code, out, errOut := runCLI(t, "crash")
	checkOneLineError(t, code, out, errOut, exitFailure, "nmc: internal error: ", "nil map")
}

func TestSummaryMissingFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-draws.csv")
	code, out, errOut := runCLI(t, "summary", missing)
	checkOneLineError(t, code, out, errOut, exitFailure, "nmc summary: ", missing)
}

func TestSummaryBadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ours := write("ours.csv", "chain,draw,mu\n0,0,1\n0,1,2\n")
	other := write("other.csv", "chain,draw,sigma\n0,0,1\n0,1,2\n")
	stan := write("stan.csv", "# model = m\nlp__,accept_stat__,mu\n-1,0.9,1\n-2,0.8,2\n")
	empty := write("empty.csv", "\n\n")
	noKind := write("nokind.csv", "x,y\n1,2\n")
	badValue := write("badvalue.csv", "chain,draw,mu\n0,0,1\n0,1,oops\n")
	ragged := write("ragged.csv", "chain,draw,mu\n0,0,1\n0,1,2\n1,0,3\n")
	short := write("short.csv", "chain,draw,mu\n0,0,1\n")
	cases := []struct {
		files []string
		want  []string
	}{
		{[]string{empty}, []string{empty, "empty"}},
		{[]string{noKind}, []string{noKind + ":1", "lp__", "chain"}},
		{[]string{ours, stan}, []string{stan, ours, "CmdStan"}},
		{[]string{ours, other}, []string{ours, other, `"mu"`, `"sigma"`}},
		{[]string{badValue}, []string{badValue + ":3", `"mu"`, `"oops"`}},
		{[]string{ragged}, []string{"ragged chains in " + ragged, "chain 0 has 2 draws", "chain 1 has 1"}},
		{[]string{ours, ragged}, []string{"ragged chains in " + ragged}},
		{[]string{ours, short}, []string{"differ in length", short + " chain 0 has 1 draws", ours + " chain 0 has 2"}},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, append([]string{"summary"}, c.files...)...)
		checkOneLineError(t, code, out, errOut, exitFailure, "nmc summary: ", c.want...)
	}
}

// w1 holds the worked example W1 of the diagnostics spec: 4 chains × 20 draws.
var w1 = [][]float64{
	{-0.63, -0.23, -0.81, 0.79, 0.74, -0.21, 0.26, 0.75, 0.91, 0.30, 1.39, 1.15, 0.19, -1.66, -0.09, -0.09, -0.07, 0.71, 1.09, 1.13},
	{0.92, 1.18, 0.77, -1.13, -0.18, -0.15, -0.22, -1.31, -1.17, -0.37, 0.87, 0.44, 0.57, 0.30, -0.92, -0.88, -0.85, -0.56, 0.55, 0.94},
	{-0.16, -0.30, 0.38, 0.67, -0.15, -0.65, -0.10, 0.55, 0.24, 0.85, 0.83, 0.01, 0.28, -0.74, 0.70, 2.01, 0.91, -0.29, 0.28, 0.06},
	{2.40, 1.41, 1.40, 0.86, -0.08, 0.10, -1.38, 0.34, 0.33, 1.94, 1.54, 0.36, 0.70, -0.33, -1.20, -0.49, -0.65, -0.39, -0.17, -0.58},
}

// w1Want holds R posterior 1.4.0's summary of W1 (diagnostics spec §12, W1).
var w1Want = map[string]float64{
	"mean": 0.198875, "median": 0.25, "sd": 0.823292239, "mad": 0.808017,
	"q5": -1.1715, "q95": 1.4165, "rhat": 1.013225921, "ess_bulk": 46.19974939,
	"ess_tail": 83.49080914, "mcse_mean": 0.121081368, "mcse_sd": 0.06206836976,
}

// w1Draws returns draws of "mu" = W1 and "theta[0,1]" = 2·W1 + 1 for chains
// first … last−1 of W1.
func w1Draws(first, last int) *draws.Draws {
	d := &draws.Draws{Names: []string{"mu", "theta[0,1]"}}
	for _, ch := range w1[first:last] {
		var v []float64
		for _, x := range ch {
			v = append(v, x, 2*x+1)
		}
		d.Chains = append(d.Chains, v)
	}
	return d
}

// readSummaryCSV reads a summary CSV written by -out into variable → column → value.
func readSummaryCSV(t *testing.T, path string) ([]string, map[string]map[string]float64) {
	t.Helper()
	recs := testutil.ReadCSV(t, path)
	if len(recs) == 0 || recs[0][0] != "variable" {
		t.Fatalf("%s: header %v, want variable first", path, recs)
	}
	var vars []string
	vals := map[string]map[string]float64{}
	for _, rec := range recs[1:] {
		vars = append(vars, rec[0])
		vals[rec[0]] = map[string]float64{}
		for j, s := range rec[1:] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil && s != "NA" {
				t.Fatalf("%s: %s %s = %q", path, rec[0], recs[0][j+1], s)
			}
			if s == "NA" {
				v = math.NaN()
			}
			vals[rec[0]][recs[0][j+1]] = v
		}
	}
	return vars, vals
}

// checkW1 checks the summary values of a quantity a·W1 + b against posterior's.
func checkW1(t *testing.T, name string, got map[string]float64, a, b float64) {
	t.Helper()
	for col, w := range w1Want {
		switch col {
		case "mean", "median", "q5", "q95":
			w = a*w + b
		case "sd", "mad", "mcse_mean", "mcse_sd":
			w *= a
		}
		g, ok := got[col]
		if !ok {
			t.Errorf("%s: no column %s", name, col)
			continue
		}
		// The spec gives 10 significant digits.
		if math.Abs(g-w) > 1e-9*max(1, math.Abs(w)) {
			t.Errorf("%s %s = %.10g, want %.10g", name, col, g, w)
		}
	}
}

func TestSummaryDrawsCSV(t *testing.T) {
	dir := t.TempDir()
	all := filepath.Join(dir, "all.csv")
	part1 := filepath.Join(dir, "part1.csv")
	part2 := filepath.Join(dir, "part2.csv")
	for p, d := range map[string]*draws.Draws{all: w1Draws(0, 4), part1: w1Draws(0, 2), part2: w1Draws(2, 4)} {
		if err := frames.WriteCSVFile(p, d); err != nil {
			t.Fatal(err)
		}
	}
	for _, files := range [][]string{{all}, {part1, part2}} {
		out := filepath.Join(dir, "summary.csv")
		// The flag after the operands is parsed too.
		args := append(append([]string{"summary"}, files...), "-out", out)
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 || stderr != "" {
			t.Fatalf("nmc %v: exit status %d, stderr %q", args, code, stderr)
		}
		lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		if len(lines) != 3 || !strings.HasPrefix(lines[0], "variable ") || !strings.HasPrefix(lines[1], "mu ") ||
			!strings.HasPrefix(lines[2], "theta[0,1] ") || !strings.Contains(lines[0], "ess_bulk") {
			t.Errorf("nmc %v: table\n%s", args, stdout)
		}
		// The printed table rounds to 3 significant digits: posterior's rhat 1.013225921 is 1.01.
		if f := strings.Fields(lines[1]); !slices.Contains(f, "1.01") || !slices.Contains(f, "46.2") {
			t.Errorf("nmc %v: mu row %q, want rhat 1.01 and ess_bulk 46.2", args, lines[1])
		}
		vars, vals := readSummaryCSV(t, out)
		if !slices.Equal(vars, []string{"mu", "theta[0,1]"}) {
			t.Errorf("nmc %v: -out variables %v", args, vars)
		}
		checkW1(t, "mu", vals["mu"], 1, 0)
		checkW1(t, "theta[0,1]", vals["theta[0,1]"], 2, 1)
	}
}

func TestSummaryOptions(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "draws.csv")
	if err := frames.WriteCSVFile(in, w1Draws(0, 4)); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "summary.csv")
	code, _, stderr := runCLI(t, "summary", "-vars", "theta[0,1],mu", "-quantiles", "0.25, 0.5", "-out", out, in)
	if code != 0 {
		t.Fatalf("exit status %d, stderr %q", code, stderr)
	}
	vars, vals := readSummaryCSV(t, out)
	if !slices.Equal(vars, []string{"theta[0,1]", "mu"}) {
		t.Errorf("-vars theta[0,1],mu gave variables %v", vars)
	}
	if _, ok := vals["mu"]["q25"]; !ok {
		t.Errorf("-quantiles 0.25,0.5: no q25 column: %v", vals["mu"])
	}
	if _, ok := vals["mu"]["q5"]; ok {
		t.Errorf("-quantiles 0.25,0.5: q5 column still there: %v", vals["mu"])
	}
	if got, want := vals["mu"]["q50"], w1Want["median"]; got != want {
		t.Errorf("q50 = %v, want the median %v", got, want)
	}

	code, stdout, stderr := runCLI(t, "summary", "-quantiles", "0.5,1.5", in)
	checkOneLineError(t, code, stdout, stderr, exitUsage, "nmc summary: ", "-quantiles", "1.5")
	code, stdout, stderr = runCLI(t, "summary", "-vars", "nope", in)
	// The names of -vars are checked against the files' quantities: not a usage error.
	checkOneLineError(t, code, stdout, stderr, exitFailure, "nmc summary: ", "nope")
	bad := filepath.Join(dir, "no-such-dir", "s.csv")
	code, stdout, stderr = runCLI(t, "summary", "-out", bad, in)
	if code != exitFailure || !strings.Contains(stderr, bad) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("unwritable -out: exit status %d, stderr %q", code, stderr)
	}
	_ = stdout // the table is printed before the -out file fails
}

func TestSummaryCmdStan(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for c, ch := range w1 {
		var b strings.Builder
		b.WriteString("# stan_version_major = 2\n# method = sample (Default)\n")
		b.WriteString("lp__,accept_stat__,stepsize__,mu,theta.1.2\n")
		b.WriteString("# Adaptation terminated\n# Step size = 0.8\n")
		for i, x := range ch {
			fmt.Fprintf(&b, "%v,0.9,0.8,%v,%v\n", -float64(i), x, 2*x+1)
		}
		b.WriteString("# Elapsed Time: 0.01 seconds (Warm-up)\n")
		p := filepath.Join(dir, fmt.Sprintf("output_%d.csv", c+1))
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	out := filepath.Join(dir, "summary.csv")
	code, _, stderr := runCLI(t, append([]string{"summary", "-out", out}, files...)...)
	if code != 0 || stderr != "" {
		t.Fatalf("exit status %d, stderr %q", code, stderr)
	}
	vars, vals := readSummaryCSV(t, out)
	if !slices.Equal(vars, []string{"lp__", "mu", "theta[0,1]"}) {
		t.Errorf("variables %v, want lp__, mu, theta[0,1] (sampler columns dropped, names 0-based)", vars)
	}
	checkW1(t, "mu", vals["mu"], 1, 0)
	checkW1(t, "theta[0,1]", vals["theta[0,1]"], 2, 1)
}

func TestSplitNames(t *testing.T) {
	cases := map[string][]string{
		"mu":                     {"mu"},
		"mu, beta":               {"mu", "beta"},
		"theta[0,1],mu,z[1,2,3]": {"theta[0,1]", "mu", "z[1,2,3]"},
	}
	for in, want := range cases {
		if got := splitNames(in); !slices.Equal(got, want) {
			t.Errorf("splitNames(%q) = %q, want %q", in, got, want)
		}
	}
}
