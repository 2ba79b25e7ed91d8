package graph

// Dense accumulators of jets' derivatives, for operations that combine many jets of
// different bases into dense gradients and Hessians of their own (the hidden Markov
// model's forward recursion). g has k entries and h k×k, row-major; each call adds
// to them.

// addGradOf adds c·∇j to g.
func addGradOf(g []float64, c float64, j *jet) {
	switch j.kind {
	case jUnit:
		g[j.i] += c * j.gc
	case jRow:
		cg := c * j.gc
		for p, r := range j.m.row(j.i)[:len(g)] {
			g[p] += cg * r
		}
	case jDense:
		for p, v := range j.g[:len(g)] {
			g[p] += c * v
		}
	}
}

// addHessOf adds c·∇²j to h.
func addHessOf(h []float64, k int, c float64, j *jet) {
	switch j.kind {
	case jUnit:
		h[j.i*k+j.i] += c * j.hc
	case jRow:
		if j.hc != 0 {
			addRowOuter(h, k, c*j.hc, j.m.row(j.i), j.m.row(j.i))
		}
	case jDense:
		for p, v := range j.h[:k*k] {
			h[p] += c * v
		}
	}
}

// addSelfOuter adds c·∇j ∇jᵀ to h.
func addSelfOuter(h []float64, k int, c float64, j *jet) {
	switch j.kind {
	case jUnit:
		h[j.i*k+j.i] += c * j.gc * j.gc
	case jRow:
		addRowOuter(h, k, c*j.gc*j.gc, j.m.row(j.i), j.m.row(j.i))
	case jDense:
		addRowOuter(h, k, c, j.g, j.g)
	}
}

// addSymOuter adds c·(v ∇jᵀ + ∇j vᵀ) to h, v a dense vector of k entries.
func addSymOuter(h []float64, k int, c float64, v []float64, j *jet) {
	switch j.kind {
	case jUnit:
		cg, i := c*j.gc, j.i
		for p, vp := range v[:k] {
			h[p*k+i] += cg * vp
			h[i*k+p] += cg * vp
		}
	case jRow:
		r := j.m.row(j.i)
		cg := c * j.gc
		addRowOuter(h, k, cg, v, r)
		addRowOuter(h, k, cg, r, v)
	case jDense:
		addRowOuter(h, k, c, v, j.g)
		addRowOuter(h, k, c, j.g, v)
	}
}

// addCrossOuter adds c·∇a ∇bᵀ to h.
func addCrossOuter(h []float64, k int, c float64, a, b *jet) {
	if a.kind == jUnit && b.kind == jUnit {
		h[a.i*k+b.i] += c * a.gc * b.gc
		return
	}
	ga, ca := gradVector(a)
	gb, cb := gradVector(b)
	switch {
	case a.kind == jUnit:
		for q, v := range gb[:k] {
			h[a.i*k+q] += c * a.gc * cb * v
		}
	case b.kind == jUnit:
		for p, v := range ga[:k] {
			h[p*k+b.i] += c * b.gc * ca * v
		}
	default:
		addRowOuter(h, k, c*ca*cb, ga, gb)
	}
}

// gradVector returns a vector u and a factor f with ∇j = f·u for a row or dense
// jet (nil for the others).
func gradVector(j *jet) ([]float64, float64) {
	switch j.kind {
	case jRow:
		return j.m.row(j.i), j.gc
	case jDense:
		return j.g, 1
	}
	return nil, 0
}

// addRowOuter adds c·u vᵀ to h (k×k).
func addRowOuter(h []float64, k int, c float64, u, v []float64) {
	if c == 0 {
		return
	}
	v = v[:k]
	for p, up := range u[:k] {
		if up == 0 {
			continue
		}
		cu := c * up
		hp := h[p*k : p*k+k]
		for q, vq := range v {
			hp[q] += cu * vq
		}
	}
}
