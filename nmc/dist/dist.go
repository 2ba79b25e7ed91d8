// Package dist provides the probability distributions of nmc models: log densities
// with exact first and second derivatives with respect to the value and every
// parameter (cross terms included), random draws, supports and parameter validation.
//
// # Conventions
//
// A distribution is a Family. Its arguments are laid out in one flat slice,
// args = [value…, param₀…, param₁…, …], whose widths come from Layout(k), where k is the
// vector dimension (1 for scalar families, the number of categories for Categorical,
// the dimension for Dirichlet and MultivariateNormal). Derivs returns log p and writes
// the gradient and the full Hessian (row-major, both triangles) with respect to all
// args. Derivatives with respect to integer-valued arguments (a discrete value, the
// number of trials of a Binomial) are written as 0.
//
// Log densities are normalised, except where the paper's homogeneous form is required:
// Categorical with probabilities is log p_y, without dividing by Σp, so that its
// derivatives on the simplex are those of the paper's modified density.
//
// Outside the support, or with invalid parameters, LogProb and Derivs return −Inf
// (never panic); CheckParams explains what is wrong.
//
// # Families
//
// Real: Normal, StudentT, Cauchy, Logistic, Flat (improper), MultivariateNormal
// (covariance fixed by NewMultivariateNormal). Positive (lower bound 0): HalfNormal,
// LogNormal, HalfCauchy, HalfStudentT, HalfFlat (improper), Gamma (shape, RATE),
// InverseGamma (shape, SCALE), Exponential, Weibull (shape, scale). Interval: Beta (0, 1),
// Uniform (a, b). Simplex: Dirichlet. Discrete: Bernoulli, BernoulliLogit, Binomial,
// BinomialLogit (2 and n+1 values), Categorical, CategoricalLogits, OrderedLogistic (k
// values), Poisson, PoissonLog, NegBinomial2, NegBinomial2Log (unbounded). Every family is
// a zero-size value (Normal{}) whose parameters come in args, except MultivariateNormal.
//
// Dirichlet and Categorical evaluate their homogeneous extensions off the simplex
// (LogProb needs only positive elements, not a unit sum), which is what the simplex
// proposer differentiates; InSupport and CheckParams check the sum, within SimplexTol.
//
// Derivs of Normal, BernoulliLogit, StudentT and the other scalar families do not
// allocate; the engine may call them once per observation per step.
//
// # Panics
//
// LogProb, Derivs and InSupport panic only on programming errors: args shorter than
// the layout, or grad and hess shorter than len(args) and len(args)². Rand expects dst
// of the value width; with invalid parameters it writes NaN.
package dist

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Family is a distribution family.
type Family interface {
	// Name is the family's name, e.g. "Normal".
	Name() string
	// ParamNames names the parameters in argument order, e.g. {"mu", "sigma"}.
	ParamNames() []string
	// Layout returns the width of the value and of each parameter for vector
	// dimension k. Scalar families ignore k and return 1s.
	Layout(k int) (value int, params []int)
	// LogProb returns log p(value | params), args laid out as in Layout(k).
	LogProb(args []float64, k int) float64
	// Derivs returns log p and writes ∂ log p/∂args into grad (length len(args)) and
	// ∂² log p/∂args² into hess (len(args)², row-major).
	Derivs(args []float64, k int, grad, hess []float64) float64
	// CheckParams returns a *ParamError if the parameters (args without the value) are
	// outside their domain.
	CheckParams(params []float64, k int) error
	// Support returns where the value lives for these parameters: the kind, the
	// bounds (Positive: lo; Interval: lo, hi) and, for finite discrete values, the
	// number of values.
	Support(params []float64, k int) (kind Support, lo, hi float64, numValues int)
	// InSupport reports whether the value (args[:value width]) is in the support.
	InSupport(args []float64, k int) bool
	// Rand draws a value into dst (length = value width).
	Rand(rng *rand.Rand, params []float64, k int, dst []float64)
}

// ParamError reports a parameter outside its domain.
type ParamError struct {
	Family string  // e.g. "Normal"
	Param  string  // e.g. "sigma"
	Index  int     // element within a vector parameter, or -1 for a scalar
	Value  float64 // the offending value
	Reason string  // e.g. "must be > 0"
}

// Error returns "dist: <Family> parameter <Param>[<Index>] = <Value> <Reason>", the
// index omitted for a scalar parameter.
func (e *ParamError) Error() string {
	if e.Index >= 0 {
		return fmt.Sprintf("dist: %s parameter %s[%d] = %g %s", e.Family, e.Param, e.Index, e.Value, e.Reason)
	}
	return fmt.Sprintf("dist: %s parameter %s = %g %s", e.Family, e.Param, e.Value, e.Reason)
}

// Memo holds values that depend only on a family's parameters, so that elements
// sharing the parameters (the observations of one model evaluation) compute them
// once. The zero Memo is empty; a Memo belongs to one goroutine.
type Memo struct {
	Key float64    // the parameter value the entries were computed for
	Val [4]float64 // the family's cached terms
	OK  bool       // whether Key and Val are set
	// A second cached term, of another parameter (PartialDeriver: the Student-t's
	// log σ), with its own key.
	Key2, Val2 float64
	OK2        bool
	// Terms of a vector parameter (the Dirichlet's log Γ of its concentrations and
	// of their sum), for up to memoVecs recent parameter vectors: entry r is
	// vecs[r·(2k+1):(r+1)·(2k+1)], the k parameters then the k+1 terms.
	vecs    []float64
	vecK    int // the k of the entries in vecs
	vecNext int // the entry replaced next
}

// memoVecs bounds the parameter vectors a Memo keeps terms of (the rows of a
// Dawid-Skene confusion prior, one per class, take one each).
const memoVecs = 8

// vecTerms returns the k+1 terms cached for the parameter vector a, or nil.
func (m *Memo) vecTerms(a []float64) []float64 {
	k := len(a)
	if m.vecK != k {
		return nil
	}
	w := 2*k + 1
	for r := 0; r+w <= len(m.vecs); r += w {
		ent := m.vecs[r : r+w]
		if slices.Equal(ent[:k], a) {
			return ent[k:]
		}
	}
	return nil
}

// setVecTerms caches terms (length k+1) for the parameter vector a (length k),
// replacing the oldest entry when memoVecs are kept, and returns the cached copy.
func (m *Memo) setVecTerms(a, terms []float64) []float64 {
	k := len(a)
	w := 2*k + 1
	if m.vecK != k {
		m.vecs, m.vecK, m.vecNext = m.vecs[:0], k, 0
	}
	var ent []float64
	if len(m.vecs) < memoVecs*w {
		m.vecs = append(m.vecs, make([]float64, w)...)
		ent = m.vecs[len(m.vecs)-w:]
	} else {
		ent = m.vecs[m.vecNext*w : (m.vecNext+1)*w]
		m.vecNext = (m.vecNext + 1) % memoVecs
	}
	copy(ent, a)
	copy(ent[k:], terms)
	return ent[k:]
}

// MemoDeriver is implemented by families whose derivatives have costly terms that
// depend on parameters alone (Student-t: log-gamma, digamma and trigamma of ν/2).
// DerivsMemo equals Derivs; m may be nil.
type MemoDeriver interface {
	DerivsMemo(args []float64, k int, grad, hess []float64, m *Memo) float64
}

var _ MemoDeriver = StudentT{}

// PartialDeriver is implemented by families that compute the derivatives of the log
// density with respect to some of the arguments only, as a scorer needs when only
// some arguments depend on the coordinates it differentiates (a regression's
// Student-t likelihood seen from ν alone needs ∂ν and ∂²ν, not the 4×4 Hessian).
// DerivsOf returns log p and writes grad[a] and hess[a·n+b] (n = len(args)) equal to
// Derivs' for every a and b whose bits are set in wrt (bit a for argument a; up to
// 64 arguments); other entries are not written. wrt = 0 gives log p alone, like
// LogProb. m caches parameter-only terms as in MemoDeriver and may be nil.
type PartialDeriver interface {
	DerivsOf(args []float64, k int, wrt uint64, grad, hess []float64, m *Memo) float64
}

var _ PartialDeriver = StudentT{}

// RowsDeriver is implemented by families that evaluate, in one call, many
// observations sharing every argument but one, as a regression's likelihood with its
// linear predictor: row r has value x[r], argument vary equal to v[r] and every other
// argument from args (whose value and vary entries are ignored). DerivsRows returns
// the sum over rows of log p and, with d1 and d2 non-nil, writes the first and second
// derivatives of row r's log p with respect to argument wrt into d1[r] and d2[r], the
// entries Derivs gives (to rounding). ok = false means the family does not evaluate
// this (vary, wrt) combination by rows (nothing is written). A row outside the
// support or invalid arguments give a sum of −Inf. m caches parameter-only terms as
// in MemoDeriver and may be nil.
type RowsDeriver interface {
	DerivsRows(x, v, args []float64, k, vary, wrt int, d1, d2 []float64, m *Memo) (sum float64, ok bool)
}

var (
	_ RowsDeriver = StudentT{}
	_ RowsDeriver = BernoulliLogit{}
	_ RowsDeriver = Normal{}
	_ RowsDeriver = PoissonLog{}
)

// RowTermsDeriver is a RowsDeriver that keeps each row's transcendental terms
// (StudentT: log(1 + z²/ν); BernoulliLogit: e^−|η| and log(1 + e^−|η|)) in a caller's
// buffer, so that a later call at the same rows, values v and arguments args — a
// scorer evaluating the state it has just evaluated, with derivatives in another
// argument — computes none of them again. DerivsRowsTerms is DerivsRows with terms of
// length RowTerms()·len(x): with reuse false it writes row r's terms to
// terms[r·RowTerms() : (r+1)·RowTerms()] (nil terms: nothing is kept); with reuse true
// it reads them, and the caller guarantees that a call with reuse false and the same
// x, v and args wrote them and returned a finite sum. The sum and derivatives equal
// DerivsRows' bit for bit either way.
type RowTermsDeriver interface {
	RowsDeriver
	RowTerms() int
	DerivsRowsTerms(x, v, args []float64, k, vary, wrt int, d1, d2 []float64, m *Memo, terms []float64, reuse bool) (sum float64, ok bool)
}

var (
	_ RowTermsDeriver = StudentT{}
	_ RowTermsDeriver = BernoulliLogit{}
	_ RowTermsDeriver = PoissonLog{}
)

// SharedRowsDeriver is implemented by families that sum, in one call, the
// derivatives of many rows' log densities with respect to arguments every row
// shares (a regression's ν and σ moved together): row r has value x[r], argument
// vary equal to v[r] and every other argument from args, as in RowsDeriver.
// DerivsSharedRows returns the sum over rows of log p and, row by row in order, adds
// each row's DerivsOf gradient entries g1[a] and Hessian entries g2[a·n+b]
// (n = len(args)) for the arguments a, b whose bits are set in wrt, so that the
// sums equal accumulating DerivsOf row by row (to rounding: a family may compute a
// row's terms as its DerivsRows does, to share them). ok = false means the
// family does not sum this combination (nothing is written); invalid arguments or
// a row outside the support give a sum of −Inf.
type SharedRowsDeriver interface {
	DerivsSharedRows(x, v, args []float64, k, vary int, wrt uint64, g1, g2 []float64, m *Memo) (sum float64, ok bool)
}

var _ SharedRowsDeriver = StudentT{}

// SharedRowTermsDeriver is a SharedRowsDeriver that also keeps or reuses each row's
// transcendental terms, the same terms as its DerivsRowsTerms (RowTermsDeriver) at
// the same rows, values and arguments: a scorer that moves several shared arguments
// together (a group of ν and σ) then shares them with the single-argument calls at
// the same state. DerivsSharedRowsTerms is DerivsSharedRows with terms as in
// DerivsRowsTerms (reuse false: written, nil: not kept; reuse true: read), and equals
// it bit for bit either way.
type SharedRowTermsDeriver interface {
	SharedRowsDeriver
	RowTermsDeriver
	DerivsSharedRowsTerms(x, v, args []float64, k, vary int, wrt uint64, g1, g2 []float64, m *Memo, terms []float64, reuse bool) (sum float64, ok bool)
}

var _ SharedRowTermsDeriver = StudentT{}
