package diagnostics

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/nmc-go/nmc/draws"
)

// DefaultQuantiles are the probabilities of the quantile columns of a summary
// when SummaryOptions.Quantiles is nil: posterior's q5 and q95.
var DefaultQuantiles = []float64{0.05, 0.95}

// SummaryOptions configures [Summarize]. A nil *SummaryOptions and the zero
// value both mean all defaults.
type SummaryOptions struct {
	// Quantiles are the probabilities, each in [0, 1], of the quantile columns
	// (type-7 quantiles of all draws). Nil means DefaultQuantiles {0.05, 0.95};
	// an empty non-nil slice means no quantile columns.
	Quantiles []float64
	// Variables selects the quantities to summarize, in this order: each entry
	// is an exact name or the name of an indexed family ("beta" selects
	// "beta[0]", "beta[1]", …). Nil means every quantity in the draws' order.
	Variables []string
	// Workers is the number of goroutines; 0 means runtime.GOMAXPROCS(0).
	Workers int
}

// QuantileValue is one quantile of a summary row.
type QuantileValue struct {
	// P is the probability, in [0, 1].
	P float64
	// Value is the type-7 quantile of all draws at P.
	Value float64
}

// SummaryRow holds posterior's default summary of one scalar quantity plus
// the Monte Carlo standard errors of its mean and sd. Undefined values are
// NaN (see the package documentation).
type SummaryRow struct {
	// Variable is the quantity's name, e.g. "beta[3]".
	Variable string
	// Mean, Median, SD and MAD are the pooled statistics of Mean, Median, SD
	// and MAD.
	Mean, Median, SD, MAD float64
	// Q5 and Q95 are the 5% and 95% quantiles, always computed.
	Q5, Q95 float64
	// Quantiles holds the quantiles requested by SummaryOptions.Quantiles,
	// in that order. The quantile columns of SummaryDataFrame, WriteSummaryCSV
	// and FormatSummary come from the first row's Quantiles; when it is nil
	// they are q5 and q95 from Q5 and Q95.
	Quantiles []QuantileValue
	// RHat is the rank-normalized split R-hat.
	RHat float64
	// ESSBulk and ESSTail are the bulk and tail effective sample sizes.
	ESSBulk, ESSTail float64
	// MCSEMean and MCSESD are the Monte Carlo standard errors of the mean and
	// of the standard deviation.
	MCSEMean, MCSESD float64
}

// QuantileName returns the column name posterior gives the p-quantile: "q"
// followed by 100·p with up to 15 significant digits, e.g. q5, q95, q2.5.
func QuantileName(p float64) string {
	return "q" + strconv.FormatFloat(100*p, 'g', 15, 64)
}

// Summarize computes a SummaryRow for every selected quantity of d, in
// parallel over quantities. All chains must have the same number of draws
// (use d.Trimmed() for a cancelled run).
//
// It returns an error if d is nil or invalid, has no chains, a chain without
// draws or chains of different lengths, if a requested quantile is outside
// [0, 1], or if a name in opts.Variables matches no quantity.
func Summarize(d *draws.Draws, opts *SummaryOptions) ([]SummaryRow, error) {
	var o SummaryOptions
	if opts != nil {
		o = *opts
	}
	if err := checkDraws(d, "summarize"); err != nil {
		return nil, err
	}
	probs := o.Quantiles
	if probs == nil {
		probs = DefaultQuantiles
	}
	for i, p := range probs {
		if err := checkProb(p); err != nil {
			return nil, fmt.Errorf("diagnostics: summarize: quantile %d: probability p = %v is outside [0, 1]", i, p)
		}
	}
	cols, err := selectColumns(d, o.Variables)
	if err != nil {
		return nil, err
	}
	rows := make([]SummaryRow, len(cols))
	eachQuantity(d, cols, o.Workers, func(i int, q *quantity) {
		rows[i] = q.summary(d.Names[cols[i]], probs)
	})
	return rows, nil
}

// ConvergenceRow holds the convergence diagnostics of one scalar quantity: the
// values of SummaryRow's RHat and ESSBulk.
type ConvergenceRow struct {
	// Variable is the quantity's name, e.g. "beta[3]".
	Variable string
	// RHat is the rank-normalized split R-hat.
	RHat float64
	// ESSBulk is the bulk effective sample size.
	ESSBulk float64
}

// Convergence computes the rank-normalized split R-hat and the bulk ESS of every
// selected quantity of d (opts.Variables and opts.Workers as for Summarize;
// opts.Quantiles is not read): the values Summarize gives in its RHat and ESSBulk
// columns, bit for bit, without the other columns, at about half the cost (the
// rank normalization of the split chains is computed once for both). It returns
// the errors Summarize returns for d and opts.Variables.
func Convergence(d *draws.Draws, opts *SummaryOptions) ([]ConvergenceRow, error) {
	var o SummaryOptions
	if opts != nil {
		o = *opts
	}
	if err := checkDraws(d, "convergence"); err != nil {
		return nil, err
	}
	cols, err := selectColumns(d, o.Variables)
	if err != nil {
		return nil, err
	}
	rows := make([]ConvergenceRow, len(cols))
	eachQuantity(d, cols, o.Workers, func(i int, q *quantity) {
		r := ConvergenceRow{Variable: d.Names[cols[i]]}
		r.RHat, r.ESSBulk = q.rhatESSBulk()
		rows[i] = r
	})
	return rows, nil
}

// checkDraws returns an error, naming the operation op, if d is nil or invalid,
// has no chains, a chain without draws or chains of different lengths.
func checkDraws(d *draws.Draws, op string) error {
	if d == nil {
		return fmt.Errorf("diagnostics: %s: nil draws", op)
	}
	if err := d.Validate(); err != nil {
		return fmt.Errorf("diagnostics: %s: %w", op, err)
	}
	if d.NumChains() == 0 {
		return fmt.Errorf("diagnostics: %s: %w", op, ErrNoChains)
	}
	n := d.NumDraws(0)
	for c := range d.NumChains() {
		if nc := d.NumDraws(c); nc == 0 {
			return fmt.Errorf("diagnostics: %s: chain %d has no draws", op, c)
		} else if nc != n {
			return fmt.Errorf("diagnostics: %s: ragged chains: chain %d has %d draws, chain 0 has %d", op, c, nc, n)
		}
	}
	return nil
}

// eachQuantity calls f(i, q) for the quantity of every column cols[i] of d (checked
// by checkDraws), prepared (quantity.reset), in parallel over workers goroutines
// (0: runtime.GOMAXPROCS(0)); each goroutine has its own quantity.
func eachQuantity(d *draws.Draws, cols []int, workers int, f func(i int, q *quantity)) {
	m, n := d.NumChains(), d.NumDraws(0)
	var ztab *zTable
	if n >= 4 {
		ztab = newZTable(2 * m * (n / 2))
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(cols))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := &quantity{ws: &workspace{}, ztab: ztab}
			x := make([]float64, m*n)
			np := len(d.Names)
			for {
				i := int(next.Add(1)) - 1
				if i >= len(cols) {
					return
				}
				p := cols[i]
				for c, ch := range d.Chains {
					dst := x[c*n : (c+1)*n]
					for j := range dst {
						dst[j] = ch[j*np+p]
					}
				}
				q.reset(x, m, n)
				f(i, q)
			}
		}()
	}
	wg.Wait()
}

// SummaryVariables returns the names of the quantities Summarize summarizes for
// the selection variables (SummaryOptions.Variables; nil selects every quantity), in
// its order. A caller that shows only some rows can pass a prefix of the names as
// Variables and summarize just those.
func SummaryVariables(d *draws.Draws, variables []string) ([]string, error) {
	if d == nil {
		return nil, fmt.Errorf("diagnostics: summarize: nil draws")
	}
	cols, err := selectColumns(d, variables)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(cols))
	for i, p := range cols {
		names[i] = d.Names[p]
	}
	return names, nil
}

// selectColumns returns the column indices selected by names (all when nil).
func selectColumns(d *draws.Draws, names []string) ([]int, error) {
	if names == nil {
		cols := make([]int, len(d.Names))
		for i := range cols {
			cols[i] = i
		}
		return cols, nil
	}
	var cols []int
	for _, sel := range names {
		matched, err := d.Match(sel)
		if err != nil {
			return nil, fmt.Errorf("diagnostics: summarize: unknown variable %q", sel)
		}
		for _, name := range matched {
			p, _ := d.Index(name)
			cols = append(cols, p)
		}
	}
	return cols, nil
}

// summary computes one row from the prepared quantity.
func (q *quantity) summary(name string, probs []float64) SummaryRow {
	r := SummaryRow{
		Variable: name,
		Mean:     q.mean(),
		Median:   q.median(),
		SD:       q.sd(),
		MAD:      q.mad(),
		Q5:       q.quantile(0.05),
		Q95:      q.quantile(0.95),
		ESSTail:  q.essTail(),
	}
	r.RHat, r.ESSBulk = q.rhatESSBulk()
	r.Quantiles = make([]QuantileValue, len(probs))
	for i, p := range probs {
		r.Quantiles[i] = QuantileValue{P: p, Value: q.quantile(p)}
	}
	r.MCSEMean = r.SD / math.Sqrt(q.essBasic())
	r.MCSESD = q.mcseSD()
	return r
}

// quantileCols returns the quantile column names and a getter of each
// column's value in a row.
func quantileCols(rows []SummaryRow) ([]string, func(r SummaryRow, k int) float64) {
	if len(rows) == 0 || rows[0].Quantiles == nil {
		return []string{"q5", "q95"}, func(r SummaryRow, k int) float64 {
			if k == 0 {
				return r.Q5
			}
			return r.Q95
		}
	}
	names := make([]string, len(rows[0].Quantiles))
	for k, qv := range rows[0].Quantiles {
		names[k] = QuantileName(qv.P)
	}
	return names, func(r SummaryRow, k int) float64 {
		if k < len(r.Quantiles) {
			return r.Quantiles[k].Value
		}
		return math.NaN()
	}
}

// SummaryColumns returns the column names and numeric values of rows, in output
// order (the variable column excluded): mean median sd mad, the quantile columns
// (see SummaryRow), rhat ess_bulk ess_tail mcse_mean mcse_sd. vals[j][i] is column
// j of row i; undefined values are NaN.
func SummaryColumns(rows []SummaryRow) ([]string, [][]float64) {
	qnames, qget := quantileCols(rows)
	names := []string{"mean", "median", "sd", "mad"}
	names = append(names, qnames...)
	names = append(names, "rhat", "ess_bulk", "ess_tail", "mcse_mean", "mcse_sd")
	vals := make([][]float64, len(names))
	for j := range vals {
		vals[j] = make([]float64, len(rows))
	}
	for i, r := range rows {
		row := []float64{r.Mean, r.Median, r.SD, r.MAD}
		for k := range qnames {
			row = append(row, qget(r, k))
		}
		row = append(row, r.RHat, r.ESSBulk, r.ESSTail, r.MCSEMean, r.MCSESD)
		for j, v := range row {
			vals[j][i] = v
		}
	}
	return names, vals
}

// nonFinite returns the text of a value that is not finite, as R writes it: NaN is
// "NA" and ±Inf "Inf"/"-Inf"; ok is false for a finite value.
func nonFinite(v float64) (text string, ok bool) {
	switch {
	case math.IsNaN(v):
		return "NA", true
	case math.IsInf(v, 1):
		return "Inf", true
	case math.IsInf(v, -1):
		return "-Inf", true
	}
	return "", false
}

// formatCSV formats v with full precision; NaN is "NA" and ±Inf "Inf"/"-Inf".
func formatCSV(v float64) string {
	if t, ok := nonFinite(v); ok {
		return t
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// WriteSummaryCSV writes rows as CSV with a header line of the same columns
// as SummaryDataFrame. Numbers use the shortest representation that reads
// back exactly (strconv 'g', -1); NaN is written as NA and ±Inf as Inf/-Inf.
// Names containing commas or quotes are quoted. It returns the first write
// error.
func WriteSummaryCSV(w io.Writer, rows []SummaryRow) error {
	names, vals := SummaryColumns(rows)
	cw := csv.NewWriter(w)
	if err := cw.Write(append([]string{"variable"}, names...)); err != nil {
		return fmt.Errorf("diagnostics: writing summary csv: %w", err)
	}
	rec := make([]string, len(names)+1)
	for i, r := range rows {
		rec[0] = r.Variable
		for j := range names {
			rec[j+1] = formatCSV(vals[j][i])
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("diagnostics: writing summary csv: row %d (%s): %w", i, r.Variable, err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("diagnostics: writing summary csv: %w", err)
	}
	return nil
}

// formatSig formats v with 3 significant digits in fixed notation, as
// posterior prints summaries: values of 1000 or more are rounded to integers,
// values below 0.001 in magnitude use exponent notation. NaN is "NA".
func formatSig(v float64) string {
	if t, ok := nonFinite(v); ok {
		return t
	}
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	if a < 1e-3 {
		return strconv.FormatFloat(v, 'e', 2, 64)
	}
	if a >= 999.5 {
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	// Round to 3 significant digits first so that e.g. 9.996 becomes 10.0.
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	e := int(math.Floor(math.Log10(math.Abs(r))))
	dec := max(0, 2-e)
	return strconv.FormatFloat(r, 'f', dec, 64)
}

// FormatSummary returns rows as an aligned plain-text table with the columns
// of SummaryDataFrame: names left-aligned, numbers right-aligned with 3
// significant digits (integers for values of 1000 or more), NaN as NA. Every
// line ends with a newline.
func FormatSummary(rows []SummaryRow) string {
	names, vals := SummaryColumns(rows)
	header := append([]string{"variable"}, names...)
	cells := make([][]string, len(rows))
	width := make([]int, len(header))
	for j, h := range header {
		width[j] = len(h)
	}
	for i, r := range rows {
		cells[i] = make([]string, len(header))
		cells[i][0] = r.Variable
		for j := range names {
			cells[i][j+1] = formatSig(vals[j][i])
		}
		for j, c := range cells[i] {
			width[j] = max(width[j], len([]rune(c)))
		}
	}
	var b strings.Builder
	line := func(rec []string) {
		for j, c := range rec {
			pad := strings.Repeat(" ", width[j]-len([]rune(c)))
			if j == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString("  " + pad + c)
			}
		}
		b.WriteByte('\n')
	}
	line(header)
	for _, rec := range cells {
		line(rec)
	}
	return b.String()
}
