package diagnostics

import (
	"errors"
	"fmt"
	"math"
)

// lse is a running log-sum-exp m + log(s). Its zero value is the empty sum
// (s = 0, which stands for m = −Inf).
type lse struct{ m, s float64 }

// add adds exp(v) to the sum; v must not be NaN or +Inf.
func (a *lse) add(v float64) {
	switch {
	case math.IsInf(v, -1):
		// density 0: no change
	case a.s == 0:
		a.m, a.s = v, 1
	case v <= a.m:
		a.s += math.Exp(v - a.m)
	default:
		a.s = a.s*math.Exp(a.m-v) + 1
		a.m = v
	}
}

// value is log of the sum so far (−Inf while every term was 0).
func (a *lse) value() float64 {
	if a.s == 0 {
		return math.Inf(-1)
	}
	return a.m + math.Log(a.s)
}

// RunningPLL accumulates the running predictive log-likelihood of J held-out
// points draw by draw, in O(J) memory, so that a sampler can compute the
// curves without storing every log density. Row n (1-based) of draws gives
// L[n][j] = log p(y_j | θ_n), natural log.
//
// Curve returns the pointwise form, curve(n) = Σ_j log((1/n) Σ_{s≤n} exp(L[s][j])),
// and JointCurve the joint form, joint(n) = log((1/n) Σ_{s≤n} exp(T_s)) with
// T_s = Σ_j L[s][j]. Both use running log-sum-exp sums, so nothing overflows.
// A RunningPLL is not safe for concurrent use.
type RunningPLL struct {
	j      int
	acc    []lse
	joint  lse
	curve  []float64
	jcurve []float64
}

// NewRunningPLL returns an accumulator for J held-out points. J must be at
// least 1; otherwise every Add returns an error.
func NewRunningPLL(J int) *RunningPLL {
	return &RunningPLL{j: J, acc: make([]lse, max(J, 0))}
}

// Add appends one draw's log densities row[j] = log p(y_j | θ), j = 0 … J−1.
// It returns an error, and leaves the accumulator unchanged, if len(row) ≠ J
// or an entry is NaN or +Inf. −Inf (density 0) is allowed.
func (r *RunningPLL) Add(row []float64) error {
	t, err := r.accumulate(row, len(r.curve))
	if err != nil {
		return err
	}
	r.joint.add(t)
	n := len(r.curve) + 1
	r.curve = append(r.curve, r.pointwise(n))
	r.jcurve = append(r.jcurve, r.joint.value()-math.Log(float64(n)))
	return nil
}

// accumulate checks row, draw number draw (0-based, for the messages), adds it to
// the points' running sums and returns its total log density T_s (−Inf when a
// density is 0).
func (r *RunningPLL) accumulate(row []float64, draw int) (float64, error) {
	if r.j < 1 {
		return 0, fmt.Errorf("diagnostics: running pll: need at least 1 held-out point, have J = %d", r.j)
	}
	if len(row) != r.j {
		return 0, fmt.Errorf("diagnostics: running pll: draw %d has %d log densities, want J = %d", draw, len(row), r.j)
	}
	for j, v := range row {
		if math.IsNaN(v) || math.IsInf(v, 1) {
			return 0, fmt.Errorf("diagnostics: running pll: draw %d, held-out point %d: log density %v is not allowed", draw, j, v)
		}
	}
	var t float64
	tZero := false
	for j, v := range row {
		r.acc[j].add(v)
		tZero = tZero || math.IsInf(v, -1)
		t += v
	}
	if tZero {
		// With huge positive log densities elsewhere the sum can overflow to +Inf
		// first, and +Inf + −Inf would be NaN.
		t = math.Inf(-1)
	}
	return t, nil
}

// pointwise returns the pointwise curve after n draws from the points' running
// sums. A point whose densities are all 0 so far (−Inf) makes it −Inf, set
// explicitly for the reason accumulate gives.
func (r *RunningPLL) pointwise(n int) float64 {
	var c float64
	cZero := false
	for j := range r.acc {
		a := r.acc[j].value()
		cZero = cZero || math.IsInf(a, -1)
		c += a
	}
	if cZero {
		return math.Inf(-1)
	}
	return c - float64(r.j)*math.Log(float64(n))
}

// Len returns the number of draws added.
func (r *RunningPLL) Len() int { return len(r.curve) }

// Curve returns a copy of the pointwise curve: element n−1 is curve(n) for
// n = 1 … Len(). An element is −Inf while some held-out point has had only
// zero densities.
func (r *RunningPLL) Curve() []float64 { return append([]float64(nil), r.curve...) }

// JointCurve returns a copy of the joint curve: element n−1 is joint(n) for
// n = 1 … Len().
func (r *RunningPLL) JointCurve() []float64 { return append([]float64(nil), r.jcurve...) }

// PLLCurve returns the pointwise running predictive log-likelihood
// curve(n) = Σ_j log((1/n) Σ_{s≤n} exp(L[s][j])) for n = 1 … S, where
// L[s][j] = log p(y_j | θ_s) (natural log) for draw s and held-out point j, in
// the order the draws are to be counted (see [Interleave]). The sum is over
// held-out points, not an average.
//
// It returns an error if L has no draws, a row has no entries or a different
// length than row 0, or an entry is NaN or +Inf.
func PLLCurve(L [][]float64) ([]float64, error) {
	if len(L) == 0 {
		return nil, errors.New("diagnostics: pll curve: no draws")
	}
	r := NewRunningPLL(len(L[0]))
	for _, row := range L {
		if err := r.Add(row); err != nil {
			return nil, err
		}
	}
	return r.curve, nil
}

// PLLCurveJoint returns the joint running predictive log-likelihood
// joint(n) = log((1/n) Σ_{s≤n} exp(T_s)) for n = 1 … S, where T_s is the total
// log density of the whole held-out set under draw s (natural log). This is
// the form plotted by PPL Bench and the NMC paper.
//
// It returns an error if T is empty or an entry is NaN or +Inf.
func PLLCurveJoint(T []float64) ([]float64, error) {
	if len(T) == 0 {
		return nil, errors.New("diagnostics: joint pll curve: no draws")
	}
	out := make([]float64, len(T))
	var a lse
	for s, v := range T {
		if math.IsNaN(v) || math.IsInf(v, 1) {
			return nil, fmt.Errorf("diagnostics: joint pll curve: draw %d: total log density %v is not allowed", s, v)
		}
		a.add(v)
		out[s] = a.value() - math.Log(float64(s+1))
	}
	return out, nil
}

// Interleave pools per-chain rows perChain[c][s] into one sequence in
// iteration order: draw 0 of every chain (chain 0 first), then draw 1 of every
// chain, and so on. Chains of different lengths contribute until they run
// out. The rows themselves are shared, not copied.
func Interleave(perChain [][][]float64) [][]float64 {
	total, longest := 0, 0
	for _, ch := range perChain {
		total += len(ch)
		longest = max(longest, len(ch))
	}
	out := make([][]float64, 0, total)
	for s := range longest {
		for _, ch := range perChain {
			if s < len(ch) {
				out = append(out, ch[s])
			}
		}
	}
	return out
}

// SamplesToConvergence returns the smallest n (1-based number of draws) such
// that |curve(m) − curve(S)| ≤ 0.01·|curve(S)| for every m from n to S, where
// curve is a running predictive log-likelihood curve of S draws (either
// form). Points that enter the band and leave it again do not count.
//
// It returns an error if curve is empty or its final value is not finite.
// Earlier −Inf values are allowed and never within the band.
func SamplesToConvergence(curve []float64) (int, error) {
	if len(curve) == 0 {
		return 0, errors.New("diagnostics: samples to convergence: empty curve")
	}
	cStar := curve[len(curve)-1]
	if math.IsNaN(cStar) || math.IsInf(cStar, 0) {
		return 0, fmt.Errorf("diagnostics: samples to convergence: final value %v of the curve is not finite", cStar)
	}
	tol := 0.01 * math.Abs(cStar)
	for m := len(curve) - 1; m >= 0; m-- {
		if !(math.Abs(curve[m]-cStar) <= tol) {
			return m + 2, nil // curve[m] is curve(m+1); the next n qualifies
		}
	}
	return 1, nil
}
