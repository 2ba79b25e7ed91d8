package dist

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nmc-go/nmc/internal/special"
)

// OrderedLogistic is the ordered logistic family of k ≥ 2 categories (Stan's
// ordered_logistic, 0-based): a linear predictor η and k − 1 increasing cutpoints
// c_0 < … < c_{k−2},
//
//	p(y = 0) = 1 − σ(η − c_0),  p(y = j) = σ(η − c_{j−1}) − σ(η − c_j),  p(y = k − 1) = σ(η − c_{k−2}),
//
// σ the logistic function: the category of a latent η + logistic noise among
// the cutpoints. Args are [y, eta, c_0, …, c_{k−2}]; the support is Discrete with
// k values; derivatives with respect to y are 0.
type OrderedLogistic struct{}

var _ Family = OrderedLogistic{}

// Name returns "OrderedLogistic".
func (OrderedLogistic) Name() string { return "OrderedLogistic" }

// ParamNames returns {"eta", "cutpoints"}.
func (OrderedLogistic) ParamNames() []string { return []string{"eta", "cutpoints"} }

// Layout returns (1, {1, k − 1}).
func (OrderedLogistic) Layout(k int) (int, []int) { return 1, []int{1, k - 1} }

// ordLogisticOK reports whether y is a category of k and η and the two cutpoints
// around y are finite and increasing (the others are not read).
func ordLogisticOK(args []float64, k int) bool {
	y := args[0]
	if !isInt(y) || y < 0 || y >= float64(k) || !finite(args[1]) {
		return false
	}
	j := int(y)
	c := args[2 : 2+k-1]
	if j > 0 && !finite(c[j-1]) || j < k-1 && !finite(c[j]) {
		return false
	}
	return j == 0 || j == k-1 || c[j-1] < c[j]
}

// sigmoids returns σ(x) and σ(−x), each to full relative accuracy, from one
// exponential.
func sigmoids(x float64) (s, sn float64) {
	e := math.Exp(-math.Abs(x)) // ≤ 1
	p := 1 / (1 + e)
	if x >= 0 {
		return p, e * p
	}
	return e * p, p
}

// minNormal is the smallest positive normal float64: a probability below it is
// taken in logarithms.
const minNormal = 0x1p-1022

// ordLogisticTerms returns log p(y) from a = η − c_{y−1} (the lower cut; unused
// for y = 0), b = η − c_y (the upper; unused for y = k − 1) and ba = b − a, taken
// as c_{y−1} − c_y (so that it does not lose the digits a and b lose to a large
// η; unused unless both cuts are), and the
// derivatives of log p in a and b. p = σ(a)·σ(−b)·(1 − e^{b−a}) (σ(a) = 1 without
// a lower cut, σ(−b) = 1 without an upper one), each factor to full relative
// accuracy, so log p is one logarithm (a sum of three where the product is not
// a normal number); with w = 1/(e^{a−b} − 1): ∂a = σ(−a) + w, ∂b = −σ(b) − w,
// ∂²a = −σ(a)σ(−a) − w(1 + w), ∂a∂b = w(1 + w), ∂²b = −σ(b)σ(−b) − w(1 + w).
func ordLogisticTerms(lower, upper bool, a, b, ba float64) (lp, da, db, daa, dab, dbb float64) {
	p := 1.0
	if lower {
		sa, sna := sigmoids(a)
		p *= sa
		da, daa = sna, -sa*sna
	}
	if upper {
		sb, snb := sigmoids(b)
		p *= snb
		db, dbb = -sb, -sb*snb
	}
	var em float64
	if lower && upper {
		em = math.Expm1(ba) // e^{b−a} − 1 ∈ (−1, 0)
		p *= -em
		w := -(1 + em) / em // 1/(e^{a−b} − 1)
		ww := w * (1 + w)
		da += w
		db -= w
		daa -= ww
		dbb -= ww
		dab = ww
	}
	if p >= minNormal {
		return math.Log(p), da, db, daa, dab, dbb
	}
	// Far in a tail: the factors' logarithms, each without underflow.
	if lower {
		lp -= special.Log1pExp(-a)
	}
	if upper {
		lp -= special.Log1pExp(b)
	}
	if lower && upper {
		lp += math.Log(-em)
	}
	return lp, da, db, daa, dab, dbb
}

// ordLogisticCuts returns y's category j and a, b and b − a (see ordLogisticTerms).
func ordLogisticCuts(args []float64, k int) (j int, lower, upper bool, a, b, ba float64) {
	j = int(args[0])
	eta, c := args[1], args[2:2+k-1]
	lower, upper = j > 0, j < k-1
	if lower {
		a = eta - c[j-1]
	}
	if upper {
		b = eta - c[j]
	}
	if lower && upper {
		ba = c[j-1] - c[j]
	}
	return j, lower, upper, a, b, ba
}

// LogProb returns log p(y), or −Inf for invalid arguments.
func (OrderedLogistic) LogProb(args []float64, k int) float64 {
	needArgs("OrderedLogistic", k+1, args)
	if k < 2 || !ordLogisticOK(args, k) {
		return negInf
	}
	_, lower, upper, a, b, ba := ordLogisticCuts(args, k)
	lp, _, _, _, _, _ := ordLogisticTerms(lower, upper, a, b, ba)
	return lp
}

// Derivs returns log p(y) and its gradient and Hessian in (y, η, c_0, …, c_{k−2}):
// those in a = η − c_{y−1} and b = η − c_y (ordLogisticTerms) chained, ∂η = ∂a +
// ∂b, ∂c_{y−1} = −∂a, ∂c_y = −∂b; only η and the two cutpoints around y have
// non-zero derivatives.
func (OrderedLogistic) Derivs(args []float64, k int, grad, hess []float64) float64 {
	n := k + 1
	checkDerivs("OrderedLogistic", n, len(args), grad, hess)
	if k < 2 || !ordLogisticOK(args, k) {
		return fail(n, grad, hess)
	}
	j, lower, upper, a, b, ba := ordLogisticCuts(args, k)
	lp, da, db, daa, dab, dbb := ordLogisticTerms(lower, upper, a, b, ba)
	clear(grad[:n])
	clear(hess[:n*n])
	set := func(r, c int, v float64) { hess[r*n+c], hess[c*n+r] = v, v }
	grad[1] = da + db
	set(1, 1, daa+2*dab+dbb)
	lo, up := 2+j-1, 2+j // the argument indices of c_{y−1} and c_y
	if lower {
		grad[lo] = -da
		set(1, lo, -(daa + dab))
		set(lo, lo, daa)
	}
	if upper {
		grad[up] = -db
		set(1, up, -(dab + dbb))
		set(up, up, dbb)
	}
	if lower && upper {
		set(lo, up, dab)
	}
	return lp
}

// CheckParams requires k ≥ 2, eta finite and the k − 1 cutpoints finite and
// strictly increasing.
func (OrderedLogistic) CheckParams(params []float64, k int) error {
	if k < 2 {
		return fmt.Errorf("dist: OrderedLogistic: k = %d categories, want ≥ 2", k)
	}
	if err := checkCount("OrderedLogistic", params, k); err != nil {
		return err
	}
	if err := checkReal("OrderedLogistic", "eta", params[0]); err != nil {
		return err
	}
	c := params[1:]
	for i, v := range c {
		if !finite(v) {
			return &ParamError{Family: "OrderedLogistic", Param: "cutpoints", Index: i, Value: v, Reason: "must be finite"}
		}
		if i > 0 && !(v > c[i-1]) {
			return &ParamError{Family: "OrderedLogistic", Param: "cutpoints", Index: i, Value: v,
				Reason: fmt.Sprintf("must be greater than cutpoints[%d] = %g (the cutpoints increase)", i-1, c[i-1])}
		}
	}
	return nil
}

// Support returns Discrete with k values.
func (OrderedLogistic) Support(_ []float64, k int) (Support, float64, float64, int) {
	return Discrete, 0, float64(k - 1), k
}

// InSupport reports whether y is an integer in [0, k).
func (OrderedLogistic) InSupport(args []float64, k int) bool {
	return len(args) > 0 && isInt(args[0]) && args[0] >= 0 && args[0] < float64(k)
}

// Rand draws the number of cutpoints below η + logistic noise into dst[0].
func (OrderedLogistic) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (OrderedLogistic{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	var noise [1]float64
	Logistic{}.Rand(rng, []float64{params[0], 1}, 1, noise[:])
	y := 0
	for _, c := range params[1:] {
		if c < noise[0] {
			y++
		}
	}
	dst[0] = float64(y)
}
