package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/internal/testutil"
)

func TestSBC(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "ranks.csv")
	plots := filepath.Join(dir, "plots")
	stdout := mustRun(t, "sbc", "-model", "dirichlet_categorical", "-sims", "30", "-max-rank", "19", "-thin", "3", "-warmup", "20", "-bins", "4", "-seed", "7", "-out", out, "-plots", plots)
	for _, want := range []string{
		"simulation-based calibration of dirichlet_categorical: 30 simulations, seed 7",
		"ranks 0 … 19", "variable", "p[3]", "verdict: ",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout does not contain %q:\n%s", want, stdout)
		}
	}
	rows := testutil.ReadCSV(t, out)
	if strings.Join(rows[0], ",") != "sim_id,variable,simulated_value,rank,max_rank" || len(rows) != 1+30*4 {
		t.Fatalf("-out: header %v, %d rows; want the SBC columns and 120 rows", rows[0], len(rows)-1)
	}
	for _, r := range rows[1:] {
		id, _ := strconv.Atoi(r[0])
		rank, err := strconv.Atoi(r[3])
		if id < 1 || id > 30 || err != nil || rank < 0 || rank > 19 || r[4] != "19" {
			t.Errorf("-out row %v", r)
		}
	}
	for _, name := range []string{"sbc_rank_p_0", "sbc_ecdf_p_0", "sbc_rank_p_3", "sbc_ecdf_p_3"} {
		checkPNG(t, filepath.Join(plots, name+".png"))
	}
	// The same seed gives the same ranks.
	out2 := filepath.Join(dir, "ranks2.csv")
	mustRun(t, "sbc", "-model", "dirichlet_categorical", "-sims", "30", "-max-rank", "19", "-thin", "3", "-warmup", "20", "-bins", "4", "-seed", "7", "-out", out2)
	a, _ := os.ReadFile(out)
	b, _ := os.ReadFile(out2)
	if string(a) != string(b) {
		t.Errorf("two runs with -seed 7 wrote different ranks")
	}
}

// TestSBCAnnotation checks that nmc sbc runs the Dawid-Skene simulator and ranks
// pi, theta and the marginalised classes z.
func TestSBCAnnotation(t *testing.T) {
	t.Parallel()
	stdout := mustRun(t, "sbc", "-model", "annotation", "-n", "8", "-k", "2", "-sims", "10", "-max-rank", "19", "-thin", "2", "-warmup", "20", "-bins", "4")
	for _, want := range []string{
		"simulation-based calibration of annotation: 10 simulations", "pi[2]", "theta[1,2,2]", "z[7]", "verdict: ",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout does not contain %q:\n%s", want, stdout)
		}
	}
}

func TestSBCBadCommandLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sbc"}, "-model is required"},
		{[]string{"sbc", "-model", "eight_schools"}, "has no simulator"},
		{[]string{"sbc", "-model", "annotation", "-k", "-1"}, "-k = -1"},
		{[]string{"sbc", "-model", "nope"}, "unknown model"},
		{[]string{"sbc", "-model", "blr", "-sims", "0"}, "-sims = 0"},
		{[]string{"sbc", "-model", "blr", "-bins", "1"}, "-bins = 1"},
		{[]string{"sbc", "-model", "blr", "-max-rank", "99", "-chains", "2"}, "not a multiple"},
		{[]string{"sbc", "-model", "dirichlet_categorical", "-k", "3"}, "-k = 3"},
		{[]string{"sbc", "-model", "funnel", "-n", "10"}, "no data"},
		{[]string{"sbc", "-model", "blr", "extra"}, "unexpected argument"},
	} {
		code, stdout, stderr := runCLI(t, c.args...)
		checkOneLineError(t, code, stdout, stderr, exitUsage, "nmc sbc: ", c.want)
	}
}
