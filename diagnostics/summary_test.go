package diagnostics

import (
	"bytes"
	"encoding/csv"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/draws"
)

// toDraws packs quantities given as [chain][draw] into draws.Draws.
func toDraws(names []string, qs ...[][]float64) *draws.Draws {
	m, n := len(qs[0]), len(qs[0][0])
	d := &draws.Draws{Names: names, Chains: make([][]float64, m)}
	for c := range m {
		d.Chains[c] = make([]float64, n*len(qs))
		for i := range n {
			for p, q := range qs {
				d.Chains[c][i*len(qs)+p] = q[c][i]
			}
		}
	}
	return d
}

// sameFloat reports whether a and b are equal to 1e-12 relative, or both NaN.
func sameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= 1e-12*max(1, math.Abs(b))
}

// TestSummarizeMatchesFunctions checks every summary column against the
// single-quantity functions on the worked examples (even and odd lengths,
// ties, ±Inf, a stuck chain), run with several workers.
func TestSummarizeMatchesFunctions(t *testing.T) {
	w2 := copyDraws(w1)
	for i := range w2[3] {
		w2[3][i] = 0.5
	}
	w7 := copyDraws(w1)
	w7[1][2] = math.Inf(1)
	w1odd := make([][]float64, 4)
	for c := range w1odd {
		w1odd[c] = w1[c][:19]
	}
	w5odd := make([][]float64, 4)
	for c := range w5odd {
		w5odd[c] = w5[c][:11]
	}
	sets := []struct {
		name string
		qs   [][][]float64
	}{
		{"w1 w2 w7", [][][]float64{w1, w2, w7}},
		{"w1 odd", [][][]float64{w1odd, w8Like(w1odd)}},
		{"w5 odd", [][][]float64{w5odd}},
		{"w5", [][][]float64{w5}},
		{"w6", [][][]float64{w6}},
		{"w8", [][][]float64{w8}},
		{"few 5", [][][]float64{fill(l28, 4, 5)}},
		{"few 7", [][][]float64{fill(l28, 4, 7)}},
		{"few 3", [][][]float64{fill(l28, 4, 3)}},
	}
	for _, set := range sets {
		names := make([]string, len(set.qs))
		for i := range names {
			names[i] = "v[" + strconv.Itoa(i) + "]"
		}
		rows, err := Summarize(toDraws(names, set.qs...), &SummaryOptions{Workers: 3, Quantiles: []float64{0.025, 0.5, 1}})
		if err != nil {
			t.Fatalf("%s: %v", set.name, err)
		}
		for i, r := range rows {
			x := set.qs[i]
			if r.Variable != names[i] {
				t.Errorf("%s: row %d is %q", set.name, i, r.Variable)
			}
			check := func(col string, got float64, f func([][]float64) (float64, error)) {
				want, err := f(x)
				if err != nil {
					t.Fatal(err)
				}
				if !sameFloat(got, want) {
					t.Errorf("%s: %s %s = %.17g, function gives %.17g", set.name, r.Variable, col, got, want)
				}
			}
			check("mean", r.Mean, Mean)
			check("median", r.Median, Median)
			check("sd", r.SD, SD)
			check("mad", r.MAD, MAD)
			check("q5", r.Q5, quantities["q5"])
			check("q95", r.Q95, quantities["q95"])
			check("rhat", r.RHat, RHat)
			check("ess_bulk", r.ESSBulk, ESSBulk)
			check("ess_tail", r.ESSTail, ESSTail)
			check("mcse_mean", r.MCSEMean, MCSEMean)
			check("mcse_sd", r.MCSESD, MCSESD)
			for k, p := range []float64{0.025, 0.5, 1} {
				check("quantile "+QuantileName(p), r.Quantiles[k].Value, func(x [][]float64) (float64, error) { return Quantile(x, p) })
			}
		}
	}
}

func TestSummarizeVariablesAndErrors(t *testing.T) {
	d := toDraws([]string{"alpha", "beta[0]", "beta[1]"}, w1, w6Like(w1), w8Like(w1))
	rows, err := Summarize(d, &SummaryOptions{Variables: []string{"beta", "alpha"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.Variable)
	}
	if strings.Join(got, ",") != "beta[0],beta[1],alpha" {
		t.Errorf("selected %v", got)
	}
	checkRef(t, "alpha rhat", rows[2].RHat, 1.013225921)

	// SummaryVariables names the rows in Summarize's order; summarizing a prefix of
	// them gives those rows of the full summary.
	names, err := SummaryVariables(d, []string{"beta", "alpha"})
	if err != nil || strings.Join(names, ",") != strings.Join(got, ",") {
		t.Errorf("SummaryVariables %v (%v), want %v", names, err, got)
	}
	if all, err := SummaryVariables(d, nil); err != nil || strings.Join(all, ",") != "alpha,beta[0],beta[1]" {
		t.Errorf("SummaryVariables(nil) %v (%v)", all, err)
	}
	head, err := Summarize(d, &SummaryOptions{Variables: names[:2]})
	if err != nil || len(head) != 2 {
		t.Fatalf("prefix: %d rows (%v)", len(head), err)
	}
	for i, r := range head {
		if !reflect.DeepEqual(r, rows[i]) {
			t.Errorf("prefix row %d: %+v, want %+v", i, r, rows[i])
		}
	}
	if _, err := SummaryVariables(d, []string{"gamma"}); err == nil || !strings.Contains(err.Error(), `unknown variable "gamma"`) {
		t.Errorf("SummaryVariables of an unknown variable: %v", err)
	}
	if _, err := SummaryVariables(nil, nil); err == nil || !strings.Contains(err.Error(), "nil draws") {
		t.Errorf("SummaryVariables(nil draws): %v", err)
	}

	bad := []struct {
		name string
		d    *draws.Draws
		opts *SummaryOptions
		msg  string
	}{
		{"unknown variable", d, &SummaryOptions{Variables: []string{"gamma"}}, `unknown variable "gamma"`},
		{"quantile", d, &SummaryOptions{Quantiles: []float64{0.5, 1.5}}, "quantile 1: probability p = 1.5"},
		{"nil", nil, nil, "nil draws"},
		{"no chains", &draws.Draws{Names: []string{"a"}}, nil, "no chains"},
		{"ragged", &draws.Draws{Names: []string{"a"}, Chains: [][]float64{{1, 2, 3}, {1, 2}}}, nil, "chain 1 has 2 draws, chain 0 has 3"},
		{"empty chain", &draws.Draws{Names: []string{"a"}, Chains: [][]float64{{}}}, nil, "chain 0 has no draws"},
		{"invalid", &draws.Draws{Names: []string{"a", "a"}, Chains: [][]float64{{1, 2}}}, nil, "appears twice"},
	}
	for _, b := range bad {
		_, err := Summarize(b.d, b.opts)
		if err == nil || !strings.Contains(err.Error(), b.msg) || !strings.HasPrefix(err.Error(), "diagnostics: ") {
			t.Errorf("%s: error %v, want one containing %q", b.name, err, b.msg)
		}
	}
}

// w6Like and w8Like derive further quantities from x by monotone and
// non-monotone transforms.
func w6Like(x [][]float64) [][]float64 {
	out := copyDraws(x)
	for _, c := range out {
		for i := range c {
			c[i] = math.Exp(c[i])
		}
	}
	return out
}

func w8Like(x [][]float64) [][]float64 {
	out := copyDraws(x)
	for _, c := range out {
		for i := range c {
			c[i] = c[i] * c[i]
		}
	}
	return out
}

func TestESSBulkRankInvariance(t *testing.T) {
	a, _ := ESSBulk(w1)
	b, _ := ESSBulk(w6Like(w1))
	if a != b {
		t.Errorf("ESSBulk changed under exp: %.17g vs %.17g", a, b)
	}
}

func TestSummaryOutputs(t *testing.T) {
	w2 := copyDraws(w1)
	for i := range w2[3] {
		w2[3][i] = 0.5
	}
	cst := fill(make([]float64, 80), 4, 20)
	d := toDraws([]string{"mu", "theta[2,1]", "const"}, w1, w2, cst)
	rows, err := Summarize(d, &SummaryOptions{Quantiles: []float64{0.025, 0.5, 0.975}})
	if err != nil {
		t.Fatal(err)
	}
	names, vals := SummaryColumns(rows)
	wantCols := "mean median sd mad q2.5 q50 q97.5 rhat ess_bulk ess_tail mcse_mean mcse_sd"
	if got := strings.Join(names, " "); got != wantCols {
		t.Errorf("columns %q, want %q", got, wantCols)
	}
	if len(vals) != 12 || len(vals[0]) != 3 {
		t.Errorf("dims %d×%d", len(vals), len(vals[0]))
	}
	if v := vals[7][0]; v != rows[0].RHat {
		t.Errorf("rhat cell %v, row %v", v, rows[0].RHat)
	}

	// Default columns.
	rows2, err := Summarize(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantDefault := "variable mean median sd mad q5 q95 rhat ess_bulk ess_tail mcse_mean mcse_sd"
	names2, _ := SummaryColumns(rows2)
	if got := "variable " + strings.Join(names2, " "); got != wantDefault {
		t.Errorf("default columns %q", got)
	}

	// CSV: exact round trip, NA for NaN, quoted names.
	var buf bytes.Buffer
	if err := WriteSummaryCSV(&buf, rows2); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], " ") != wantDefault || len(recs) != 4 {
		t.Fatalf("csv header %v, %d records", recs[0], len(recs))
	}
	if recs[2][0] != "theta[2,1]" {
		t.Errorf("csv name %q", recs[2][0])
	}
	_, vals = SummaryColumns(rows2)
	for i := range rows2 {
		for j := range vals {
			cell := recs[i+1][j+1]
			want := vals[j][i]
			if math.IsNaN(want) {
				if cell != "NA" {
					t.Errorf("csv row %d col %d = %q, want NA", i, j, cell)
				}
				continue
			}
			got, err := strconv.ParseFloat(cell, 64)
			if err != nil || got != want {
				t.Errorf("csv row %d col %d = %q, want %.17g", i, j, cell, want)
			}
		}
	}

	// Plain-text table.
	txt := FormatSummary(rows2)
	lines := strings.Split(strings.TrimSuffix(txt, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("table has %d lines:\n%s", len(lines), txt)
	}
	for _, l := range lines[1:] {
		if len(l) != len(lines[0]) {
			t.Errorf("unaligned table:\n%s", txt)
			break
		}
	}
	for _, want := range []string{"mu", "1.01", "0.199", "46.2", "83.5", "1.55", "NA"} {
		if !strings.Contains(txt, want) {
			t.Errorf("table lacks %q:\n%s", want, txt)
		}
	}
}

func TestFormatSig(t *testing.T) {
	for v, want := range map[float64]string{
		0.198875: "0.199", 1.013225921: "1.01", 46.19974939: "46.2", 9.996: "10.0",
		3868.4: "3868", -1.1715: "-1.17", 0: "0", 0.00012345: "1.23e-04", 123.45: "123",
		math.NaN(): "NA", math.Inf(1): "Inf", 0.01: "0.0100",
	} {
		if got := formatSig(v); got != want {
			t.Errorf("formatSig(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestSummarizeDeterministic checks that the result does not depend on the
// number of workers.
func TestSummarizeDeterministic(t *testing.T) {
	d := randomDraws(4, 200, 30, 7)
	a, err := Summarize(d, &SummaryOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Summarize(d, &SummaryOptions{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	var ba, bb bytes.Buffer
	_ = WriteSummaryCSV(&ba, a)
	_ = WriteSummaryCSV(&bb, b)
	if ba.String() != bb.String() {
		t.Error("summaries differ between 1 and 4 workers")
	}
}

// randomDraws returns m chains of n draws of p AR(1) quantities with
// coefficients spread over (−0.5, 0.99).
func randomDraws(m, n, p int, seed uint64) *draws.Draws {
	rng := rand.New(rand.NewPCG(seed, 0))
	d := &draws.Draws{Names: make([]string, p), Chains: make([][]float64, m)}
	for k := range p {
		d.Names[k] = "x[" + strconv.Itoa(k) + "]"
	}
	phi := make([]float64, p)
	for k := range phi {
		phi[k] = -0.5 + 1.49*float64(k)/float64(max(p-1, 1))
	}
	for c := range m {
		d.Chains[c] = make([]float64, n*p)
		v := make([]float64, p)
		for i := range n {
			for k := range p {
				v[k] = phi[k]*v[k] + rng.NormFloat64()
				d.Chains[c][i*p+k] = v[k]
			}
		}
	}
	return d
}

var sinkRows []SummaryRow

func benchSummarize(b *testing.B, m, n, p int) {
	d := randomDraws(m, n, p, 1)
	b.ReportAllocs()
	for b.Loop() {
		rows, err := Summarize(d, nil)
		if err != nil {
			b.Fatal(err)
		}
		sinkRows = rows
	}
}

// BenchmarkSummarize4x1000x1000 summarizes 4 chains × 1000 draws × 1000 quantities.
func BenchmarkSummarize4x1000x1000(b *testing.B) { benchSummarize(b, 4, 1000, 1000) }

// TestConvergenceMatchesSummarize: Convergence's R-hat and bulk ESS are Summarize's,
// bit for bit, on the worked examples (ties, ±Inf, a stuck chain, NaN, fewer than
// four draws, an infinite median) and on AR(1) draws, with a selection of
// variables; it refuses what Summarize refuses, with its own name in the message.
func TestConvergenceMatchesSummarize(t *testing.T) {
	w2 := copyDraws(w1)
	for i := range w2[3] {
		w2[3][i] = 0.5
	}
	w7 := copyDraws(w1)
	w7[1][2] = math.Inf(1)
	wNaN := copyDraws(w1)
	wNaN[2][5] = math.NaN()
	wInf := copyDraws(w1)
	for c := range wInf {
		for i := range wInf[c] {
			if i%3 != 0 {
				wInf[c][i] = math.Inf(1) // the median is +Inf: the folded draws are NaN
			}
		}
	}
	sets := []*draws.Draws{
		toDraws([]string{"a", "b", "c", "d", "e", "f"}, w1, w2, w7, wNaN, wInf, w8Like(w1)),
		toDraws([]string{"w5"}, w5),
		toDraws([]string{"w6"}, w6),
		toDraws([]string{"w8"}, w8),
		toDraws([]string{"few3"}, fill(l28, 4, 3)),
		toDraws([]string{"few5"}, fill(l28, 4, 5)),
		randomDraws(4, 300, 40, 3),
	}
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) || a != a && b != b }
	for si, d := range sets {
		for _, vars := range [][]string{nil, {d.Names[len(d.Names)-1], d.Names[0]}} {
			want, err := Summarize(d, &SummaryOptions{Variables: vars})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Convergence(d, &SummaryOptions{Variables: vars, Workers: 3})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("set %d: %d rows, Summarize %d", si, len(got), len(want))
			}
			for i, r := range got {
				w := want[i]
				if r.Variable != w.Variable || !same(r.RHat, w.RHat) || !same(r.ESSBulk, w.ESSBulk) {
					t.Errorf("set %d: %+v, Summarize %s rhat %v ess_bulk %v", si, r, w.Variable, w.RHat, w.ESSBulk)
				}
			}
		}
	}
	nan := 0
	rows, _ := Convergence(sets[0], nil)
	for _, r := range rows {
		if math.IsNaN(r.RHat) {
			nan++
		}
	}
	if nan < 2 {
		t.Errorf("%d NaN R-hats in the first set, want the NaN and the infinite-median quantities", nan)
	}
	d := sets[1]
	for _, b := range []struct {
		d    *draws.Draws
		opts *SummaryOptions
		msg  string
	}{
		{d, &SummaryOptions{Variables: []string{"gamma"}}, `unknown variable "gamma"`},
		{nil, nil, "diagnostics: convergence: nil draws"},
		{&draws.Draws{Names: []string{"a"}}, nil, "no chains"},
		{&draws.Draws{Names: []string{"a"}, Chains: [][]float64{{1, 2, 3}, {1, 2}}}, nil, "chain 1 has 2 draws, chain 0 has 3"},
	} {
		if _, err := Convergence(b.d, b.opts); err == nil || !strings.Contains(err.Error(), b.msg) {
			t.Errorf("Convergence: error %v, want one containing %q", err, b.msg)
		}
	}
}
