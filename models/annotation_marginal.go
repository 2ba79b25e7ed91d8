package models

import (
	"math"
	"slices"

	"github.com/nmc-go/nmc/internal/simplexfit"
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
// simplexfit.SteerHessian so that the proposer's fit becomes the Dirichlet with the
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
	adj   []float64 // scratch of simplexfit.SteerHessian
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
	s.adj = make([]float64, simplexfit.ScratchLen(c))
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
		simplexfit.SteerHessian(hess, grad, pi, c, s.adj)
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
		simplexfit.SteerHessian(hess, grad, theta, c, s.adj)
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
