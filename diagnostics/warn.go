package diagnostics

import (
	"fmt"
	"math"
)

// The thresholds of ConvergenceWarnings: Vehtari et al. (2021) ask R-hat < 1.01
// and a bulk ESS of at least 100 per chain before trusting a summary. (rstan warns
// only above an R-hat of 1.05; a run that ends at 1.03 because a coupling mixes
// slowly is not to be trusted either, and no R-hat at or above 1.01 goes unsaid.)
const (
	// WarnRHat is the R-hat at or above which ConvergenceWarnings warns.
	WarnRHat = 1.01
	// WarnESSPerChain is the bulk ESS per chain below which ConvergenceWarnings
	// warns.
	WarnESSPerChain = 100
)

// ConvergenceWarnings returns one sentence for each convergence problem of rows
// (Convergence's, of draws of the given number of chains): the largest R-hat when
// it reaches WarnRHat, and the smallest bulk ESS when it is below WarnESSPerChain
// per chain, each naming the quantity and how many others share the problem. Rows
// whose R-hat or ESS is NaN (a constant quantity) are not counted. Nil when there
// is no problem.
func ConvergenceWarnings(rows []ConvergenceRow, chains int) []string {
	var msgs []string
	worst, nHigh := -1, 0
	low, nLow := -1, 0
	minESS := WarnESSPerChain * float64(max(chains, 1))
	for i, r := range rows {
		if !math.IsNaN(r.RHat) && r.RHat >= WarnRHat {
			nHigh++
			if worst < 0 || r.RHat > rows[worst].RHat {
				worst = i
			}
		}
		if !math.IsNaN(r.ESSBulk) && r.ESSBulk < minESS {
			nLow++
			if low < 0 || r.ESSBulk < rows[low].ESSBulk {
				low = i
			}
		}
	}
	if worst >= 0 {
		msgs = append(msgs, fmt.Sprintf("R-hat of %s is %.4g (want below %g; %s at or above it): the chains disagree, so the summaries are not reliable; run longer (more warm-up and draws) or look for a local mode",
			rows[worst].Variable, rows[worst].RHat, WarnRHat, countOf(nHigh, len(rows))))
	}
	if low >= 0 {
		msgs = append(msgs, fmt.Sprintf("bulk ESS of %s is %.0f (%s below %g, %d per chain): too few effectively independent draws for reliable means and quantiles; run more draws",
			rows[low].Variable, rows[low].ESSBulk, countOf(nLow, len(rows)), minESS, WarnESSPerChain))
	}
	return msgs
}

// countOf says "1 quantity" or "k of n quantities".
func countOf(k, n int) string {
	if n == 1 {
		return "1 quantity"
	}
	return fmt.Sprintf("%d of %d quantities", k, n)
}
