package diagnostics

import (
	"fmt"
	"math"
	"slices"
)

// ModelELPD is one model's pointwise elpd_loo, the input of [Compare].
type ModelELPD struct {
	// Name identifies the model in the comparison.
	Name string
	// Pointwise holds elpd_loo of every observation, in the same order for
	// every model.
	Pointwise []float64
}

// ModelELPD returns the pointwise elpd_loo of r under the given model name.
func (r *LOOResult) ModelELPD(name string) ModelELPD {
	m := ModelELPD{Name: name, Pointwise: make([]float64, len(r.Pointwise))}
	for i, p := range r.Pointwise {
		m.Pointwise[i] = p.ELPD
	}
	return m
}

// CompareRow is one model of a [Compare] table.
type CompareRow struct {
	Model string
	// ELPDDiff is Σ_i (elpd_loo_i(model) − elpd_loo_i(best)), 0 for the best.
	ELPDDiff float64
	// SEDiff is √N · sd_i of those differences, 0 for the best.
	SEDiff float64
	// ELPD is the model's own elpd_loo with its SE.
	ELPD Estimate
}

// Compare compares models fitted to the same data by their expected log
// predictive densities, as loo_compare of R's loo 2.5.1: the models are sorted
// by elpd_loo, best first (ties keep the given order), and each gets the
// difference of its elpd_loo to the best model's with the standard error of
// that difference. It is an error to give fewer than two models, or models
// with different numbers of observations or non-finite values.
func Compare(models []ModelELPD) ([]CompareRow, error) {
	if len(models) < 2 {
		return nil, fmt.Errorf("diagnostics: compare needs at least two models, got %d", len(models))
	}
	N := len(models[0].Pointwise)
	rows := make([]CompareRow, len(models))
	for m, md := range models {
		if len(md.Pointwise) != N {
			return nil, fmt.Errorf("diagnostics: models %s and %s have different numbers of observations (%d and %d); compare needs models fitted to the same data",
				models[0].Name, md.Name, N, len(md.Pointwise))
		}
		if N == 0 {
			return nil, fmt.Errorf("diagnostics: model %s has no observations", md.Name)
		}
		for i, v := range md.Pointwise {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("diagnostics: model %s: elpd_loo of observation %d is %v (must be finite)", md.Name, i, v)
			}
		}
		rows[m] = CompareRow{Model: md.Name, ELPD: total(md.Pointwise)}
	}
	order := make([]int, len(models))
	for m := range order {
		order[m] = m
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch ea, eb := rows[a].ELPD.Estimate, rows[b].ELPD.Estimate; {
		case ea > eb:
			return -1
		case ea < eb:
			return 1
		}
		return 0
	})
	best := models[order[0]].Pointwise
	d := make([]float64, N)
	out := make([]CompareRow, 0, len(models))
	for _, m := range order {
		r := rows[m]
		if m != order[0] {
			var s float64
			for i, v := range models[m].Pointwise {
				d[i] = v - best[i]
				s += d[i]
			}
			r.ELPDDiff = s
			r.SEDiff = math.Sqrt(float64(N)) * sdOf(d)
		}
		out = append(out, r)
	}
	return out, nil
}
