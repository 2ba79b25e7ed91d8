package graph

import "math"

// The forward algorithm in logarithms, for the states the scaled one cannot hold.
//
// The scaled recursion (forward) keeps each step's filtered probabilities in
// float64, so a path whose share falls below about 2^−1022 of the step's best is
// dropped. That changes nothing unless a transition probability is below about
// 2^−840 (zero included): every path that stays in range then reaches every state
// with at least that weight, and what was dropped stays below the rounding. With
// such a transition matrix a dropped path can be the only one left when the
// others are made impossible (a left-to-right model whose first datum the wrong
// state explains e^7700 times better: the scaled value was 24 nats too low,
// found by FuzzModel). forward then notices the loss (hmmScratch.lost) and takes
// this pass: log α_t(j) = log ω_t(j) + log Σ_i exp(log α_{t−1}(i) + log Γ_ij),
// each a block with its gradient and Hessian, every sum a stable log-sum-exp.

// minScaledGamma is the least transition probability (other than 0 for a
// structural zero the loss check sees) with which the scaled recursion's
// dropped paths stay below the rounding.
const minScaledGamma = 0x1p-840

// gamTiny reports whether some transition probability is below minScaledGamma.
func (x *hmmScratch) gamTiny(K int) bool {
	for _, g := range x.gam[:K*K] {
		if g.v < minScaledGamma {
			return true
		}
	}
	return false
}

// lost reports whether step t's filtered probabilities cur dropped a state that
// some path reaches: a share below 2^−900 of a state whose emission is not −Inf
// and which a state of prev (the step before; rho at t = 0) reaches with a
// transition probability above 0.
func (x *hmmScratch) lost(prev, cur []float64, om []jet, K, w, t int) bool {
	for j := 0; j < K; j++ {
		if cur[j*w] >= 0x1p-900 || math.IsInf(om[j].v, -1) {
			continue
		}
		if t == 0 {
			if x.rho[j].v > 0 {
				return true
			}
			continue
		}
		for i := 0; i < K; i++ {
			if prev[i*w] > 0 && x.gam[i*K+j].v > 0 {
				return true
			}
		}
	}
	return false
}

// forwardLog is forward in logarithms (see above), from x.gam and x.rho as forward
// evaluated them; with filt non-nil it writes the filtered probabilities.
func (o *hmmOp) forwardLog(s *scorer, x *hmmScratch, lw *Node, filt []float64) jet {
	K, N, k := o.states, o.steps, s.ops.k
	w := 1 + k + k*k
	if len(x.logTerms) < K*w {
		x.logTerms = make([]float64, K*w)
	}
	prev, cur, terms := x.prev[:K*w], x.cur[:K*w], x.logTerms[:K*w]
	live := false
	for j := 0; j < K; j++ {
		live = live || x.rho[j].kind != jConst
		for i := 0; i < K; i++ {
			live = live || x.gam[i*K+j].kind != jConst
		}
	}
	for t := 0; t < N; t++ {
		om, _, _, omLive, bad, ok := o.emissions(s, x, lw, t)
		if !ok {
			return jet{v: bad}
		}
		live = live || omLive
		for j := 0; j < K; j++ {
			b := cur[j*w : (j+1)*w]
			if t == 0 {
				logJetBlock(b, &x.rho[j], k)
			} else {
				for i := 0; i < K; i++ {
					ti := terms[i*w : (i+1)*w]
					logJetBlock(ti, &x.gam[i*K+j], k)
					addBlock(ti, prev[i*w:(i+1)*w])
				}
				logSumExpBlocks(b, terms, K, k)
			}
			if math.IsInf(om[j].v, -1) {
				clear(b)
				b[0] = math.Inf(-1)
				continue
			}
			b[0] += om[j].v
			addGradOf(b[1:1+k], 1, &om[j])
			addHessOf(b[1+k:w], k, 1, &om[j])
		}
		if filt != nil {
			lse := math.Inf(-1)
			for j := 0; j < K; j++ {
				lse = logAddExp(lse, cur[j*w])
			}
			for j := 0; j < K; j++ {
				filt[t*K+j] = 0
				if !math.IsInf(lse, -1) {
					filt[t*K+j] = math.Exp(cur[j*w] - lse)
				}
			}
		}
		prev, cur = cur, prev
	}
	total := x.total[:w]
	logSumExpBlocks(total, prev, K, k)
	if !live || k == 0 || math.IsInf(total[0], 0) {
		return jet{v: total[0]}
	}
	g, h := s.ops.ar.get(k), s.ops.ar.get(k*k)
	copy(g, total[1:1+k])
	copy(h, total[1+k:w])
	return jet{v: total[0], kind: jDense, g: g, h: h}
}

// logJetBlock writes log p for the jet p into the block b (value, gradient,
// Hessian in k coordinates): ∇p/p and ∇²p/p − ∇p∇pᵀ/p²; log 0 = −Inf with no
// derivatives.
func logJetBlock(b []float64, p *jet, k int) {
	clear(b)
	if !(p.v > 0) {
		b[0] = math.Inf(-1)
		return
	}
	b[0] = math.Log(p.v)
	if p.kind == jConst || k == 0 {
		return
	}
	g, h := b[1:1+k], b[1+k:]
	addGradOf(g, 1/p.v, p)
	addHessOf(h, k, 1/p.v, p)
	for a := 0; a < k; a++ {
		for c := 0; c < k; c++ {
			h[a*k+c] -= g[a] * g[c]
		}
	}
}

// addBlock adds the block a to b (a −Inf value makes b's −Inf).
func addBlock(b, a []float64) {
	for i := range b {
		b[i] += a[i]
	}
}

// logSumExpBlocks writes log Σ_i exp(a_i) of the K blocks a (each 1 + k + k²
// floats) into b: with p_i = exp(a_i − b), ∇b = Σ p_i ∇a_i and ∇²b = Σ p_i (∇²a_i +
// ∇a_i ∇a_iᵀ) − ∇b ∇bᵀ. Blocks of value −Inf are left out; b is −Inf with no
// derivatives when all are.
func logSumExpBlocks(b, a []float64, K, k int) {
	w := 1 + k + k*k
	clear(b)
	m := math.Inf(-1)
	for i := 0; i < K; i++ {
		m = max(m, a[i*w])
	}
	if math.IsInf(m, -1) || math.IsNaN(m) {
		b[0] = m
		return
	}
	sum := 0.0
	for i := 0; i < K; i++ {
		sum += math.Exp(a[i*w] - m)
	}
	b[0] = m + math.Log(sum)
	if k == 0 {
		return
	}
	g, h := b[1:1+k], b[1+k:w]
	for i := 0; i < K; i++ {
		ai := a[i*w : (i+1)*w]
		if math.IsInf(ai[0], -1) {
			continue
		}
		p := math.Exp(ai[0] - b[0])
		gi, hi := ai[1:1+k], ai[1+k:w]
		for c := 0; c < k; c++ {
			g[c] += p * gi[c]
		}
		for c := 0; c < k; c++ {
			for d := 0; d < k; d++ {
				h[c*k+d] += p * (hi[c*k+d] + gi[c]*gi[d])
			}
		}
	}
	for c := 0; c < k; c++ {
		for d := 0; d < k; d++ {
			h[c*k+d] -= g[c] * g[d]
		}
	}
}

// logAddExp returns log(e^a + e^b).
func logAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(a, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}
