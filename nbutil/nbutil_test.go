package nbutil

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/nmc"
)

// iidDraws returns chains × n independent N(mean, 1) draws of each named quantity,
// with chain 0 shifted by shift0 (a shift makes R-hat large).
func iidDraws(names []string, chains, n int, shift0 float64, seed uint64) *draws.Draws {
	d := &draws.Draws{Names: names}
	for c := range chains {
		rng := rand.New(rand.NewPCG(seed, uint64(c)))
		ch := make([]float64, n*len(names))
		for i := range ch {
			ch[i] = rng.NormFloat64()
			if c == 0 {
				ch[i] += shift0
			}
		}
		d.Chains = append(d.Chains, ch)
	}
	return d
}

func TestNum(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{math.NaN(), "NA"}, {math.Inf(1), "Inf"}, {math.Inf(-1), "-Inf"},
		{1234.6, "1235"}, {-2000.2, "-2000"}, {0.123456, "0.123"}, {1.0049, "1"},
		{3.14159, "3.14"}, {2.5e-5, "2.5e-05"}, {999.4, "999"},
	} {
		if got := Num(tc.v); got != tc.want {
			t.Errorf("Num(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestSummaryHTML(t *testing.T) {
	t.Parallel()
	good := iidDraws([]string{"a<b", "c"}, 4, 500, 0, 1)
	rows, err := diagnostics.Summarize(good, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := SummaryHTML(rows, 0)
	if strings.Contains(h, "a<b") || !strings.Contains(h, "a&lt;b") {
		t.Errorf("variable name not escaped:\n%s", h)
	}
	if n := strings.Count(h, "<tr>"); n != 3 {
		t.Errorf("%d table rows, want header + 2:\n%s", n, h)
	}
	for _, col := range []string{"variable", "mean", "q5", "q95", "rhat", "ess_bulk", "ess_tail", "mcse_mean", "mcse_sd"} {
		if !strings.Contains(h, ">"+col+"<") {
			t.Errorf("column %s missing", col)
		}
	}
	if !strings.Contains(h, ">"+Num(rows[1].Mean)+"<") {
		t.Errorf("mean of c (%s) not shown:\n%s", Num(rows[1].Mean), h)
	}
	// 2000 independent draws converge: nothing is flagged.
	if strings.Contains(h, "#c00") {
		t.Errorf("well-mixed draws flagged:\n%s", h)
	}

	bad := iidDraws([]string{"x"}, 4, 500, 3, 2) // chain 0 three SDs away
	rows, err = diagnostics.Summarize(bad, &diagnostics.SummaryOptions{Quantiles: []float64{0.1, 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].RHat <= MaxRHat {
		t.Fatalf("test setup: R-hat %v, want > %v", rows[0].RHat, MaxRHat)
	}
	h = SummaryHTML(rows, 0)
	if !strings.Contains(h, "#c00;font-weight:bold\">"+Num(rows[0].RHat)+"<") {
		t.Errorf("R-hat %v not flagged:\n%s", rows[0].RHat, h)
	}
	if !strings.Contains(h, ">q10<") || !strings.Contains(h, ">q50<") || strings.Contains(h, ">q5<") {
		t.Errorf("quantile columns are not q10, q50:\n%s", h)
	}

	many := iidDraws([]string{"p[0]", "p[1]", "p[2]", "p[3]", "p[4]"}, 2, 50, 0, 3)
	rows, err = diagnostics.Summarize(many, nil)
	if err != nil {
		t.Fatal(err)
	}
	h = SummaryHTML(rows, 2)
	if n := strings.Count(h, "<tr>"); n != 3 || !strings.Contains(h, "3 more rows not shown") {
		t.Errorf("maxRows 2 of 5: %d rows:\n%s", n, h)
	}
	if h := SummaryHTML(nil, 0); strings.Count(h, "<tr>") != 1 {
		t.Errorf("no rows: want header only:\n%s", h)
	}
}

func TestSiteStatsHTML(t *testing.T) {
	t.Parallel()
	sites := []draws.SiteStats{
		{Name: "beta", Proposer: "newton-gaussian", Proposals: 400, Accepted: 100, Fallbacks: 2},
		{Name: "z[0]", Proposer: "enumerate", Proposals: 400, Accepted: 400},
		{Name: "z[1]", Proposer: "enumerate", Proposals: 400, Accepted: 200, Fallbacks: 1},
		{Name: "z[2]", Proposer: "enumerate", Proposals: 0, Accepted: 0},
		{Name: "fitted(beta)", Proposer: "fitted-gaussian", Unused: "left to its sites' own steps"},
	}
	h := SiteStatsHTML(sites, 0)
	for _, want := range []string{">beta<", ">newton-gaussian<", ">0.25<", ">NA<", ">2<", `title="left to its sites&#39; own steps">not used<`} {
		if !strings.Contains(h, want) {
			t.Errorf("missing %q:\n%s", want, h)
		}
	}
	h = SiteStatsHTML(sites[:4], 2)
	if !strings.Contains(h, "2 more sites: 400 proposals, accept rate 0.5, 1 fallbacks") {
		t.Errorf("rest not summed:\n%s", h)
	}
}

func TestVerdict(t *testing.T) {
	t.Parallel()
	row := func(name string, rhat, bulk, tail float64) diagnostics.SummaryRow {
		return diagnostics.SummaryRow{Variable: name, RHat: rhat, ESSBulk: bulk, ESSTail: tail}
	}
	if got := Verdict(nil); got != "No quantities to judge." {
		t.Errorf("Verdict(nil) = %q", got)
	}
	ok := []diagnostics.SummaryRow{row("a", 1.001, 2000, 1500), row("b", 1.009, 401, 400), row("z", 1, 900, math.NaN())}
	if got, want := Verdict(ok), "All 3 quantities have R-hat ≤ 1.01 and bulk and tail ESS ≥ 400."; got != want {
		t.Errorf("Verdict = %q, want %q", got, want)
	}
	bad := append(ok, row("s", 3.99, 4.3, 50), row("n", 1.5, 7.5, 52), row("t", 1.001, 2000, 399), row("u", math.NaN(), 10, 10))
	got := Verdict(bad)
	want := "4 of 7 quantities have R-hat > 1.01 or an ESS < 400; worst: s (R-hat 3.99, ESS bulk 4.3), n (R-hat 1.5, ESS bulk 7.5), t (R-hat 1, ESS bulk 2000), u (R-hat NA, ESS bulk 10)."
	if got != want {
		t.Errorf("Verdict =\n%q, want\n%q", got, want)
	}
}

func TestProgressHTML(t *testing.T) {
	t.Parallel()
	h := ProgressHTML("robust <N=2000>", []int{10, 20}, []int{100, 0}, 1500*time.Millisecond)
	for _, want := range []string{"robust &lt;N=2000&gt;", `value="10" max="100"`, "10/100", `value="20" max="1"`, "20/0", "running, 1.5 s"} {
		if !strings.Contains(h, want) {
			t.Errorf("missing %q in %s", want, h)
		}
	}
	if h := ProgressHTML("x", []int{5, 5}, []int{5, 5}, time.Second); !strings.Contains(h, "done, 1.0 s") {
		t.Errorf("finished run not shown as done: %s", h)
	}
}

func TestProgressThrottle(t *testing.T) {
	t.Parallel()
	var shown []string
	p := NewProgress("run", 2)
	p.id = "id"
	p.every = time.Hour // only the first update and chain ends are drawn
	p.show = func(id, h string) {
		if id != "id" {
			t.Errorf("id %q", id)
		}
		shown = append(shown, h)
	}
	p.Update(nmc.Progress{Chain: 0, Done: 1, Total: 10})
	p.Update(nmc.Progress{Chain: 1, Done: 2, Total: 10})
	p.Update(nmc.Progress{Chain: 0, Done: 5, Total: 10})
	if len(shown) != 1 {
		t.Fatalf("%d redraws within the throttle interval, want 1", len(shown))
	}
	p.Update(nmc.Progress{Chain: 0, Done: 10, Total: 10}) // a chain end is always drawn
	p.Update(nmc.Progress{Chain: 3, Done: 10, Total: 10}) // grows the display
	p.Update(nmc.Progress{Chain: -1, Done: 10, Total: 10})
	p.Finish()
	if len(shown) != 4 {
		t.Fatalf("%d redraws, want 4", len(shown))
	}
	last := shown[3]
	for _, want := range []string{"10/10", "2/10", "chain 2", "0/0", "chain 3"} {
		if !strings.Contains(last, want) {
			t.Errorf("final line lacks %q: %s", want, last)
		}
	}
	// Outside a notebook nothing is shown and nothing panics.
	q := NewProgress("quiet", 1)
	q.Update(nmc.Progress{Chain: 0, Done: 1, Total: 1})
	q.Finish()
}

func TestConfusionMean(t *testing.T) {
	t.Parallel()
	// Two labelers, two classes; the draws of theta[l,m,k] alternate ±0.01 around a
	// known value, so their mean is that value.
	names := []string{"pi[0]", "pi[1]"}
	for l := range 2 {
		for m := range 2 {
			for k := range 2 {
				names = append(names, fmt.Sprintf("theta[%d,%d,%d]", l, m, k))
			}
		}
	}
	d := &draws.Draws{Names: names}
	for range 2 {
		var ch []float64
		for s := range 4 {
			delta := 0.01 * float64(s%2*2-1) // −0.01, +0.01, …: mean 0
			row := []float64{0.5, 0.5}
			for l := range 2 {
				for m := range 2 {
					p := 0.8 - 0.1*float64(l) - 0.3*float64(m)
					row = append(row, p+delta, 1-p-delta)
				}
			}
			ch = append(ch, row...)
		}
		d.Chains = append(d.Chains, ch)
	}
	got, err := ConfusionMean(d, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{0.7, 0.3}, {0.4, 0.6}}
	for m := range want {
		for k := range want[m] {
			if math.Abs(got[m][k]-want[m][k]) > 1e-12 {
				t.Errorf("confusion[%d][%d] = %v, want %v", m, k, got[m][k], want[m][k])
			}
		}
	}
	if _, err := ConfusionMean(d, 2, 2); err == nil || !strings.Contains(err.Error(), "labeler 2") || !strings.Contains(err.Error(), "theta[2,0,0]") {
		t.Errorf("missing labeler: error %v", err)
	}
	if _, err := ConfusionMean(d, -1, 2); err == nil {
		t.Error("negative labeler: no error")
	}
	if _, err := ConfusionMean(d, 0, 0); err == nil {
		t.Error("0 classes: no error")
	}
}

func TestExactHTML(t *testing.T) {
	t.Parallel()
	h := ExactHTML([]diagnostics.Comparison{{Variable: "mu", Mean: 1.1, MCSE: 0.02, ExactMean: 1, Z: 5}, {Variable: "v", Mean: 1, MCSE: 0.1, ExactMean: 1.2, Z: -2}})
	if strings.Count(h, "MISMATCH") != 1 || strings.Count(h, ">ok</td>") != 1 {
		t.Errorf("verdicts wrong:\n%s", h)
	}
}

func TestTruthHTML(t *testing.T) {
	t.Parallel()
	rows := []diagnostics.SummaryRow{
		{Variable: "alpha", Mean: 1, SD: 0.1, Q5: 0.8, Q95: 1.2},
		{Variable: "beta[0]", Mean: -2, SD: 0.1, Q5: -2.2, Q95: -1.8},
	}
	h, err := TruthHTML(rows, []string{"alpha", "beta[0]"}, []float64{1.1, -1.5})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(h, ">yes<") != 1 || strings.Count(h, ">no<") != 1 || !strings.Contains(h, "1 of 2 true values") {
		t.Errorf("coverage wrong:\n%s", h)
	}
	if _, err := TruthHTML(rows, []string{"alpha"}, nil); err == nil || !strings.Contains(err.Error(), "1 names but 0 true values") {
		t.Errorf("length mismatch: error %v", err)
	}
	if _, err := TruthHTML(rows, []string{"nu"}, []float64{3}); err == nil || !strings.Contains(err.Error(), `"nu"`) {
		t.Errorf("unknown name: error %v", err)
	}
}
