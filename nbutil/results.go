package nbutil

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/draws"
)

// ConfusionMean returns the posterior mean of the confusion matrix of one labeler
// of a Dawid-Skene model: element [m][k] is the mean over all draws of
// theta[labeler,m,k], the probability that the labeler reports label k for an item
// of true class m, for classes classes. It returns an error naming the first
// missing quantity, or a labeler or class count out of range.
func ConfusionMean(d *draws.Draws, labeler, classes int) ([][]float64, error) {
	if labeler < 0 {
		return nil, fmt.Errorf("nbutil: labeler %d is negative", labeler)
	}
	if classes < 1 {
		return nil, fmt.Errorf("nbutil: %d classes, want at least 1", classes)
	}
	out := make([][]float64, classes)
	for m := range out {
		out[m] = make([]float64, classes)
		for k := range out[m] {
			name := fmt.Sprintf("theta[%d,%d,%d]", labeler, m, k)
			x, err := d.Param(name)
			if err != nil {
				return nil, fmt.Errorf("nbutil: confusion matrix of labeler %d: %w", labeler, err)
			}
			v, err := diagnostics.Mean(x)
			if err != nil {
				return nil, fmt.Errorf("nbutil: mean of %s: %w", name, err)
			}
			out[m][k] = v
		}
	}
	return out, nil
}

// MaxZ is the largest |Z| of a diagnostics.Comparison that ExactHTML shows as a
// match.
const MaxZ = 4.5

// ExactHTML returns comparisons (from diagnostics.CompareExact) as an HTML table
// (variable, exact mean, sampled mean, mcse, z, exact sd, sampled sd, verdict); the
// verdict is "ok" when |Z| ≤ MaxZ and "MISMATCH" (in bold red) otherwise,
// including a NaN Z.
func ExactHTML(cs []diagnostics.Comparison) string {
	var b strings.Builder
	b.WriteString("<table " + tableStyle + ">\n<tr>")
	for _, h := range []string{"variable", "exact mean", "mean", "mcse_mean", "z", "exact sd", "sd", "verdict"} {
		fmt.Fprintf(&b, `<th style="padding:1px 6px;text-align:right">%s</th>`, h)
	}
	b.WriteString("</tr>\n")
	for _, c := range cs {
		fmt.Fprintf(&b, `<tr><td style="padding:1px 6px;text-align:left">%s</td>`, html.EscapeString(c.Variable))
		for _, v := range []float64{c.ExactMean, c.Mean, c.MCSE, c.Z, c.ExactSD, c.SD} {
			b.WriteString(cell(v, false))
		}
		if math.Abs(c.Z) <= MaxZ {
			b.WriteString(`<td style="padding:1px 6px;text-align:right">ok</td>`)
		} else {
			b.WriteString(`<td style="padding:1px 6px;text-align:right;color:#c00;font-weight:bold">MISMATCH</td>`)
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
	return b.String()
}

// TruthHTML returns an HTML table that sets the generating values of a simulated
// data set against the posterior: variable, true value, posterior mean, sd, q5,
// q95 and whether the true value lies in [q5, q95], followed by a line counting
// the values inside. names and values are parallel (as models.LinearTruth.Named
// gives them). For a well-calibrated posterior about 90% of the values fall inside
// the interval (fewer when the values are correlated, as regression coefficients
// are). It returns an error for slices of different lengths or a name with no
// summary row.
func TruthHTML(rows []diagnostics.SummaryRow, names []string, values []float64) (string, error) {
	if len(names) != len(values) {
		return "", fmt.Errorf("nbutil: %d names but %d true values", len(names), len(values))
	}
	byName := make(map[string]diagnostics.SummaryRow, len(rows))
	for _, r := range rows {
		byName[r.Variable] = r
	}
	var b strings.Builder
	b.WriteString("<table " + tableStyle + ">\n<tr>")
	for _, h := range []string{"variable", "truth", "mean", "sd", "q5", "q95", "in 90% interval"} {
		fmt.Fprintf(&b, `<th style="padding:1px 6px;text-align:right">%s</th>`, h)
	}
	b.WriteString("</tr>\n")
	inside := 0
	for i, name := range names {
		r, ok := byName[name]
		if !ok {
			return "", fmt.Errorf("nbutil: no summary row for true value %q", name)
		}
		fmt.Fprintf(&b, `<tr><td style="padding:1px 6px;text-align:left">%s</td>`, html.EscapeString(name))
		for _, v := range []float64{values[i], r.Mean, r.SD, r.Q5, r.Q95} {
			b.WriteString(cell(v, false))
		}
		if values[i] >= r.Q5 && values[i] <= r.Q95 {
			inside++
			b.WriteString(`<td style="padding:1px 6px;text-align:right">yes</td>`)
		} else {
			b.WriteString(`<td style="padding:1px 6px;text-align:right;color:#c00;font-weight:bold">no</td>`)
		}
		b.WriteString("</tr>\n")
	}
	fmt.Fprintf(&b, "</table>\n<p>%d of %d true values lie in their 90%% posterior interval.</p>\n", inside, len(names))
	return b.String(), nil
}
