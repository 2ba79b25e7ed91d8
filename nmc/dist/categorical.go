package dist

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nmc-go/nmc/internal/special"
)

// Categorical is the categorical family over {0, …, k−1} with a probability vector
// probs of width k, in the paper's homogeneous form:
//
//	log p(y | probs) = log probs[y],
//
// NOT divided by Σ probs, so that its derivatives with respect to probs are those of
// the paper's modified density, which makes Dirichlet–Categorical updates exact.
// LogProb and Derivs therefore need only probs[y] > 0 (they do not look at the sum);
// CheckParams requires probs ≥ 0 summing to 1 within SimplexTol.
//
// Args are [y, probs[0], …, probs[k−1]]; the support is Discrete with k values.
// Derivatives with respect to y are 0.
type Categorical struct{}

var _ Family = Categorical{}

// Name returns "Categorical".
func (Categorical) Name() string { return "Categorical" }

// ParamNames returns {"probs"}.
func (Categorical) ParamNames() []string { return []string{"probs"} }

// Layout returns (1, {k}).
func (Categorical) Layout(k int) (int, []int) { return 1, []int{k} }

// categoryOK reports whether y is an integer in [0, k).
func categoryOK(y float64, k int) bool { return isInt(y) && y >= 0 && y < float64(k) }

// LogProb returns log probs[y], or −Inf when y is not in {0, …, k−1} or probs[y] is
// not finite and > 0.
func (Categorical) LogProb(args []float64, k int) float64 {
	needArgs("Categorical", 1+k, args)
	y := args[0]
	if !categoryOK(y, k) {
		return negInf
	}
	p := args[1+int(y)]
	if !posOK(p) {
		return negInf
	}
	return math.Log(p)
}

// Derivs returns log probs[y] and its gradient and Hessian with respect to
// (y, probs): the only non-zero entries are ∂/∂probs[y] = 1/probs[y] and
// ∂²/∂probs[y]² = −1/probs[y]².
func (Categorical) Derivs(args []float64, k int, grad, hess []float64) float64 {
	n := 1 + k
	checkDerivs("Categorical", n, len(args), grad, hess)
	y := args[0]
	if !categoryOK(y, k) || !posOK(args[1+int(y)]) {
		return fail(n, grad, hess)
	}
	clear(grad[:n])
	clear(hess[:n*n])
	i := 1 + int(y)
	p := args[i]
	grad[i] = 1 / p
	hess[i*n+i] = -1 / (p * p)
	return math.Log(p)
}

// CheckParams requires k ≥ 1 and probs finite, ≥ 0 and summing to 1 within
// SimplexTol.
func (Categorical) CheckParams(params []float64, k int) error {
	return checkSimplex("Categorical", "probs", params, k)
}

// checkSimplex checks that v holds k ≥ 1 finite non-negative values summing to 1.
func checkSimplex(family, param string, v []float64, k int) error {
	if k < 1 {
		return fmt.Errorf("dist: %s: dimension k = %d, want ≥ 1", family, k)
	}
	if err := checkCount(family, v, k); err != nil {
		return err
	}
	var s float64
	for i, p := range v {
		if !(p >= 0) || math.IsInf(p, 1) {
			return &ParamError{Family: family, Param: param, Index: i, Value: p, Reason: "must be finite and ≥ 0"}
		}
		s += p
	}
	if math.Abs(s-1) > SimplexTol {
		return &ParamError{Family: family, Param: param, Index: -1, Value: s,
			Reason: fmt.Sprintf("is the sum of the elements, which must be 1 (within %g)", SimplexTol)}
	}
	return nil
}

// Support returns Discrete with k values.
func (Categorical) Support(_ []float64, k int) (Support, float64, float64, int) {
	return Discrete, 0, float64(k - 1), k
}

// InSupport reports whether y is an integer in [0, k).
func (Categorical) InSupport(args []float64, k int) bool {
	return len(args) > 0 && categoryOK(args[0], k)
}

// Rand draws y with probability probs[y] into dst[0].
func (Categorical) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (Categorical{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	var s float64
	for _, p := range params {
		s += p
	}
	u := rng.Float64() * s
	last := 0
	for j, p := range params {
		if p <= 0 {
			continue
		}
		last = j
		if u < p {
			break
		}
		u -= p
	}
	dst[0] = float64(last)
}

// CategoricalLogits is the categorical family over {0, …, k−1} with unnormalised
// log-probabilities logits of width k:
//
//	log p(y | logits) = logits[y] − log Σⱼ exp(logits[j]).
//
// Args are [y, logits[0], …, logits[k−1]]; the support is Discrete with k values.
// Derivatives with respect to y are 0.
type CategoricalLogits struct{}

var _ Family = CategoricalLogits{}

// Name returns "CategoricalLogits".
func (CategoricalLogits) Name() string { return "CategoricalLogits" }

// ParamNames returns {"logits"}.
func (CategoricalLogits) ParamNames() []string { return []string{"logits"} }

// Layout returns (1, {k}).
func (CategoricalLogits) Layout(k int) (int, []int) { return 1, []int{k} }

// allFinite reports whether v is non-empty and every element is finite.
func allFinite(v []float64) bool {
	for _, x := range v {
		if !finite(x) {
			return false
		}
	}
	return len(v) > 0
}

// LogProb returns logits[y] − logsumexp(logits), or −Inf for invalid arguments.
func (CategoricalLogits) LogProb(args []float64, k int) float64 {
	needArgs("CategoricalLogits", 1+k, args)
	y := args[0]
	if !categoryOK(y, k) {
		return negInf
	}
	l := args[1 : 1+k]
	if !allFinite(l) {
		return negInf
	}
	return args[1+int(y)] - special.LogSumExp(l)
}

// Derivs returns the log probability and its gradient and Hessian with respect to
// (y, logits): with s = softmax(logits), ∂/∂logits[j] = [j = y] − s_j and
// ∂²/∂logits[i]∂logits[j] = s_i s_j − [i = j] s_i.
func (CategoricalLogits) Derivs(args []float64, k int, grad, hess []float64) float64 {
	n := 1 + k
	checkDerivs("CategoricalLogits", n, len(args), grad, hess)
	y := args[0]
	if !categoryOK(y, k) {
		return fail(n, grad, hess)
	}
	l := args[1:n]
	if !allFinite(l) {
		return fail(n, grad, hess)
	}
	// One exponential per logit: e_i = exp(l_i − max l), S = Σ e_i, the softmax
	// s_i = e_i/S and log Σ exp(l) = max l + log S.
	top := l[0]
	for _, v := range l[1:] {
		top = max(top, v)
	}
	sum := 0.0
	for i := 1; i < n; i++ {
		e := math.Exp(l[i-1] - top)
		grad[i] = e
		sum += e
	}
	lse := top + math.Log(sum)
	inv := 1 / sum
	grad[0] = 0
	for j := range n {
		hess[j] = 0
		hess[j*n] = 0
	}
	for i := 1; i < n; i++ {
		grad[i] *= -inv // −s_i
	}
	// The diagonal −s_i(1 − s_i) is formed as −Σ_{j≠i} s_i s_j (each row of the
	// softmax Hessian sums to 0), and ∂/∂logits[y] = 1 − s_y as Σ_{j≠y} s_j, so that
	// neither cancels when s_i ≈ 1.
	for i := 1; i < n; i++ {
		row := hess[i*n : (i+1)*n]
		var off float64
		for j := 1; j < n; j++ {
			if j != i {
				row[j] = grad[i] * grad[j]
				off += row[j]
			}
		}
		row[i] = -off
	}
	yi := int(y)
	var rest float64
	for j := 1; j < n; j++ {
		if j != 1+yi {
			rest -= grad[j]
		}
	}
	grad[1+yi] = rest
	return l[yi] - lse
}

// CheckParams requires k ≥ 1 and every logit finite.
func (CategoricalLogits) CheckParams(params []float64, k int) error {
	if k < 1 {
		return fmt.Errorf("dist: CategoricalLogits: dimension k = %d, want ≥ 1", k)
	}
	if err := checkCount("CategoricalLogits", params, k); err != nil {
		return err
	}
	for i, v := range params {
		if !finite(v) {
			return &ParamError{Family: "CategoricalLogits", Param: "logits", Index: i, Value: v, Reason: "must be finite"}
		}
	}
	return nil
}

// Support returns Discrete with k values.
func (CategoricalLogits) Support(_ []float64, k int) (Support, float64, float64, int) {
	return Discrete, 0, float64(k - 1), k
}

// InSupport reports whether y is an integer in [0, k).
func (CategoricalLogits) InSupport(args []float64, k int) bool {
	return len(args) > 0 && categoryOK(args[0], k)
}

// Rand draws y with probability softmax(logits)[y] into dst[0].
func (CategoricalLogits) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (CategoricalLogits{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	lse := special.LogSumExp(params)
	u := rng.Float64()
	last := 0
	for j, l := range params {
		p := math.Exp(l - lse)
		if p <= 0 {
			continue
		}
		last = j
		if u < p {
			break
		}
		u -= p
	}
	dst[0] = float64(last)
}
