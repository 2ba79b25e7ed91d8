package graph

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/nmc-go/nmc/nmc/dist"
)

// MultivariateNormalCov is the n-variate normal N(mu, cov) whose covariance is a
// node: cov has n elements of n components, element i being row i of the matrix,
// as the kernels (ExpQuadCov, Matern32Cov, AddDiag) make it. Its entries may depend
// on latents (a Gaussian process's amplitude and length scale, a noise scale), and
// so may the mean and the value:
//
//	K := graph.AddDiag(graph.ExpQuadCov(graph.Data(x), alpha, rho), graph.C(1e-10))
//	f := b.Latent("f", graph.MultivariateNormalCov(graph.C(0), K))
//	b.ObserveInts("k", graph.PoissonLog(graph.Components(f)), counts)
//
// mu has width n (one element, or one per observed or latent element), or is a
// scalar repeated over the n components. A Vector site's n scalar elements become
// one mean element with Reshape(v, 1, n).
//
// The matrix read is the lower triangle of cov; an upper entry that differs from
// its mirror by more than 1e-8·max(1, |entry|) makes the density −Inf (Stan's
// symmetry check), as does a matrix that is not positive definite. Each score
// factorises the covariance once (a Cholesky factor, kept between scores while the
// sites it reads do not move) and computes the log density's exact gradient and
// Hessian in the active site's coordinates from the jets of the value, the mean
// and the entries (see doc.go, Gaussian processes). With n = 1 it is Normal(mu,
// Sqrt(cov)).
//
// Errors (a nil node, a cov that is not square, a mean of the wrong width) are
// returned by Build.
func MultivariateNormalCov(mu, cov *Node) *Dist { return mvnDist("MultivariateNormal", mu, cov, false) }

// MultivariateNormalCholesky is the n-variate normal N(mu, L·Lᵀ) parameterised by a
// lower-triangular Cholesky factor L of the covariance (Stan's
// multi_normal_cholesky): l has n elements of n components, element i being row i
// of L, of which only the lower triangle (j ≤ i) is read. The diagonal must be
// positive (else the density is −Inf). No factorisation is needed: a score costs
// O(n²) per coordinate of the active site that moves L. mu is as for
// MultivariateNormalCov. With n = 1 it is Normal(mu, l).
func MultivariateNormalCholesky(mu, l *Node) *Dist {
	return mvnDist("MultivariateNormalCholesky", mu, l, true)
}

// mvnDist checks the shapes and returns the distribution of an mvnFamily.
func mvnDist(name string, mu, cov *Node, chol bool) *Dist {
	pname := "cov"
	if chol {
		pname = "L"
	}
	fam := &mvnFamily{chol: chol}
	bad := func(format string, a ...any) *Dist {
		return &Dist{fam: fam, err: fmt.Errorf("graph: %s "+format, append([]any{name}, a...)...)}
	}
	switch {
	case mu == nil:
		return bad("parameter mean is a nil node")
	case cov == nil:
		return bad("parameter %s is a nil node", pname)
	case mu.err != nil:
		return &Dist{fam: fam, err: mu.err}
	case cov.err != nil:
		return &Dist{fam: fam, err: cov.err}
	}
	n := cov.length
	if cov.width != n {
		return bad("parameter %s has %d elements of width %d, want a square matrix (n elements of width n)", pname, cov.length, cov.width)
	}
	if n == 1 {
		if chol {
			return Normal(mu, cov)
		}
		return Normal(mu, Sqrt(cov))
	}
	switch {
	case mu.width == 1 && mu.length == 1:
		mu = Add(mu, Vec(make([]float64, n)...)) // the scalar in every component
	case mu.width == 1 && mu.length == n:
		return bad("parameter mean has width 1 and %d elements, want width %d: Reshape(mean, 1, %d) reads %d scalar elements as one vector", n, n, n, n)
	case mu.width != n:
		return bad("parameter mean has width %d, want %d", mu.width, n)
	}
	fam.n = n
	return &Dist{fam: fam, k: n, params: []*Node{mu, Reshape(cov, 1, n*n)}}
}

// mvnFamily is the family of MultivariateNormalCov (chol false) and
// MultivariateNormalCholesky (chol true) of dimension n ≥ 2. Args are [x (n),
// mean (n), C (n², row-major)], C the covariance or its Cholesky factor, of which
// the lower triangle is read. The scorer evaluates its factor elements through
// scoreElem, from the jets of the arguments, and never through Derivs: a dense
// Hessian over the n² entries of C would hold (2n + n²)² numbers. Derivs exists
// for the dist.Family contract and for tests, at small n.
type mvnFamily struct {
	n    int
	chol bool
}

var _ jetFamily = (*mvnFamily)(nil)

// symTol is the largest difference between a covariance entry and its mirror,
// relative to max(1, |entry|), that MultivariateNormalCov accepts.
const symTol = 1e-8

func (f *mvnFamily) Name() string {
	if f.chol {
		return "MultivariateNormalCholesky"
	}
	return "MultivariateNormal"
}

func (f *mvnFamily) ParamNames() []string {
	if f.chol {
		return []string{"mean", "L"}
	}
	return []string{"mean", "cov"}
}

func (f *mvnFamily) Layout(int) (int, []int) { return f.n, []int{f.n, f.n * f.n} }

func (f *mvnFamily) Support([]float64, int) (dist.Support, float64, float64, int) {
	return dist.Real, math.Inf(-1), math.Inf(1), 0
}

func (f *mvnFamily) InSupport(args []float64, _ int) bool {
	if len(args) < f.n {
		return false
	}
	for _, v := range args[:f.n] {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// CheckParams checks the mean (finite) and the matrix: finite, and for the
// covariance symmetric and positive definite, for a Cholesky factor with a
// positive diagonal.
func (f *mvnFamily) CheckParams(params []float64, _ int) error {
	n := f.n
	if len(params) != n+n*n {
		return fmt.Errorf("graph: %s: got %d parameter values, want %d", f.Name(), len(params), n+n*n)
	}
	names := f.ParamNames()
	for i, v := range params {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			p, at := names[0], i
			if i >= n {
				p, at = names[1], i-n
			}
			return &dist.ParamError{Family: f.Name(), Param: p, Index: at, Value: v, Reason: "must be finite"}
		}
	}
	c := params[n:]
	if _, err := f.factorise(c, make([]float64, n*n)); err != nil {
		return err
	}
	return nil
}

// factorise writes the lower Cholesky factor of the matrix c (row-major n×n)
// into l (the upper triangle zero) and returns log det of the covariance, or a
// *dist.ParamError saying why there is none. c and l may not overlap.
func (f *mvnFamily) factorise(c, l []float64) (float64, error) {
	n := f.n
	if f.chol {
		logDet := 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if j <= i {
					l[i*n+j] = c[i*n+j]
				} else {
					l[i*n+j] = 0
				}
			}
			d := c[i*n+i]
			if !(d > 0) || math.IsInf(d, 1) {
				return 0, &dist.ParamError{Family: f.Name(), Param: "L", Index: i*n + i, Value: d, Reason: "must be > 0 (a diagonal entry of the Cholesky factor)"}
			}
			logDet += 2 * math.Log(d)
		}
		return logDet, nil
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := c[i*n+j]
			if j > i {
				if w := c[j*n+i]; !(math.Abs(v-w) <= symTol*math.Max(1, math.Abs(w))) {
					return 0, &dist.ParamError{Family: f.Name(), Param: "cov", Index: i*n + j, Value: v, Reason: fmt.Sprintf("must equal its mirror [%d,%d] = %g (a covariance is symmetric)", j, i, w)}
				}
				l[i*n+j] = 0
				continue
			}
			l[i*n+j] = v
		}
	}
	if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: n, Data: l}); !ok {
		return 0, &dist.ParamError{Family: f.Name(), Param: "cov", Index: -1, Value: math.NaN(), Reason: "must be positive definite (its Cholesky factorisation failed)"}
	}
	logDet := 0.0
	for i := 0; i < n; i++ {
		logDet += 2 * math.Log(l[i*n+i])
	}
	if math.IsNaN(logDet) || math.IsInf(logDet, 0) {
		return 0, &dist.ParamError{Family: f.Name(), Param: "cov", Index: -1, Value: logDet, Reason: "must have a finite log determinant"}
	}
	return logDet, nil
}

// LogProb returns log N(x | mean, K), K the covariance or L·Lᵀ, or −Inf when a
// value is not finite or the matrix is not a valid covariance or factor.
func (f *mvnFamily) LogProb(args []float64, _ int) float64 {
	n := f.n
	if len(args) < 2*n+n*n {
		return math.Inf(-1)
	}
	l := make([]float64, n*n)
	logDet, err := f.factorise(args[2*n:2*n+n*n], l)
	if err != nil || !f.InSupport(args, n) {
		return math.Inf(-1)
	}
	z := make([]float64, n)
	for i := range z {
		z[i] = args[i] - args[n+i]
	}
	return mvnLogDensity(n, l, logDet, z)
}

// mvnLogDensity returns −½ log det K − ½ rᵀK⁻¹r − (n/2) log 2π for K = L·Lᵀ,
// overwriting r with z = L⁻¹r; −Inf when a value is not finite.
func mvnLogDensity(n int, l []float64, logDet float64, r []float64) float64 {
	for _, v := range r {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return math.Inf(-1)
		}
	}
	blas64.Trsv(blas.NoTrans, blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: n, Stride: n, Data: l}, blas64.Vector{N: n, Data: r, Inc: 1})
	q := 0.0
	for _, v := range r {
		q += v * v
	}
	lp := -0.5*logDet - 0.5*q - float64(n)*logSqrt2Pi
	if math.IsNaN(lp) {
		return math.Inf(-1)
	}
	return lp
}

// logSqrt2Pi is log √(2π).
const logSqrt2Pi = 0.91893853320467274178032973640561764

// Derivs returns log p and its gradient and Hessian with respect to all 2n + n²
// arguments (the upper triangle's entries have zero derivatives): the jet
// computation of scoreElem with every argument its own coordinate. It allocates
// and costs O(n⁵); the engine does not call it.
func (f *mvnFamily) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	n := f.n
	na := 2*n + n*n
	if len(args) < na || len(grad) < na || len(hess) < na*na {
		panic(fmt.Sprintf("graph: %s.Derivs: args, grad, hess have lengths %d, %d, %d; want %d, %d, %d",
			f.Name(), len(args), len(grad), len(hess), na, na, na*na))
	}
	clear(grad[:na])
	clear(hess[:na*na])
	s := &scorer{k: na, grad: grad[:na], hess: hess[:na*na], stack: make([]jet, 0), active: -1}
	s.ops.k = na
	jets := make([]jet, na)
	for a := range jets {
		jets[a] = jet{v: args[a], kind: jUnit, i: a, gc: 1}
	}
	var ws mvnScratch
	ws.init(n)
	sl := &ws.slots[0]
	logDet, err := f.factorise(args[2*n:na], sl.l)
	if err != nil || !f.InSupport(args, n) {
		clear(grad[:na])
		clear(hess[:na*na])
		return math.Inf(-1)
	}
	sl.logDet = logDet
	lp := f.derivs(s, &ws, sl, jets[:n], jets[n:2*n], jets[2*n:], true)
	if math.IsInf(lp, 0) || math.IsNaN(lp) {
		clear(grad[:na])
		clear(hess[:na*na])
		return math.Inf(-1)
	}
	s.symmetrize()
	return lp
}

// Rand draws x = mean + L·z, z ~ N(0, I), K = L·Lᵀ, into dst[:n]; NaN when the
// parameters are invalid.
func (f *mvnFamily) Rand(rng *rand.Rand, params []float64, _ int, dst []float64) {
	n := f.n
	x := dst[:n]
	if len(params) != n+n*n {
		for i := range x {
			x[i] = math.NaN()
		}
		return
	}
	l := make([]float64, n*n)
	if _, err := f.factorise(params[n:], l); err != nil {
		for i := range x {
			x[i] = math.NaN()
		}
		return
	}
	z := make([]float64, n)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	for i := 0; i < n; i++ {
		s := params[i]
		for j, v := range l[i*n : i*n+i+1] {
			s += v * z[j]
		}
		x[i] = s
	}
}
