package diagnostics

import (
	"errors"
	"fmt"
)

// HeldOutTotals returns, for held-out log-likelihoods laid out as a sampler
// records them (heldOut[c] holds chain c's values row-major, draws × n, as
// nmc.Result.HeldOut with n = Result.NumHeldOut), for each chain c and draw s, the log density of the whole
// held-out set, Σ_j heldOut[c][s·n+j], the input of [PLLCurveJoint]. It returns an
// error if n < 1 or a chain does not hold a whole number of draws.
func HeldOutTotals(heldOut [][]float64, n int) ([][]float64, error) {
	rows, err := heldOutRows(heldOut, n)
	if err != nil {
		return nil, err
	}
	out := make([][]float64, len(rows))
	for c, ch := range rows {
		out[c] = make([]float64, len(ch))
		for s, row := range ch {
			t := 0.0
			for _, v := range row {
				t += v
			}
			out[c][s] = t
		}
	}
	return out, nil
}

// heldOutRows cuts each chain's values into one row of n values per draw (sharing
// storage).
func heldOutRows(heldOut [][]float64, n int) ([][][]float64, error) {
	if n < 1 {
		return nil, fmt.Errorf("diagnostics: held-out pll: %d held-out points, want at least 1", n)
	}
	rows := make([][][]float64, len(heldOut))
	for c, flat := range heldOut {
		if len(flat)%n != 0 {
			return nil, fmt.Errorf("diagnostics: held-out pll: chain %d has %d values, not a whole number of draws of %d points", c, len(flat), n)
		}
		rows[c] = make([][]float64, len(flat)/n)
		for s := range rows[c] {
			rows[c][s] = flat[s*n : (s+1)*n]
		}
	}
	return rows, nil
}

// PLLInterleaved returns the joint and pointwise running predictive log-likelihood
// curves of held-out log-likelihoods laid out as for [HeldOutTotals], over the draws of
// all chains interleaved by draw: element i is the curve after i+1 pooled draws. It
// returns an error if n < 1, a chain does not hold a whole number of draws, there
// are no draws, or a value is NaN or +Inf.
func PLLInterleaved(heldOut [][]float64, n int) (joint, pointwise []float64, err error) {
	rows, err := heldOutRows(heldOut, n)
	if err != nil {
		return nil, nil, err
	}
	totals, err := HeldOutTotals(heldOut, n)
	if err != nil {
		return nil, nil, err
	}
	if joint, err = PLLCurveJoint(interleaveTotals(totals)); err != nil {
		return nil, nil, err
	}
	if pointwise, err = PLLCurve(Interleave(rows)); err != nil {
		return nil, nil, err
	}
	return joint, pointwise, nil
}

// PLLInterleavedFinal is PLLInterleaved for a caller that needs the pointwise curve's
// last value only: it returns the joint curve and pointwise[len−1], both bit for bit
// PLLInterleaved's, with one logarithm per held-out point instead of one per point
// and draw. Its errors are PLLInterleaved's.
func PLLInterleavedFinal(heldOut [][]float64, n int) (joint []float64, pointwise float64, err error) {
	rows, err := heldOutRows(heldOut, n)
	if err != nil {
		return nil, 0, err
	}
	totals, err := HeldOutTotals(heldOut, n)
	if err != nil {
		return nil, 0, err
	}
	if joint, err = PLLCurveJoint(interleaveTotals(totals)); err != nil {
		return nil, 0, err
	}
	pooled := Interleave(rows)
	if len(pooled) == 0 {
		return nil, 0, errors.New("diagnostics: pll curve: no draws")
	}
	r := NewRunningPLL(len(pooled[0]))
	for s, row := range pooled {
		if _, err := r.accumulate(row, s); err != nil {
			return nil, 0, err
		}
	}
	return joint, r.pointwise(len(pooled)), nil
}

// interleaveTotals pools per-chain totals[c][s] in the order of Interleave.
func interleaveTotals(totals [][]float64) []float64 {
	perChain := make([][][]float64, len(totals))
	for c, t := range totals {
		perChain[c] = make([][]float64, len(t))
		for s := range t {
			perChain[c][s] = t[s : s+1]
		}
	}
	var T []float64
	for _, row := range Interleave(perChain) {
		T = append(T, row[0])
	}
	return T
}

// PLLPerChain returns the joint and pointwise running predictive log-likelihood
// curves of each chain over its own draws: joint[c][i] and pointwise[c][i] are
// chain c's curves after i+1 of its draws. It returns an error, naming the chain,
// if n < 1, a chain does not hold a whole number of draws or has none, or a value
// is NaN or +Inf.
func PLLPerChain(heldOut [][]float64, n int) (joint, pointwise [][]float64, err error) {
	rows, err := heldOutRows(heldOut, n)
	if err != nil {
		return nil, nil, err
	}
	totals, err := HeldOutTotals(heldOut, n)
	if err != nil {
		return nil, nil, err
	}
	joint = make([][]float64, len(rows))
	pointwise = make([][]float64, len(rows))
	for c := range rows {
		if joint[c], err = PLLCurveJoint(totals[c]); err != nil {
			return nil, nil, fmt.Errorf("diagnostics: held-out pll: chain %d: %w", c, err)
		}
		if pointwise[c], err = PLLCurve(rows[c]); err != nil {
			return nil, nil, fmt.Errorf("diagnostics: held-out pll: chain %d: %w", c, err)
		}
	}
	return joint, pointwise, nil
}
