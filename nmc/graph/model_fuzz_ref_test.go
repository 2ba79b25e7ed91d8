package graph_test

import (
	"math"
)

// The slow reference of FuzzModel: a plain float64 evaluator of the fuzz model's
// own description (fzNode, fzLatent, fzTerm), written apart from the engine: no
// jets, no memo tables, no package dist. Every operation recomputes from the
// definitions (a log-sum-exp by its maximum, the forward algorithm with scaling, a
// Cholesky factor by the textbook loop), and each family's log density is its
// formula.

// fzFam names a distribution family of the fuzz models.
type fzFam int

const (
	famNormal fzFam = iota
	famLogNormal
	famGamma
	famExponential
	famCauchy
	famStudentT
	famPoisson
	famFlat
	famDirichlet
	famMVNCov
	famMVNChol
	// The families FuzzModelFamilies adds (fzModel.more).
	famLogistic
	famWeibull
	famNegBin2
	famNegBin2Log
)

// countFam reports whether f's values are counts (observed as integers).
func countFam(f fzFam) bool { return f == famPoisson || f == famNegBin2 || f == famNegBin2Log }

// refLogPDF is the log density of family f at x (its value width) given the
// parameter values ps (each a slice of that parameter's components): NaN for
// invalid parameters, −Inf outside the support.
func refLogPDF(f fzFam, x []float64, ps [][]float64) float64 {
	const halfLog2Pi = 0.9189385332046727
	for _, v := range x {
		if math.IsNaN(v) {
			return math.NaN()
		}
	}
	bad := func(ok bool) bool { return !ok }
	pos := func(v float64) bool { return v > 0 && !math.IsInf(v, 1) }             // a positive parameter
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) } // a real one
	switch f {
	case famNormal:
		mu, s := ps[0][0], ps[1][0]
		if bad(pos(s) && finite(mu)) {
			return math.NaN()
		}
		if math.IsInf(x[0], 0) {
			return math.Inf(-1)
		}
		z := (x[0] - mu) / s
		return -0.5*z*z - refLog(s) - halfLog2Pi
	case famLogNormal:
		mu, s := ps[0][0], ps[1][0]
		if bad(pos(s) && finite(mu)) {
			return math.NaN()
		}
		if !(x[0] > 0) || math.IsInf(x[0], 1) {
			return math.Inf(-1)
		}
		z := (refLog(x[0]) - mu) / s
		return -0.5*z*z - refLog(s) - halfLog2Pi - refLog(x[0])
	case famGamma:
		a, b := ps[0][0], ps[1][0]
		if bad(pos(a) && pos(b)) {
			return math.NaN()
		}
		if !(x[0] > 0) || math.IsInf(x[0], 1) {
			return math.Inf(-1)
		}
		lg := refLgamma(a)
		return a*refLog(b) - lg + (a-1)*refLog(x[0]) - b*x[0]
	case famExponential:
		r := ps[0][0]
		if bad(pos(r)) {
			return math.NaN()
		}
		if !(x[0] >= 0) || math.IsInf(x[0], 1) {
			return math.Inf(-1)
		}
		return refLog(r) - r*x[0]
	case famCauchy:
		mu, s := ps[0][0], ps[1][0]
		if bad(pos(s) && finite(mu)) {
			return math.NaN()
		}
		if math.IsInf(x[0], 0) {
			return math.Inf(-1)
		}
		z := (x[0] - mu) / s
		return -refLog(math.Pi) - refLog(s) - math.Log1p(z*z)
	case famStudentT:
		nu, mu, s := ps[0][0], ps[1][0], ps[2][0]
		if bad(pos(nu) && pos(s) && finite(mu)) {
			return math.NaN()
		}
		if math.IsInf(x[0], 0) {
			return math.Inf(-1)
		}
		z := (x[0] - mu) / s
		return refLgammaHalfDiff(nu/2) - 0.5*refLog(nu*math.Pi) - refLog(s) - (nu+1)/2*math.Log1p(z*z/nu)
	case famPoisson:
		r := ps[0][0]
		if bad(pos(r)) {
			return math.NaN()
		}
		k := x[0]
		if k < 0 || k != math.Floor(k) || math.IsInf(k, 1) {
			return math.Inf(-1)
		}
		lf := refLgamma(k + 1)
		return k*refLog(r) - r - lf
	case famLogistic:
		mu, s := ps[0][0], ps[1][0]
		if bad(pos(s) && finite(mu)) {
			return math.NaN()
		}
		if math.IsInf(x[0], 0) {
			return math.Inf(-1)
		}
		z := (x[0] - mu) / s
		// −z − log s − 2·log(1 + e^{−z}), the log1p term by its larger exponent.
		return -z - refLog(s) - 2*(math.Max(-z, 0)+math.Log1p(math.Exp(-math.Abs(z))))
	case famWeibull:
		a, s := ps[0][0], ps[1][0]
		if bad(pos(a) && pos(s)) {
			return math.NaN()
		}
		if !(x[0] > 0) || math.IsInf(x[0], 1) {
			return math.Inf(-1)
		}
		l := refLog(x[0]) - refLog(s)
		return refLog(a) - refLog(s) + (a-1)*l - math.Exp(a*l)
	case famNegBin2, famNegBin2Log:
		mu, phi := ps[0][0], ps[1][0]
		if f == famNegBin2Log {
			if !finite(mu) {
				return math.NaN()
			}
			mu = math.Exp(mu)
		}
		if bad(pos(mu) && pos(phi)) {
			return math.NaN()
		}
		k := x[0]
		if k < 0 || k != math.Floor(k) || math.IsInf(k, 1) {
			return math.Inf(-1)
		}
		// log Γ(k + φ) − log Γ(φ) as Σ_{j<k} log(φ + j) (the counts here are small);
		// then k·log(μ/(μ + φ)) + φ·log(φ/(μ + φ)) − log k!.
		lp := -refLgamma(k + 1)
		for j := 0.0; j < k; j++ {
			lp += refLog(phi + j)
		}
		return lp + k*(refLog(mu)-refLog(mu+phi)) - phi*math.Log1p(mu/phi)
	case famFlat:
		if math.IsInf(x[0], 0) {
			return math.Inf(-1)
		}
		return 0
	case famDirichlet:
		alpha := ps[0]
		sumA, lp, sumX := 0.0, 0.0, 0.0
		for i, a := range alpha {
			if bad(pos(a)) {
				return math.NaN()
			}
			sumA += a
			lg := refLgamma(a)
			lp -= lg
			if !(x[i] >= 0) {
				return math.Inf(-1)
			}
			sumX += x[i]
			lp += (a - 1) * refLog(x[i])
		}
		if math.Abs(sumX-1) > 1e-9 {
			return math.Inf(-1)
		}
		lg := refLgamma(sumA)
		return lp + lg
	case famMVNCov, famMVNChol:
		n := len(x)
		mu := func(i int) float64 {
			if len(ps[0]) == 1 {
				return ps[0][0]
			}
			return ps[0][i]
		}
		m := ps[1]
		for k, v := range m {
			if f == famMVNChol && k%n > k/n {
				continue // only L's lower triangle is read (MultivariateNormalCholesky)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return math.NaN()
			}
		}
		var l []float64
		if f == famMVNCov {
			for i := range n {
				for j := range i {
					if math.Abs(m[i*n+j]-m[j*n+i]) > 1e-8*math.Max(1, math.Abs(m[i*n+j])) {
						return math.Inf(-1)
					}
				}
			}
			var ok bool
			if l, ok = refCholesky(m, n); !ok {
				return math.Inf(-1)
			}
		} else {
			l = make([]float64, n*n)
			for i := range n {
				for j := 0; j <= i; j++ {
					l[i*n+j] = m[i*n+j]
				}
				if !(l[i*n+i] > 0) {
					return math.Inf(-1)
				}
			}
		}
		// z = L⁻¹(x − μ) by forward substitution.
		z := make([]float64, n)
		lp := -float64(n) * halfLog2Pi
		for i := range n {
			s := x[i] - mu(i)
			for j := range i {
				s -= l[i*n+j] * z[j]
			}
			z[i] = s / l[i*n+i]
			lp -= 0.5*z[i]*z[i] + refLog(l[i*n+i])
		}
		return lp
	}
	panic("unknown family")
}

// refCholesky returns the lower Cholesky factor of the n×n matrix m (lower
// triangle read), or false when m is not positive definite.
func refCholesky(m []float64, n int) ([]float64, bool) {
	l := make([]float64, n*n)
	for j := range n {
		d := m[j*n+j]
		for k := range j {
			d -= l[j*n+k] * l[j*n+k]
		}
		if !(d > 0) || math.IsInf(d, 1) {
			return nil, false
		}
		l[j*n+j] = math.Sqrt(d)
		for i := j + 1; i < n; i++ {
			s := m[i*n+j]
			for k := range j {
				s -= l[i*n+k] * l[j*n+k]
			}
			l[i*n+j] = s / l[j*n+j]
		}
	}
	return l, true
}

// refLSE returns log Σ exp(v): −Inf for no terms or all −Inf, NaN for a NaN term.
func refLSE(v []float64) float64 {
	m := math.Inf(-1)
	for _, a := range v {
		if math.IsNaN(a) {
			return math.NaN()
		}
		m = math.Max(m, a)
	}
	if math.IsInf(m, 0) {
		return m
	}
	s := 0.0
	for _, a := range v {
		s += math.Exp(a - m)
	}
	return m + refLog(s)
}

// refHMM is the log marginal likelihood of a hidden Markov model by the forward
// algorithm in log space: logOmega N×K, gamma K×K, rho K (row-major). It is NaN
// when a row of gamma or rho is not a probability vector.
func refHMM(logOmega, gamma, rho []float64, n, k int) float64 {
	simplex := func(p []float64) bool {
		s := 0.0
		for _, v := range p {
			if !(v >= 0) || math.IsInf(v, 1) {
				return false
			}
			s += v
		}
		return math.Abs(s-1) <= 1e-9
	}
	if !simplex(rho) {
		return math.NaN()
	}
	for i := range k {
		if !simplex(gamma[i*k : (i+1)*k]) {
			return math.NaN()
		}
	}
	// The forward recursion in log space: log α_t(j) = ω_t(j) + log Σ_i
	// exp(log α_{t−1}(i) + log Γ_ij), log α_0(j) = log ρ_j + ω_0(j); a zero
	// probability is −Inf and adds nothing.
	la := make([]float64, k)
	next := make([]float64, k)
	terms := make([]float64, k)
	for t := range n {
		for j := range k {
			om := logOmega[t*k+j]
			if math.IsNaN(om) || math.IsInf(om, 1) {
				return math.NaN()
			}
			if t == 0 {
				next[j] = refLog(rho[j]) + om
				continue
			}
			for i := range k {
				terms[i] = la[i] + refLog(gamma[i*k+j])
			}
			next[j] = refLSE(terms) + om
		}
		copy(la, next)
	}
	return refLSE(la)
}

// refLgamma is log |Γ(v)|, right for subnormal v too: −log v there (math.Lgamma
// takes math.Log of v, wrong for subnormals on amd64, golang/go#56600).
func refLgamma(v float64) float64 {
	if v > 0 && v < 0x1p-1022 {
		return -refLog(v)
	}
	lg, _ := math.Lgamma(v)
	return lg
}

// refLgammaHalfDiff is log Γ(a + ½) − log Γ(a). Above a = 10⁴ it is the asymptotic
// series ½ log a − 1/(8a) + 1/(192a³) (the next term is O(a⁻⁵)): the difference
// of two math.Lgamma values of order a·log a loses about a·log a·2⁻⁵³ to
// cancellation (10⁻⁶ at a = 3·10⁸, where FuzzModel found it).
func refLgammaHalfDiff(a float64) float64 {
	if a > 1e4 && !math.IsInf(a, 1) {
		return 0.5*math.Log(a) - 1/(8*a) + 1/(192*a*a*a)
	}
	return refLgamma(a+0.5) - refLgamma(a)
}

// refLog is log(v), right for subnormal v too (see refEval.fragile).
func refLog(v float64) float64 {
	if v > 0 && v < 0x1p-1022 {
		return math.Log(v*0x1p52) - 52*math.Ln2
	}
	return math.Log(v)
}

// refEval evaluates the nodes of a fuzz model at a state x. Each node's values
// (Len()·Width(), element-major) are computed once per state; jitter, when not 0,
// multiplies every computed value by 1 ± jitter (a deterministic sign per node and
// component), so that the difference between two evaluations measures how much
// the result depends on rounding.
type refEval struct {
	x      []float64
	vals   map[*fzNode][]float64
	jitter float64
	// fragile: a value was subnormal. The engine's results are then not
	// vouched for: Go's math.Log is wrong for subnormal arguments on amd64
	// (golang/go#56600: Log(5e-324) = −709.09, not −744.44).
	fragile bool
}

func (r *refEval) jit(n *fzNode, v []float64) []float64 {
	if r.jitter == 0 || n.op == opConst || n.op == opLatentVal && n.lat.kind != latBounded && n.lat.kind < latOrdered {
		return v // data (counts) and raw coordinates are exact
	}
	for c := range v {
		if (n.id*7+c*3)%2 == 0 {
			v[c] *= 1 + r.jitter
		} else {
			v[c] *= 1 - r.jitter
		}
	}
	return v
}

// at returns component c of element e of n, broadcasting a length-1 node over
// elements and a width-1 node over components.
func (r *refEval) at(n *fzNode, e, c int) float64 {
	v := r.val(n)
	if n.l == 1 {
		e = 0
	}
	if n.w == 1 {
		c = 0
	}
	return v[e*n.w+c]
}

// elemOf returns the components of element e of n (element 0 of a length-1 node).
func (r *refEval) elemOf(n *fzNode, e int) []float64 {
	v := r.val(n)
	if n.l == 1 {
		e = 0
	}
	return v[e*n.w : (e+1)*n.w]
}

func (r *refEval) val(n *fzNode) []float64 {
	if v, ok := r.vals[n]; ok {
		return v
	}
	v := r.jit(n, r.compute(n))
	for _, a := range v {
		if a != 0 && math.Abs(a) < 0x1p-1022 {
			r.fragile = true
		}
	}
	r.vals[n] = v
	return v
}

func refUnary(op fzOp, a, p float64) float64 {
	switch op {
	case opNeg:
		return -a
	case opExp:
		return math.Exp(a)
	case opLog:
		return refLog(a)
	case opLog1p:
		return math.Log1p(a)
	case opSqrt:
		return math.Sqrt(a)
	case opLogistic:
		return 1 / (1 + math.Exp(-a))
	case opSoftplus:
		if a > 0 {
			return a + math.Log1p(math.Exp(-a))
		}
		return math.Log1p(math.Exp(a))
	case opPow:
		return math.Pow(a, p)
	}
	panic("not a unary op")
}

func (r *refEval) compute(n *fzNode) []float64 {
	out := make([]float64, n.l*n.w)
	switch n.op {
	case opConst:
		copy(out, n.vals)
	case opLatentVal:
		lt := n.lat
		raw := r.x[lt.off : lt.off+lt.size]
		switch lt.kind {
		case latOrdered, latPosOrdered:
			s := 0.0
			for i, t := range raw {
				s += t
				out[i] = s
			}
		case latBounded:
			for e := range out {
				t := raw[e]
				switch {
				case lt.lower == nil:
					out[e] = r.at(lt.upper, e, 0) - t
				case lt.upper == nil:
					out[e] = r.at(lt.lower, e, 0) + t
				default:
					lo, hi := r.at(lt.lower, e, 0), r.at(lt.upper, e, 0)
					out[e] = lo + (hi-lo)*t
				}
			}
		default:
			copy(out, raw)
		}
	case opAdd, opSub, opMul, opDiv:
		a, b := n.args[0], n.args[1]
		for e := range n.l {
			for c := range n.w {
				u, v := r.at(a, e, c), r.at(b, e, c)
				var z float64
				switch n.op {
				case opAdd:
					z = u + v
				case opSub:
					z = u - v
				case opMul:
					z = u * v
				default:
					z = u / v
				}
				out[e*n.w+c] = z
			}
		}
	case opNeg, opExp, opLog, opLog1p, opSqrt, opLogistic, opSoftplus, opPow:
		for i, a := range r.val(n.args[0]) {
			out[i] = refUnary(n.op, a, n.p)
		}
	case opSum:
		for _, a := range r.val(n.args[0]) {
			out[0] += a
		}
	case opIndex:
		a := n.args[0]
		for e, i := range n.idx {
			copy(out[e*n.w:], r.elemOf(a, i))
		}
	case opMatVec:
		v := r.val(n.args[0])
		cols := len(v)
		for i := range n.l {
			for j := range cols {
				out[i] += n.vals[i*cols+j] * v[j]
			}
		}
	case opConcat:
		out = out[:0]
		for _, a := range n.args {
			out = append(out, r.val(a)...)
		}
	case opStack:
		for e := range n.l {
			for c, a := range n.args {
				out[e*n.w+c] = r.at(a, e, 0)
			}
		}
	case opReshape:
		copy(out, r.val(n.args[0]))
	case opLSE:
		terms := make([]float64, len(n.args))
		for e := range n.l {
			for c := range n.w {
				for i, a := range n.args {
					terms[i] = r.at(a, e, c)
				}
				out[e*n.w+c] = refLSE(terms)
			}
		}
	case opLSEComp:
		a := n.args[0]
		for e := range n.l {
			out[e] = refLSE(r.elemOf(a, e))
		}
	case opLSEElem:
		out[0] = refLSE(r.val(n.args[0]))
	case opLogMix:
		for e := range n.l {
			for c := range n.w {
				th, a, b := r.at(n.args[0], e, c), r.at(n.args[1], e, c), r.at(n.args[2], e, c)
				if !(th >= 0 && th <= 1) || math.IsNaN(a) || math.IsNaN(b) {
					out[e*n.w+c] = math.NaN()
					continue
				}
				out[e*n.w+c] = refLSE([]float64{refLog(th) + a, math.Log1p(-th) + b})
			}
		}
	case opDensity:
		for e := range n.l {
			out[e] = r.density(n.d, n.args[0], e)
		}
	case opFunc:
		var in []float64
		for _, a := range n.args {
			in = append(in, r.val(a)...)
		}
		copy(out, runFuzzProgFloat(n.prog, in, n.w))
	case opKernel:
		alpha, rho := r.val(n.args[0])[0], r.val(n.args[1])[0]
		k := n.l
		for i := range k {
			for j := range k {
				d2 := 0.0
				for c := range n.kw {
					t := n.vals[i*n.kw+c] - n.vals[j*n.kw+c]
					d2 += t * t
				}
				out[i*k+j] = alpha * alpha * refKernel(n.kern, d2, rho, i == j)
			}
		}
	case opAddDiag:
		copy(out, r.val(n.args[0]))
		for i := range n.l {
			out[i*n.w+i] += r.at(n.args[1], i, 0)
		}
	case opCholMul:
		k := n.l
		l, ok := refCholesky(r.val(n.args[0]), k)
		eta := r.val(n.args[1])
		for i := range k {
			if !ok {
				out[i] = math.NaN()
				continue
			}
			for j := 0; j <= i; j++ {
				out[i] += l[i*k+j] * eta[j]
			}
		}
	case opHMM:
		lo, g, rho := n.args[0], n.args[1], n.args[2]
		out[0] = refHMM(r.val(lo), r.val(g), r.val(rho), lo.l, lo.w)
	default:
		panic("unknown op")
	}
	return out
}

// refKernel is the kernel's correlation at squared distance d2 and length scale
// rho (1 on the diagonal; NaN off it for rho ≤ 0).
func refKernel(kind int, d2, rho float64, diag bool) float64 {
	if diag {
		return 1
	}
	if !(rho > 0) {
		return math.NaN()
	}
	d := math.Sqrt(d2) / rho
	switch kind {
	case 0:
		return math.Exp(-d2 / (2 * rho * rho))
	case 1:
		return (1 + math.Sqrt(3)*d) * math.Exp(-math.Sqrt(3)*d)
	}
	return (1 + math.Sqrt(5)*d + 5*d*d/3) * math.Exp(-math.Sqrt(5)*d)
}

// density is the log density of d at element e of x (x and the parameters
// broadcast over elements).
func (r *refEval) density(d *fzDist, x *fzNode, e int) float64 {
	ps := make([][]float64, len(d.params))
	for i, p := range d.params {
		if d.fam == famMVNCov || d.fam == famMVNChol {
			if i == 1 {
				ps[i] = r.val(p) // the whole matrix
				continue
			}
		}
		ps[i] = r.elemOf(p, e)
	}
	xv := r.elemOf(x, e)
	if r.jitter != 0 {
		// Jitter the arguments too: a log density's parts (a·log b, log Γ(a),
		// (a − 1)·log x) can be far larger than their sum, and so is its rounding.
		us := [...]float64{1, -0.7, 0.4, -0.9, 0.6}
		jit := func(v []float64, data bool, i int) []float64 {
			if data {
				return v
			}
			out := make([]float64, len(v))
			for c, a := range v {
				out[c] = a * (1 + r.jitter*us[(i+c)%len(us)])
			}
			return out
		}
		for i := range ps {
			ps[i] = jit(ps[i], d.params[i].op == opConst, i+1)
		}
		xv = jit(xv, x.op == opConst, 0)
	}
	return refLogPDF(d.fam, xv, ps)
}

// logJoint returns the reference log joint at x and the sum of its terms'
// magnitudes: −Inf when a term is not finite.
func (m *fzModel) refLogJoint(x []float64, jitter float64) (lj, mag float64) {
	r := &refEval{x: x, vals: map[*fzNode][]float64{}, jitter: jitter}
	defer func() {
		if r.fragile {
			lj, mag = math.NaN(), math.NaN()
		}
	}()
	for _, t := range m.terms {
		var v float64
		switch {
		case t.d != nil: // a prior or an observation: Σ_e log p(value_e)
			for e := range t.n {
				v += r.density(t.d, t.x, e)
			}
		default: // a factor: Σ_e expr_e
			for _, a := range r.val(t.x) {
				if math.IsNaN(a) || math.IsInf(a, 0) {
					a = math.Inf(-1)
				}
				v += a
			}
		}
		if t.jac != nil { // a bounded latent's log Jacobian log(upper − lower)
			for e := range t.n {
				v += refLog(r.at(t.jac[1], e, 0) - r.at(t.jac[0], e, 0))
			}
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return math.Inf(-1), math.Inf(1)
		}
		lj += v
		mag += math.Abs(v)
	}
	return lj, mag
}

// refDerived returns the reference values of the model's derived quantities by
// name.
func (m *fzModel) refDerived(x []float64) map[string]float64 {
	r := &refEval{x: x, vals: map[*fzNode][]float64{}}
	out := map[string]float64{}
	for _, d := range m.derived {
		v := r.val(d.n)
		for e := range d.n.l {
			for c := range d.n.w {
				out[derivedName(d.name, d.n.l, d.n.w, e, c)] = v[e*d.n.w+c]
			}
		}
	}
	if r.fragile {
		return nil
	}
	return out
}
