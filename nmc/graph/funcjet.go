package graph

// chainInputs returns the jet of φ(ins) given φ's value v and its derivatives in
// the inputs, d1[a] = ∂φ/∂in_a and d2[a·n+b] = ∂²φ/∂in_a∂in_b (n = len(ins)):
//
//	∇φ = Σ_a d1_a ∇in_a,   ∇²φ = Σ_a d1_a ∇²in_a + Σ_ab d2_ab ∇in_a ∇in_bᵀ,
//
// over the inputs that depend on the active coordinates. When those share one
// structured base (all functions of the same coordinate, or of the same row of a
// MatVec matrix) the result keeps it; otherwise it is dense, built in
// O(m²k + mk²) for m such inputs (the second sum as Σ_a ∇in_a u_aᵀ with
// u_a = Σ_b d2_ab ∇in_b).
func (o *jetOps) chainInputs(ins []jet, v float64, d1, d2 []float64) jet {
	n := len(ins)
	first, m, structured := -1, 0, true
	for a := range ins {
		ja := &ins[a]
		if ja.kind == jConst {
			continue
		}
		m++
		if first < 0 {
			first = a
			structured = ja.kind != jDense
		} else if structured && !sameBase(&ins[first], ja) {
			structured = false
		}
	}
	if first < 0 {
		return jet{v: v}
	}
	if structured {
		var gc, hc float64
		for a := first; a < n; a++ {
			ja := &ins[a]
			if ja.kind == jConst {
				continue
			}
			gc += d1[a] * ja.gc
			hc += d1[a] * ja.hc
			row := d2[a*n : (a+1)*n]
			for b := first; b < n; b++ {
				if jb := &ins[b]; jb.kind != jConst {
					hc += row[b] * ja.gc * jb.gc
				}
			}
		}
		b0 := &ins[first]
		return jet{v: v, kind: b0.kind, i: b0.i, m: b0.m, gc: gc, hc: hc}
	}
	k := o.k
	g, h := o.ar.get(k), o.ar.get(k*k)
	grads := o.ar.get(m * k) // the inputs' dense gradients, in order
	u := o.ar.get(k)
	p := 0
	for a := first; a < n; a++ {
		ja := &ins[a]
		if ja.kind == jConst {
			continue
		}
		ga, ha := o.densify(ja)
		copy(grads[p*k:(p+1)*k], ga)
		for i := range g {
			g[i] += d1[a] * ga[i]
		}
		for i := range h {
			h[i] += d1[a] * ha[i]
		}
		p++
	}
	p = 0
	for a := first; a < n; a++ {
		if ins[a].kind == jConst {
			continue
		}
		clear(u)
		q := 0
		for b := first; b < n; b++ {
			if ins[b].kind == jConst {
				continue
			}
			if c := d2[a*n+b]; c != 0 {
				gb := grads[q*k : (q+1)*k]
				for i := range u {
					u[i] += c * gb[i]
				}
			}
			q++
		}
		ga := grads[p*k : (p+1)*k]
		for i := 0; i < k; i++ {
			if ga[i] == 0 {
				continue
			}
			hi := h[i*k : (i+1)*k]
			for j := range hi {
				hi[j] += ga[i] * u[j]
			}
		}
		p++
	}
	return jet{v: v, kind: jDense, g: g, h: h}
}
