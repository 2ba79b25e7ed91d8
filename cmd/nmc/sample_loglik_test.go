package main

import (
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/internal/testutil"
)

// TestSampleLogLikLoo is the check: nmc sample -model robust -n 2000 -k 5
// -loglik, then nmc loo on the draws: every Pareto k below 0.7 and p_loo near the
// model's 8 parameters (alpha, beta[5], sigma, nu). The other columns of the draws
// file are those of the same run without -loglik.
func TestSampleLogLikLoo(t *testing.T) {
	dir := t.TempDir()
	with, without := filepath.Join(dir, "with.csv"), filepath.Join(dir, "without.csv")
	out := mustRun(t, "sample", "-model", "robust", "-n", "2000", "-k", "5", "-loglik", "-out", with)
	if strings.Contains(out, "log_lik") {
		t.Errorf("the summary prints log_lik columns:\n%s", out)
	}
	mustRun(t, "sample", "-model", "robust", "-n", "2000", "-k", "5", "-out", without)
	a, err := frames.ReadDrawsFiles(with)
	if err != nil {
		t.Fatal(err)
	}
	b, err := frames.ReadDrawsFiles(without)
	if err != nil {
		t.Fatal(err)
	}
	nll := 0
	for i, name := range a.Names {
		if strings.HasPrefix(name, "log_lik[") {
			if name != "log_lik["+strconv.Itoa(nll)+"]" {
				t.Fatalf("column %d is %s, want log_lik[%d]", i, name, nll)
			}
			nll++
		}
	}
	if nll != 1000 { // -n 2000 generates 1000 training and 1000 held-out rows
		t.Errorf("%d log_lik columns, want 1000 (the training rows)", nll)
	}
	if !slices.Equal(a.Names[:len(b.Names)], b.Names) {
		t.Fatalf("names %v…, want %v first", a.Names[:len(b.Names)], b.Names)
	}
	for c := range b.Chains {
		wa, wb := len(a.Names), len(b.Names)
		for d := range b.NumDraws(c) {
			if !slices.Equal(a.Chains[c][d*wa:d*wa+wb], b.Chains[c][d*wb:(d+1)*wb]) {
				t.Fatalf("chain %d draw %d: -loglik changed the draws", c, d)
			}
		}
	}

	est, pw := filepath.Join(dir, "loo.csv"), filepath.Join(dir, "pointwise.csv")
	mustRun(t, "loo", "-out", est, "-pointwise", pw, with)
	tab, err := frames.ReadTableFile(pw)
	if err != nil {
		t.Fatal(err)
	}
	ks, err := tab.Column("influence_pareto_k")
	if err != nil {
		t.Fatal(err)
	}
	if len(ks) != 1000 {
		t.Fatalf("%d Pareto k's, want 1000", len(ks))
	}
	if m := slices.Max(ks); m >= 0.7 {
		t.Errorf("max Pareto k %v, want < 0.7", m)
	}
	ploo, se := looEstimate(t, est, "p_loo")
	if math.Abs(ploo-8) > max(1.5, 3*se) {
		t.Errorf("p_loo = %v ± %v, want near 8", ploo, se)
	}
}

// looEstimate returns the estimate and standard error of row name of an nmc loo
// -out file.
func looEstimate(t *testing.T, path, name string) (est, se float64) {
	t.Helper()
	rows := testutil.ReadCSV(t, path)
	for _, r := range rows[1:] {
		if r[0] == name {
			est, err1 := strconv.ParseFloat(r[1], 64)
			se, err2 := strconv.ParseFloat(r[2], 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: row %v", path, r)
			}
			return est, se
		}
	}
	t.Fatalf("%s: no row %s", path, name)
	return 0, 0
}

// TestSampleYRep checks the y_rep columns of -yrep: one per training value, finite,
// reproducible for a seed, counts, and drawn at each draw's rate: for gamma_poisson
// the replicates' mean at a draw minus that draw's lambda has mean 0 (fresh random
// numbers at every draw, so the differences are independent).
func TestSampleYRep(t *testing.T) {
	dir := t.TempDir()
	p1, p2 := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	args := []string{"sample", "-model", "gamma_poisson", "-n", "50", "-draws", "400", "-chains", "2", "-yrep", "-loglik", "-out"}
	mustRun(t, append(args, p1)...)
	mustRun(t, append(args, p2)...)
	if mustRead(t, p1) != mustRead(t, p2) {
		t.Error("-yrep draws differ between runs with one seed")
	}
	d, err := frames.ReadDrawsFiles(p1)
	if err != nil {
		t.Fatal(err)
	}
	var reps []int
	nll := 0
	for i, name := range d.Names {
		if strings.HasPrefix(name, "y_rep[") {
			reps = append(reps, i)
		}
		if strings.HasPrefix(name, "log_lik[") {
			nll++
		}
	}
	if len(reps) != 50 || nll != 50 {
		t.Fatalf("%d y_rep and %d log_lik columns, want 50 each", len(reps), nll)
	}
	lambda := slices.Index(d.Names, "lambda")
	if lambda < 0 {
		t.Fatalf("no lambda column in %v", d.Names[:3])
	}
	var diffs []float64
	w := len(d.Names)
	for c := range d.Chains {
		for i := range d.NumDraws(c) {
			s := 0.0
			for _, j := range reps {
				v := d.Chains[c][i*w+j]
				if v != math.Trunc(v) || v < 0 {
					t.Fatalf("y_rep value %v is not a count", v)
				}
				s += v
			}
			diffs = append(diffs, s/50-d.Chains[c][i*w+lambda])
		}
	}
	n := float64(len(diffs))
	mean, ss := 0.0, 0.0
	for _, v := range diffs {
		mean += v / n
	}
	for _, v := range diffs {
		ss += (v - mean) * (v - mean)
	}
	if se := math.Sqrt(ss/(n-1)) / math.Sqrt(n); se == 0 || math.Abs(mean) > 5*se {
		t.Errorf("replicate mean − lambda: %v, want 0 ± %v", mean, 5*se)
	}
}

// TestSampleLogLikErrors: -loglik without -out is a usage error; too many values for
// the limit of held-out values is refused before sampling with the size named.
func TestSampleLogLikErrors(t *testing.T) {
	code, out, errOut := runCLI(t, "sample", "-model", "robust", "-loglik")
	checkOneLineError(t, code, out, errOut, exitUsage, "nmc sample: ", "-out")
	old := maxPointwiseHeldOut
	maxPointwiseHeldOut = 1000
	defer func() { maxPointwiseHeldOut = old }()
	code, out, errOut = runCLI(t, "sample", "-model", "robust", "-n", "100", "-k", "2", "-draws", "11", "-chains", "2", "-loglik", "-out", filepath.Join(t.TempDir(), "d.csv"))
	checkOneLineError(t, code, out, errOut, exitFailure, "nmc sample: ", "-loglik", "50 observations × 2 chains × 11 draws = 1100", "1000")
}
