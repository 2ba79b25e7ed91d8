package dist

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// MultivariateNormal is the k-variate normal family N(m, Σ) with a mean vector
// parameter m of width k and a covariance Σ fixed at construction:
//
//	log p(x | m) = −½ (x−m)ᵀ Σ⁻¹ (x−m) − ½ log det Σ − (k/2) log 2π.
//
// Args are [x[0], …, x[k−1], mean[0], …, mean[k−1]], and k must equal the covariance's
// dimension; the support is Real. Create one with NewMultivariateNormal; the zero
// value is not usable (CheckParams reports it, LogProb returns −Inf). A
// *MultivariateNormal is immutable and safe for concurrent use.
type MultivariateNormal struct {
	dim     int
	prec    []float64 // Σ⁻¹, dim×dim row-major
	chol    []float64 // L with Σ = L Lᵀ, dim×dim row-major lower triangle
	cholInv []float64 // L⁻¹, dim×dim row-major lower triangle
	logNorm float64   // −½ log det Σ − (dim/2) log 2π
}

var _ Family = (*MultivariateNormal)(nil)

// NewMultivariateNormal returns the multivariate normal family with covariance cov,
// which must be finite, symmetric (a SymDense is by construction) and positive
// definite; it returns an error otherwise. cov is copied.
func NewMultivariateNormal(cov *mat.SymDense) (*MultivariateNormal, error) {
	if cov == nil {
		return nil, errors.New("dist: MultivariateNormal: covariance is nil")
	}
	k := cov.SymmetricDim()
	if k < 1 {
		return nil, errors.New("dist: MultivariateNormal: covariance is empty")
	}
	for i := range k {
		for j := i; j < k; j++ {
			if v := cov.At(i, j); !finite(v) {
				return nil, fmt.Errorf("dist: MultivariateNormal: covariance[%d, %d] = %g is not finite", i, j, v)
			}
		}
	}
	var ch mat.Cholesky
	if ok := ch.Factorize(cov); !ok {
		return nil, errors.New("dist: MultivariateNormal: covariance is not positive definite (Cholesky factorization failed)")
	}
	var l mat.TriDense
	ch.LTo(&l)
	var li mat.TriDense
	if err := li.InverseTri(&l); err != nil {
		return nil, fmt.Errorf("dist: MultivariateNormal: covariance is numerically singular: %v", err)
	}
	var p mat.SymDense
	if err := ch.InverseTo(&p); err != nil {
		return nil, fmt.Errorf("dist: MultivariateNormal: covariance is numerically singular: %v", err)
	}
	d := &MultivariateNormal{
		dim:     k,
		prec:    make([]float64, k*k),
		chol:    make([]float64, k*k),
		cholInv: make([]float64, k*k),
		logNorm: -0.5*ch.LogDet() - float64(k)*logSqrt2Pi,
	}
	for i := range k {
		for j := range k {
			d.prec[i*k+j] = p.At(i, j)
			if j <= i {
				d.chol[i*k+j] = l.At(i, j)
				d.cholInv[i*k+j] = li.At(i, j)
			}
		}
	}
	return d, nil
}

// Dim returns the dimension k of the covariance.
func (d *MultivariateNormal) Dim() int { return d.dim }

// Name returns "MultivariateNormal".
func (d *MultivariateNormal) Name() string { return "MultivariateNormal" }

// ParamNames returns {"mean"}.
func (d *MultivariateNormal) ParamNames() []string { return []string{"mean"} }

// Layout returns (k, {k}); k must equal Dim() for the family to be usable.
func (d *MultivariateNormal) Layout(k int) (int, []int) { return k, []int{k} }

// LogProb returns log N(x | m, Σ), or −Inf when k ≠ Dim() or an element of x or m is
// not finite.
func (d *MultivariateNormal) LogProb(args []float64, k int) float64 {
	if d == nil || d.dim == 0 || k != d.dim {
		return negInf
	}
	needArgs("MultivariateNormal", 2*k, args)
	x, m := args[:k], args[k:2*k]
	for i := range k {
		if !finite(x[i]) || !finite(m[i]) {
			return negInf
		}
	}
	// ‖L⁻¹(x−m)‖², which is ≥ 0 whatever the rounding.
	var q float64
	for i := range k {
		row := d.cholInv[i*k : i*k+i+1]
		var w float64
		for j, v := range row {
			w += v * (x[j] - m[j])
		}
		q += w * w
	}
	return d.logNorm - 0.5*q
}

// Derivs returns log N(x | m, Σ) and its gradient and Hessian with respect to (x, m):
// with P = Σ⁻¹ and r = x−m, ∂x = −Pr, ∂m = Pr, and the Hessian is [[−P, P], [P, −P]].
// It does not allocate.
func (d *MultivariateNormal) Derivs(args []float64, k int, grad, hess []float64) float64 {
	n := 2 * k
	checkDerivs("MultivariateNormal", n, len(args), grad, hess)
	lp := d.LogProb(args, k)
	if math.IsInf(lp, -1) {
		return fail(n, grad, hess)
	}
	x, m := args[:k], args[k:n]
	for i := range k {
		prow := d.prec[i*k : (i+1)*k]
		var pr float64
		for j, v := range prow {
			pr += v * (x[j] - m[j])
		}
		grad[i], grad[k+i] = -pr, pr
		top, bottom := hess[i*n:(i+1)*n], hess[(k+i)*n:(k+i+1)*n]
		for j, v := range prow {
			top[j], top[k+j] = -v, v
			bottom[j], bottom[k+j] = v, -v
		}
	}
	return lp
}

// CheckParams requires the family to come from NewMultivariateNormal, k = Dim() and
// every element of mean finite.
func (d *MultivariateNormal) CheckParams(params []float64, k int) error {
	if d == nil || d.dim == 0 {
		return errors.New("dist: MultivariateNormal: not created with NewMultivariateNormal")
	}
	if k != d.dim {
		return fmt.Errorf("dist: MultivariateNormal: dimension k = %d, want %d (the covariance's)", k, d.dim)
	}
	if err := checkCount("MultivariateNormal", params, k); err != nil {
		return err
	}
	for i, v := range params {
		if !finite(v) {
			return &ParamError{Family: "MultivariateNormal", Param: "mean", Index: i, Value: v, Reason: "must be finite"}
		}
	}
	return nil
}

// Support returns Real.
func (d *MultivariateNormal) Support([]float64, int) (Support, float64, float64, int) {
	return Real, math.Inf(-1), math.Inf(1), 0
}

// InSupport reports whether k = Dim() and every element of x is finite.
func (d *MultivariateNormal) InSupport(args []float64, k int) bool {
	if d == nil || k != d.dim || len(args) < k {
		return false
	}
	for _, v := range args[:k] {
		if !finite(v) {
			return false
		}
	}
	return true
}

// Rand draws x = m + Lz, z ~ N(0, I), Σ = LLᵀ, into dst[:k]. It does not allocate.
func (d *MultivariateNormal) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if d.CheckParams(params, k) != nil {
		fillNaN(dst[:max(k, 0)])
		return
	}
	x := dst[:k]
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	// From the last row up, so that z_j (j ≤ i) is still in place when row i is formed.
	for i := k - 1; i >= 0; i-- {
		var s float64
		for j, v := range d.chol[i*k : i*k+i+1] {
			s += v * x[j]
		}
		x[i] = params[i] + s
	}
}
