package graph

// The second-order chain rule into a jet, for operations of several arguments whose
// first and second derivatives in those arguments are known numbers (LogMix,
// LogDensity, the transforms of constrained latents): f(a₁, …, aₙ) with
// ∇f = Σ ∂ᵢf ∇aᵢ and ∇²f = Σ ∂ᵢf ∇²aᵢ + Σᵢⱼ ∂ᵢⱼf ∇aᵢ∇aⱼᵀ, as Func's outputs are
// chained (funcjet.go). When every argument that is not constant has one base (one
// coordinate, or one row of one matrix), the result keeps that base; otherwise it
// is dense. LogSumExp has a form of its own (logSumExp).

// commonBase returns a non-constant jet of args whose base every other non-constant
// jet shares, and true; nil and true when all are constant; false when two bases
// differ or a jet is dense.
func commonBase(args []jet) (*jet, bool) {
	var b *jet
	for i := range args {
		a := &args[i]
		switch a.kind {
		case jConst:
			continue
		case jDense:
			return nil, false
		}
		if b == nil {
			b = a
		} else if !sameBase(b, a) {
			return nil, false
		}
	}
	return b, true
}

// addOuter adds w·u·vᵀ to h.
func (o *jetOps) addOuter(h []float64, w float64, u, v []float64) {
	k := o.k
	for p, up := range u {
		if up == 0 {
			continue
		}
		c, hp := w*up, h[p*k:p*k+k]
		for q, vq := range v {
			hp[q] += c * vq
		}
	}
}

// chainJet returns the jet of f(args) whose value is v, first derivatives d1
// (len(args)) and second derivatives d2 (len(args)², row-major, symmetric) in the
// arguments: Func's chaining (chainInputs).
func (o *jetOps) chainJet(v float64, args []jet, d1, d2 []float64) jet {
	fi := o.inputs(args)
	return o.chainInputs(&fi, v, d1, d2)
}
