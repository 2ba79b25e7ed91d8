package dist

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Poisson is the Poisson family with rate ≥ 0:
//
//	log p(y | λ) = y log λ − λ − log y!,  y ∈ {0, 1, 2, …}.
//
// Args are [y, rate]; the support is Discrete with no upper bound (numValues 0).
// Derivatives with respect to y are 0.
type Poisson struct{}

var _ Family = Poisson{}

// Name returns "Poisson".
func (Poisson) Name() string { return "Poisson" }

// ParamNames returns {"rate"}.
func (Poisson) ParamNames() []string { return []string{"rate"} }

// Layout returns (1, {1}) for every k.
func (Poisson) Layout(int) (int, []int) { return 1, ones(1) }

func countValueOK(y float64) bool { return isInt(y) && y >= 0 }

func poissonLP(y, l float64) float64 {
	lp := -l - logFactorial(y)
	if y > 0 {
		lp += y * math.Log(l)
	}
	return lp
}

// LogProb returns the Poisson log probability, or −Inf for invalid arguments.
func (Poisson) LogProb(args []float64, _ int) float64 {
	needArgs("Poisson", 2, args)
	y, l := args[0], args[1]
	if !countValueOK(y) || !(l >= 0) || math.IsInf(l, 1) {
		return negInf
	}
	return poissonLP(y, l)
}

// Derivs returns the Poisson log probability and its gradient and Hessian with
// respect to (y, λ): ∂λ = y/λ − 1, ∂²λ = −y/λ².
func (Poisson) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	const n = 2
	checkDerivs("Poisson", n, len(args), grad, hess)
	y, l := args[0], args[1]
	if !countValueOK(y) || !(l >= 0) || math.IsInf(l, 1) || (l == 0 && y > 0) {
		return fail(n, grad, hess)
	}
	grad[0], grad[1] = 0, -1
	hess[0], hess[1], hess[2], hess[3] = 0, 0, 0, 0
	if y > 0 {
		grad[1] += y / l
		hess[3] = -y / (l * l)
	}
	return poissonLP(y, l)
}

// CheckParams requires rate finite and ≥ 0.
func (Poisson) CheckParams(params []float64, _ int) error {
	if err := checkCount("Poisson", params, 1); err != nil {
		return err
	}
	if l := params[0]; !(l >= 0) || math.IsInf(l, 1) {
		return perr("Poisson", "rate", l, "must be finite and ≥ 0")
	}
	return nil
}

// Support returns Discrete with no upper bound (numValues 0).
func (Poisson) Support([]float64, int) (Support, float64, float64, int) {
	return Discrete, 0, math.Inf(1), 0
}

// InSupport reports whether y is a non-negative integer.
func (Poisson) InSupport(args []float64, _ int) bool { return len(args) > 0 && countValueOK(args[0]) }

// Rand draws y ~ Poisson(λ) into dst[0].
func (Poisson) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (Poisson{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	dst[0] = randPoisson(rng, params[0])
}

// randPoisson draws from Poisson(λ) for finite λ ≥ 0.
func randPoisson(rng *rand.Rand, l float64) float64 {
	if l == 0 {
		return 0
	}
	return distuv.Poisson{Lambda: l, Src: rng}.Rand()
}

// PoissonLog is the Poisson family parameterised by the log-rate η = log λ:
//
//	log p(y | η) = yη − exp(η) − log y!,  y ∈ {0, 1, 2, …}.
//
// Args are [y, logRate]; the support is Discrete with no upper bound (numValues 0).
// Derivatives with respect to y are 0.
type PoissonLog struct{}

var _ Family = PoissonLog{}

// Name returns "PoissonLog".
func (PoissonLog) Name() string { return "PoissonLog" }

// ParamNames returns {"logRate"}.
func (PoissonLog) ParamNames() []string { return []string{"logRate"} }

// Layout returns (1, {1}) for every k.
func (PoissonLog) Layout(int) (int, []int) { return 1, ones(1) }

// LogProb returns the Poisson log probability at log-rate η, or −Inf for invalid
// arguments.
func (PoissonLog) LogProb(args []float64, _ int) float64 {
	needArgs("PoissonLog", 2, args)
	y, eta := args[0], args[1]
	if !countValueOK(y) || !finite(eta) {
		return negInf
	}
	return y*eta - math.Exp(eta) - logFactorial(y)
}

// Derivs returns the log probability and its gradient and Hessian with respect to
// (y, η): ∂η = y − e^η, ∂²η = −e^η.
func (PoissonLog) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	const n = 2
	checkDerivs("PoissonLog", n, len(args), grad, hess)
	y, eta := args[0], args[1]
	if !countValueOK(y) || !finite(eta) {
		return fail(n, grad, hess)
	}
	e := math.Exp(eta)
	grad[0], grad[1] = 0, y-e
	hess[0], hess[1], hess[2], hess[3] = 0, 0, 0, -e
	return y*eta - e - logFactorial(y)
}

// DerivsRows evaluates rows whose log rate (argument 1) varies, with derivatives in
// the log rate (RowsDeriver): the formulas of Derivs, one exponential per row.
func (PoissonLog) DerivsRows(x, v, args []float64, k, vary, wrt int, d1, d2 []float64, m *Memo) (float64, bool) {
	return PoissonLog{}.DerivsRowsTerms(x, v, args, k, vary, wrt, d1, d2, m, nil, false)
}

// RowTerms returns 1: a row keeps e^η (RowTermsDeriver).
func (PoissonLog) RowTerms() int { return 1 }

// DerivsRowsTerms is DerivsRows keeping or reusing each row's e^η in terms
// (RowTermsDeriver): a state scored again (a group step's current point after the
// site steps scored it) takes no exponential.
func (PoissonLog) DerivsRowsTerms(x, v, _ []float64, _, vary, wrt int, d1, d2 []float64, _ *Memo, terms []float64, reuse bool) (float64, bool) {
	deriv := d1 != nil && d2 != nil
	if vary != 1 || (deriv && wrt != 1) {
		return 0, false
	}
	keep := terms != nil && !reuse
	total := 0.0
	for r, y := range x {
		eta := v[r]
		if !countValueOK(y) || !finite(eta) {
			return negInf, true
		}
		var e float64
		if reuse {
			e = terms[r]
		} else {
			e = math.Exp(eta)
			if keep {
				terms[r] = e
			}
		}
		total += y*eta - e - logFactorial(y)
		if deriv {
			d1[r], d2[r] = y-e, -e
		}
	}
	return total, true
}

// CheckParams requires logRate finite.
func (PoissonLog) CheckParams(params []float64, _ int) error {
	if err := checkCount("PoissonLog", params, 1); err != nil {
		return err
	}
	return checkReal("PoissonLog", "logRate", params[0])
}

// Support returns Discrete with no upper bound (numValues 0).
func (PoissonLog) Support([]float64, int) (Support, float64, float64, int) {
	return Discrete, 0, math.Inf(1), 0
}

// InSupport reports whether y is a non-negative integer.
func (PoissonLog) InSupport(args []float64, _ int) bool {
	return len(args) > 0 && countValueOK(args[0])
}

// Rand draws y ~ Poisson(exp(η)) into dst[0]; it writes NaN when exp(η) overflows.
func (PoissonLog) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (PoissonLog{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	l := math.Exp(params[0])
	if math.IsInf(l, 1) {
		fillNaN(dst[:1])
		return
	}
	dst[0] = randPoisson(rng, l)
}
