package graph

import "math"

// backwardRho returns the log marginal likelihood and its derivatives when only the
// initial distribution ρ depends on the active site (Gamma and the emissions do
// not): p(y) = Σ_j ρ_j ω₀(j) β₀(j), where the backward message β₀(j) = p(y_{1:} |
// z₀ = j) does not depend on ρ, so one backward pass of values, O(N·K²) numbers,
// replaces the forward recursion's blocks of 1 + K + K² floats. With b_j = ω₀(j)
// β₀(j) and Z = Σ_j ρ_j b_j: ∇ log Z = Σ_j b_j ∇ρ_j / Z and ∇² log Z = Σ_j b_j ∇²ρ_j
// / Z − ∇Z ∇Zᵀ / Z². The backward messages are rescaled at every step (their scale
// only adds to log p(y)). It returns false, having computed nothing of use, when
// an emission turns out to depend on the active site (a log_omega that is not
// planned by distinct datum, read step by step), or when a normaliser is 0 (no
// path explains the data, or the scaling underflowed: forward decides).
func (o *hmmOp) backwardRho(s *scorer, x *hmmScratch, lw *Node) (jet, bool) {
	K, N, k := o.states, o.steps, s.ops.k
	// x.prev holds β̃_t (K values), x.cur the next ones; both have room for K blocks.
	beta, next := x.prev[:K], x.cur[:K]
	for j := range beta {
		beta[j] = 1
	}
	sumM, acc, expo := 0.0, 1.0, 0
	for t := N - 1; t >= 0; t-- {
		_, omv, m, live, bad, ok := o.emissions(s, x, lw, t)
		if live {
			return jet{}, false
		}
		if !ok {
			return jet{v: bad}, true
		}
		sumM += m
		for j := range beta {
			beta[j] *= omv[j] // b_t(j) = ω_t(j) β̃_t(j)
		}
		if t == 0 {
			break
		}
		sum := 0.0
		for i := 0; i < K; i++ {
			v := 0.0
			for j := 0; j < K; j++ {
				v += x.gam[i*K+j].v * beta[j]
			}
			next[i] = v
			sum += v
		}
		if !(sum > 0) || math.IsInf(sum, 1) {
			// 0: no path, or an underflow the forward algorithm's rescaling avoids.
			return jet{v: badNormaliser(sum)}, sum != 0
		}
		inv := 1 / sum
		for i := range next {
			next[i] *= inv
		}
		if acc *= sum; !(acc >= 0x1p-500 && acc <= 0x1p500) {
			f, e := math.Frexp(acc)
			acc, expo = f, expo+e
		}
		beta, next = next, beta
	}
	// beta holds b_j = ω₀(j) β̃₀(j).
	z := 0.0
	for j := range beta {
		z += x.rho[j].v * beta[j]
	}
	if !(z > 0) || math.IsInf(z, 1) {
		return jet{v: badNormaliser(z)}, z != 0
	}
	e := float64(expo)
	v := sumM + math.Log(z) + (math.Log(acc) + e*hmmLn2Lo + e*hmmLn2Hi)
	g, h := s.ops.ar.get(k), s.ops.ar.get(k*k)
	inv := 1 / z
	for j := range beta {
		c := beta[j] * inv
		addGradOf(g, c, &x.rho[j])
		addHessOf(h, k, c, &x.rho[j])
	}
	addRowOuter(h, k, -1, g, g)
	return jet{v: v, kind: jDense, g: g, h: h}, true
}
