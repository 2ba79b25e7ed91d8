package nbutil

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/viz"
)

// Show displays the HTML fragment h in a GoNB notebook. Outside a notebook it does
// nothing.
func Show(h string) {
	if viz.InNotebook() {
		gonbui.DisplayHTML(h)
	}
}

// Num formats v as the tables of this package show numbers: "NA" for NaN, "Inf"
// or "-Inf" for infinities, a whole number when |v| ≥ 1000, and 3 significant
// digits otherwise.
func Num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NA"
	case math.IsInf(v, 1):
		return "Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.Abs(v) >= 1000:
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// Thresholds of SummaryHTML and Verdict: an R-hat above MaxRHat or a bulk or tail
// effective sample size below MinESS marks a quantity as not converged, following
// Vehtari et al. (2021).
const (
	MaxRHat = 1.01
	MinESS  = 400
)

// tableStyle is the inline style of every table this package draws; notebooks
// exported to HTML keep it.
const tableStyle = `style="border-collapse:collapse;font-family:monospace;font-size:12px"`

// SummaryHTML returns rows as an HTML table with the columns of
// frames.SummaryDataFrame (variable, mean, median, sd, mad, the quantiles,
// rhat, ess_bulk, ess_tail, mcse_mean, mcse_sd). Cells whose R-hat is above
// MaxRHat or whose effective sample size is below MinESS are shown in bold red.
// When maxRows > 0 and there are more than maxRows rows, only the first maxRows rows are shown,
// followed by a line giving the number left out. No rows give a table with only a
// header.
func SummaryHTML(rows []diagnostics.SummaryRow, maxRows int) string {
	qnames := []string{"q5", "q95"}
	qvals := func(r diagnostics.SummaryRow) []float64 { return []float64{r.Q5, r.Q95} }
	if len(rows) > 0 && rows[0].Quantiles != nil {
		qnames = qnames[:0]
		for _, q := range rows[0].Quantiles {
			qnames = append(qnames, diagnostics.QuantileName(q.P))
		}
		n := len(qnames)
		qvals = func(r diagnostics.SummaryRow) []float64 {
			v := make([]float64, n)
			for i := range v {
				v[i] = math.NaN()
				if i < len(r.Quantiles) {
					v[i] = r.Quantiles[i].Value
				}
			}
			return v
		}
	}
	var b strings.Builder
	b.WriteString("<table " + tableStyle + ">\n<tr>")
	head := append(append([]string{"variable", "mean", "median", "sd", "mad"}, qnames...),
		"rhat", "ess_bulk", "ess_tail", "mcse_mean", "mcse_sd")
	for _, h := range head {
		fmt.Fprintf(&b, `<th style="padding:1px 6px;text-align:right">%s</th>`, html.EscapeString(h))
	}
	b.WriteString("</tr>\n")
	shown := rows
	if maxRows > 0 && len(rows) > maxRows {
		shown = rows[:maxRows]
	}
	for _, r := range shown {
		fmt.Fprintf(&b, `<tr><td style="padding:1px 6px;text-align:left">%s</td>`, html.EscapeString(r.Variable))
		cells := append([]float64{r.Mean, r.Median, r.SD, r.MAD}, qvals(r)...)
		for _, v := range cells {
			b.WriteString(cell(v, false))
		}
		b.WriteString(cell(r.RHat, r.RHat > MaxRHat))
		b.WriteString(cell(r.ESSBulk, r.ESSBulk < MinESS))
		b.WriteString(cell(r.ESSTail, r.ESSTail < MinESS))
		b.WriteString(cell(r.MCSEMean, false))
		b.WriteString(cell(r.MCSESD, false))
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
	if len(shown) < len(rows) {
		fmt.Fprintf(&b, "<p><i>… %d more rows not shown.</i></p>\n", len(rows)-len(shown))
	}
	return b.String()
}

// cell returns one right-aligned table cell holding Num(v), in bold red if bad.
func cell(v float64, bad bool) string {
	if bad {
		return `<td style="padding:1px 6px;text-align:right;color:#c00;font-weight:bold">` + Num(v) + "</td>"
	}
	return `<td style="padding:1px 6px;text-align:right">` + Num(v) + "</td>"
}

// SiteStatsHTML returns the per-site proposal statistics of a run as an HTML
// table: site, proposer, proposals, acceptance rate and fallbacks ("not used", with
// the reason as its tooltip, for a move the sampler left unused: see
// draws.SiteStats.Unused). When maxRows > 0
// and there are more sites, only the first maxRows are shown, followed by a line
// summing up the rest (number of sites, their proposals and mean acceptance rate).
func SiteStatsHTML(sites []draws.SiteStats, maxRows int) string {
	var b strings.Builder
	b.WriteString("<table " + tableStyle + ">\n<tr>")
	for _, h := range []string{"site", "proposer", "proposals", "accept rate", "fallbacks"} {
		fmt.Fprintf(&b, `<th style="padding:1px 6px;text-align:right">%s</th>`, h)
	}
	b.WriteString("</tr>\n")
	shown := sites
	if maxRows > 0 && len(sites) > maxRows {
		shown = sites[:maxRows]
	}
	for _, s := range shown {
		fmt.Fprintf(&b, `<tr><td style="padding:1px 6px;text-align:left">%s</td><td style="padding:1px 6px;text-align:right">%s</td>`,
			html.EscapeString(s.Name), html.EscapeString(s.Proposer))
		fmt.Fprintf(&b, `<td style="padding:1px 6px;text-align:right">%d</td>`, s.Proposals)
		if s.Proposals == 0 && s.Unused != "" {
			fmt.Fprintf(&b, `<td style="padding:1px 6px;text-align:right" title="%s">not used</td>`, html.EscapeString(s.Unused))
		} else {
			b.WriteString(cell(s.AcceptRate(), false))
		}
		fmt.Fprintf(&b, `<td style="padding:1px 6px;text-align:right">%d</td></tr>`+"\n", s.Fallbacks)
	}
	b.WriteString("</table>\n")
	if rest := sites[len(shown):]; len(rest) > 0 {
		var sum draws.SiteStats
		for _, s := range rest {
			sum.Add(s)
		}
		fmt.Fprintf(&b, "<p><i>… %d more sites: %d proposals, accept rate %s, %d fallbacks.</i></p>\n",
			len(rest), sum.Proposals, Num(sum.AcceptRate()), sum.Fallbacks)
	}
	return b.String()
}

// Verdict returns one sentence on the convergence of a summary: either that every
// quantity has an R-hat of at most MaxRHat and bulk and tail effective sample
// sizes of at least MinESS, or how many do not, naming up to five of the worst
// by R-hat with their R-hat and bulk ESS. NaN statistics (for example the tail
// ESS of a quantity that is constant in its tails) are not counted as failures.
func Verdict(rows []diagnostics.SummaryRow) string {
	var bad []diagnostics.SummaryRow
	for _, r := range rows {
		if r.RHat > MaxRHat || r.ESSBulk < MinESS || r.ESSTail < MinESS {
			bad = append(bad, r)
		}
	}
	if len(rows) == 0 {
		return "No quantities to judge."
	}
	if len(bad) == 0 {
		return fmt.Sprintf("All %d quantities have R-hat ≤ %.2f and bulk and tail ESS ≥ %d.", len(rows), MaxRHat, MinESS)
	}
	// Worst first: by R-hat, NaN last.
	for i := 1; i < len(bad); i++ {
		for j := i; j > 0 && worse(bad[j], bad[j-1]); j-- {
			bad[j], bad[j-1] = bad[j-1], bad[j]
		}
	}
	parts := make([]string, 0, 5)
	for _, r := range bad[:min(5, len(bad))] {
		parts = append(parts, fmt.Sprintf("%s (R-hat %s, ESS bulk %s)", r.Variable, Num(r.RHat), Num(r.ESSBulk)))
	}
	return fmt.Sprintf("%d of %d quantities have R-hat > %.2f or an ESS < %d; worst: %s.",
		len(bad), len(rows), MaxRHat, MinESS, strings.Join(parts, ", "))
}

// worse reports whether a ranks before b in Verdict: higher R-hat first, then
// lower bulk ESS; NaN R-hats last.
func worse(a, b diagnostics.SummaryRow) bool {
	an, bn := math.IsNaN(a.RHat), math.IsNaN(b.RHat)
	switch {
	case an != bn:
		return bn
	case !an && a.RHat != b.RHat:
		return a.RHat > b.RHat
	}
	return a.ESSBulk < b.ESSBulk
}

// ShowPNG displays a PNG image in a GoNB notebook. Outside a notebook it does
// nothing.
func ShowPNG(png []byte) {
	if viz.InNotebook() {
		gonbui.DisplayPng(png)
	}
}

// ShowText displays s as preformatted text in a GoNB notebook, HTML-escaped, and
// writes it to standard output elsewhere.
func ShowText(s string) {
	if viz.InNotebook() {
		gonbui.DisplayHTML(`<pre style="font-size:12px">` + html.EscapeString(s) + "</pre>")
		return
	}
	fmt.Print(s)
}
