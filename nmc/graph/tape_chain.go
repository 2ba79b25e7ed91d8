package graph

import "math"

// Chains. A recursion's step reads the result of the step before (an ARMA's
// prediction reads the error before it): by the slot array, each step's load
// waits for the previous step's store, and the recursion costs that round trip
// per step besides its arithmetic. A chain is a run of instructions of one
// operation (and sub), each reading the previous one's output as its carried
// operand (chainOperand): one tChain instruction runs it in one loop with the
// carried value in registers, storing every link's output to its slot as the
// instructions would (other instructions read them). A link may have a
// companion, the instruction right before it that computes its addend (an ARMA
// step's constant part): the loop runs it before the link, in the tape's order,
// and keeps its output in registers for the link (tChain's out is its
// operation, the links and their companions alternate in tape.chains). Else
// the instructions between two links that read no link's output are moved
// before the chain, which they may be: the tape's slots are written once, and
// they read only slots written before the chain. The arithmetic is the
// instructions' (tape.go), operation for operation.
//
// A chain with derivatives and the batch of Normal observations after it are
// one loop (chainNormals, runChainNormals), and so are the batches alone.

// chainMin is the fewest links a chain of values (tSubMulAddC) is made of; a
// chain of the others has two links at least, with or without their
// companions. A lone link is an instruction of its own: in a recursion whose every
// step's output is read before the next step (GARCH's variance, read by its
// root), a chain per step cost a dispatch and a call each (the built-in
// garch11's whole run 19% slower).
const chainMin = 3

// chainOperand returns in's slot field that a chain link reads from the link
// before it, nil if in's operation is not chained.
func chainOperand(in *tinst) *uint32 {
	switch in.op {
	case tSubMulAdd, tSubMulAddC, tMulAddDK, tMulAddDD:
		return &in.b
	}
	return nil
}

// companionOf reports whether an instruction of operation c before a link of
// operation l whose addend e it computes is the link's companion: run before
// it in the chain's loop, its output kept in registers for the link (an ARMA
// step's constant part and its error term).
func companionOf(c, l tOp) bool {
	switch l {
	case tSubMulAdd:
		return c == tAddKD || c == tAxpyKD
	case tSubMulAddC:
		return c == tMulAddC
	}
	return false
}

// hoistable reports whether in may move before a chain: an instruction of
// slots alone (no score term, no general path, no early end).
func hoistable(in *tinst) bool {
	switch in.op {
	case tGeneral, tScale, tNormal, tNormals, tFactor, tChain:
		return false
	}
	return true
}

// chains replaces each run of links in code (chainMin or more of values, of
// one or more of the others), with their companions or with the hoistable
// instructions between them that read no link's output, by a tChain
// instruction over the links appended to *links (after those instructions,
// chained in turn).
func chains(code []tinst, links *[]tinst) []tinst {
	var out []tinst
	written := map[uint32]bool{}
	for i := 0; i < len(code); {
		if cop := code[i].op; i+1 < len(code) && companionOf(cop, code[i+1].op) && code[i+1].e == code[i].out {
			// Links with their companions: pairs (J, L), L reading J's output as e.
			lk := code[i+1]
			run := []tinst{code[i], lk}
			j := i + 2
			for ; j+1 < len(code); j += 2 {
				c, l := &code[j], &code[j+1]
				if c.op != cop || l.op != lk.op || l.sub != lk.sub || l.e != c.out || l.b != run[len(run)-1].out {
					break
				}
				run = append(run, *c, *l)
			}
			if lk.op != tSubMulAddC && len(run) > 2 || len(run) >= 2*chainMin {
				out = append(out, tinst{op: tChain, sub: uint8(lk.op), out: uint32(cop), a: uint32(len(*links)), b: uint32(len(*links) + len(run))})
				*links = append(*links, run...)
				i = j
				continue
			}
		}
		if chainOperand(&code[i]) == nil {
			out = append(out, code[i])
			i++
			continue
		}
		clear(written)
		run := []tinst{code[i]}
		written[code[i].out] = true
		var hoist, between []tinst
		end := i + 1 // after the last link
		for j := i + 1; j < len(code); j++ {
			nx := &code[j]
			last := &run[len(run)-1]
			if nx.op == last.op && nx.sub == last.sub && *chainOperand(nx) == last.out {
				run = append(run, *nx)
				written[nx.out] = true
				hoist, between = append(hoist, between...), between[:0]
				end = j + 1
				continue
			}
			if !hoistable(nx) || len(between) >= 4 {
				break
			}
			for _, r := range operands(nx) {
				if written[*r] {
					goto stop
				}
			}
			between = append(between, *nx)
		}
	stop:
		if len(run) < chainMin && run[0].op == tSubMulAddC || len(run) == 1 {
			// Too short to gain: one link is its own instruction.
			out = append(out, code[i])
			i++
			continue
		}
		out = append(out, chains(hoist, links)...) // (which may hold chains of their own)
		out = append(out, tinst{op: tChain, sub: uint8(run[0].op), a: uint32(len(*links)), b: uint32(len(*links) + len(run))})
		*links = append(*links, run...)
		i = end
	}
	return out
}

// chainNormals merges each chain of t.code with derivatives and the batch of
// Normal observations (tNormals) right after it, whose scales read no link's
// output: the scales' terms are computed before the chain (a tNormals of no
// observations), and the chain runs each observation as soon as the links it
// reads have run (tChain's n before the first link, a link's n after it), in
// the batch's order. The terms are added in the same order, and the
// observations' arithmetic (the recursion's latency) and the links' overlap.
func chainNormals(t *tape) []tinst {
	var out []tinst
	code := t.code
	for pc := 0; pc < len(code); pc++ {
		ch := code[pc]
		if ch.op != tChain || tOp(ch.sub) == tSubMulAddC || pc+1 == len(code) || code[pc+1].op != tNormals {
			out = append(out, ch)
			continue
		}
		nb := code[pc+1]
		links, norms := t.chains[ch.a:ch.b], t.normals[nb.a:nb.b]
		stride := 1 // a link and its companion
		if ch.out != 0 {
			stride = 2
		}
		link := map[uint32]int{} // the step writing a slot
		for k := range links {
			link[links[k].out] = k / stride
		}
		ok := true
		for _, sc := range t.scales[nb.aux:nb.e] {
			_, reads := link[sc.a]
			ok = ok && !reads
		}
		after := make([]int, len(links)/stride+1) // the observations run after step k−1
		last := 0                                 // 1 + the last link read so far
		for _, nm := range norms {
			for _, r := range []uint32{nm.a, nm.b} {
				if k, reads := link[r]; reads {
					last = max(last, k+1)
				}
			}
			after[last]++
		}
		for _, n := range after {
			ok = ok && n <= 0xffff
		}
		if !ok {
			out = append(out, ch)
			continue
		}
		if nb.e > nb.aux {
			out = append(out, tinst{op: tNormals, a: nb.b, b: nb.b, aux: nb.aux, e: nb.e})
		}
		ch.aux, ch.e, ch.n = nb.a, nb.b, uint16(after[0])
		for k := range len(links) / stride {
			links[stride*k+stride-1].n = uint16(after[k+1])
		}
		out = append(out, ch)
		pc++
	}
	return out
}

// runChainNormals runs the links of a chain of operation op with derivatives
// (none for a batch of Normal observations alone) and adds the terms of the
// Normal observations norms to total, their derivatives to s.grad[0] and
// s.hess[0]: the first ones before the first link, a link's n after it
// (chainNormals), the scales' terms computed before. It returns the sum and
// true, or false where the score ends there (−Inf or NaN). One function, no
// calls: Go keeps no register across a call, and the carried link and the
// sums would go through memory.
func (s *scorer) runChainNormals(sl []tslot, op, comp tOp, links, norms []tinst, first int, total float64) (float64, bool) {
	G, H := s.grad[0], s.hess[0]
	var d tslot // the carried link
	if comp != 0 {
		d = sl[links[1].b]
	} else if len(links) > 0 {
		d = sl[links[0].b]
	}
	more := true
	for j, end, k := 0, first, 0; ; {
		for ; j < end; j++ {
			nm := &norms[j]
			mu, sg := &sl[nm.a], &sl[nm.b]
			xv, m, sv := nm.c, mu.v, sg.v
			if !normalParamsOK(m, sv) {
				total += math.Inf(-1)
				more = false
				goto done
			}
			sc := &sl[nm.aux]
			logS, is, is2 := sc.v, sc.g, sc.h
			z := (xv - m) * is
			lp := -0.5*z*z - logS - logSqrt2Pi
			if lp-lp != 0 { // ±Inf or NaN
				// chain returns such a density without its derivatives.
				total += lp
				if !(total >= -math.MaxFloat64) {
					more = false
					goto done
				}
				continue
			}
			total += lp
			// chainSums over (x constant, mu, sigma).
			// sub 1: μ alone depends on the site, 2: σ alone, else both (with
			// the cross terms between the two halves, in chainSums' order).
			switch nm.sub {
			case 1:
				g1 := z * is
				G += g1 * mu.g
				if g1 != 0 {
					H += g1 * mu.h
				}
				if is2 != 0 {
					H += -is2 * mu.g * mu.g
				}
			case 2:
				g2 := (z*z - 1) * is
				G += g2 * sg.g
				if g2 != 0 {
					H += g2 * sg.h
				}
				if h := (1 - 3*z*z) * is2; h != 0 {
					H += h * sg.g * sg.g
				}
			default:
				g1 := z * is
				G += g1 * mu.g
				if g1 != 0 {
					H += g1 * mu.h
				}
				if is2 != 0 {
					H += -is2 * mu.g * mu.g
				}
				h12 := -2 * z * is2
				if h12 != 0 {
					H += h12 * mu.g * sg.g
				}
				g2 := (z*z - 1) * is
				G += g2 * sg.g
				if g2 != 0 {
					H += g2 * sg.h
				}
				if h12 != 0 {
					H += h12 * sg.g * mu.g
				}
				if h := (1 - 3*z*z) * is2; h != 0 {
					H += h * sg.g * sg.g
				}
			}
			if !(total >= -math.MaxFloat64) {
				more = false
				goto done
			}
		}
		if k == len(links) {
			break
		}
		var e tslot // the companion's output
		if comp != 0 {
			c := &links[k]
			if comp == tAddKD {
				e = addKD(&sl[c.a], &sl[c.b])
			} else { // tAxpyKD
				e = axpyKD(sl[c.a].v, sl[c.aux].v, &sl[c.b])
			}
			sl[c.out] = e
			k++
		}
		l := &links[k]
		k++
		if op == tSubMulAdd {
			if comp == 0 {
				e = sl[l.e]
			}
			d = subMulAdd(sl[l.a].v, sl[l.aux].v, d, e)
		} else { // tMulAddDK, tMulAddDD: a·b + c, b the carried link
			a, c := &sl[l.a], &sl[l.aux]
			av, ag, ah, bv, bg, bh := a.v, a.g, a.h, d.v, d.g, d.h
			switch l.sub & 27 { // one factor the square of its slot (tSquareD's) or e minus it (tSubKD's)
			case 8:
				av, ag, ah = sl[l.e].v-av, -1*ag, -1*ah
			case 16:
				bv, bg, bh = sl[l.e].v-bv, -1*bg, -1*bh
			case 1:
				d1 := 2 * av
				av, ag, ah = square(av), float64(d1*ag), float64(2*ag*ag+d1*ah)
			case 2:
				d1 := 2 * bv
				bv, bg, bh = square(bv), float64(d1*bg), float64(2*bg*bg+d1*bh)
			}
			pv := float64(av * bv)
			pg, ph := bv*ag+av*bg, bv*ah+av*bh+2*ag*bg // tMulDD's
			pg, ph = float64(pg), float64(ph)
			d = tslot{c.v + pv, pg, ph}
			if op == tMulAddDD {
				d.g, d.h = c.g+pg, c.h+ph
			}
			if l.sub&4 != 0 { // the root of the sum (tSqrtD's)
				f := math.Sqrt(d.v)
				d1 := 0.5 / f
				d2 := -0.25 / (f * d.v)
				d = tslot{f, d1 * d.g, d2*d.g*d.g + d1*d.h}
			}
		}
		sl[l.out] = d
		end += int(l.n)
	}
done:
	s.grad[0], s.hess[0] = G, H
	return total, more
}

// runChain runs the links of a chain of operation op (with their companions
// of operation comp, if not 0) on slots sl, values alone.
func runChain(op, comp tOp, links []tinst, sl []tslot) {
	if len(links) == 0 {
		return
	}
	if comp != 0 {
		d := sl[links[1].b].v
		for k := 0; k+1 < len(links); k += 2 {
			c, l := &links[k], &links[k+1]
			var e float64
			switch comp {
			case tAddKD:
				e = sl[c.a].v + sl[c.b].v
			case tAxpyKD:
				e = axpyValue(sl[c.a].v, sl[c.aux].v, sl[c.b].v)
			default: // tMulAddC
				e = mulAddValue(sl[c.a].v, sl[c.b].v, sl[c.aux].v)
			}
			sl[c.out].v = e
			d = subMulAddValue(e, sl[l.aux].v, sl[l.a].v, d)
			sl[l.out].v = d
		}
		return
	}
	d := sl[links[0].b].v
	if op == tSubMulAdd || op == tSubMulAddC {
		for k := range links {
			l := &links[k]
			d = subMulAddValue(sl[l.e].v, sl[l.aux].v, sl[l.a].v, d)
			sl[l.out].v = d
		}
		return
	}
	for k := range links { // tMulAddDK, tMulAddDD
		l := &links[k]
		av, bv := sl[l.a].v, d
		switch l.sub & 27 {
		case 8:
			av = sl[l.e].v - av
		case 16:
			bv = sl[l.e].v - bv
		case 1:
			av = square(av)
		case 2:
			bv = square(bv)
		}
		d = sl[l.aux].v + float64(av*bv)
		if l.sub&4 != 0 {
			d = math.Sqrt(d)
		}
		sl[l.out].v = d
	}
}

// subMulAdd is tSubMulAdd's e + k·(a − d), a and k values, d and e dependent.
func subMulAdd(av, k float64, d, e tslot) tslot {
	tv, tg, th := av-d.v, -1*d.g, -1*d.h
	return tslot{e.v + float64(k*tv), e.g + float64(k*tg), e.h + float64(k*th)}
}

// subMulAddValue is the value of e + k·(a − d) (tSubMulAdd, tSubMulAddC).
func subMulAddValue(ev, k, av, dv float64) float64 {
	return ev + float64(k*float64(av-dv))
}

// runMin is the fewest instructions a run is made of (sameRuns).
const runMin = 4

// sameRuns replaces each run of runMin or more instructions of one operation
// that runSame runs (an ARMA step's constant part: hoisted before its chain,
// they follow each other) by a tRun instruction over the instructions appended
// to *ins.
func sameRuns(code []tinst, ins *[]tinst) []tinst {
	var out []tinst
	for i := 0; i < len(code); {
		j := i + 1
		for j < len(code) && code[j].op == code[i].op {
			j++
		}
		switch code[i].op {
		case tAddKD, tAxpyKD, tMulAddC, tMulC:
			if j-i >= runMin {
				out = append(out, tinst{op: tRun, sub: uint8(code[i].op), a: uint32(len(*ins)), b: uint32(len(*ins) + j - i)})
				*ins = append(*ins, code[i:j]...)
				i = j
				continue
			}
		}
		out = append(out, code[i:j]...)
		i = j
	}
	return out
}

// runSame runs the instructions ins, all of operation op, on slots sl: with
// derivatives when deriv and op has them, else values alone. One dispatch for
// them all, and a loop of each operation's arithmetic.
func runSame(op tOp, ins []tinst, sl []tslot, deriv bool) {
	switch {
	case op == tAddKD && deriv:
		for k := range ins {
			in := &ins[k]
			sl[in.out] = addKD(&sl[in.a], &sl[in.b])
		}
	case op == tAxpyKD && deriv:
		for k := range ins {
			in := &ins[k]
			sl[in.out] = axpyKD(sl[in.a].v, sl[in.aux].v, &sl[in.b])
		}
	case op == tAddKD:
		for k := range ins {
			in := &ins[k]
			sl[in.out].v = sl[in.a].v + sl[in.b].v
		}
	case op == tAxpyKD:
		for k := range ins {
			in := &ins[k]
			sl[in.out].v = axpyValue(sl[in.a].v, sl[in.aux].v, sl[in.b].v)
		}
	case op == tMulAddC:
		for k := range ins {
			in := &ins[k]
			sl[in.out].v = mulAddValue(sl[in.a].v, sl[in.b].v, sl[in.aux].v)
		}
	default: // tMulC
		for k := range ins {
			in := &ins[k]
			sl[in.out].v = sl[in.a].v * sl[in.b].v
		}
	}
}

// addKD is tAddKD's a + b, b dependent.
func addKD(a, b *tslot) tslot { return tslot{a.v + b.v, b.g, b.h} }

// axpyKD is tAxpyKD's a + k·d, d dependent.
func axpyKD(av, k float64, d *tslot) tslot {
	return tslot{av + float64(k*d.v), k * d.g, k * d.h}
}

// axpyValue is the value of a + k·d (tAxpyKD, tAxpyDD).
func axpyValue(av, k, dv float64) float64 { return av + float64(k*dv) }

// mulAddValue is the value of a·b + c (tMulAddC, tMulAddKD).
func mulAddValue(av, bv, cv float64) float64 { return float64(av*bv) + cv }
