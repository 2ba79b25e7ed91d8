package dist

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/nmc-go/nmc/internal/special"
)

// Bernoulli is the Bernoulli family with success probability p in [0, 1]:
//
//	log p(y | p) = y log p + (1−y) log(1−p),  y ∈ {0, 1}.
//
// Args are [y, p]; the support is Discrete with 2 values. Derivatives with respect to
// y are 0.
type Bernoulli struct{}

var _ Family = Bernoulli{}

// Name returns "Bernoulli".
func (Bernoulli) Name() string { return "Bernoulli" }

// ParamNames returns {"p"}.
func (Bernoulli) ParamNames() []string { return []string{"p"} }

// Layout returns (1, {1}) for every k.
func (Bernoulli) Layout(int) (int, []int) { return 1, ones(1) }

func binaryOK(y float64) bool { return y == 0 || y == 1 }

// LogProb returns log p for y = 1 and log(1−p) for y = 0, or −Inf for invalid
// arguments.
func (Bernoulli) LogProb(args []float64, _ int) float64 {
	needArgs("Bernoulli", 2, args)
	y, p := args[0], args[1]
	if !binaryOK(y) || !(p >= 0 && p <= 1) {
		return negInf
	}
	if y == 1 {
		return math.Log(p)
	}
	return math.Log1p(-p)
}

// Derivs returns the Bernoulli log probability and its gradient and Hessian with
// respect to (y, p). It returns −Inf (a zero-probability outcome) when p = 0 and y = 1
// or p = 1 and y = 0.
func (Bernoulli) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	const n = 2
	checkDerivs("Bernoulli", n, len(args), grad, hess)
	y, p := args[0], args[1]
	if !binaryOK(y) || !(p >= 0 && p <= 1) || (y == 1 && p == 0) || (y == 0 && p == 1) {
		return fail(n, grad, hess)
	}
	clear(hess[:n*n])
	grad[0] = 0
	if y == 1 {
		grad[1] = 1 / p
		hess[3] = -1 / (p * p)
		return math.Log(p)
	}
	q := 1 - p
	grad[1] = -1 / q
	hess[3] = -1 / (q * q)
	return math.Log1p(-p)
}

// CheckParams requires p in [0, 1].
func (Bernoulli) CheckParams(params []float64, _ int) error {
	if err := checkCount("Bernoulli", params, 1); err != nil {
		return err
	}
	return checkProb("Bernoulli", "p", params[0])
}

// Support returns Discrete with 2 values.
func (Bernoulli) Support([]float64, int) (Support, float64, float64, int) {
	return Discrete, 0, 1, 2
}

// InSupport reports whether y is 0 or 1.
func (Bernoulli) InSupport(args []float64, _ int) bool { return len(args) > 0 && binaryOK(args[0]) }

// Rand draws y = 1 with probability p and y = 0 otherwise into dst[0].
func (Bernoulli) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (Bernoulli{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	dst[0] = 0
	if rng.Float64() < params[0] {
		dst[0] = 1
	}
}

// BernoulliLogit is the Bernoulli family parameterised by the log-odds
// logit = log(p/(1−p)):
//
//	log p(y | l) = y·l − log(1 + eˡ),  y ∈ {0, 1},
//
// computed as −softplus(−l) for y = 1 and −softplus(l) for y = 0. Args are [y, logit];
// the support is Discrete with 2 values.
type BernoulliLogit struct{}

var _ Family = BernoulliLogit{}

// Name returns "BernoulliLogit".
func (BernoulliLogit) Name() string { return "BernoulliLogit" }

// ParamNames returns {"logit"}.
func (BernoulliLogit) ParamNames() []string { return []string{"logit"} }

// Layout returns (1, {1}) for every k.
func (BernoulliLogit) Layout(int) (int, []int) { return 1, ones(1) }

// LogProb returns the Bernoulli log probability at log-odds l, or −Inf for invalid
// arguments.
func (BernoulliLogit) LogProb(args []float64, _ int) float64 {
	needArgs("BernoulliLogit", 2, args)
	y, l := args[0], args[1]
	if !binaryOK(y) || !finite(l) {
		return negInf
	}
	if y == 1 {
		return -special.Log1pExp(-l)
	}
	return -special.Log1pExp(l)
}

// Derivs returns the log probability and its gradient and Hessian with respect to
// (y, l): ∂l = y − σ(l), ∂²l = −σ(l)σ(−l). It does not allocate.
func (BernoulliLogit) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	const n = 2
	checkDerivs("BernoulliLogit", n, len(args), grad, hess)
	y, l := args[0], args[1]
	if !binaryOK(y) || !finite(l) {
		return fail(n, grad, hess)
	}
	// One exponential serves σ(l), σ(−l) and both log(1 + e^∓l): with e = e^−|l|,
	// σ(|l|) = 1/(1+e), σ(−|l|) = e/(1+e) and log(1 + e^l) = max(l, 0) + log1p(e).
	e := math.Exp(-math.Abs(l))
	big, small := 1/(1+e), e/(1+e)
	s, t := big, small // σ(l), σ(−l)
	if l < 0 {
		s, t = small, big
	}
	grad[0] = 0
	hess[0], hess[1], hess[2] = 0, 0, 0
	hess[3] = -s * t
	lp := math.Log1p(e) // log(1 + e^−|l|)
	if y == 1 {
		grad[1] = t
		return -(max(-l, 0) + lp)
	}
	grad[1] = -s
	return -(max(l, 0) + lp)
}

// DerivsRows evaluates rows whose log-odds (argument 1) vary, with derivatives in the
// log-odds (RowsDeriver): the formulas of Derivs, one exponential per row.
func (BernoulliLogit) DerivsRows(x, v, args []float64, k, vary, wrt int, d1, d2 []float64, m *Memo) (float64, bool) {
	return BernoulliLogit{}.DerivsRowsTerms(x, v, args, k, vary, wrt, d1, d2, m, nil, false)
}

// RowTerms returns 2: a row keeps e^−|η| and log(1 + e^−|η|) (RowTermsDeriver).
func (BernoulliLogit) RowTerms() int { return 2 }

// DerivsRowsTerms is DerivsRows keeping or reusing each row's e^−|η| and
// log(1 + e^−|η|) in terms (RowTermsDeriver).
func (BernoulliLogit) DerivsRowsTerms(x, v, _ []float64, _, vary, wrt int, d1, d2 []float64, _ *Memo, terms []float64, reuse bool) (float64, bool) {
	deriv := d1 != nil && d2 != nil
	if vary != 1 || (deriv && wrt != 1) {
		return 0, false
	}
	keep := terms != nil && !reuse
	if terms != nil {
		terms = terms[:2*len(x)]
	}
	total := 0.0
	for r, y := range x {
		l := v[r]
		if !binaryOK(y) || !finite(l) {
			return negInf, true
		}
		var e, lp float64
		if reuse {
			e, lp = terms[2*r], terms[2*r+1]
		} else {
			e = math.Exp(-math.Abs(l))
			lp = math.Log1p(e)
			if keep {
				terms[2*r], terms[2*r+1] = e, lp
			}
		}
		// m = (1 − 2y)·l is −l for y = 1 and l for y = 0 (exactly), so that one
		// expression without a branch on y gives both cases of log p = −(max(m, 0) +
		// log(1 + e^−|l|)) and of ∂l = y − σ(l) = (2y − 1)·σ(m): σ(−l) for y = 1, −σ(l)
		// for y = 0. The labels of a data set are in no order, so a branch on y is
		// mispredicted half the time; the sign of m is that of a misfit row, rare.
		m := (1 - 2*y) * l
		total -= max(m, 0) + lp
		if deriv {
			big, small := 1/(1+e), e/(1+e) // σ(|l|), σ(−|l|)
			sm := big                      // σ(m)
			if m < 0 {
				sm = small
			}
			d1[r] = (2*y - 1) * sm
			d2[r] = -big * small // −σ(l)σ(−l)
		}
	}
	return total, true
}

// CheckParams requires logit finite.
func (BernoulliLogit) CheckParams(params []float64, _ int) error {
	if err := checkCount("BernoulliLogit", params, 1); err != nil {
		return err
	}
	return checkReal("BernoulliLogit", "logit", params[0])
}

// Support returns Discrete with 2 values.
func (BernoulliLogit) Support([]float64, int) (Support, float64, float64, int) {
	return Discrete, 0, 1, 2
}

// InSupport reports whether y is 0 or 1.
func (BernoulliLogit) InSupport(args []float64, _ int) bool {
	return len(args) > 0 && binaryOK(args[0])
}

// Rand draws y = 1 with probability σ(logit) and y = 0 otherwise into dst[0].
func (BernoulliLogit) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (BernoulliLogit{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	dst[0] = 0
	if rng.Float64() < special.Logistic(params[0]) {
		dst[0] = 1
	}
}

// Binomial is the binomial family with n ≥ 0 trials (an integer, passed as an argument
// like the other parameters) and success probability p in [0, 1]:
//
//	log p(y | n, p) = log C(n, y) + y log p + (n−y) log(1−p),  y ∈ {0, …, n}.
//
// Args are [y, n, p]; the support is Discrete with n+1 values. Derivatives with respect
// to y and n are 0.
type Binomial struct{}

var _ Family = Binomial{}

// Name returns "Binomial".
func (Binomial) Name() string { return "Binomial" }

// ParamNames returns {"n", "p"}.
func (Binomial) ParamNames() []string { return []string{"n", "p"} }

// Layout returns (1, {1, 1}) for every k.
func (Binomial) Layout(int) (int, []int) { return 1, ones(2) }

func countOK(y, n float64) bool { return isInt(n) && n >= 0 && isInt(y) && y >= 0 && y <= n }

// binomialTerms returns y log p + (n−y) log(1−p), with 0·log 0 taken as 0.
func binomialTerms(y, n, p float64) float64 {
	var lp float64
	if y > 0 {
		lp += y * math.Log(p)
	}
	if n-y > 0 {
		lp += (n - y) * math.Log1p(-p)
	}
	return lp
}

// LogProb returns the binomial log probability, or −Inf for invalid arguments.
func (Binomial) LogProb(args []float64, _ int) float64 {
	needArgs("Binomial", 3, args)
	y, n, p := args[0], args[1], args[2]
	if !countOK(y, n) || !(p >= 0 && p <= 1) {
		return negInf
	}
	return logChoose(n, y) + binomialTerms(y, n, p)
}

// Derivs returns the binomial log probability and its gradient and Hessian with
// respect to (y, n, p).
func (Binomial) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	const N = 3
	checkDerivs("Binomial", N, len(args), grad, hess)
	y, n, p := args[0], args[1], args[2]
	if !countOK(y, n) || !(p >= 0 && p <= 1) || (y > 0 && p == 0) || (y < n && p == 1) {
		return fail(N, grad, hess)
	}
	clear(hess[:N*N])
	var g, h float64
	if y > 0 {
		g += y / p
		h -= y / (p * p)
	}
	if m := n - y; m > 0 {
		q := 1 - p
		g -= m / q
		h -= m / (q * q)
	}
	grad[0], grad[1], grad[2] = 0, 0, g
	hess[8] = h
	return logChoose(n, y) + binomialTerms(y, n, p)
}

// CheckParams requires n a non-negative integer and p in [0, 1].
func (Binomial) CheckParams(params []float64, _ int) error {
	if err := checkCount("Binomial", params, 2); err != nil {
		return err
	}
	return firstErr(checkCountParam("Binomial", "n", params[0]), checkProb("Binomial", "p", params[1]))
}

// Support returns Discrete with n+1 values.
func (Binomial) Support(params []float64, _ int) (Support, float64, float64, int) {
	return Discrete, 0, params[0], int(params[0]) + 1
}

// InSupport reports whether y is an integer in [0, n].
func (Binomial) InSupport(args []float64, _ int) bool {
	return len(args) >= 2 && countOK(args[0], args[1])
}

// Rand draws y ~ Binomial(n, p) into dst[0].
func (Binomial) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (Binomial{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	dst[0] = randBinomial(rng, params[0], params[1])
}

// randBinomial draws from Binomial(n, p) for valid n and p.
func randBinomial(rng *rand.Rand, n, p float64) float64 {
	switch {
	case n == 0 || p == 0:
		return 0
	case p == 1:
		return n
	}
	return distuv.Binomial{N: n, P: p, Src: rng}.Rand()
}

// BinomialLogit is the binomial family with n ≥ 0 trials and log-odds logit:
//
//	log p(y | n, l) = log C(n, y) + y·l − n log(1 + eˡ),  y ∈ {0, …, n},
//
// computed as log C(n, y) − y·softplus(−l) − (n−y)·softplus(l). Args are [y, n, logit];
// the support is Discrete with n+1 values. Derivatives with respect to y and n are 0.
type BinomialLogit struct{}

var _ Family = BinomialLogit{}

// Name returns "BinomialLogit".
func (BinomialLogit) Name() string { return "BinomialLogit" }

// ParamNames returns {"n", "logit"}.
func (BinomialLogit) ParamNames() []string { return []string{"n", "logit"} }

// Layout returns (1, {1, 1}) for every k.
func (BinomialLogit) Layout(int) (int, []int) { return 1, ones(2) }

func binomialLogitLP(y, n, l float64) float64 {
	lp := logChoose(n, y)
	if y > 0 {
		lp -= y * special.Log1pExp(-l)
	}
	if n-y > 0 {
		lp -= (n - y) * special.Log1pExp(l)
	}
	return lp
}

// LogProb returns the binomial log probability at log-odds l, or −Inf for invalid
// arguments.
func (BinomialLogit) LogProb(args []float64, _ int) float64 {
	needArgs("BinomialLogit", 3, args)
	y, n, l := args[0], args[1], args[2]
	if !countOK(y, n) || !finite(l) {
		return negInf
	}
	return binomialLogitLP(y, n, l)
}

// Derivs returns the log probability and its gradient and Hessian with respect to
// (y, n, l): ∂l = y − nσ(l), ∂²l = −nσ(l)σ(−l).
func (BinomialLogit) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	const N = 3
	checkDerivs("BinomialLogit", N, len(args), grad, hess)
	y, n, l := args[0], args[1], args[2]
	if !countOK(y, n) || !finite(l) {
		return fail(N, grad, hess)
	}
	s, t := special.Logistic(l), special.Logistic(-l)
	clear(hess[:N*N])
	// y − nσ(l) = yσ(−l) − (n−y)σ(l), which does not cancel when σ(l) ≈ 1.
	grad[0], grad[1], grad[2] = 0, 0, y*t-(n-y)*s
	hess[8] = -n * s * t
	return binomialLogitLP(y, n, l)
}

// CheckParams requires n a non-negative integer and logit finite.
func (BinomialLogit) CheckParams(params []float64, _ int) error {
	if err := checkCount("BinomialLogit", params, 2); err != nil {
		return err
	}
	return firstErr(checkCountParam("BinomialLogit", "n", params[0]),
		checkReal("BinomialLogit", "logit", params[1]))
}

// Support returns Discrete with n+1 values.
func (BinomialLogit) Support(params []float64, _ int) (Support, float64, float64, int) {
	return Discrete, 0, params[0], int(params[0]) + 1
}

// InSupport reports whether y is an integer in [0, n].
func (BinomialLogit) InSupport(args []float64, _ int) bool {
	return len(args) >= 2 && countOK(args[0], args[1])
}

// Rand draws y ~ Binomial(n, σ(logit)) into dst[0].
func (BinomialLogit) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (BinomialLogit{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	dst[0] = randBinomial(rng, params[0], special.Logistic(params[1]))
}
