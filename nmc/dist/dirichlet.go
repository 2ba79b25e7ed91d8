package dist

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nmc-go/nmc/internal/special"
)

// Dirichlet is the Dirichlet family on the (k−1)-simplex with concentration alpha of
// width k, every αᵢ > 0:
//
//	log p(x | α) = Σᵢ (αᵢ−1) log xᵢ + log Γ(Σᵢ αᵢ) − Σᵢ log Γ(αᵢ).
//
// LogProb and Derivs evaluate this formula for any x with positive elements, without
// checking Σ x = 1: its derivatives with respect to x are those of the paper's
// homogeneous extension, which the simplex proposer needs. InSupport checks the
// simplex (within SimplexTol).
//
// Args are [x[0], …, x[k−1], alpha[0], …, alpha[k−1]]; the support is Simplex.
type Dirichlet struct{}

var _ Family = Dirichlet{}

// Name returns "Dirichlet".
func (Dirichlet) Name() string { return "Dirichlet" }

// ParamNames returns {"alpha"}.
func (Dirichlet) ParamNames() []string { return []string{"alpha"} }

// Layout returns (k, {k}).
func (Dirichlet) Layout(k int) (int, []int) { return k, []int{k} }

// dirichletLP returns the log density, or −Inf with ok false for invalid arguments.
func dirichletLP(x, a []float64) (float64, bool) {
	if len(x) == 0 {
		return negInf, false
	}
	var lp, sa float64
	for i, xi := range x {
		ai := a[i]
		if !posOK(xi) || !posOK(ai) {
			return negInf, false
		}
		lp += (ai-1)*math.Log(xi) - lgamma(ai)
		sa += ai
	}
	return lp + lgamma(sa), true
}

// dirichletLPMemo is dirichletLP with log Γ of the concentrations and of their sum
// taken from m (computed once per concentration vector): the same sums in the same
// order, so the same value bit for bit. m may be nil.
func dirichletLPMemo(x, a []float64, m *Memo) (float64, bool) {
	if m == nil || len(x) == 0 || len(a) != len(x) {
		return dirichletLP(x, a)
	}
	lg := m.vecTerms(a)
	if lg == nil {
		var sa float64
		for _, ai := range a {
			if !posOK(ai) {
				return dirichletLP(x, a)
			}
			sa += ai
		}
		terms := make([]float64, len(a)+1)
		for i, ai := range a {
			terms[i] = lgamma(ai)
		}
		terms[len(a)] = lgamma(sa)
		lg = m.setVecTerms(a, terms)
	}
	var lp float64
	for i, xi := range x {
		if !posOK(xi) {
			return negInf, false
		}
		lp += (a[i]-1)*math.Log(xi) - lg[i]
	}
	return lp + lg[len(a)], true
}

// LogProb returns the Dirichlet log density, or −Inf when an element of x or alpha is
// not finite and > 0.
func (Dirichlet) LogProb(args []float64, k int) float64 {
	needArgs("Dirichlet", 2*k, args)
	lp, _ := dirichletLP(args[:k], args[k:2*k])
	return lp
}

// Derivs returns the Dirichlet log density and its gradient and Hessian with respect
// to (x, α): ∂xᵢ = (αᵢ−1)/xᵢ, ∂αᵢ = log xᵢ + ψ(Σα) − ψ(αᵢ), ∂²xᵢ = −(αᵢ−1)/xᵢ²,
// ∂xᵢ∂αᵢ = 1/xᵢ, ∂αᵢ∂αⱼ = ψ₁(Σα) − [i = j] ψ₁(αᵢ), all other entries 0.
func (Dirichlet) Derivs(args []float64, k int, grad, hess []float64) float64 {
	n := 2 * k
	checkDerivs("Dirichlet", n, len(args), grad, hess)
	x, a := args[:k], args[k:n]
	lp, ok := dirichletLP(x, a)
	if !ok {
		return fail(n, grad, hess)
	}
	var sa float64
	for _, ai := range a {
		sa += ai
	}
	dA, tA := special.Digamma(sa), special.Trigamma(sa)
	clear(hess[:k*n]) // the x rows
	for i := range k {
		ix := 1 / x[i]
		grad[i] = (a[i] - 1) * ix
		grad[k+i] = math.Log(x[i]) + dA - special.Digamma(a[i])
		hess[i*n+i] = -(a[i] - 1) * ix * ix
		hess[i*n+k+i] = ix
		row := hess[(k+i)*n : (k+i+1)*n]
		clear(row[:k])
		row[i] = ix
		for j := k; j < n; j++ {
			row[j] = tA
		}
		row[k+i] -= special.Trigamma(a[i])
	}
	return lp
}

var _ PartialDeriver = Dirichlet{}

// DerivsOf is Derivs restricted to the arguments whose bits are set in wrt
// (PartialDeriver: bits 0 … k−1 for x, k … 2k−1 for alpha); m keeps log Γ of the
// concentrations and of their sum for a few recent concentration vectors. When no
// element of alpha is requested (a prior with constant concentrations seen from its
// value), the digamma and trigamma terms are not computed. Invalid arguments give
// −Inf and NaN derivatives in the requested entries.
func (Dirichlet) DerivsOf(args []float64, k int, wrt uint64, grad, hess []float64, m *Memo) float64 {
	n := 2 * k
	needArgs("Dirichlet", n, args)
	x, a := args[:k], args[k:n]
	lp, ok := dirichletLPMemo(x, a, m)
	if !ok {
		for p := 0; p < n; p++ {
			if wrt&(1<<p) == 0 {
				continue
			}
			grad[p] = math.NaN()
			for q := 0; q < n; q++ {
				if wrt&(1<<q) != 0 {
					hess[p*n+q] = math.NaN()
				}
			}
		}
		return lp
	}
	if wrt == 0 {
		return lp
	}
	alphaBits := wrt >> k // the requested elements of alpha, bit i for alpha[i]
	var dA, tA float64
	if alphaBits != 0 {
		var sa float64
		for _, ai := range a {
			sa += ai
		}
		dA, tA = special.Digamma(sa), special.Trigamma(sa)
	}
	for i := range k {
		wx, wa := wrt&(1<<i) != 0, alphaBits&(1<<i) != 0
		if !wx && !wa {
			continue
		}
		ix := 1 / x[i]
		if wx {
			grad[i] = (a[i] - 1) * ix
			row := hess[i*n : (i+1)*n]
			for q := 0; q < n; q++ {
				if wrt&(1<<q) == 0 {
					continue
				}
				switch q {
				case i:
					row[q] = -(a[i] - 1) * ix * ix
				case k + i:
					row[q] = ix
				default:
					row[q] = 0
				}
			}
		}
		if wa {
			grad[k+i] = math.Log(x[i]) + dA - special.Digamma(a[i])
			row := hess[(k+i)*n : (k+i+1)*n]
			for q := 0; q < n; q++ {
				if wrt&(1<<q) == 0 {
					continue
				}
				switch {
				case q == i:
					row[q] = ix
				case q < k:
					row[q] = 0
				case q == k+i:
					row[q] = tA - special.Trigamma(a[i])
				default:
					row[q] = tA
				}
			}
		}
	}
	return lp
}

// CheckParams requires k ≥ 1 and every alpha finite and > 0.
func (Dirichlet) CheckParams(params []float64, k int) error {
	if k < 1 {
		return fmt.Errorf("dist: Dirichlet: dimension k = %d, want ≥ 1", k)
	}
	if err := checkCount("Dirichlet", params, k); err != nil {
		return err
	}
	for i, a := range params {
		if !posOK(a) {
			return &ParamError{Family: "Dirichlet", Param: "alpha", Index: i, Value: a, Reason: "must be finite and > 0"}
		}
	}
	return nil
}

// Support returns Simplex.
func (Dirichlet) Support([]float64, int) (Support, float64, float64, int) {
	return Simplex, 0, 1, 0
}

// InSupport reports whether x has k elements in (0, 1] summing to 1 within
// SimplexTol.
func (Dirichlet) InSupport(args []float64, k int) bool {
	if k < 1 || len(args) < k {
		return false
	}
	var s float64
	for _, v := range args[:k] {
		if !(v > 0 && v <= 1) {
			return false
		}
		s += v
	}
	return math.Abs(s-1) <= SimplexTol
}

// Rand draws x ~ Dirichlet(α) into dst[:k], by normalising Gamma(αᵢ, 1) draws on the
// log scale (exact for tiny αᵢ); elements that underflow are raised to the smallest
// positive normal float64.
func (Dirichlet) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (Dirichlet{}).CheckParams(params, k) != nil {
		fillNaN(dst[:max(k, 0)])
		return
	}
	d := dst[:k]
	for i, a := range params {
		d[i] = RandLogGamma(rng, a)
	}
	lse := special.LogSumExp(d)
	for i := range d {
		d[i] = math.Max(math.Exp(d[i]-lse), tinyPositive)
	}
}
