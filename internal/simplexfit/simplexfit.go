// Package simplexfit steers the Hessian that a model reports for a simplex site so
// that nmc's Dirichlet proposer, which fits its concentration from the Hessian alone,
// proposes well from a score that is not a Dirichlet in the homogeneous form: a
// mixture's marginal likelihood, where a discrete latent has been summed out. The
// marginalised discrete latents of nmc/graph use it (the Dawid-Skene model of package
// models with its classes summed out among them).
package simplexfit

import "math"

// ScratchLen returns the length of the scratch slice SteerHessian needs for a simplex
// of k coordinates.
func ScratchLen(k int) int { return 2*k + 2*k*k }

// SteerHessian replaces the k×k Hessian h of a simplex site at x (gradient
// g) by h + a1ᵀ + 1aᵀ, which has the same parts along the simplex, with a chosen so
// that the Dirichlet proposer's fit α_n = 1 − x_n²(h_nn − max_{j≠n} h_nj) becomes
// α_n = 1 + x_n(g_n + λ): a Dirichlet whose log density has the gradient of the score
// along the simplex, and whose concentration (λ) is the least at which its curvature
// along every cycle of edge directions e_n − e_j of the simplex is at least the
// score's. For a Dirichlet score in the homogeneous form (diagonal h,
// h_nn x_n = −g_n) it gives λ = 0 and a = 0: the fit is unchanged. It leaves h as it
// is when any input is not finite, and when the matched Dirichlet would have some
// α_n < 1 (far from the mode, where it would propose points at the boundary). sc is
// scratch of length at least ScratchLen(k).
//
// Derivation: with h̃ = h + a1ᵀ + 1aᵀ the fit is α_n = 1 − x_n²(h_nn + a_n −
// max_{j≠n}(h_nj + a_j)). Asking for α_n = 1 + x_n(g_n + λ) means a_n = max_{j≠n}
// (B_nj + a_j) with B_nj = h_nj − h_nn − (g_n + λ)/x_n: a is a max-plus eigenvector
// of B with eigenvalue 0, which exists exactly when the largest cycle mean of B is
// 0. Cycle means fall as λ grows, so λ is the largest ratio over cycles of
// Σ (h_nj − h_nn − g_n/x_n) to Σ 1/x_n (maxRatioCycle), and a is a column of the
// max-plus closure of B at a node of the critical cycle. Any a keeps the tangent
// part exact, so rounding in a only changes the proposal.
func SteerHessian(h, g, x []float64, k int, sc []float64) {
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

// DirichletFit returns the concentrations nmc's simplex proposer fits to the Hessian
// h of a score at x (without its floor): α_n = 1 − x_n²(h_nn − max_{j≠n} h_nj).
// SteerHessian's tests check what this fit becomes after steering.
func DirichletFit(x, h []float64) []float64 {
	k := len(x)
	a := make([]float64, k)
	for n := range a {
		m := math.Inf(-1)
		for j := 0; j < k; j++ {
			if j != n {
				m = max(m, h[n*k+j])
			}
		}
		a[n] = 1 - x[n]*x[n]*(h[n*k+n]-m)
	}
	return a
}
