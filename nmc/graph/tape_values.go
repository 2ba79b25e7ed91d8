package graph

import "math"

// A tape's runs of values alone: its pre (kept while the coordinates it loads
// keep their bits) and the score without derivatives (tape.go).

// runPre runs t's pre on the running tape's slots unless they hold its results
// from coordinates of the same bits as x's.
func (tr *tapeRun) runPre(t *tape, x []float64) {
	if len(t.pre) == 0 {
		return
	}
	sl := tr.cur[:t.slots]
	if *tr.curPre {
		same := true
		for _, in := range t.pre[:t.preLoads] {
			same = same && math.Float64bits(x[in.a]) == math.Float64bits(sl[in.out].v)
		}
		if same {
			return
		}
	}
	runValueCode(t.pre, t.chains, sl, x)
	*tr.curPre = true
	tr.preRuns++
}

// runValueCode runs code, instructions of values alone (tLoad, those with
// suffix C and chains of them, their links in chains), on slots sl at
// coordinates x.
func runValueCode(code, chains []tinst, sl []tslot, x []float64) {
	for pc := range code {
		in := &code[pc]
		switch in.op {
		case tLoad:
			sl[in.out].v = x[in.a]
		case tAddC:
			sl[in.out].v = sl[in.a].v + sl[in.b].v
		case tSubC:
			sl[in.out].v = sl[in.a].v - sl[in.b].v
		case tMulC:
			sl[in.out].v = sl[in.a].v * sl[in.b].v
		case tDivC:
			sl[in.out].v = quotient(sl[in.a].v, sl[in.b].v)
		case tNegC:
			sl[in.out].v = -1 * sl[in.a].v
		case tUnaryC:
			f, _, _ := unaryDerivs(opKind(in.sub), in.c, sl[in.a].v, false)
			sl[in.out].v = f
		case tSquareC:
			sl[in.out].v = square(sl[in.a].v)
		case tSubSquareC:
			sl[in.out].v = square(sl[in.a].v - sl[in.b].v)
		case tSqrtC:
			sl[in.out].v = math.Sqrt(sl[in.a].v)
		case tMulAddC:
			sl[in.out].v = mulAddValue(sl[in.a].v, sl[in.b].v, sl[in.aux].v)
		case tSubMulC:
			sl[in.out].v = sl[in.aux].v * float64(sl[in.a].v-sl[in.b].v)
		case tSubMulAddC:
			sl[in.out].v = subMulAddValue(sl[in.e].v, sl[in.aux].v, sl[in.a].v, sl[in.b].v)
		case tChain:
			runChain(tOp(in.sub), tOp(in.out), chains[in.a:in.b], sl)
		case tRun:
			runSame(tOp(in.sub), chains[in.a:in.b], sl, false)
		default:
			panic("graph: runValueCode: an instruction of derivatives")
		}
	}
}

// runTapeValues is runTape without derivatives.
func (s *scorer) runTapeValues(t *tape) (float64, bool) {
	sl := s.tape.cur[:t.slots]
	x := s.x
	total := 0.0
	code, norms, scales := t.code, t.normals, t.scales
	for pc := range code {
		in := &code[pc]
		switch in.op {
		case tLoad, tActive:
			sl[in.out].v = x[in.a]
		case tAddC, tAddDD, tAddKD:
			sl[in.out].v = sl[in.a].v + sl[in.b].v
		case tSubC, tSubDD, tSubDK, tSubKD:
			sl[in.out].v = sl[in.a].v - sl[in.b].v
		case tMulC, tMulDD, tMulKD:
			sl[in.out].v = sl[in.a].v * sl[in.b].v
		case tDivC, tDivDD, tDivDK, tDivKD:
			sl[in.out].v = quotient(sl[in.a].v, sl[in.b].v)
		case tNegC, tNegD:
			sl[in.out].v = -1 * sl[in.a].v
		case tUnaryC, tUnaryD:
			f, _, _ := unaryDerivs(opKind(in.sub), in.c, sl[in.a].v, false)
			sl[in.out].v = f
		case tSquareC, tSquareD:
			sl[in.out].v = square(sl[in.a].v)
		case tSubSquareC:
			sl[in.out].v = square(sl[in.a].v - sl[in.b].v)
		case tSqrtC, tSqrtD:
			sl[in.out].v = math.Sqrt(sl[in.a].v)
		case tMulAddC, tMulAddKD:
			sl[in.out].v = mulAddValue(sl[in.a].v, sl[in.b].v, sl[in.aux].v)
		case tSubMulC, tSubMulKD:
			sl[in.out].v = sl[in.aux].v * float64(sl[in.a].v-sl[in.b].v)
		case tAxpyKD, tAxpyDD:
			sl[in.out].v = axpyValue(sl[in.a].v, sl[in.aux].v, sl[in.b].v)
		case tSubMulAdd, tSubMulAddC:
			sl[in.out].v = subMulAddValue(sl[in.e].v, sl[in.aux].v, sl[in.a].v, sl[in.b].v)
		case tRun:
			runSame(tOp(in.sub), t.chains[in.a:in.b], sl, false)
		case tChain:
			runChain(tOp(in.sub), tOp(in.out), t.chains[in.a:in.b], sl)
			var more bool
			if total, more = normalValues(sl, norms[in.aux:in.e], total); !more {
				return total, true
			}
		case tMulSquare:
			v := sl[in.b].v
			r := square(v)
			sl[in.out].v = sl[in.a].v * r
		case tAddSqrtDD, tAddSqrtKD:
			var av, bv float64
			if in.sub == 1 {
				av = sl[in.aux].v * square(sl[in.e].v)
			} else {
				av = sl[in.a].v
			}
			if in.sub == 2 {
				bv = sl[in.aux].v * square(sl[in.e].v)
			} else {
				bv = sl[in.b].v
			}
			sl[in.out].v = math.Sqrt(av + bv)
		case tGeneral:
			v, _, _, dep := s.generalElem(t.nodes[in.a], int(in.b))
			if dep != (in.sub == 1) {
				return 0, false
			}
			sl[in.out].v = v
		case tNormals:
			for _, sc := range scales[in.aux:in.e] {
				sl[sc.out].v = math.Log(sl[sc.a].v)
			}
			var more bool
			if total, more = normalValues(sl, norms[in.a:in.b], total); !more {
				return total, true
			}
		case tKeep:
			// Values alone: the slots hold no derivatives to keep, and the
			// general path's values do not depend on its jets' kinds.
		case tFactor:
			total += s.factorElem(int(in.a), int(in.b), false, true)
			if !(total >= -math.MaxFloat64) {
				return total, true
			}
		case tMulAddDK, tMulAddDD:
			av, bv := sl[in.a].v, sl[in.b].v
			switch in.sub & 27 {
			case 8:
				av = sl[in.e].v - av
			case 16:
				bv = sl[in.e].v - bv
			case 1:
				av = square(av)
			case 2:
				bv = square(bv)
			}
			v := sl[in.aux].v + float64(av*bv)
			if in.sub&4 != 0 {
				v = math.Sqrt(v)
			}
			sl[in.out].v = v
		default: // a link of a chain (tape_chain.go), run by tChain alone
			panic("graph: runTapeValues: a link of a chain outside it")
		}
	}
	return total, true
}

// normalValues adds the terms of the Normal observations norms (dist.Normal's
// LogProb) to total and returns the sum and true, or false where the score
// ends there (−Inf or NaN).
func normalValues(sl []tslot, norms []tinst, total float64) (float64, bool) {
	for k := range norms {
		nm := &norms[k]
		xv, m, sv := nm.c, sl[nm.a].v, sl[nm.b].v
		if !normalParamsOK(m, sv) {
			return total + math.Inf(-1), false
		}
		z := (xv - m) / sv
		total += -0.5*z*z - sl[nm.aux].v - logSqrt2Pi
		if !(total >= -math.MaxFloat64) {
			return total, false
		}
	}
	return total, true
}
