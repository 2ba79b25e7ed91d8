package models

import (
	"math"
	"slices"
)

// The marginalised form of annotationFast: the classes z are summed out of the
// scores of pi and theta and of the log joint. For item i with labels (l_j, y_j),
//
//	log p(y_i | pi, theta) = log Σ_k exp(a_ik),  a_ik = log pi_k + Σ_j log theta[l_j, k, y_j],
//
// and with the responsibilities r_i = softmax(a_i) the derivatives of log Σ_k
// exp(a_ik) with respect to any site's coordinates are
//
//	gradient Σ_k r_ik ∇a_ik,
//	Hessian  Σ_k r_ik ∇²a_ik + Σ_k r_ik ∇a_ik ∇a_ikᵀ − (Σ_k r_ik ∇a_ik)(Σ_k r_ik ∇a_ik)ᵀ.
//
// As in the explicit form, log theta[y] and log pi_k are those of the homogeneous
// extension off the simplex (not divided by the sum), in all k coordinates of a
// simplex site:
//   - pi: ∇a_ik = e_k/pi_k, ∇²a_ik = −e_k e_kᵀ/pi_k², so the data terms give gradient
//     Σ_i r_in/pi_n and Hessian −Σ_i r_in r_in′/(pi_n pi_n′) (the diagonal terms of
//     the first two sums cancel);
//   - theta[l,m]: only a_im depends on it, through ∇a_im = g_i = Σ_{labels y of l on
//     i} e_y/theta_y, so the data terms of item i give gradient r_im g_i and Hessian
//     −r_im Σ_y e_y e_yᵀ/theta_y² + r_im(1 − r_im) g_i g_iᵀ.
//
// The Dirichlet priors are added as in the explicit form. Only the derivatives along
// the simplex (tangent vectors v with Σ v = 0) are defined by the density on the
// simplex. The Dirichlet proposer fits α_n = 1 − x_n²(H_nn − max_{j≠n} H_nj) from
// the Hessian alone, which is exact for a Dirichlet conditional (as in the explicit
// form) but, from the homogeneous extension's Hessian of the marginal, proposes pi
// so badly that none of 4400 proposals was accepted on the paper's data. So the
// reported Hessian is that of another extension, equal on the simplex:
// H + a1ᵀ + 1aᵀ (the Hessian of f(x) + (Σx − 1)·a·(x − x₀) at x₀), with a chosen by
// steerSimplexHessian so that the proposer's fit becomes the Dirichlet with the
// score's gradient along the simplex. The gradient and the tangent part of the
// Hessian are exact.

// annotationMarginal holds what the marginal scores need beyond the explicit form's
// label lists: the distinct items of every labeler and, for each (labeler, item)
// pair, the labels the labeler gave the item.
type annotationMarginal struct {
	// Items labelled by labeler l: pairItem[pairStart[l]:pairStart[l+1]], distinct and
	// increasing. Pair p's labels are pairLabel[labelStart[p]:labelStart[p+1]].
	pairStart  []int32
	pairItem   []int32
	labelStart []int32
	pairLabel  []int32
}

// initMarginal builds the (labeler, item) pairs from the per-labeler label lists.
func (f *annotationFast) initMarginal() {
	m := &f.annotationMarginal
	m.pairStart = make([]int32, f.numLabelers+1)
	m.labelStart = []int32{0}
	var order []int32
	for l := 0; l < f.numLabelers; l++ {
		lo, hi := f.labStart[l], f.labStart[l+1]
		order = order[:0]
		for r := lo; r < hi; r++ {
			order = append(order, r)
		}
		slices.SortStableFunc(order, func(a, b int32) int { return int(f.labItem[a]) - int(f.labItem[b]) })
		for n, r := range order {
			it := f.labItem[r]
			if n == 0 || f.labItem[order[n-1]] != it {
				if n > 0 {
					m.labelStart = append(m.labelStart, int32(len(m.pairLabel)))
				}
				m.pairItem = append(m.pairItem, it)
			}
			m.pairLabel = append(m.pairLabel, f.labLabel[r])
		}
		if len(order) > 0 {
			m.labelStart = append(m.labelStart, int32(len(m.pairLabel)))
		}
		m.pairStart[l+1] = int32(len(m.pairItem))
	}
}

// Products of theta entries outside [productMin, productMax] are kept as logarithms
// instead (underflow or overflow ahead).
const (
	productMin = 1e-250
	productMax = 1e250
)

// marginalCache is one chain's cache of the theta part of a_ik: e_ik = Π_{labels of
// item i} theta[labeler, k, label], formed as a product in label order, or, when
// that product leaves [productMin, productMax] (or is not a number), e_ik = NaN and
// logE_ik = Σ log theta[…] instead. Before any use, sync compares every theta row of
// the state with seen (the rows e was computed from) and recomputes, from scratch,
// e_ik of the items of every row (l, k) that differs. Each entry is then what a
// computation from nothing at the same state gives, bit for bit: the cache is never
// stale and its values do not depend on the order of the calls.
type marginalCache struct {
	e     []float64 // N×C: e_ik, or NaN when logE holds it
	logE  []float64 // N×C: log e_ik where e_ik is NaN
	seen  []float64 // L×C×C: the theta values e was computed from (NaN: never)
	pi    []float64 // C: pi_k of the state being scored
	logPi []float64 // C: log pi_k (−Inf for an invalid entry)
	piOK  bool      // every pi_k is finite and > 0
	resp  []float64 // C scratch: r_ik
	rr    []float64 // C×C scratch: Σ_i r_in r_in′
	sumR  []float64 // C scratch: Σ_i r_in
	adj   []float64 // scratch of steerSimplexHessian
}

// initMarginal allocates the cache; every theta row starts unseen.
func (s *annotationFastScorer) initMarginal() {
	f := s.f
	c := f.numClasses
	s.e = make([]float64, f.numItems*c)
	for j := range s.e {
		s.e[j] = 1 // the empty product of an item without labels; sync sets the others
	}
	s.logE = make([]float64, f.numItems*c)
	s.seen = make([]float64, f.numLabelers*c*c)
	for j := range s.seen {
		s.seen[j] = math.NaN() // never equal to a state value
	}
	s.pi = make([]float64, c)
	s.logPi = make([]float64, c)
	s.resp = make([]float64, c)
	s.rr = make([]float64, c*c)
	s.sumR = make([]float64, c)
	s.adj = make([]float64, 2*c+2*c*c)
}

// sync brings e up to date with the theta rows of x and loads pi.
func (s *annotationFastScorer) sync(x []float64) {
	f := s.f
	c := f.numClasses
	theta := x[f.thetaOff : f.thetaOff+f.numLabelers*c*c]
	seen := s.seen
	for j := 0; j < len(theta); j++ {
		if theta[j] == seen[j] { // NaN never equals: such a row is always redone
			continue
		}
		t := j / c
		copy(seen[t*c:(t+1)*c], theta[t*c:(t+1)*c])
		l, m := t/c, t%c
		for _, it := range f.pairItem[f.pairStart[l]:f.pairStart[l+1]] {
			s.refreshItem(x, int(it), m)
		}
		j = (t+1)*c - 1 // the rest of the row is done
	}
	s.piOK = true
	for k := range s.pi {
		v := x[f.piOff+k]
		s.pi[k] = v
		s.logPi[k] = posLog(v)
		s.piOK = s.piOK && v > 0 && v <= math.MaxFloat64
	}
}

// refreshItem recomputes e_im (or logE_im) of item i from the state.
func (s *annotationFastScorer) refreshItem(x []float64, i, m int) {
	f := s.f
	c := f.numClasses
	codes := f.itemCode[f.itemStart[i]:f.itemStart[i+1]]
	theta := x[f.thetaOff+m*c:]
	p := 1.0
	for _, code := range codes {
		p *= theta[code]
	}
	if p >= productMin && p <= productMax {
		s.e[i*c+m] = p
		return
	}
	s.e[i*c+m] = math.NaN()
	total := 0.0
	for _, code := range codes {
		total += posLog(theta[code])
	}
	s.logE[i*c+m] = total
}

// itemLSE returns log Σ_k pi_k e_ik (log Σ_k exp(a_ik)) and leaves r_ik =
// softmax(a_i)_k in resp (undefined when the result is −Inf). It reads the state
// loaded by sync.
func (s *annotationFastScorer) itemLSE(i int) float64 {
	c := len(s.resp)
	e := s.e[i*c : (i+1)*c]
	r := s.resp
	if s.piOK {
		sum := 0.0
		for k, v := range e {
			r[k] = s.pi[k] * v
			sum += r[k] // NaN when some e_ik is kept as a log
		}
		if sum >= productMin && sum <= productMax {
			inv := 1 / sum
			for k := range r {
				r[k] *= inv
			}
			return math.Log(sum)
		}
	}
	// In the log domain.
	top := math.Inf(-1)
	for k, v := range e {
		if math.IsNaN(v) {
			r[k] = s.logPi[k] + s.logE[i*c+k]
		} else {
			r[k] = s.logPi[k] + posLog(v)
		}
		top = max(top, r[k])
	}
	if !(top > math.Inf(-1)) {
		return math.Inf(-1)
	}
	sum := 0.0
	for k, v := range r {
		r[k] = math.Exp(v - top)
		sum += r[k]
	}
	inv := 1 / sum
	for k := range r {
		r[k] *= inv
	}
	return top + math.Log(sum)
}

// steerSimplexHessian replaces the k×k Hessian h of a simplex site at x (gradient
// g) by h + a1ᵀ + 1aᵀ, which has the same parts along the simplex, with a chosen so
// that the Dirichlet proposer's fit α_n = 1 − x_n²(h_nn − max_{j≠n} h_nj) becomes
// α_n = 1 + x_n(g_n + λ): a Dirichlet whose log density has the gradient of the score
// along the simplex, and whose concentration (λ) is the least at which its curvature
// along every cycle of edge directions e_n − e_j of the simplex is at least the
// score's. For a Dirichlet score in the homogeneous form (diagonal h,
// h_nn x_n = −g_n) it gives λ = 0 and a = 0: the fit is unchanged. It leaves h as it
// is when any input is not finite, and when the matched Dirichlet would have some
// α_n < 1 (far from the mode, where it would propose points at the boundary). sc is
// scratch of length at least 2k + 2k².
//
// Derivation: with h̃ = h + a1ᵀ + 1aᵀ the fit is α_n = 1 − x_n²(h_nn + a_n −
// max_{j≠n}(h_nj + a_j)). Asking for α_n = 1 + x_n(g_n + λ) means a_n = max_{j≠n}
// (B_nj + a_j) with B_nj = h_nj − h_nn − (g_n + λ)/x_n: a is a max-plus eigenvector
// of B with eigenvalue 0, which exists exactly when the largest cycle mean of B is
// 0. Cycle means fall as λ grows, so λ is the largest ratio over cycles of
// Σ (h_nj − h_nn − g_n/x_n) to Σ 1/x_n (maxRatioCycle), and a is a column of the
// max-plus closure of B at a node of the critical cycle. Any a keeps the tangent
// part exact, so rounding in a only changes the proposal.
func steerSimplexHessian(h, g, x []float64, k int, sc []float64) {
	for _, v := range h[:k*k] {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
	}
	for n := 0; n < k; n++ {
		if !(x[n] > 0) || math.IsNaN(g[n]) || math.IsInf(g[n], 0) {
			return
		}
	}
	w, a := sc[:k], sc[k:2*k]
	c, d := sc[2*k:2*k+k*k], sc[2*k+k*k:2*k+2*k*k]
	for n := 0; n < k; n++ {
		w[n] = 1 / x[n]
		for j := 0; j < k; j++ {
			if j != n {
				c[n*k+j] = h[n*k+j] - h[n*k+n] - g[n]*w[n]
			}
		}
	}
	lambda := maxRatioCycle(c, w, k, d)
	if math.IsNaN(lambda) || math.IsInf(lambda, 0) {
		return
	}
	// Far from the mode the matched Dirichlet has some α_n < 1 (its mode on the
	// boundary of the simplex) and proposes points there; the Hessian is then left
	// as it is.
	for n := 0; n < k; n++ {
		if !(g[n]+lambda >= 0) {
			return
		}
	}
	// The max-plus closure d of B_nj = c_nj − λ w_n (every cycle has weight ≤ 0), and
	// a = the column of d at a node of a critical cycle: then a_n = max_j (B_nj + a_j).
	for n := 0; n < k; n++ {
		for j := 0; j < k; j++ {
			if j == n {
				d[n*k+j] = 0
			} else {
				d[n*k+j] = c[n*k+j] - lambda*w[n]
			}
		}
	}
	for m := 0; m < k; m++ {
		for n := 0; n < k; n++ {
			for j := 0; j < k; j++ {
				d[n*k+j] = max(d[n*k+j], d[n*k+m]+d[m*k+j])
			}
		}
	}
	crit, best := 0, math.Inf(-1)
	for n := 0; n < k; n++ { // the node whose best cycle is heaviest (≈ 0)
		for j := 0; j < k; j++ {
			if j != n {
				if v := c[n*k+j] - lambda*w[n] + d[j*k+n]; v > best {
					crit, best = n, v
				}
			}
		}
	}
	for n := 0; n < k; n++ {
		a[n] = d[n*k+crit]
	}
	for n := 0; n < k; n++ {
		for j := 0; j < k; j++ {
			h[n*k+j] += a[n] + a[j]
		}
	}
}

// maxRatioCycle returns max over the cycles γ of the complete directed graph on k
// nodes of Σ_{(n→j) ∈ γ} c_nj / Σ_{(n→j) ∈ γ} w_n (w > 0): the λ at which the
// largest cycle mean of c_nj − λ w_n is 0. For k ≤ 3 the cycles are enumerated;
// otherwise λ is found by bisection on the sign of the largest cycle weight (the
// max-plus closure, d is scratch of k²).
func maxRatioCycle(c, w []float64, k int, d []float64) float64 {
	if k == 2 {
		return (c[1] + c[2]) / (w[0] + w[1])
	}
	if k == 3 {
		best := math.Inf(-1)
		for n := 0; n < 3; n++ {
			for j := n + 1; j < 3; j++ {
				best = max(best, (c[n*3+j]+c[j*3+n])/(w[n]+w[j]))
			}
		}
		sw := w[0] + w[1] + w[2]
		best = max(best, (c[0*3+1]+c[1*3+2]+c[2*3+0])/sw, (c[0*3+2]+c[2*3+1]+c[1*3+0])/sw)
		return best
	}
	// Bracket: every cycle ratio lies between the least and the largest c_nj/w_n.
	lo, hi := math.Inf(1), math.Inf(-1)
	for n := 0; n < k; n++ {
		for j := 0; j < k; j++ {
			if j != n {
				lo = min(lo, c[n*k+j]/w[n])
				hi = max(hi, c[n*k+j]/w[n])
			}
		}
	}
	for range 100 {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if positiveCycle(c, w, k, mid, d) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// positiveCycle reports whether some cycle of c_nj − λ w_n has a positive weight
// (Floyd-Warshall in the max-plus semiring; d is scratch of k²).
func positiveCycle(c, w []float64, k int, lambda float64, d []float64) bool {
	for n := 0; n < k; n++ {
		for j := 0; j < k; j++ {
			if j == n {
				d[n*k+j] = math.Inf(-1)
			} else {
				d[n*k+j] = c[n*k+j] - lambda*w[n]
			}
		}
	}
	for m := 0; m < k; m++ {
		for n := 0; n < k; n++ {
			for j := 0; j < k; j++ {
				d[n*k+j] = max(d[n*k+j], d[n*k+m]+d[m*k+j])
			}
		}
		if d[m*k+m] > 0 {
			return true
		}
	}
	for n := 0; n < k; n++ {
		if d[n*k+n] > 0 {
			return true
		}
	}
	return false
}

// scorePiMarginal returns the Dirichlet(conc) log density of pi plus the marginal
// log-likelihood of every item, with the derivatives of annotationMarginal.
func (s *annotationFastScorer) scorePiMarginal(x []float64, grad, hess []float64) float64 {
	f := s.f
	c := f.numClasses
	for m := range s.a {
		s.a[m] = f.conc[m] - 1
	}
	pi := x[f.piOff : f.piOff+c]
	total := dirichletScore(pi, s.a, f.piConst, grad, hess)
	if !(total > math.Inf(-1)) {
		return total
	}
	s.sync(x)
	derivs := grad != nil && hess != nil
	if derivs {
		clear(s.rr)
		clear(s.sumR)
	}
	r := s.resp
	for i := 0; i < f.numItems; i++ {
		total += s.itemLSE(i)
		if !(total > math.Inf(-1)) {
			return math.Inf(-1)
		}
		if derivs {
			for n, rn := range r {
				s.sumR[n] += rn
				row := s.rr[n*c : (n+1)*c]
				for k, rk := range r {
					row[k] += rn * rk
				}
			}
		}
	}
	if derivs {
		for n := 0; n < c; n++ {
			for k := 0; k < c; k++ {
				hess[n*c+k] -= s.rr[n*c+k] / (pi[n] * pi[k])
			}
			grad[n] += s.sumR[n] / pi[n]
		}
		steerSimplexHessian(hess, grad, pi, c, s.adj)
	}
	return total
}

// scoreThetaMarginal returns the Dirichlet(rows[m]) log density of theta[l,m] plus
// the marginal log-likelihood of every item labeler l labelled, with the derivatives
// of annotationMarginal. Only labeler l's items are read.
func (s *annotationFastScorer) scoreThetaMarginal(x []float64, t int, grad, hess []float64) float64 {
	f := s.f
	c := f.numClasses
	l, m := t/c, t%c
	for n := range s.a {
		s.a[n] = f.rows[m][n] - 1
	}
	off := f.thetaOff + t*c
	theta := x[off : off+c]
	total := dirichletScore(theta, s.a, f.rowConst[m], grad, hess)
	if !(total > math.Inf(-1)) {
		return total
	}
	s.sync(x)
	derivs := grad != nil && hess != nil
	r := s.resp
	for p := f.pairStart[l]; p < f.pairStart[l+1]; p++ {
		total += s.itemLSE(int(f.pairItem[p]))
		if !(total > math.Inf(-1)) {
			return math.Inf(-1)
		}
		if !derivs {
			continue
		}
		rm := r[m]
		w := rm * (1 - rm)
		labels := f.pairLabel[f.labelStart[p]:f.labelStart[p+1]]
		for _, y := range labels {
			inv := 1 / theta[y]
			grad[y] += rm * inv
			hess[int(y)*c+int(y)] -= rm * inv * inv
			for _, y2 := range labels {
				hess[int(y)*c+int(y2)] += w * inv / theta[y2]
			}
		}
	}
	if derivs {
		steerSimplexHessian(hess, grad, theta, c, s.adj)
	}
	return total
}

// logJointMarginal returns the log joint with the classes summed out: the Dirichlet
// log densities of pi and every theta row (normalising constants included) plus
// every item's marginal log-likelihood.
func (s *annotationFastScorer) logJointMarginal(x []float64) float64 {
	f := s.f
	total := s.addThetaPriors(x, s.scorePiPrior(x))
	if !(total > math.Inf(-1)) {
		return total
	}
	s.sync(x)
	for i := 0; i < f.numItems && total > math.Inf(-1); i++ {
		total += s.itemLSE(i)
	}
	return total
}
