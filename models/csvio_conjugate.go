package models

import (
	"fmt"
	"strconv"
	"strings"
)

// ---- conjugate data sets -----------------------------------------------------------

// ReadNormalData reads the y column of normal_known_sigma.csv (header y, one finite
// number per line).
func ReadNormalData(path string) ([]float64, error) {
	t, err := readTable(path, "y")
	if err != nil {
		return nil, err
	}
	return t.Column("y")
}

// ReadCountData reads the y column of gamma_poisson.csv: non-negative integers.
func ReadCountData(path string) ([]int, error) {
	t, err := readTable(path, "y")
	if err != nil {
		return nil, err
	}
	y, err := t.Ints("y")
	if err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	for i, v := range y {
		if v < 0 {
			return nil, fmt.Errorf("models: %s:%d: column \"y\": count %d is negative", path, t.Line(i), v)
		}
	}
	return y, nil
}

// ReadCategoricalData reads the y column of dirichlet_categorical.csv, categories
// 1 … k in the file, and returns them 0-based (0 … k−1).
func ReadCategoricalData(path string, k int) ([]int, error) {
	t, err := readTable(path, "y")
	if err != nil {
		return nil, err
	}
	return idColumn(t, "y", k)
}

// ReadBinomialData reads beta_binomial.csv (columns trials, successes), checking
// 0 ≤ successes ≤ trials on every line.
func ReadBinomialData(path string) (trials, successes []int, err error) {
	t, err := readTable(path, "trials", "successes")
	if err != nil {
		return nil, nil, err
	}
	if trials, err = t.Ints("trials"); err != nil {
		return nil, nil, fmt.Errorf("models: %w", err)
	}
	if successes, err = t.Ints("successes"); err != nil {
		return nil, nil, fmt.Errorf("models: %w", err)
	}
	for i := range trials {
		if trials[i] < 0 || successes[i] < 0 || successes[i] > trials[i] {
			return nil, nil, fmt.Errorf("models: %s:%d: column \"successes\": %d successes in %d trials, want 0 ≤ successes ≤ trials",
				path, t.Line(i), successes[i], trials[i])
		}
	}
	return trials, successes, nil
}

// ReadHyperparameters reads hyperparameters.csv (columns model, name, value) into
// model → name → value. Indexed names are converted to 0-based: alpha[1] in the file
// is alpha[0] in the map (see HyperVector). A repeated (model, name) is an error.
func ReadHyperparameters(path string) (map[string]map[string]float64, error) {
	recs, err := readRecords(path, "model", "name", "value")
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]float64{}
	for _, r := range recs {
		model := r.fields[0]
		name, err := shiftIndices(r.fields[1], -1)
		if err != nil {
			return nil, fmt.Errorf("models: %s:%d: column \"name\": %v", path, r.line, err)
		}
		v, err := r.float(path, 2, "value")
		if err != nil {
			return nil, err
		}
		if out[model] == nil {
			out[model] = map[string]float64{}
		}
		if _, dup := out[model][name]; dup {
			return nil, fmt.Errorf("models: %s:%d: %s %s appears twice", path, r.line, model, r.fields[1])
		}
		out[model][name] = v
	}
	return out, nil
}

// HyperVector collects base[0], base[1], … from h until the first missing index. It
// returns an error when base[0] is missing or h holds an index beyond a gap.
func HyperVector(h map[string]float64, base string) ([]float64, error) {
	var v []float64
	for i := 0; ; i++ {
		x, ok := h[base+"["+strconv.Itoa(i)+"]"]
		if !ok {
			break
		}
		v = append(v, x)
	}
	if len(v) == 0 {
		return nil, fmt.Errorf("models: no hyperparameter %s[0]", base)
	}
	n := 0
	for name := range h {
		if strings.HasPrefix(name, base+"[") {
			n++
		}
	}
	if n != len(v) {
		return nil, fmt.Errorf("models: hyperparameter %s has %d indexed entries but only %s[0] … %s[%d] are contiguous", base, n, base, base, len(v)-1)
	}
	return v, nil
}

// ExactRow is one line of exact_posterior.csv: the closed-form marginal posterior of one
// scalar parameter (0-based name) of one conjugate model, with its summaries.
type ExactRow struct {
	Model, Parameter  string
	Marginal          Marginal
	Mean, SD, Q5, Q95 float64
}

// ReadExactPosterior reads exact_posterior.csv (columns model, parameter, family, par1,
// par2, mean, sd, q5, q95). Parameter names are converted to 0-based.
func ReadExactPosterior(path string) ([]ExactRow, error) {
	cols := []string{"model", "parameter", "family", "par1", "par2", "mean", "sd", "q5", "q95"}
	recs, err := readRecords(path, cols...)
	if err != nil {
		return nil, err
	}
	rows := make([]ExactRow, len(recs))
	for i, r := range recs {
		row := &rows[i]
		row.Model = r.fields[0]
		if row.Parameter, err = shiftIndices(r.fields[1], -1); err != nil {
			return nil, fmt.Errorf("models: %s:%d: column \"parameter\": %v", path, r.line, err)
		}
		row.Marginal.Family = r.fields[2]
		switch row.Marginal.Family {
		case FamilyNormal, FamilyGamma, FamilyBeta:
		default:
			return nil, fmt.Errorf("models: %s:%d: column \"family\": unknown family %q (want normal, gamma or beta)", path, r.line, r.fields[2])
		}
		dst := []*float64{&row.Marginal.Par1, &row.Marginal.Par2, &row.Mean, &row.SD, &row.Q5, &row.Q95}
		for j, p := range dst {
			if *p, err = r.float(path, 3+j, cols[3+j]); err != nil {
				return nil, err
			}
		}
	}
	return rows, nil
}

// ReadConjugateTruth reads the conjugate truth.csv (columns model, parameter, value) into
// model → 0-based parameter name → value.
func ReadConjugateTruth(path string) (map[string]map[string]float64, error) {
	recs, err := readRecords(path, "model", "parameter", "value")
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]float64{}
	for _, r := range recs {
		name, err := shiftIndices(r.fields[1], -1)
		if err != nil {
			return nil, fmt.Errorf("models: %s:%d: column \"parameter\": %v", path, r.line, err)
		}
		v, err := r.float(path, 2, "value")
		if err != nil {
			return nil, err
		}
		if out[r.fields[0]] == nil {
			out[r.fields[0]] = map[string]float64{}
		}
		out[r.fields[0]][name] = v
	}
	return out, nil
}
