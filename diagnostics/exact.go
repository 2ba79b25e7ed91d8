package diagnostics

import "fmt"

// Reference is the exactly known posterior mean and standard deviation of one
// quantity, for example from a conjugate model's closed-form posterior
// (models.Posterior.References).
type Reference struct {
	Variable string
	Mean, SD float64
}

// Comparison sets a posterior mean and standard deviation estimated from draws
// against a Reference.
type Comparison struct {
	// Variable names the quantity.
	Variable string
	// Mean, SD and MCSE are the estimated mean and standard deviation and the
	// Monte Carlo standard error of the mean (the SummaryRow's MCSEMean).
	Mean, SD, MCSE float64
	// ExactMean and ExactSD are the reference values.
	ExactMean, ExactSD float64
	// Z is (Mean − ExactMean)/MCSE: approximately a standard normal draw when the
	// chains sample the exact posterior, so |Z| beyond 4 or so means they do not.
	Z float64
}

// CompareExact matches every reference to its summary row (from [Summarize]) by
// name and returns the comparisons in the order of refs. It returns an error
// naming a reference with no summary row.
func CompareExact(rows []SummaryRow, refs []Reference) ([]Comparison, error) {
	byName := make(map[string]SummaryRow, len(rows))
	for _, r := range rows {
		byName[r.Variable] = r
	}
	out := make([]Comparison, len(refs))
	for i, ref := range refs {
		r, ok := byName[ref.Variable]
		if !ok {
			return nil, fmt.Errorf("diagnostics: compare exact: no draws of %s", ref.Variable)
		}
		out[i] = Comparison{
			Variable: ref.Variable, Mean: r.Mean, SD: r.SD, MCSE: r.MCSEMean,
			ExactMean: ref.Mean, ExactSD: ref.SD, Z: (r.Mean - ref.Mean) / r.MCSEMean,
		}
	}
	return out, nil
}
