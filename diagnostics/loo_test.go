package diagnostics

import (
	"bufio"
	"cmp"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/internal/testutil"
)

// readCmdStanLogLik reads the log_lik.1 … log_lik.N columns of CmdStan-style
// CSV files (comment lines start with '#'), one file per chain.
func readCmdStanLogLik(t *testing.T, files []string) LogLik {
	t.Helper()
	var ll LogLik
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<24)
		var cols []int
		var vals []float64
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "#") || line == "" {
				continue
			}
			fields := strings.Split(line, ",")
			if cols == nil {
				for j, name := range fields {
					if strings.HasPrefix(name, "log_lik.") {
						cols = append(cols, j)
					}
				}
				ll.N = len(cols)
				continue
			}
			for _, j := range cols {
				v, err := strconv.ParseFloat(strings.TrimSpace(fields[j]), 64)
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				vals = append(vals, v)
			}
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		ll.Chains = append(ll.Chains, vals)
	}
	return ll
}

// readExpected reads a CSV file written by R into its header and float rows
// (Inf and NA parsed as ±Inf and NaN; the first column kept as a string).
func readExpected(t *testing.T, path string) (header []string, names []string, rows [][]float64) {
	t.Helper()
	recs := testutil.ReadCSV(t, path)
	header = recs[0]
	for _, r := range recs[1:] {
		names = append(names, r[0])
		var row []float64
		for _, s := range r {
			s = strings.TrimSpace(s)
			if s == "NA" {
				row = append(row, math.NaN())
				continue
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				v = math.NaN() // the name column
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return header, names, rows
}

// relErr is |got − want| / |want| (absolute when want is 0); 0 when both are
// the same infinity or both NaN.
func relErr(got, want float64) float64 {
	switch {
	case math.IsNaN(got) && math.IsNaN(want), math.IsInf(want, 0) && got == want:
		return 0
	case math.IsNaN(got) || math.IsNaN(want) || math.IsInf(got, 0) || math.IsInf(want, 0):
		return math.Inf(1)
	case want == 0:
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

// looTol is the relative tolerance against R's loo 2.5.1.
const looTol = 1e-10

// looCases are the folders of testdata/loo with CmdStan chains and R's results.
var looCases = []string{".", "one_chain", "autocorr", "autocorr_b", "small", "khigh", "tiny"}

func loadCase(t *testing.T, name string) LogLik {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "loo", name, "output_*.csv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("case %s: no chain files (%v)", name, err)
	}
	return readCmdStanLogLik(t, files)
}

func TestLOOMatchesR(t *testing.T) {
	worst := map[string]float64{}
	for _, name := range looCases {
		t.Run(name, func(t *testing.T) {
			ll := loadCase(t, name)
			res, err := LOO(ll)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("testdata", "loo", name)
			check := func(what string, got, want float64) {
				t.Helper()
				e := relErr(got, want)
				worst[what] = max(worst[what], e)
				if e > looTol {
					t.Errorf("%s = %.17g, R %.17g (relative error %.3g)", what, got, want, e)
				}
			}
			_, names, rows := readExpected(t, filepath.Join(dir, "expected_estimates.csv"))
			est := map[string]Estimate{"elpd_loo": res.ELPD, "p_loo": res.P, "looic": res.IC,
				"elpd_waic": res.WAIC.ELPD, "p_waic": res.WAIC.P, "waic": res.WAIC.IC}
			if len(names) != len(est) {
				t.Fatalf("expected_estimates.csv has %d rows, want %d", len(names), len(est))
			}
			for r, n := range names {
				check(n, est[n].Estimate, rows[r][1])
				check("se_"+n, est[n].SE, rows[r][2])
			}
			header, _, rows := readExpected(t, filepath.Join(dir, "expected_pointwise.csv"))
			if len(rows) != res.N {
				t.Fatalf("%d pointwise rows, R has %d", res.N, len(rows))
			}
			for i, p := range res.Pointwise {
				got := map[string]float64{"elpd_loo": p.ELPD, "mcse_elpd_loo": p.MCSE, "p_loo": p.P, "looic": p.IC,
					"influence_pareto_k": p.ParetoK, "r_eff": p.REff, "psis_n_eff": p.NEff}
				for j, h := range header {
					g, ok := got[h]
					if !ok {
						t.Fatalf("unexpected column %s", h)
					}
					check(h, g, rows[i][j])
				}
			}
			// the total MCSE is NA exactly when a k exceeds 0.7
			var ss float64
			bad := false
			for _, p := range res.Pointwise {
				ss += p.MCSE * p.MCSE
				bad = bad || p.ParetoK > 0.7
			}
			if bad != math.IsNaN(res.MCSE) || (!bad && relErr(res.MCSE, math.Sqrt(ss)) > 1e-15) {
				t.Errorf("total MCSE %v with k > 0.7: %v", res.MCSE, bad)
			}
			// WAIC alone gives the same values.
			w, err := WAIC(ll)
			if err != nil {
				t.Fatal(err)
			}
			if w.ELPD != res.WAIC.ELPD || w.P != res.WAIC.P || w.IC != res.WAIC.IC {
				t.Errorf("WAIC %+v, LOO's WAIC %+v", w, res.WAIC)
			}
		})
	}
	for _, what := range slices.Sorted(maps.Keys(worst)) {
		t.Logf("max relative error vs R: %-18s %.2g", what, worst[what])
	}
}

func TestCompareMatchesR(t *testing.T) {
	var models []ModelELPD
	for _, name := range []string{"autocorr", "autocorr_b"} {
		res, err := LOO(loadCase(t, name))
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, res.ModelELPD(name))
	}
	rows, err := Compare(models)
	if err != nil {
		t.Fatal(err)
	}
	_, names, want := readExpected(t, filepath.Join("testdata", "loo", "compare", "expected_compare.csv"))
	if len(rows) != len(names) {
		t.Fatalf("%d rows, R has %d", len(rows), len(names))
	}
	for i, r := range rows {
		if r.Model != strings.Trim(names[i], `"`) {
			t.Errorf("row %d is %s, R %s", i, r.Model, names[i])
		}
		if e := relErr(r.ELPDDiff, want[i][1]); e > looTol {
			t.Errorf("%s elpd_diff %.17g, R %.17g", r.Model, r.ELPDDiff, want[i][1])
		}
		if e := relErr(r.SEDiff, want[i][2]); e > looTol {
			t.Errorf("%s se_diff %.17g, R %.17g", r.Model, r.SEDiff, want[i][2])
		}
	}
}

func TestLOOBadInput(t *testing.T) {
	good := func() LogLik {
		return LogLik{N: 3, Chains: [][]float64{
			{-1, -2, -3, -1.5, -2.5, -3.5, -1.2, -2.2, -3.2},
			{-1.1, -2.1, -3.1, -1.4, -2.4, -3.4, -1.3, -2.3, -3.3}}}
	}
	if _, err := LOO(good()); err != nil {
		t.Fatalf("good input: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*LogLik)
		want string
	}{
		{"NaN", func(l *LogLik) { l.Chains[1][4] = math.NaN() }, "observation 1 is NaN at draw 1 of chain 1"},
		{"+Inf", func(l *LogLik) { l.Chains[0][8] = math.Inf(1) }, "observation 2 is +Inf at draw 2 of chain 0"},
		{"ragged", func(l *LogLik) { l.Chains[1] = l.Chains[1][:6] }, "chain 1 has 2 draws, chain 0 has 3"},
		{"partial row", func(l *LogLik) { l.Chains[1] = l.Chains[1][:5] }, "chain 1 holds 5 values"},
		{"no chains", func(l *LogLik) { l.Chains = nil }, "no chains"},
		{"zero draws", func(l *LogLik) { l.Chains = [][]float64{{}, {}} }, "chains have 0 draws"},
		{"no observations", func(l *LogLik) { l.N = 0 }, "0 observations"},
	} {
		ll := good()
		tc.edit(&ll)
		for fn, f := range map[string]func(LogLik) error{
			"LOO":         func(l LogLik) error { _, err := LOO(l); return err },
			"WAIC":        func(l LogLik) error { _, err := WAIC(l); return err },
			"RelativeEff": func(l LogLik) error { _, err := RelativeEff(l); return err },
		} {
			err := f(ll)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %s: error %v, want one containing %q", tc.name, fn, err, tc.want)
			}
		}
	}
	if _, err := LOOWithREff(good(), []float64{1, 0, 1}); err == nil || !strings.Contains(err.Error(), "observation 1") {
		t.Errorf("r_eff 0: error %v", err)
	}
	if _, err := Compare([]ModelELPD{{"a", []float64{1, 2}}, {"b", []float64{1}}}); err == nil || !strings.Contains(err.Error(), "different numbers of observations") {
		t.Errorf("compare of 2 and 1 observations: error %v", err)
	}
}

// TestLOOParallelDeterministic checks that the result does not depend on the
// number of workers, on more observations than one block.
func TestLOOParallelDeterministic(t *testing.T) {
	ll := loadCase(t, "autocorr")
	a, err := LOO(ll)
	if err != nil {
		t.Fatal(err)
	}
	old := runtime.GOMAXPROCS(1)
	b, err := LOO(ll)
	runtime.GOMAXPROCS(old)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Pointwise, b.Pointwise) || a.ELPD != b.ELPD {
		t.Error("LOO differs between GOMAXPROCS values")
	}
}

// BenchmarkLOO10000x4000 times PSIS-LOO of 10,000 observations × 4,000 draws
// (4 autocorrelated chains of 1,000).
func BenchmarkLOO10000x4000(b *testing.B) {
	const N, n, C = 10000, 1000, 4
	ll := LogLik{N: N}
	for c := range C {
		ch := make([]float64, n*N)
		mu := 0.0
		for d := range n {
			mu = 0.9*mu + 0.1*math.Sin(float64(c*n+d)*12.9898)
			for i := range N {
				y := math.Sin(float64(i)*78.233) * 2
				ch[d*N+i] = -0.5*(y-mu)*(y-mu) - 0.9189385332046727
			}
		}
		ll.Chains = append(ll.Chains, ch)
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := LOO(ll)
		if err != nil {
			b.Fatal(err)
		}
		if math.IsNaN(res.ELPD.Estimate) {
			b.Fatal("elpd_loo is NaN")
		}
	}
}

func TestSelectPairs(t *testing.T) {
	for n := 1; n < 300; n += 7 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64((i * 7919) % 13) // many ties
		}
		want := make([]pair, n)
		for i, f := range v {
			want[i] = pair{f, int32(i)}
		}
		slices.SortStableFunc(want, func(a, b pair) int { return cmp.Compare(a.v, b.v) })
		for k := 0; k < n; k += 3 {
			p := make([]pair, n)
			for i, f := range v {
				p[i] = pair{f, int32(i)}
			}
			selectPairs(p, k)
			slices.SortFunc(p[k:], cmpPair)
			if !slices.Equal(p[k:], want[k:]) {
				t.Fatalf("n=%d k=%d: top part %v, want %v", n, k, p[k:], want[k:])
			}
		}
	}
}

// printLines returns the lines of a printed output without trailing blanks,
// leading empty lines and R's pointer to its help page.
func printLines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		l = strings.TrimRight(l, " ")
		if strings.HasPrefix(l, "See help(") || (l == "" && len(out) == 0) {
			continue
		}
		out = append(out, l)
	}
	return out
}

func checkPrint(t *testing.T, path, got string) {
	t.Helper()
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := printLines(got), printLines(string(want)); !slices.Equal(g, w) {
		t.Errorf("%s: got\n%s\nR printed\n%s", path, strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
}

func TestLOOFormatMatchesR(t *testing.T) {
	for _, name := range looCases {
		res, err := LOO(loadCase(t, name))
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join("testdata", "loo", name)
		checkPrint(t, filepath.Join(dir, "expected_print_loo.txt"), res.Format())
		checkPrint(t, filepath.Join(dir, "expected_print_waic.txt"), res.WAIC.Format())
	}
	var models []ModelELPD
	for _, name := range []string{"autocorr", "autocorr_b"} {
		res, err := LOO(loadCase(t, name))
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, res.ModelELPD(name))
	}
	rows, err := Compare(models)
	if err != nil {
		t.Fatal(err)
	}
	checkPrint(t, filepath.Join("testdata", "loo", "compare", "expected_print_compare.txt"), FormatCompare(rows))
}

func TestPointwiseRoundTrip(t *testing.T) {
	res, err := LOO(loadCase(t, "khigh"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteLOOPointwiseCSV(&b, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ",Inf,") && !strings.Contains(b.String(), "influence_pareto_k") {
		t.Error("no header")
	}
	got, err := ReadPointwiseELPD(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, res.ModelELPD("").Pointwise) {
		t.Errorf("read back %v, want %v", got, res.ModelELPD("").Pointwise)
	}
	// R's pointwise file reads too.
	r, err := os.Open(filepath.Join("testdata", "loo", "khigh", "expected_pointwise.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fromR, err := ReadPointwiseELPD(r)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range fromR {
		if relErr(got[i], v) > looTol {
			t.Errorf("observation %d: %v, R %v", i, got[i], v)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"", "empty file"},
		{"a,b\n1,2\n", "no column elpd_loo"},
		{"elpd_loo,p_loo\n-1,0.1\nNA,0.2\n", `line 3, column elpd_loo: "NA"`},
		{"elpd_loo,p_loo\n-1\n", "line 2 has 1 fields"},
		{"elpd_loo\n", "no observations"},
	} {
		if _, err := ReadPointwiseELPD(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestLOOSmallShapes runs LOO on the smallest inputs (2 or 3 draws per chain,
// one observation): no panic, finite elpd, k̂ = +Inf (no tail to fit) and NaN
// standard errors for a single observation, as R gives NA.
func TestLOOSmallShapes(t *testing.T) {
	for _, tc := range []struct{ chains, draws, n int }{{1, 2, 1}, {1, 3, 2}, {2, 2, 3}, {3, 3, 1}, {1, 6, 1}} {
		ll := LogLik{N: tc.n}
		for c := range tc.chains {
			ch := make([]float64, tc.draws*tc.n)
			for j := range ch {
				ch[j] = -1 - 0.1*math.Sin(float64(j+7*c))
			}
			ll.Chains = append(ll.Chains, ch)
		}
		res, err := LOO(ll)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		for i, p := range res.Pointwise {
			if math.IsNaN(p.ELPD) || math.IsInf(p.ELPD, 0) || !math.IsInf(p.ParetoK, 1) {
				t.Errorf("%+v: observation %d: elpd_loo %v, k %v", tc, i, p.ELPD, p.ParetoK)
			}
		}
		if tc.n == 1 && !math.IsNaN(res.ELPD.SE) {
			t.Errorf("%+v: SE of one observation %v, want NaN", tc, res.ELPD.SE)
		}
		_ = res.Format()
	}
}

// TestLOOOverflow: exp(log-likelihood) overflows (log-likelihoods near 800);
// loo 2.5.1 then has r_eff = 0.5 (its ESS recursion stops at once on NaN
// autocorrelations) and NA Monte Carlo SEs, but finite estimates. R:
// x[, c, i] <- 800 + sin((1:50) * 1.7 + 3 * c + i), 2 chains, 2 observations.
func TestLOOOverflow(t *testing.T) {
	ll := LogLik{N: 2}
	for c := 1; c <= 2; c++ {
		ch := make([]float64, 0, 100)
		for d := 1; d <= 50; d++ {
			for i := 1; i <= 2; i++ {
				ch = append(ch, 800+math.Sin(float64(d)*1.7+3*float64(c)+float64(i)))
			}
		}
		ll.Chains = append(ll.Chains, ch)
	}
	res, err := LOO(ll)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range res.Pointwise {
		if p.REff != 0.5 || !math.IsNaN(p.MCSE) {
			t.Errorf("observation %d: r_eff %v, mcse %v; R: 0.5, NA", i, p.REff, p.MCSE)
		}
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"elpd_loo", res.ELPD.Estimate, 1599.52746972705926964}, {"se_elpd_loo", res.ELPD.SE, 0.00078671110816230794},
		{"p_loo", res.P.Estimate, 0.94679528465826479}, {"se_p_loo", res.P.SE, 0.00335719706049530942},
	} {
		if relErr(c.got, c.want) > 1e-9 {
			t.Errorf("%s = %.17g, R %.17g", c.name, c.got, c.want)
		}
	}
}
