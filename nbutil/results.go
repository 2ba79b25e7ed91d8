package nbutil

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/viz"
)

// HeldOutTotals sums pointwise held-out log-likelihoods over the held-out points:
// heldOut[c] holds chain c's values row-major, draws × n (as nmc.Result.HeldOut
// with n = Result.NumHeldOut), and the result's [c][s] is Σ_j heldOut[c][s·n+j],
// the log density of the whole held-out set under draw s of chain c, which is
// the input of diagnostics.PLLCurveJoint. It returns an error if n < 1 or a chain
// does not hold a whole number of draws.
func HeldOutTotals(heldOut [][]float64, n int) ([][]float64, error) {
	if n < 1 {
		return nil, fmt.Errorf("nbutil: number of held-out points %d, want at least 1", n)
	}
	out := make([][]float64, len(heldOut))
	for c, h := range heldOut {
		if len(h)%n != 0 {
			return nil, fmt.Errorf("nbutil: held-out chain %d has %d values, not a multiple of %d points", c, len(h), n)
		}
		t := make([]float64, len(h)/n)
		for s := range t {
			sum := 0.0
			for _, v := range h[s*n : (s+1)*n] {
				sum += v
			}
			t[s] = sum
		}
		out[c] = t
	}
	return out, nil
}

// JointPLLSeries returns one viz.PLLSeries per chain: the joint running predictive
// log-likelihood log((1/n) Σ_{s≤n} p(y_test | θ_s)) of chain c against its number of
// draws n (diagnostics.PLLCurveJoint of HeldOutTotals), labelled "chain c".
// It returns an error for the reasons of HeldOutTotals and PLLCurveJoint (no draws,
// a NaN or +Inf log-likelihood), naming the chain.
func JointPLLSeries(heldOut [][]float64, n int) ([]viz.PLLSeries, error) {
	tot, err := HeldOutTotals(heldOut, n)
	if err != nil {
		return nil, err
	}
	series := make([]viz.PLLSeries, len(tot))
	for c, t := range tot {
		y, err := diagnostics.PLLCurveJoint(t)
		if err != nil {
			return nil, fmt.Errorf("nbutil: chain %d: %w", c, err)
		}
		x := make([]float64, len(y))
		for i := range x {
			x[i] = float64(i + 1)
		}
		series[c] = viz.PLLSeries{Label: fmt.Sprintf("chain %d", c), X: x, Y: y}
	}
	return series, nil
}

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

// Reference is the exactly known posterior mean and standard deviation of one
// quantity, for example from a conjugate model's closed-form posterior.
type Reference struct {
	Variable string
	Mean, SD float64
}

// Comparison sets a sampled posterior mean and standard deviation against a
// Reference.
type Comparison struct {
	// Variable names the quantity.
	Variable string
	// Mean, MCSE and SD are the sampled mean, its Monte Carlo standard error and
	// the sampled standard deviation.
	Mean, MCSE, SD float64
	// ExactMean and ExactSD are the reference values.
	ExactMean, ExactSD float64
	// Z is (Mean − ExactMean)/MCSE: within ±4.5 when the chains sample the exact
	// posterior (two-sided p ≈ 7e-6 for a Gaussian error).
	Z float64
}

// Compare matches every reference to its summary row by name and returns the
// comparisons in the order of refs. It returns an error naming a reference with
// no summary row.
func Compare(rows []diagnostics.SummaryRow, refs []Reference) ([]Comparison, error) {
	byName := make(map[string]diagnostics.SummaryRow, len(rows))
	for _, r := range rows {
		byName[r.Variable] = r
	}
	out := make([]Comparison, len(refs))
	for i, ref := range refs {
		r, ok := byName[ref.Variable]
		if !ok {
			return nil, fmt.Errorf("nbutil: no summary row for reference %q", ref.Variable)
		}
		out[i] = Comparison{
			Variable: ref.Variable, Mean: r.Mean, MCSE: r.MCSEMean, SD: r.SD,
			ExactMean: ref.Mean, ExactSD: ref.SD, Z: (r.Mean - ref.Mean) / r.MCSEMean,
		}
	}
	return out, nil
}

// MaxZ is the largest |Z| of a Comparison that ExactHTML shows as a match.
const MaxZ = 4.5

// ExactHTML returns comparisons as an HTML table (variable, exact mean, sampled
// mean, mcse, z, exact sd, sampled sd, verdict); the verdict is "ok" when
// |Z| ≤ MaxZ and "MISMATCH" (in bold red) otherwise, including a NaN Z.
func ExactHTML(cs []Comparison) string {
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
