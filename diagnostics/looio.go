package diagnostics

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ParetoKBand is one row of the Pareto-k diagnostic table.
type ParetoKBand struct {
	// Interval is the band of k̂ as loo prints it, e.g. "(0.5, 0.7]".
	Interval string
	// Label is "good", "ok", "bad" or "very bad".
	Label string
	// Count and Fraction are the number and the share of observations in the band.
	Count    int
	Fraction float64
	// MinNEff is the smallest PSIS effective sample size in the band (NaN if
	// the band is empty).
	MinNEff float64
}

// paretoKBands are loo 2.5.1's bands of k̂: (−∞, 0.5], (0.5, 0.7], (0.7, 1], (1, ∞).
var paretoKBands = []struct {
	hi              float64
	interval, label string
}{
	{0.5, "(-Inf, 0.5]", "good"},
	{0.7, "(0.5, 0.7]", "ok"},
	{1, "(0.7, 1]", "bad"},
	{math.Inf(1), "(1, Inf)", "very bad"},
}

// ParetoKTable returns the Pareto-k diagnostic table of loo 2.5.1: counts,
// shares and the smallest PSIS effective sample size of the observations with
// k̂ ≤ 0.5 (good), in (0.5, 0.7] (ok), in (0.7, 1] (bad) and above 1 (very
// bad, including k̂ = +Inf).
func (r *LOOResult) ParetoKTable() []ParetoKBand {
	out := make([]ParetoKBand, len(paretoKBands))
	for b, band := range paretoKBands {
		out[b] = ParetoKBand{Interval: band.interval, Label: band.label, MinNEff: math.NaN()}
	}
	for _, p := range r.Pointwise {
		b := 0
		for p.ParetoK > paretoKBands[b].hi {
			b++
		}
		out[b].Count++
		if math.IsNaN(out[b].MinNEff) || p.NEff < out[b].MinNEff {
			out[b].MinNEff = p.NEff
		}
	}
	for b := range out {
		out[b].Fraction = float64(out[b].Count) / float64(len(r.Pointwise))
	}
	return out
}

// fixed formats v with d decimals as R's format(round(v, d), nsmall = d); NaN is "NA".
func fixed(v float64, d int) string {
	if t, ok := nonFinite(v); ok {
		return t
	}
	s := strconv.FormatFloat(v, 'f', d, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// padLeft and padRight pad s with spaces to width w (in runes).
func padLeft(s string, w int) string {
	return strings.Repeat(" ", max(0, w-len([]rune(s)))) + s
}

func padRight(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-len([]rune(s))))
}

// widest returns the largest rune count among ss.
func widest(ss ...string) int {
	w := 0
	for _, s := range ss {
		w = max(w, len([]rune(s)))
	}
	return w
}

// formatEstimates writes loo's table of estimates: row names left-aligned,
// Estimate and SE right-aligned with one decimal.
func formatEstimates(b *strings.Builder, names []string, est []Estimate) {
	e := make([]string, len(est))
	s := make([]string, len(est))
	for i, x := range est {
		e[i], s[i] = fixed(x.Estimate, 1), fixed(x.SE, 1)
	}
	nw, ew, sw := widest(names...), widest(append(e, "Estimate")...), widest(append(s, "SE")...)
	fmt.Fprintf(b, "%s %s %s\n", padRight("", nw), padLeft("Estimate", ew), padLeft("SE", sw))
	for i, n := range names {
		fmt.Fprintf(b, "%s %s %s\n", padRight(n, nw), padLeft(e[i], ew), padLeft(s[i], sw))
	}
}

// FormatParetoKTable returns the Pareto-k table as loo 2.5.1 prints it, or
// the line "All Pareto k estimates are good (k < 0.5)." when every k̂ ≤ 0.5.
func (r *LOOResult) FormatParetoKTable() string {
	tab := r.ParetoKTable()
	var b strings.Builder
	if tab[1].Count+tab[2].Count+tab[3].Count == 0 {
		b.WriteString("All Pareto k estimates are good (k < 0.5).\n")
		return b.String()
	}
	rows := make([][]string, len(tab))
	counts := make([]string, len(tab))
	pcts := make([]string, len(tab))
	for i, t := range tab {
		counts[i] = strconv.Itoa(t.Count)
		pcts[i] = fixed(100*t.Fraction, 1)
	}
	cw, pw := widest(counts...), widest(pcts...)
	for i, t := range tab {
		neff := "<NA>"
		if !math.IsNaN(t.MinNEff) {
			neff = fixed(t.MinNEff, 0)
		}
		rows[i] = []string{t.Interval, "", "(" + t.Label + ")", padLeft(counts[i], cw), padLeft(pcts[i], pw) + "%", neff}
	}
	header := []string{"", " ", " ", "Count", "Pct.   ", "Min. n_eff"}
	width := make([]int, len(header))
	for j, h := range header {
		width[j] = len([]rune(h))
		for _, row := range rows {
			width[j] = max(width[j], len([]rune(row[j])))
		}
	}
	b.WriteString("Pareto k diagnostic values:\n")
	line := func(rec []string) {
		for j, c := range rec {
			if j == 0 {
				b.WriteString(padLeft(c, width[0]))
				continue
			}
			b.WriteString(" " + padRight(c, width[j]))
		}
		b.WriteString("\n")
	}
	line(header)
	for _, row := range rows {
		line(row)
	}
	if tab[2].Count+tab[3].Count == 0 {
		b.WriteString("\nAll Pareto k estimates are ok (k < 0.7).\n")
	}
	return b.String()
}

// Format returns the PSIS-LOO estimates, the Monte Carlo SE of elpd_loo and
// the Pareto-k table in the layout of loo 2.5.1's print method (without its
// pointer to R's help page).
func (r *LOOResult) Format() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Computed from %d by %d log-likelihood matrix\n\n", r.Draws, r.N)
	formatEstimates(&b, []string{"elpd_loo", "p_loo", "looic"}, []Estimate{r.ELPD, r.P, r.IC})
	b.WriteString("------\n")
	fmt.Fprintf(&b, "Monte Carlo SE of elpd_loo is %s.\n", fixed(r.MCSE, 1))
	for _, p := range r.Pointwise {
		if p.ParetoK > 0.5 {
			b.WriteString("\n")
			break
		}
	}
	if t := r.FormatParetoKTable(); strings.HasPrefix(t, "All") {
		b.WriteString("\n" + t)
	} else {
		b.WriteString(t)
	}
	return b.String()
}

// Format returns the WAIC estimates in the layout of loo 2.5.1's print
// method, with its warning line when some p_waic exceeds 0.4.
func (r *WAICResult) Format() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Computed from %d by %d log-likelihood matrix\n\n", r.Draws, r.N)
	formatEstimates(&b, []string{"elpd_waic", "p_waic", "waic"}, []Estimate{r.ELPD, r.P, r.IC})
	n := 0
	for _, p := range r.Pointwise {
		if p.P > 0.4 {
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(&b, "\n%d (%s%%) p_waic estimates greater than 0.4. We recommend trying loo instead.\n",
			n, fixed(100*float64(n)/float64(len(r.Pointwise)), 1))
	}
	return b.String()
}

// csvWrite writes records with encoding/csv and reports the first error.
func csvWrite(w io.Writer, what string, recs [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.WriteAll(recs); err != nil {
		return fmt.Errorf("diagnostics: writing %s csv: %w", what, err)
	}
	return nil
}

// WriteLOOCSV writes the totals as CSV with columns name,estimate,se and rows
// elpd_loo, p_loo, looic, elpd_waic, p_waic, waic (the WAIC rows only when
// r.WAIC is set). Numbers have full precision; NaN is NA.
func WriteLOOCSV(w io.Writer, r *LOOResult) error {
	recs := [][]string{{"name", "estimate", "se"}}
	add := func(name string, e Estimate) {
		recs = append(recs, []string{name, formatCSV(e.Estimate), formatCSV(e.SE)})
	}
	add("elpd_loo", r.ELPD)
	add("p_loo", r.P)
	add("looic", r.IC)
	if r.WAIC != nil {
		add("elpd_waic", r.WAIC.ELPD)
		add("p_waic", r.WAIC.P)
		add("waic", r.WAIC.IC)
	}
	return csvWrite(w, "loo", recs)
}

// PointwiseColumns are the columns of [WriteLOOPointwiseCSV]: loo's pointwise
// values, then r_eff and the PSIS effective sample size, then WAIC's pointwise
// values.
var PointwiseColumns = []string{"elpd_loo", "mcse_elpd_loo", "p_loo", "looic", "influence_pareto_k",
	"r_eff", "psis_n_eff", "elpd_waic", "p_waic", "waic"}

// WriteLOOPointwiseCSV writes one row per observation, in index order, with
// the columns [PointwiseColumns] (the WAIC columns NA when r.WAIC is nil).
// Numbers have full precision; k̂ = +Inf is written Inf.
func WriteLOOPointwiseCSV(w io.Writer, r *LOOResult) error {
	recs := [][]string{PointwiseColumns}
	for i, p := range r.Pointwise {
		wp := WAICPoint{math.NaN(), math.NaN(), math.NaN()}
		if r.WAIC != nil {
			wp = r.WAIC.Pointwise[i]
		}
		rec := make([]string, 0, len(PointwiseColumns))
		for _, v := range []float64{p.ELPD, p.MCSE, p.P, p.IC, p.ParetoK, p.REff, p.NEff, wp.ELPD, wp.P, wp.IC} {
			rec = append(rec, formatCSV(v))
		}
		recs = append(recs, rec)
	}
	return csvWrite(w, "pointwise", recs)
}

// ReadPointwiseELPD reads the elpd_loo column of a pointwise CSV file, as
// written by [WriteLOOPointwiseCSV] or by R (write.csv of loo's pointwise
// matrix), one value per observation in file order. Errors name the line and
// the column.
func ReadPointwiseELPD(rd io.Reader) ([]float64, error) {
	cr := csv.NewReader(rd)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("diagnostics: empty file (want a header with column elpd_loo)")
	}
	if err != nil {
		return nil, fmt.Errorf("diagnostics: %w", err)
	}
	col := -1
	for j, h := range header {
		if strings.TrimSpace(h) == "elpd_loo" {
			col = j
			break
		}
	}
	if col < 0 {
		return nil, fmt.Errorf("diagnostics: no column elpd_loo in the header (%s)", strings.Join(header, ","))
	}
	var out []float64
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("diagnostics: %w", err)
		}
		if len(rec) != len(header) {
			return nil, fmt.Errorf("diagnostics: line %d has %d fields, the header %d", line, len(rec), len(header))
		}
		s := strings.TrimSpace(rec[col])
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("diagnostics: line %d, column elpd_loo: %q is not a finite number", line, s)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("diagnostics: no observations (only a header)")
	}
	return out, nil
}

// FormatCompare returns a comparison table as loo 2.5.1's print method shows
// it: elpd_diff and se_diff with one decimal, best model first.
func FormatCompare(rows []CompareRow) string {
	names := make([]string, len(rows))
	diff := make([]string, len(rows))
	se := make([]string, len(rows))
	for i, r := range rows {
		names[i], diff[i], se[i] = r.Model, fixed(r.ELPDDiff, 1), fixed(r.SEDiff, 1)
	}
	// loo formats the whole matrix to one common width (numbers right-aligned),
	// then prints the strings left-aligned under their headers.
	nw := widest(names...)
	dw := max(widest(diff...), widest(se...))
	sw := dw
	dcol, scol := max(dw, len("elpd_diff")), max(sw, len("se_diff"))
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s\n", padRight("", nw), padRight("elpd_diff", dcol), padRight("se_diff", scol))
	for i := range rows {
		fmt.Fprintf(&b, "%s %s %s\n", padRight(names[i], nw), padRight(padLeft(diff[i], dw), dcol), padRight(padLeft(se[i], sw), scol))
	}
	return b.String()
}

// WriteCompareCSV writes a comparison as CSV with columns
// model,elpd_diff,se_diff,elpd_loo,se_elpd_loo, best model first.
func WriteCompareCSV(w io.Writer, rows []CompareRow) error {
	recs := [][]string{{"model", "elpd_diff", "se_diff", "elpd_loo", "se_elpd_loo"}}
	for _, r := range rows {
		recs = append(recs, []string{r.Model, formatCSV(r.ELPDDiff), formatCSV(r.SEDiff), formatCSV(r.ELPD.Estimate), formatCSV(r.ELPD.SE)})
	}
	return csvWrite(w, "compare", recs)
}
