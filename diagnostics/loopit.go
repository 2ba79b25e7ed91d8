package diagnostics

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// LOOPIT returns the leave-one-out probability integral transform of every
// observation: PIT_i = Σ_s w_is 1{yrep[s][i] < y[i]} + U_i Σ_s w_is 1{yrep[s][i] = y[i]},
// the LOO predictive probability that a replicate of observation i falls below
// its observed value, as R's loo 2.5.1 loo_pit computes it. For a well
// calibrated model the values are close to uniform on [0, 1]; a ∪-shaped
// histogram means predictive distributions too narrow, a ∩ shape too wide.
//
// yrep holds the S replicated data sets, yrep[s][i] being replicate s of
// observation i (every replicate of length len(y)). logWeights, if non-nil,
// holds for each observation i the S log importance weights of the draws
// (logWeights[i][s], in the order of yrep), as [PSIS] returns them; they need
// not be normalised. A nil logWeights gives every draw the same weight: the
// plain posterior (or prior) predictive PIT, not leave-one-out.
//
// Ties (yrep[s][i] = y[i], as with discrete data) are split by U_i drawn
// uniformly on [0, 1] from rng, which makes the PIT exactly uniform for
// discrete data too; a nil rng uses U_i = 1/2 (deterministic, but then discrete
// data give PIT values less spread than uniform).
//
// It returns an error for no observations, fewer than 2 replicates, a replicate
// of the wrong length, a non-finite y or yrep value, logWeights of the wrong
// shape and a weight that is NaN or +Inf or all −Inf for one observation.
func LOOPIT(y []float64, yrep [][]float64, logWeights [][]float64, rng *rand.Rand) ([]float64, error) {
	n, S := len(y), len(yrep)
	if n == 0 {
		return nil, fmt.Errorf("diagnostics: LOO-PIT: no observations")
	}
	if S < 2 {
		return nil, fmt.Errorf("diagnostics: LOO-PIT: %d replicates, want at least 2", S)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("diagnostics: LOO-PIT: observation %d is %v (must be finite)", i, v)
		}
	}
	for s, r := range yrep {
		if len(r) != n {
			return nil, fmt.Errorf("diagnostics: LOO-PIT: replicate %d has %d values, want %d (one per observation)", s, len(r), n)
		}
		for i, v := range r {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("diagnostics: LOO-PIT: replicate %d of observation %d is %v (must be finite)", s, i, v)
			}
		}
	}
	if logWeights != nil && len(logWeights) != n {
		return nil, fmt.Errorf("diagnostics: LOO-PIT: log weights for %d observations, want %d", len(logWeights), n)
	}
	pit := make([]float64, n)
	w := make([]float64, S)
	for i := range n {
		if logWeights == nil {
			for s := range w {
				w[s] = 1 / float64(S)
			}
		} else {
			lw := logWeights[i]
			if len(lw) != S {
				return nil, fmt.Errorf("diagnostics: LOO-PIT: observation %d has %d log weights, want %d (one per replicate)", i, len(lw), S)
			}
			for s, v := range lw {
				if math.IsNaN(v) || math.IsInf(v, 1) {
					return nil, fmt.Errorf("diagnostics: LOO-PIT: log weight %d of observation %d is %v", s, i, v)
				}
			}
			l := logSumExp(lw)
			if math.IsInf(l, -1) {
				return nil, fmt.Errorf("diagnostics: LOO-PIT: all log weights of observation %d are −Inf", i)
			}
			for s, v := range lw {
				w[s] = math.Exp(v - l)
			}
		}
		below, tied := 0.0, 0.0
		for s, r := range yrep {
			switch {
			case r[i] < y[i]:
				below += w[s]
			case r[i] == y[i]:
				tied += w[s]
			}
		}
		u := 0.5
		if rng != nil && tied > 0 {
			u = rng.Float64()
		}
		pit[i] = min(1, below+u*tied)
	}
	return pit, nil
}

// LOOPITLogLik returns [LOOPIT] with the Pareto-smoothed importance weights of
// leave-one-out computed from the pointwise log-likelihood ll, with r_eff from
// [RelativeEff] (as [LOO] does), and the Pareto k̂ of every observation. The
// replicates yrep must be drawn at the same draws as ll, in its order: chain 0's
// draws first, then chain 1's, and so on, so that yrep[c*D+d] goes with draw d
// of chain c (D draws per chain).
func LOOPITLogLik(y []float64, yrep [][]float64, ll LogLik, rng *rand.Rand) (pit, k []float64, err error) {
	D, err := ll.dims()
	if err != nil {
		return nil, nil, err
	}
	if ll.N != len(y) {
		return nil, nil, fmt.Errorf("diagnostics: LOO-PIT: log-likelihood has %d observations, y has %d", ll.N, len(y))
	}
	S := len(ll.Chains) * D
	if len(yrep) != S {
		return nil, nil, fmt.Errorf("diagnostics: LOO-PIT: %d replicates, log-likelihood has %d draws (%d chains × %d)", len(yrep), S, len(ll.Chains), D)
	}
	reff, err := RelativeEff(ll)
	if err != nil {
		return nil, nil, err
	}
	lw := make([][]float64, ll.N)
	k = make([]float64, ll.N)
	ratios := make([]float64, S)
	for i := range ll.N {
		for c, ch := range ll.Chains {
			for d := range D {
				ratios[c*D+d] = -ch[d*ll.N+i]
			}
		}
		lw[i], k[i], err = PSIS(ratios, reff[i])
		if err != nil {
			return nil, nil, fmt.Errorf("diagnostics: LOO-PIT: observation %d: %w", i, err)
		}
	}
	pit, err = LOOPIT(y, yrep, lw, rng)
	return pit, k, err
}
