package graph

// funcInputs is what chaining a Func's outputs needs of its input jets, found
// once per evaluation and shared by the outputs: the first input that depends on
// the active coordinates (−1: none), how many do (m), whether they share one
// structured base (all functions of the same coordinate, or of the same row of a
// MatVec matrix), and otherwise their dense gradients (m×k, in input order).
type funcInputs struct {
	ins        []jet
	first, m   int
	structured bool
	grads      []float64
}

// inputs returns the funcInputs of ins, its dense gradients from the arena.
func (o *jetOps) inputs(ins []jet) funcInputs {
	fi := funcInputs{ins: ins, first: -1, structured: true}
	for a := range ins {
		ja := &ins[a]
		if ja.kind == jConst {
			continue
		}
		fi.m++
		if fi.first < 0 {
			fi.first = a
			fi.structured = ja.kind != jDense
		} else if fi.structured && !sameBase(&ins[fi.first], ja) {
			fi.structured = false
		}
	}
	if fi.first < 0 || fi.structured {
		return fi
	}
	k := o.k
	fi.grads = o.ar.get(fi.m * k)
	p := 0
	for a := fi.first; a < len(ins); a++ {
		if ja := &ins[a]; ja.kind != jConst {
			o.addGrad(fi.grads[p*k:(p+1)*k], 1, ja)
			p++
		}
	}
	return fi
}

// chainInputs returns the jet of φ(ins) given φ's value v and its derivatives in
// the inputs, d1[a] = ∂φ/∂in_a and d2[a·n+b] = ∂²φ/∂in_a∂in_b (n = len(ins)):
//
//	∇φ = Σ_a d1_a ∇in_a,   ∇²φ = Σ_a d1_a ∇²in_a + Σ_ab d2_ab ∇in_a ∇in_bᵀ,
//
// over the inputs that depend on the active coordinates. When those share one
// structured base the result keeps it; otherwise it is dense, built in
// O(m²k + mk²) for m such inputs (the second sum as Σ_a ∇in_a u_aᵀ with
// u_a = Σ_b d2_ab ∇in_b).
func (o *jetOps) chainInputs(fi *funcInputs, v float64, d1, d2 []float64) jet {
	ins, n := fi.ins, len(fi.ins)
	if fi.first < 0 {
		return jet{v: v}
	}
	if fi.structured {
		var gc, hc float64
		for a := fi.first; a < n; a++ {
			ja := &ins[a]
			if ja.kind == jConst {
				continue
			}
			gc += d1[a] * ja.gc
			hc += d1[a] * ja.hc
			row := d2[a*n : (a+1)*n]
			for b := fi.first; b < n; b++ {
				if jb := &ins[b]; jb.kind != jConst {
					hc += row[b] * ja.gc * jb.gc
				}
			}
		}
		b0 := &ins[fi.first]
		return jet{v: v, kind: b0.kind, i: b0.i, m: b0.m, gc: gc, hc: hc}
	}
	k := o.k
	g, h, u := o.ar.get(k), o.ar.get(k*k), o.ar.get(k)
	p := 0
	for a := fi.first; a < n; a++ {
		ja := &ins[a]
		if ja.kind == jConst {
			continue
		}
		ga := fi.grads[p*k : (p+1)*k]
		for i := range g {
			g[i] += d1[a] * ga[i]
		}
		o.addHess(h, d1[a], ja)
		// h += ∇in_a u_aᵀ, u_a = Σ_b d2_ab ∇in_b.
		clear(u)
		q := 0
		for b := fi.first; b < n; b++ {
			if ins[b].kind == jConst {
				continue
			}
			if c := d2[a*n+b]; c != 0 {
				gb := fi.grads[q*k : (q+1)*k]
				for i := range u {
					u[i] += c * gb[i]
				}
			}
			q++
		}
		for i, gi := range ga {
			if gi == 0 {
				continue
			}
			hi := h[i*k : (i+1)*k]
			for j := range hi {
				hi[j] += gi * u[j]
			}
		}
		p++
	}
	return jet{v: v, kind: jDense, g: g, h: h}
}

// addGrad adds c·∇j to dst (length k).
func (o *jetOps) addGrad(dst []float64, c float64, j *jet) {
	switch j.kind {
	case jUnit:
		dst[j.i] += c * j.gc
	case jRow:
		for p, r := range j.m.row(j.i) {
			dst[p] += c * j.gc * r
		}
	case jDense:
		for p, g := range j.g {
			dst[p] += c * g
		}
	}
}

// addHess adds c·∇²j to dst (k×k, row-major).
func (o *jetOps) addHess(dst []float64, c float64, j *jet) {
	k := o.k
	switch j.kind {
	case jUnit:
		dst[j.i*k+j.i] += c * j.hc
	case jRow:
		if s := c * j.hc; s != 0 {
			r := j.m.row(j.i)
			for p := 0; p < k; p++ {
				sp := s * r[p]
				dp := dst[p*k : (p+1)*k]
				for q := range dp {
					dp[q] += sp * r[q]
				}
			}
		}
	case jDense:
		for p, h := range j.h {
			dst[p] += c * h
		}
	}
}
