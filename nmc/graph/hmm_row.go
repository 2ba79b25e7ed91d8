package graph

import "math"

// liveRow returns the one row of Gamma whose entries depend on the active site, or
// −1 when none or several do.
func (x *hmmScratch) liveRow(K int) int {
	r := -1
	for i := 0; i < K; i++ {
		for j := 0; j < K; j++ {
			if x.gam[i*K+j].kind != jConst {
				if r >= 0 && r != i {
					return -1
				}
				r = i
			}
		}
	}
	return r
}

// rowOnly returns the log marginal likelihood and its derivatives when only row r
// of Gamma depends on the active site (a transition row's simplex), forward over
// reverse: the derivatives are taken first in the K entries of the row, then chained
// to the site's coordinates through the entries' jets. With the forward variables
// ã_t normalised by s_t = Σ_j a_t(j) (the forward algorithm's c_t, kept as constants)
// and the backward ones β̃_{t−1} = Γ D_t β̃_t / s_t, β̃_{N−1} = 1, p̃ = Σ_j ã_t(j) β̃_t(j)
// for every t and
//
//	∂p̃/∂Γ_rc = Σ_{t≥1} β̃_t(c) ω_t(c) ã_{t−1}(r) / s_t,
//	∂²p̃/∂Γ_rc∂Γ_rd = Σ_{t≥1} (∂β̃_t(c)/∂Γ_rd · ã_{t−1}(r) + β̃_t(c) · ∂ã_{t−1}(r)/∂Γ_rd) ω_t(c) / s_t,
//
// with the tangents ∂ã/∂Γ_r· carried forward and ∂β̃/∂Γ_r· backward: O(K³) per step
// instead of the forward recursion's blocks of K·(1 + k + k²). The forward pass
// keeps, per step, ω_t, s_t, ã_{t−1}(r) and its tangents. It returns false, having
// computed nothing of use, when an emission depends on the active site.
func (o *hmmOp) rowOnly(s *scorer, x *hmmScratch, lw *Node, r int) (jet, bool) {
	K, N, k := o.states, o.steps, s.ops.k
	x.growRow(N, K)
	a, ad := x.ra, x.rad // ã_t and ∂ã_t(j)/∂Γ_rd at ad[j·K+d]
	na, nad := x.rb, x.rbd
	om, st, ar, ard := x.rOm[:N*K], x.rS[:N], x.rAr[:N], x.rArd[:N*K]
	sumM, acc, expo := 0.0, 1.0, 0
	for t := 0; t < N; t++ {
		_, omv, m, live, bad, ok := o.emissions(s, x, lw, t)
		if live {
			return jet{}, false
		}
		if !ok {
			return jet{v: bad}, true
		}
		sumM += m
		w := om[t*K : (t+1)*K]
		copy(w, omv)
		if t == 0 {
			for j := range a {
				a[j] = x.rho[j].v * w[j]
			}
			clear(ad)
		} else {
			ar[t] = a[r]
			copy(ard[t*K:(t+1)*K], ad[r*K:(r+1)*K])
			for j := 0; j < K; j++ {
				v := 0.0
				dj := nad[j*K : (j+1)*K]
				clear(dj)
				for i := 0; i < K; i++ {
					g := x.gam[i*K+j].v
					v += g * a[i]
					if g != 0 {
						for d, u := range ad[i*K : (i+1)*K] {
							dj[d] += g * u
						}
					}
				}
				dj[j] += a[r]
				na[j] = w[j] * v
				for d := range dj {
					dj[d] *= w[j]
				}
			}
			a, na = na, a
			ad, nad = nad, ad
		}
		sum := 0.0
		for _, v := range a {
			sum += v
		}
		if !(sum > 0) || math.IsInf(sum, 1) {
			return jet{v: badNormaliser(sum)}, true
		}
		st[t] = sum
		inv := 1 / sum
		for j := range a {
			a[j] *= inv
		}
		for p := range ad {
			ad[p] *= inv
		}
		if acc *= sum; !(acc >= 0x1p-500 && acc <= 0x1p500) {
			f, e := math.Frexp(acc)
			acc, expo = f, expo+e
		}
	}
	pt := 0.0 // p̃ = Σ_j ã_{N−1}(j), 1 to rounding
	for _, v := range a {
		pt += v
	}

	// Backward: β̃_t and ∂β̃_t(j)/∂Γ_rd, accumulating ∂p̃ (G) and ∂²p̃ (H) in the
	// row's entries.
	b, bd, nb, nbd := x.ra, x.rad, x.rb, x.rbd // the forward values are no longer needed
	G, H := x.rG[:K], x.rH[:K*K]
	clear(G)
	clear(H)
	for j := range b {
		b[j] = 1
	}
	clear(bd)
	for t := N - 1; t >= 1; t-- {
		w := om[t*K : (t+1)*K]
		inv := 1 / st[t]
		at, atd := ar[t], ard[t*K:(t+1)*K]
		for c := 0; c < K; c++ {
			wc := w[c] * inv
			G[c] += b[c] * wc * at
			hc := H[c*K : (c+1)*K]
			bc := bd[c*K : (c+1)*K]
			for d := range hc {
				hc[d] += wc * (bc[d]*at + b[c]*atd[d])
			}
		}
		if t == 1 {
			break
		}
		// β̃_{t−1}(i) = Σ_j Γ_ij ω_t(j) β̃_t(j) / s_t, and its tangents, with
		// ∂Γ_ij/∂Γ_rd = [i = r][j = d].
		for i := 0; i < K; i++ {
			v := 0.0
			di := nbd[i*K : (i+1)*K]
			clear(di)
			for j := 0; j < K; j++ {
				g := x.gam[i*K+j].v * w[j]
				v += g * b[j]
				if g != 0 {
					for d, u := range bd[j*K : (j+1)*K] {
						di[d] += g * u
					}
				}
			}
			nb[i] = v * inv
			for d := range di {
				di[d] *= inv
			}
			if i == r {
				for d := range di {
					di[d] += w[d] * b[d] * inv
				}
			}
		}
		b, nb = nb, b
		bd, nbd = nbd, bd
	}

	// log p = log p̃ + Σ log s_t + Σ m_t; in the row's entries ∇ = G/p̃ and
	// ∇² = H/p̃ − ∇∇ᵀ; then through the entries' jets to the site's coordinates.
	e := float64(expo)
	v := sumM + math.Log(pt) + (math.Log(acc) + e*hmmLn2Lo + e*hmmLn2Hi)
	g, h := s.ops.ar.get(k), s.ops.ar.get(k*k)
	inv := 1 / pt
	row := x.gam[r*K : (r+1)*K]
	for c := range row {
		gc := G[c] * inv
		if row[c].kind == jConst {
			continue
		}
		addGradOf(g, gc, &row[c])
		addHessOf(h, k, gc, &row[c])
		for d := range row {
			if row[d].kind == jConst {
				continue
			}
			hcd := 0.5*(H[c*K+d]+H[d*K+c])*inv - gc*G[d]*inv
			if hcd != 0 {
				addCrossOuter(h, k, hcd, &row[c], &row[d])
			}
		}
	}
	return jet{v: v, kind: jDense, g: g, h: h}, true
}

// growRow sizes rowOnly's buffers for N steps and K states.
func (x *hmmScratch) growRow(N, K int) {
	if len(x.ra) < K {
		x.ra, x.rb = make([]float64, K), make([]float64, K)
		x.rad, x.rbd = make([]float64, K*K), make([]float64, K*K)
		x.rG, x.rH = make([]float64, K), make([]float64, K*K)
	}
	if len(x.rS) < N || len(x.rOm) < N*K {
		x.rOm, x.rS = make([]float64, N*K), make([]float64, N)
		x.rAr, x.rArd = make([]float64, N), make([]float64, N*K)
	}
	x.ra, x.rb, x.rad, x.rbd = x.ra[:K], x.rb[:K], x.rad[:K*K], x.rbd[:K*K]
}
