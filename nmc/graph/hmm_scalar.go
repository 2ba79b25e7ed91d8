package graph

import "math"

// The forward recursion's steps for an active site of one coordinate (an emission
// rate, an orbit parameter), the common case: a block is (value, ∂, ∂²), and the
// jets' derivatives are scalars (scalarDerivs), so the steps of hmm.go reduce to a
// few multiply-adds per state.

// scalarDerivs returns the first and second derivatives of a jet in the one
// coordinate of the active site.
func scalarDerivs(j *jet) (g, h float64) {
	switch j.kind {
	case jUnit:
		return j.gc, j.hc
	case jRow:
		r := j.m.row(j.i)[0]
		return j.gc * r, j.hc * r * r
	case jDense:
		return j.g[0], j.h[0]
	}
	return 0, 0
}

// transition1 is transition for one coordinate.
func (x *hmmScratch) transition1(prev, cur []float64, K int, gamLive bool) {
	for j := 0; j < K; j++ {
		v, g, h := 0.0, 0.0, 0.0
		for i := 0; i < K; i++ {
			gij := &x.gam[i*K+j]
			c, p := gij.v, prev[3*i:3*i+3]
			v += c * p[0]
			g += c * p[1]
			h += c * p[2]
			if gamLive && gij.kind != jConst {
				dg, dh := scalarDerivs(gij)
				g += p[0] * dg
				h += p[0]*dh + 2*p[1]*dg
			}
		}
		cur[3*j], cur[3*j+1], cur[3*j+2] = v, g, h
	}
}

// emit1 is emit for one coordinate.
func (x *hmmScratch) emit1(cur []float64, om []jet, omv []float64, K int) {
	for j := 0; j < K; j++ {
		b := cur[3*j : 3*j+3]
		w := omv[j]
		if w == 0 {
			b[0], b[1], b[2] = 0, 0, 0
			continue
		}
		sv, sg, sh := b[0], b[1], b[2]
		if om[j].kind != jConst {
			lg, lh := scalarDerivs(&om[j])
			sh += sv*(lh+lg*lg) + 2*sg*lg
			sg += sv * lg
		}
		b[0], b[1], b[2] = w*sv, w*sg, w*sh
	}
}

// normalise1 is normalise for one coordinate.
func (x *hmmScratch) normalise1(cur []float64, K int) (float64, bool) {
	cv, cg, ch := 0.0, 0.0, 0.0
	for j := 0; j < K; j++ {
		cv += cur[3*j]
		cg += cur[3*j+1]
		ch += cur[3*j+2]
	}
	if !(cv > 0) || math.IsInf(cv, 1) {
		return badNormaliser(cv), false
	}
	inv := 1 / cv
	gp := cg * inv
	x.total[1] += gp
	x.total[2] += ch*inv - gp*gp
	for j := 0; j < K; j++ {
		b := cur[3*j : 3*j+3]
		av := b[0] * inv
		ag := (b[1] - av*cg) * inv
		b[0], b[1], b[2] = av, ag, (b[2]-av*ch-2*ag*cg)*inv
	}
	return cv, true
}
