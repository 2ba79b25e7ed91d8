package frames

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/internal/testutil"
)

// fixtureDraws reads the draws of the R fixture posterior_draws_df.csv
// (written by testdata/make_posterior_draws.R) with encoding/csv alone, not
// with the readers under test: chain c holds the rows with .chain c+1 in file
// order (the file is ordered by .iteration within a chain).
func fixtureDraws(t *testing.T) *draws.Draws {
	t.Helper()
	recs := testutil.ReadCSV(t, "testdata/posterior_draws_df.csv")
	if !slices.Equal(recs[0], []string{"", "mu", "tau", "theta[1]", "theta[2]", ".chain", ".iteration", ".draw"}) {
		t.Fatalf("fixture header %q", recs[0])
	}
	d := &draws.Draws{Names: []string{"mu", "tau", "theta[0]", "theta[1]"}}
	for _, r := range recs[1:] {
		c, err := strconv.Atoi(r[5])
		if err != nil {
			t.Fatal(err)
		}
		for len(d.Chains) < c {
			d.Chains = append(d.Chains, nil)
		}
		for _, s := range r[1:5] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			d.Chains[c-1] = append(d.Chains[c-1], v)
		}
	}
	return d
}

// TestReadFixtures reads the same draws from R's draws_df (with and without
// row names), pandas's layout (index column, 0-based) and a 1-based file
// ordered by draw, and checks that all give the fixture's draws bit for bit.
func TestReadFixtures(t *testing.T) {
	want := fixtureDraws(t)
	if want.NumChains() != 4 || want.NumDraws(0) != 25 {
		t.Fatalf("fixture has %d chains of %d draws, want 4 of 25", want.NumChains(), want.NumDraws(0))
	}
	cases := []struct {
		file   string
		format Format
		read   func(string) (*draws.Draws, error)
	}{
		{"posterior_draws_df.csv", FormatPosterior, ReadPosteriorCSVFile},
		{"posterior_draws_df_norownames.csv", FormatPosterior, ReadPosteriorCSVFile},
		{"pandas_draws.csv", FormatDataFrame, ReadDataFrameCSVFile},
		{"arviz_draws_1based.csv", FormatNMC, ReadDataFrameCSVFile},
	}
	for _, c := range cases {
		path := filepath.Join("testdata", c.file)
		d, err := c.read(path)
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if diff := fuzzDrawsEqual(want, d); diff != "" {
			t.Errorf("%s: draws differ from the fixture: %s", c.file, diff)
		}
		d, err = ReadDrawsFile(path)
		if err != nil {
			t.Errorf("ReadDrawsFile(%s): %v", c.file, err)
		} else if diff := fuzzDrawsEqual(want, d); diff != "" {
			t.Errorf("ReadDrawsFile(%s): draws differ from the fixture: %s", c.file, diff)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DetectFormat(f, path)
		f.Close()
		if err != nil || got != c.format {
			t.Errorf("DetectFormat(%s) = %v, %v; want %v", c.file, got, err, c.format)
		}
	}
}

// TestReadPosteriorMatrixNA reads R's matrix quantity names (Sigma[i,j]) and
// its NA, which is an error naming the line and column.
func TestReadPosteriorMatrixNA(t *testing.T) {
	path := filepath.Join("testdata", "posterior_matrix_na.csv")
	_, err := ReadPosteriorCSVFile(path)
	if err == nil || !strings.Contains(err.Error(), path+":6: column \"Sigma[1,2]\"") || !strings.Contains(err.Error(), `"NA"`) {
		t.Fatalf("err = %v, want one naming %s:6, column \"Sigma[1,2]\" and NA", err, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ReadPosteriorCSV(bytes.NewReader(bytes.Replace(b, []byte(",NA,"), []byte(",0.5,"), 1)), "fixed.csv")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Sigma[0,0]", "Sigma[1,0]", "Sigma[0,1]", "Sigma[1,1]"}; !slices.Equal(d.Names, want) {
		t.Errorf("names %q, want %q", d.Names, want)
	}
	if d.NumChains() != 2 || d.NumDraws(1) != 3 || d.Chains[1][1*4+2] != 0.5 {
		t.Errorf("draws %v", d.Chains)
	}
}

func TestPosteriorToName(t *testing.T) {
	cases := map[string]string{
		"mu":                     "mu",
		"log.sigma":              "log.sigma",
		"theta[1]":               "theta[0]",
		"Sigma[2,10]":            "Sigma[1,9]",
		"r_subject[1,Intercept]": "r_subject[1,Intercept]",
		"x[0]":                   "x[0]",
		"[1]":                    "[1]",
		"lp__":                   "lp__",
	}
	for in, want := range cases {
		if got := PosteriorToName(in); got != want {
			t.Errorf("PosteriorToName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReadDataFrameCSVNumbering checks that 0- and 1-based, shuffled and
// gapped numbering all give the same draws, and that a file without a draw
// column keeps its row order.
func TestReadDataFrameCSVNumbering(t *testing.T) {
	want := &draws.Draws{Names: []string{"a", "b"}, Chains: [][]float64{{1, 2, 3, 4}, {5, 6, 7, 8}}}
	inputs := map[string]string{
		"0-based":        "chain,draw,a,b\n0,0,1,2\n0,1,3,4\n1,0,5,6\n1,1,7,8\n",
		"1-based":        "chain,draw,a,b\n1,1,1,2\n1,2,3,4\n2,1,5,6\n2,2,7,8\n",
		"shuffled":       ",a,draw,b,chain\n9,7,2,8,2\n3,1,1,2,1\n8,5,1,6,2\n4,3,2,4,1\n",
		"gaps":           "chain,draw,a,b\n3,500,3,4\n3,100,1,2\n7,0,5,6\n7,9,7,8\n",
		"float numbers":  "chain,draw,a,b\n0.0,0.0,1,2\n0.0,1.0,3,4\n1.0,0.0,5,6\n1.0,1.0,7,8\n",
		"no draw column": "chain,a,b\n1,1,2\n2,5,6\n1,3,4\n2,7,8\n",
		"iteration":      "chain,iteration,a,b\n0,9,1,2\n0,8,3,4\n1,7,5,6\n1,6,7,8\n",
		"long":           "chain,draw,variable,value\n0,0,a,1\n0,0,b,2\n1,1,b,8\n1,0,a,5\n0,1,a,3\n1,0,b,6\n0,1,b,4\n1,1,a,7\n",
		"tidybayes":      ".chain,.iteration,.draw,.variable,.value\n1,1,1,a,1\n1,1,1,b,2\n1,2,2,a,3\n1,2,2,b,4\n2,1,3,a,5\n2,1,3,b,6\n2,2,4,a,7\n2,2,4,b,8\n",
		"crlf and BOM":   "\ufeffchain,draw,a,b\r\n0,0,1,2\r\n0,1,3,4\r\n1,0,5,6\r\n1,1,7,8\r\n",
	}
	for name, in := range inputs {
		d, err := ReadDataFrameCSV(strings.NewReader(in), name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if diff := fuzzDrawsEqual(want, d); diff != "" {
			t.Errorf("%s: %s", name, diff)
		}
	}
}

// TestReadDataFrameCSVErrors checks that bad input gets an error naming the
// source, line and column at fault.
func TestReadDataFrameCSVErrors(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"empty", "", []string{"x.csv: empty input"}},
		{"bare quote", "chain,draw,a\n0,0,1\n0,1,2\"x\n", []string{"x.csv:3:"}},
		{"no chain column", "draw,a\n0,1\n", []string{"x.csv:1:", `"chain"`, `".chain"`}},
		{"no quantities", "chain,draw,iteration\n0,0,0\n", []string{"x.csv:1:", "no quantity columns"}},
		{"empty name", "chain,draw,a,\n0,0,1,2\n", []string{"x.csv:1: column 4", "empty name"}},
		{"duplicate name", "chain,draw,a,a\n0,0,1,2\n", []string{"x.csv:1:", `"a"`, "columns 3 and 4"}},
		{"names collide", ".chain,theta[0],theta[1]\n1,1,2\n", []string{"x.csv:1:", "columns 2", "and 3", `"theta[0]"`}},
		{"wrong field count", "chain,draw,a\n0,0,1\n0,1\n", []string{"x.csv:3:", "2 fields", "header has 3"}},
		{"not a number", "chain,draw,a\n0,0,1\n0,1,abc\n", []string{"x.csv:3:", `column "a"`, `"abc"`}},
		{"NA", "chain,draw,a\n0,0,NA\n", []string{"x.csv:2:", `column "a"`, `"NA"`}},
		{"empty cell", "chain,draw,a,b\n0,0,,1\n", []string{"x.csv:2:", `column "a"`, "empty cell"}},
		{"chain not integer", "chain,draw,a\n1.5,0,1\n", []string{"x.csv:2:", `column "chain"`, `"1.5"`}},
		{"draw NA", ".chain,.iteration,a\n1,NA,1\n", []string{"x.csv:2:", `column ".iteration"`, "missing"}},
		{"duplicate draw", "chain,draw,a\n1,1,1\n1,2,2\n1,1,3\n", []string{"x.csv lines 2 and 4", "chain 1 draw 1"}},
		{"ragged", "chain,draw,a\n1,1,1\n1,2,2\n2,1,3\n", []string{"ragged chains in x.csv", "chain 1 has 2", "chain 2 has 1"}},
		{"long without draw", "chain,variable,value\n0,a,1\n", []string{"x.csv:1:", "draw column"}},
		{"long missing cell", "chain,draw,variable,value\n0,0,a,1\n0,0,b,2\n0,1,a,3\n", []string{"x.csv:", "chain 0 draw 1", "line 4", `"b"`}},
		{"long duplicate", "chain,draw,variable,value\n0,0,a,1\n0,0,a,2\n", []string{"x.csv lines 2 and 3", `"a"`}},
		{"long bad value", "chain,draw,variable,value\n0,0,a,x\n", []string{"x.csv:2:", `column "value"`, `"x"`}},
	}
	for _, c := range cases {
		d, err := ReadDataFrameCSV(strings.NewReader(c.in), "x.csv")
		if err == nil {
			t.Errorf("%s: no error (draws %v)", c.name, d)
			continue
		}
		if d != nil || !strings.HasPrefix(err.Error(), "frames: ") {
			t.Errorf("%s: draws %v with error %v", c.name, d, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", c.name, err, w)
			}
		}
	}
	_, err := ReadPosteriorCSV(strings.NewReader("chain,draw,a\n0,0,1\n"), "p.csv")
	if err == nil || !strings.Contains(err.Error(), `p.csv:1: header has no ".chain" column`) {
		t.Errorf("ReadPosteriorCSV of an nmc file: err = %v", err)
	}
}

// TestReadDrawsOfWriteCSV checks that ReadDraws reads WriteCSV's output, for
// random draws with equal, non-empty chains, exactly as ReadCSV does.
func TestReadDrawsOfWriteCSV(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	for trial := range 20 {
		d := &draws.Draws{Names: []string{"alpha", "beta[0]", "theta[1,0]"}[:1+trial%3]}
		nd := 1 + rng.IntN(30)
		for range 1 + rng.IntN(4) {
			ch := make([]float64, nd*len(d.Names))
			for i := range ch {
				ch[i] = rng.NormFloat64() * float64(rng.IntN(1e6))
			}
			d.Chains = append(d.Chains, ch)
		}
		var buf bytes.Buffer
		if err := WriteCSV(&buf, d); err != nil {
			t.Fatal(err)
		}
		got, err := ReadDraws(bytes.NewReader(buf.Bytes()), "w.csv")
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if diff := fuzzDrawsEqual(d, got); diff != "" {
			t.Fatalf("trial %d: %s", trial, diff)
		}
	}
}

func TestDetectFormat(t *testing.T) {
	cases := []struct {
		text string
		want Format
	}{
		{"chain,draw,mu\n0,0,1\n", FormatNMC},
		{"\n\"chain\",\"draw\",\"theta[0,1]\"\n", FormatNMC},
		{"\"theta[0,1]\",draw,chain\n", FormatDataFrame},
		{",chain,draw,mu\n0,0,0,1\n", FormatDataFrame},
		{"chain,draw,variable,value\n", FormatDataFrame},
		{"chain,draw,iteration,mu\n", FormatDataFrame},
		{"\"\",\"mu\",\".chain\",\".iteration\",\".draw\"\n", FormatPosterior},
		{"lp__,mu,.chain,.iteration,.draw\n", FormatPosterior},
		{"# stan_version_major = 2\nlp__,mu\n", FormatCmdStan},
		{"lp__,accept_stat__,mu\n-1,0.5,2\n", FormatCmdStan},
	}
	for i, c := range cases {
		got, err := DetectFormat(strings.NewReader(c.text), "f.csv")
		if err != nil || got != c.want {
			t.Errorf("case %d: DetectFormat = %v, %v; want %v", i, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "\n \n", "x,y\n1,2\n"} {
		if f, err := DetectFormat(strings.NewReader(bad), "f.csv"); err == nil || !strings.HasPrefix(err.Error(), "frames: f.csv") {
			t.Errorf("DetectFormat(%q) = %v, %v; want an error naming f.csv", bad, f, err)
		}
	}
}

// writeFiles writes name → text files in a temporary directory and returns
// name → path.
func writeFiles(t *testing.T, files map[string]string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	paths := make(map[string]string)
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	return paths
}

// TestReadDrawsFilesMerge checks that files of one run split by chains merge
// into the chains of the whole run, in the order given, in every format.
func TestReadDrawsFilesMerge(t *testing.T) {
	whole := fixtureDraws(t)
	p := writeFiles(t, map[string]string{
		// nmc: chains 0-1 and 2-3 of the run, as two machines would write them.
		"nmc_a.csv": drawsCSV(t, &draws.Draws{Names: whole.Names, Chains: whole.Chains[:2]}),
		"nmc_b.csv": drawsCSV(t, &draws.Draws{Names: whole.Names, Chains: whole.Chains[2:]}),
	})
	fix := func(name string) string { return filepath.Join("testdata", name) }
	for _, files := range [][]string{
		{p["nmc_a.csv"], p["nmc_b.csv"]},
		{fix("posterior_draws_df.csv")},
	} {
		d, err := ReadDrawsFiles(files...)
		if err != nil {
			t.Fatalf("%v: %v", files, err)
		}
		if diff := fuzzDrawsEqual(whole, d); diff != "" {
			t.Errorf("%v: %s", files, diff)
		}
	}
	// Formats may be mixed; every file's chains follow the previous file's.
	d, err := ReadDrawsFiles(fix("pandas_draws.csv"), p["nmc_b.csv"], fix("posterior_draws_df_norownames.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := &draws.Draws{Names: whole.Names, Chains: slices.Concat(whole.Chains, whole.Chains[2:], whole.Chains)}
	if diff := fuzzDrawsEqual(want, d); diff != "" {
		t.Errorf("mixed formats: %s", diff)
	}
	// CmdStan files are one chain each; these two differ in length.
	d, err = ReadDrawsFiles(fix("cmdstan_chain1.csv"), fix("cmdstan_chain1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	one := &draws.Draws{Names: d.Names, Chains: d.Chains[:1]}
	if d.NumChains() != 2 || d.NumDraws(1) != 5 || fuzzDrawsEqual(one, &draws.Draws{Names: d.Names, Chains: d.Chains[1:]}) != "" {
		t.Errorf("CmdStan: %d chains, %v", d.NumChains(), d.Chains)
	}
	_, err = ReadDrawsFiles(fix("cmdstan_chain1.csv"), fix("cmdstan_chain2.csv"))
	if err == nil || !strings.Contains(err.Error(), "cmdstan_chain2.csv chain 0 has 3 draws") {
		t.Errorf("CmdStan chains of 5 and 3 draws: err = %v", err)
	}
}

// drawsCSV returns d as WriteCSV writes it.
func drawsCSV(t *testing.T, d *draws.Draws) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteCSV(&buf, d); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestReadDrawsFilesErrors(t *testing.T) {
	p := writeFiles(t, map[string]string{
		"a.csv":      "chain,draw,mu,sigma\n0,0,1,2\n0,1,3,4\n",
		"other.csv":  "chain,draw,mu,tau\n0,0,1,2\n0,1,3,4\n",
		"fewer.csv":  "chain,draw,mu\n0,0,1\n0,1,3\n",
		"short.csv":  "chain,draw,mu,sigma\n0,0,1,2\n",
		"header.csv": "chain,draw,mu,sigma\n",
		"stan.csv":   "# model\nlp__,mu,sigma\n-1,1,2\n-2,3,4\n",
		"bad.csv":    ".chain,mu,sigma\n1,1,oops\n",
	})
	cases := []struct {
		files []string
		want  []string
	}{
		{nil, []string{"no draws files"}},
		{[]string{p["a.csv"], p["other.csv"]}, []string{p["a.csv"], p["other.csv"], `quantity 2 is "sigma"`, `"tau"`}},
		{[]string{p["a.csv"], p["fewer.csv"]}, []string{p["a.csv"], p["fewer.csv"], `"sigma" is missing`}},
		{[]string{p["fewer.csv"], p["a.csv"]}, []string{p["a.csv"], p["fewer.csv"], `"sigma" is not in`}},
		{[]string{p["a.csv"], p["stan.csv"]}, []string{p["stan.csv"], `"lp__"`, "a CmdStan CSV", "an nmc draws CSV"}},
		{[]string{p["a.csv"], p["short.csv"]}, []string{"differ in length", p["short.csv"] + " chain 0 has 1 draws", p["a.csv"] + " chain 0 has 2"}},
		{[]string{p["a.csv"], p["header.csv"]}, []string{p["header.csv"] + " holds no draws"}},
		{[]string{p["a.csv"], p["bad.csv"]}, []string{p["bad.csv"] + ":2:", `"sigma"`, `"oops"`}},
		{[]string{p["a.csv"], p["a.csv"] + ".missing"}, []string{p["a.csv"] + ".missing"}},
	}
	for _, c := range cases {
		d, err := ReadDrawsFiles(c.files...)
		if err == nil {
			t.Errorf("%v: no error (%d chains)", c.files, d.NumChains())
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q does not contain %q", c.files, err, w)
			}
		}
	}
}
