package frames

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/draws"
)

var cmdstanNames = []string{"lp__", "mu", "beta[0]", "beta[1]", "beta[2]", "theta[0,0]", "theta[1,0]", "theta[0,1]", "theta[1,1]"}

func TestReadCmdStanCSV(t *testing.T) {
	t.Parallel()
	d, err := readCmdStanFile(filepath.Join("testdata", "cmdstan_chain1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := &draws.Draws{Names: cmdstanNames, Chains: [][]float64{{
		-12.5, 0.25, 1.5, -2, 3e-5, 11, 21, 12, 22,
		-13.25, 0.5, 1.25, -2.5, -3e-5, 11.5, 21.5, 12.5, 22.5,
		-11.125, math.NaN(), 1, -3, 0, 10, 20, 10, 20,
		-14, math.Inf(1), 2, -1, 1e-300, 9, 19, 9, 19,
		-12, math.Inf(-1), 1.75, -1.5, 5e-324, 8, 18, 8, 18,
	}}}
	assertSameDraws(t, d, want)
}

func TestReadCmdStanFiles(t *testing.T) {
	t.Parallel()
	d, err := ReadCmdStanFiles(filepath.Join("testdata", "cmdstan_chain1.csv"), filepath.Join("testdata", "cmdstan_chain2.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if d.NumChains() != 2 || d.NumDraws(0) != 5 || d.NumDraws(1) != 3 {
		t.Fatalf("chains %d, draws %d and %d; want 2 chains of 5 and 3", d.NumChains(), d.NumDraws(0), d.NumDraws(1))
	}
	th, err := d.Param("theta[1,0]")
	if err != nil {
		t.Fatal(err)
	}
	if th[1][0] != 6 || th[1][2] != 0.5 || th[0][4] != 18 {
		t.Errorf("theta[1,0] = %v", th)
	}
	other := filepath.Join("testdata", "cmdstan_other.csv")
	_, err = ReadCmdStanFiles(filepath.Join("testdata", "cmdstan_chain1.csv"), other)
	if err == nil || !strings.Contains(err.Error(), other) {
		t.Errorf("mismatched columns: error %v, want one naming %s", err, other)
	}
	if _, err := ReadCmdStanFiles(); err == nil {
		t.Error("no files: no error")
	}
	if _, err := ReadCmdStanFiles(filepath.Join("testdata", "no-such.csv")); err == nil {
		t.Error("missing file: no error")
	}
}

func TestReadCmdStanSavedWarmup(t *testing.T) {
	t.Parallel()
	in := "# save_warmup = 1\r\nlp__,accept_stat__,x,\"y[1,2]\"\r\n-1,0.5,100,101\r\n-2,0.5,102,103\r\n# Adaptation terminated\r\n# Step size = 1\r\n-3,0.9,1,2\r\n-4,0.9,3,4"
	d, err := ReadCmdStanCSV(strings.NewReader(in), "w.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := &draws.Draws{Names: []string{"lp__", "x", "y[0,1]"}, Chains: [][]float64{{-3, 1, 2, -4, 3, 4}}}
	assertSameDraws(t, d, want)
}

func TestReadCmdStanErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"empty", "", "frames: s.csv: no header line"},
		{"comments only", "# a\n# b\n", "frames: s.csv: no header line"},
		{"bad index", "# c\nlp__,beta.0\n", `frames: s.csv:2: column 2: cannot convert Stan name "beta.0": index "0" is not a positive integer`},
		{"bad bracket", "lp__,beta[x]\n", `frames: s.csv:1: column 2: cannot convert Stan name "beta[x]"`},
		{"duplicate", "lp__,b.1,b[1]\n", `frames: s.csv:1: columns 2 and 3 are both "b[0]"`},
		{"only sampler", "accept_stat__,stepsize__\n", "frames: s.csv:1: header has no parameter columns"},
		{"ragged", "lp__,a\n1,2\n1\n", "frames: s.csv:3: row has 1 fields, header has 2"},
		{"bad value", "lp__,a.2\n1,2\n\n1,x2\n", `frames: s.csv:4: column "a.2": cannot parse "x2"`},
	}
	for _, tc := range cases {
		_, err := ReadCmdStanCSV(strings.NewReader(tc.in), "s.csv")
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want prefix %q", tc.name, err, tc.want)
		}
	}
}

func TestStanToName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"mu": "mu", "lp__": "lp__", "beta.3": "beta[2]", "beta[3]": "beta[2]", "theta[2,1]": "theta[1,0]",
		"theta.2.1": "theta[1,0]", "z.10.1.7": "z[9,0,6]", "w[ 2, 3]": "w[1,2]",
	} {
		got, err := StanToName(in)
		if err != nil || got != want {
			t.Errorf("StanToName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{".1", "a.", "a.1.x", "[1]", "a[1", "a[0]", "a[-1]"} {
		if got, err := StanToName(bad); err == nil {
			t.Errorf("StanToName(%q) = %q, want an error", bad, got)
		}
	}
}

func TestReadCmdStanLongLine(t *testing.T) {
	t.Parallel()
	// A header longer than the reader's buffer.
	var h, r strings.Builder
	h.WriteString("lp__")
	r.WriteString("0")
	for i := 1; i <= 20000; i++ {
		h.WriteString(",x." + strconv.Itoa(i))
		r.WriteString(",1.25")
	}
	d, err := ReadCmdStanCSV(strings.NewReader(h.String()+"\n"+r.String()+"\n"), "long.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Names) != 20001 || d.Names[20000] != "x[19999]" || d.Chains[0][20000] != 1.25 {
		t.Errorf("long line read as %d names, last %q", len(d.Names), d.Names[len(d.Names)-1])
	}
}
