package graph

import (
	"math"
	"sync"

	"github.com/nmc-go/nmc/nmc/dist"
)

// Straight-line tapes of scalar scores. A recursion declared in a Go loop over
// scalar nodes is scored, site by site, in scalar mode (one active coordinate):
// evalScalar walks the node elements recursively, looking each memoised one up in
// its table and keeping its jet there. A site's tape is that walk done once, at
// the site's first score: the node elements its blanket reads, in topological
// order, as flat instructions (an operation, its operand and output slots, a
// constant), each element once, with what depends on the active site known at
// compile time: an element that does not is computed values only, an operation
// between a constant and a dependent operand is its own instruction, constants
// are folded, and a run of instructions whose intermediate results have no other
// reader is one fused instruction. A score runs the instructions in one loop over
// the site's slot array of (value, first, second derivative), held by the scorer
// and made at the site's first score (no allocation after). The observations of
// Normal factors whose parameters are scalar nodes are instructions too, kept in
// their own list and run in batches (tNormals) after the instructions that
// compute their parameters, in the blanket's order; every
// other blanket element (a prior, a family without an instruction) is one
// instruction that calls factorElem, and a node operation the tape does not know
// one that calls eval, as Score would; before them, the memoised elements the
// tape computed that they may read are kept in the scorer's memo, as evalScalar
// keeps them (tKeep, tape_keep.go). Should such a node's jet not depend on the
// active site as compiled (At by a node index), the score is left to the general
// path.
//
// A recursion's steps, each reading the one before's output (an ARMA's
// prediction and its error), are a chain: one instruction runs them in one loop
// with the carried value in registers, each with the instruction that computes
// its addend (its companion), and the Normal observations of the batch after it
// as soon as the steps they read have run (tape_chain.go); a run of
// instructions of one operation is one instruction too. The slots are numbered
// in the order the tape first uses them, those no instruction uses left out.
//
// The instructions of values that do not depend on the active site and read
// only coordinates and constants (an ARMA's residuals in its sigma site's tape)
// are the tape's pre: run first, and skipped where the slots hold their results
// from coordinates of the same bits (a proposal of the active site changes none
// of them), so such values come from the current state's cache.
//
// The tape reads the state at every run and depends only on the model's
// structure (its nodes, factors and blankets, fixed at Build) and on the active
// site, so it is never stale. The arithmetic is evalScalar's and the families',
// operation for operation: a tape's score, gradient and Hessian equal the
// general path's bit for bit (TestTapeMatchesGeneralPath, and FuzzModel's
// checkTapeScores on random models).

// tOp is a tape instruction's operation. Suffixes: C, the output does not depend
// on the active site (values only); D, it does; on binary operations DD both
// operands do, KD operand a does not and b does (after swapping a commutative
// operation's operands), DK a does and b does not.
type tOp uint8

const (
	tLoad   tOp = iota // v[out] = x[a], a coordinate other than the active one
	tActive            // (x[a], 1, 0): the active coordinate; sub 1: (x[a], ou[a], ow[a]), an orbit's member
	tAddC
	tSubC
	tMulC
	tDivC
	tAddDD
	tAddKD
	tSubDD
	tSubDK
	tSubKD
	tMulDD
	tMulKD
	tDivDD
	tDivDK
	tDivKD
	tNegC
	tNegD
	tUnaryC // sub: the opKind; c: opPow's power
	tUnaryD
	tSquareC // Pow(a, 2)
	tSquareD
	tSqrtC
	tSqrtD
	tGeneral // a node element by the general path: a indexes tape.nodes, b the element, sub 1 if it depends
	tScale   // a Normal's scale a: (log a, 1/a, 1/a²) in slot out (in tape.scales only)
	tNormal  // a Normal observation c with mean a, scale b, tScale's slot aux; sub: 1 the mean depends, 2 the scale, 3 both (in tape.normals only)
	tNormals // the scales tape.scales[aux:e], then the Normal observations tape.normals[a:b], each in one loop
	tFactor  // blanket element b of factor a by factorElem

	// Fused instructions (fuse, tape_compile.go): two or three of the above whose
	// intermediate results have no other reader, computed operation for operation
	// as the instructions they replace.
	tMulAddC    // a·b + aux
	tSubMulC    // aux·(a − b)
	tMulAddKD   // a·b + aux, aux dependent (tMulC, tAddKD)
	tAxpyKD     // a + aux·b, b dependent (tMulKD, tAddKD)
	tAxpyDD     // a + aux·b, a and b dependent (tMulKD, tAddDD)
	tSubMulKD   // aux·(a − b), b dependent (tSubKD, tMulKD)
	tSubMulAdd  // e + aux·(a − b), b and e dependent (tSubKD, tMulKD, tAddDD)
	tMulSquare  // a·b², b dependent (tSquareD, tMulKD)
	tAddSqrtDD  // √(a + b), a and b dependent (tAddDD, tSqrtD); sub 1: a is aux·e², 2: b is (tMulSquare before)
	tAddSqrtKD  // √(a + b), b dependent (tAddKD, tSqrtD); sub as tAddSqrtDD's
	tSubMulAddC // e + aux·(a − b), values only (tSubC, tMulC, tAddC)
	tMulAddDK   // a·b + aux, a and b dependent, aux not (tMulDD, tAddKD); sub&3 1: a², 2: b² for a, b (tSquareD before); sub&4: the root of it (tSqrtD after); sub&8: e − a for a, sub&16: e − b for b, e not dependent (tSubKD before)
	tMulAddDD   // a·b + aux, all dependent (tMulDD, tAddDD); sub as tMulAddDK's
	tSubSquareC // (a − b)², values only (tSubC, tSquareC)

	tChain // the links tape.chains[a:b] of a chain of operation sub in one loop (tape_chain.go)
	tRun   // the instructions tape.chains[a:b], all of operation sub, in one loop (tape_chain.go)

	tKeep // slot a as the jet of element b of the memoised node aux (Node.memo − 1) in the memo, unless kept (tape_keep.go)
)

// tinst is one tape instruction.
type tinst struct {
	op       tOp
	sub      uint8
	n        uint16 // a chain link's: the Normal observations run after it (tape_chain.go)
	a, b     uint32 // slots (uint32: a field loads in one instruction)
	out, aux uint32
	e        uint32 // tSubMulAdd's addend
	c        float64
}

// tslot is a slot's value and its first and second derivative in the active
// coordinate.
type tslot struct{ v, g, h float64 }

// tape is the compiled score of one site in scalar mode.
type tape struct {
	bl []entry // the blanket compiled
	// pre holds the instructions of values that do not depend on the active
	// site and read only coordinates (its first preLoads instructions, tLoad)
	// and constants: run before code, and skipped where the slots hold their
	// results from coordinates of the same bits (tapeRun.runPre).
	pre      []tinst
	preLoads int
	code     []tinst
	// normals holds the Normal observations (tNormal) and scales the terms of
	// their scales (tScale), run in batches by tNormals instructions; chains
	// the links of the chains of pre and code and the instructions of their
	// runs (tChain, tRun, tape_chain.go).
	normals, scales, chains []tinst
	imm                     []float64 // the values of slots 0 … len(imm)−1: constants
	slots                   int
	nodes                   []*Node // tGeneral's nodes
	evals                   uint64  // node elements evaluated per run, as evalScalar counts them
}

// tapeSet holds a model's tapes, per site, compiled at their first use.
type tapeSet struct {
	once  sync.Once
	sites []tapeSite
}

type tapeSite struct {
	once sync.Once
	t    *tape
}

// siteTape returns site i's tape, compiled at the first call, or nil if the
// site's blanket cannot be taped.
func (m *Model) siteTape(i int) *tape {
	ts := &m.tapes
	ts.once.Do(func() { ts.sites = make([]tapeSite, len(m.sites)) })
	st := &ts.sites[i]
	st.once.Do(func() { st.t = compileTape(m, i) })
	return st.t
}

// tapeRun is a scorer's state for running tapes: per site, the slots of its
// tape (made at the site's first tape score, its constants filled then), and the
// number of scores a tape gave (tests).
type tapeRun struct {
	slots [][]tslot
	cur   []tslot // the slots of the tape running
	// pre says, per site, whether its slots hold the results of its tape's
	// pre (at the coordinates its loads hold); curPre is the running tape's.
	pre     []bool
	curPre  *bool
	runs    uint64
	preRuns uint64 // tests: runs of a pre
	off     bool   // tests: score by the general path alone
	// orbits holds the orbit tapes (tape_orbit.go), made at each orbit's first
	// score.
	orbits map[*orbit]*orbitTape
}

// tapeScore returns site i's score by its tape, with the derivatives in s.grad
// and s.hess when deriv, and ok; ok is false when the site has no tape or its
// score is not what the tape computes (the caller then takes the general path,
// s.grad and s.hess cleared). s is set up for the site's score (score).
func (s *scorer) tapeScore(i int, bl []entry, lin, margs []int32, deriv bool) (float64, bool) {
	if s.tape.off || s.k != 1 || s.orbit != nil || s.fixSite != 0 || len(lin) > 0 || len(margs) > 0 ||
		len(s.m.groups[i]) > 0 || len(bl) >= chunkedMinElems || (s.m.hmmSteer != nil && s.m.hmmSteer[i]) {
		return 0, false
	}
	t := s.m.siteTape(i)
	if t == nil || len(t.bl) != len(bl) || len(bl) > 0 && &t.bl[0] != &bl[0] {
		return 0, false // no tape, or not of this blanket (tests score parts of one)
	}
	tr := &s.tape
	if tr.slots == nil {
		tr.slots = make([][]tslot, len(s.m.sites))
		tr.pre = make([]bool, len(s.m.sites))
	}
	if len(tr.slots[i]) != t.slots {
		sl := make([]tslot, t.slots)
		for k, v := range t.imm {
			sl[k] = tslot{v: v}
		}
		tr.slots[i], tr.pre[i] = sl, false
	}
	tr.cur, tr.curPre = tr.slots[i], &tr.pre[i]
	return s.runTapeScore(t, deriv)
}

// runTapeScore runs tape t on the slots of tr.cur (with derivatives when deriv)
// and settles the batches: false, with nothing kept, where the tape cannot run
// the state and the general path must score it.
func (s *scorer) runTapeScore(t *tape, deriv bool) (float64, bool) {
	tr := &s.tape
	tr.runPre(t, s.x)
	var f float64
	var ok bool
	if deriv {
		f, ok = s.runTape(t)
	} else {
		f, ok = s.runTapeValues(t)
	}
	if !ok {
		s.resetBatches()
		if deriv {
			clear(s.grad)
			clear(s.hess)
		}
		return 0, false
	}
	tr.runs++
	s.evals += t.evals
	switch {
	case math.IsInf(f, -1) || math.IsNaN(f):
		s.resetBatches()
	case deriv:
		s.flushBatches()
	}
	return f, true
}

// normalParamsOK is dist.Normal's check of its arguments but the observation's,
// finite (Observe refuses others, and so does a tape's compiler).
func normalParamsOK(mu, s float64) bool {
	return mu-mu == 0 && s > 0 && s <= math.MaxFloat64
}

// runTape runs t with derivatives: the score, its derivatives added to s.grad[0]
// and s.hess[0] in sumBlanket's order, and false if a node evaluated by the general
// path did not depend on the active site as compiled.
func (s *scorer) runTape(t *tape) (float64, bool) {
	sl := s.tape.cur[:t.slots]
	x := s.x
	total := 0.0
	code, norms, scales := t.code, t.normals, t.scales
	for pc := range code {
		in := &code[pc]
		switch in.op {
		case tLoad, tAddC, tSubC, tMulC, tDivC, tNegC, tUnaryC, tSquareC, tSubSquareC, tSqrtC, tMulAddC, tSubMulC, tSubMulAddC:
			// Values alone that read a general element (the others are in t.pre).
			runValueCode(code[pc:pc+1], nil, sl, x)
		case tRun:
			runSame(tOp(in.sub), t.chains[in.a:in.b], sl, true)
		case tChain:
			if tOp(in.sub) == tSubMulAddC {
				runChain(tOp(in.sub), tOp(in.out), t.chains[in.a:in.b], sl)
				continue
			}
			var more bool
			if total, more = s.runChainNormals(sl, tOp(in.sub), tOp(in.out), t.chains[in.a:in.b], norms[in.aux:in.e], int(in.n), total); !more {
				return total, true
			}
		case tActive:
			if in.sub == 1 {
				sl[in.out] = tslot{x[in.a], s.ou[in.a], s.ow[in.a]}
			} else {
				sl[in.out] = tslot{x[in.a], 1, 0}
			}
		case tAddDD:
			a, b := &sl[in.a], &sl[in.b]
			sl[in.out] = tslot{a.v + b.v, a.g + b.g, a.h + b.h}
		case tAddKD:
			sl[in.out] = addKD(&sl[in.a], &sl[in.b])
		case tSubDD:
			a, b := &sl[in.a], &sl[in.b]
			sl[in.out] = tslot{a.v - b.v, a.g - b.g, a.h - b.h}
		case tSubDK:
			a, b := &sl[in.a], &sl[in.b]
			sl[in.out] = tslot{a.v - b.v, a.g, a.h}
		case tSubKD:
			a, b := &sl[in.a], &sl[in.b]
			sl[in.out] = tslot{a.v - b.v, -1 * b.g, -1 * b.h}
		case tMulDD:
			a, b := &sl[in.a], &sl[in.b]
			sl[in.out] = tslot{a.v * b.v, b.v*a.g + a.v*b.g, b.v*a.h + a.v*b.h + 2*a.g*b.g}
		case tMulKD:
			c, b := sl[in.a].v, &sl[in.b]
			sl[in.out] = tslot{c * b.v, c * b.g, c * b.h}
		case tDivDD:
			a, b := &sl[in.a], &sl[in.b]
			bv := b.v
			rv, d1, d2 := 1/bv, -1/(bv*bv), 2/(bv*bv*bv)
			rg, rh := d1*b.g, d2*b.g*b.g+d1*b.h
			sl[in.out] = tslot{quotient(a.v, bv), rv*a.g + a.v*rg, rv*a.h + a.v*rh + 2*a.g*rg}
		case tDivDK:
			a, bv := &sl[in.a], sl[in.b].v
			rv := 1 / bv
			sl[in.out] = tslot{quotient(a.v, bv), rv * a.g, rv * a.h}
		case tDivKD:
			av, b := sl[in.a].v, &sl[in.b]
			bv := b.v
			d1, d2 := -1/(bv*bv), 2/(bv*bv*bv)
			rg, rh := d1*b.g, d2*b.g*b.g+d1*b.h
			sl[in.out] = tslot{quotient(av, bv), av * rg, av * rh}
		case tNegD:
			a := &sl[in.a]
			sl[in.out] = tslot{-1 * a.v, -1 * a.g, -1 * a.h}
		case tUnaryD:
			a := &sl[in.a]
			f, d1, d2 := unaryDerivs(opKind(in.sub), in.c, a.v, true)
			sl[in.out] = tslot{f, d1 * a.g, d2*a.g*a.g + d1*a.h}
		case tSquareD:
			a := &sl[in.a]
			r := square(a.v)
			d1 := 2 * a.v
			sl[in.out] = tslot{r, d1 * a.g, 2*a.g*a.g + d1*a.h}
		case tSqrtD:
			a := &sl[in.a]
			f := math.Sqrt(a.v)
			d1 := 0.5 / f
			d2 := -0.25 / (f * a.v)
			sl[in.out] = tslot{f, d1 * a.g, d2*a.g*a.g + d1*a.h}
		case tMulAddKD:
			d := &sl[in.aux]
			sl[in.out] = tslot{float64(sl[in.a].v*sl[in.b].v) + d.v, d.g, d.h}
		case tAxpyKD:
			sl[in.out] = axpyKD(sl[in.a].v, sl[in.aux].v, &sl[in.b])
		case tAxpyDD:
			a, k, d := &sl[in.a], sl[in.aux].v, &sl[in.b]
			sl[in.out] = tslot{a.v + float64(k*d.v), a.g + float64(k*d.g), a.h + float64(k*d.h)}
		case tSubMulKD:
			k, d := sl[in.aux].v, &sl[in.b]
			tv, tg, th := sl[in.a].v-d.v, -1*d.g, -1*d.h
			sl[in.out] = tslot{k * tv, k * tg, k * th}
		case tMulSquare:
			k, d := sl[in.a].v, &sl[in.b]
			r := square(d.v)
			d1 := 2 * d.v
			tg, th := d1*d.g, float64(2*d.g*d.g)+float64(d1*d.h)
			sl[in.out] = tslot{k * r, k * tg, k * th}
		case tAddSqrtDD, tAddSqrtKD:
			var ms tslot // sub 1: a is aux·e² (tMulSquare's), 2: b is
			if in.sub != 0 {
				k, d := sl[in.aux].v, &sl[in.e]
				r := square(d.v)
				d1 := 2 * d.v
				tg, th := d1*d.g, float64(2*d.g*d.g)+float64(d1*d.h)
				ms = tslot{float64(k * r), float64(k * tg), float64(k * th)}
			}
			var a, b *tslot
			if in.sub == 1 {
				a = &ms
			} else {
				a = &sl[in.a]
			}
			if in.sub == 2 {
				b = &ms
			} else {
				b = &sl[in.b]
			}
			v, g, h := a.v+b.v, b.g, b.h
			if in.op == tAddSqrtDD {
				g, h = a.g+b.g, a.h+b.h
			}
			f := math.Sqrt(v)
			d1 := 0.5 / f
			d2 := -0.25 / (f * v)
			sl[in.out] = tslot{f, d1 * g, float64(d2*g*g) + float64(d1*h)}
		case tGeneral:
			v, g, h, dep := s.generalElem(t.nodes[in.a], int(in.b))
			if dep != (in.sub == 1) {
				return 0, false
			}
			sl[in.out] = tslot{v, g, h}
		case tKeep:
			s.keepSlot(in, &sl[in.a])
		case tNormals:
			var more bool
			if total, more = s.runNormals(sl, norms[in.a:in.b], scales[in.aux:in.e], total); !more {
				return total, true
			}
		case tFactor:
			total += s.factorElem(int(in.a), int(in.b), true, true)
			if !(total >= -math.MaxFloat64) {
				return total, true
			}
		case tSubMulAdd:
			k, d, a := sl[in.aux].v, &sl[in.b], &sl[in.e]
			tv, tg, th := sl[in.a].v-d.v, -1*d.g, -1*d.h
			sl[in.out] = tslot{a.v + float64(k*tv), a.g + float64(k*tg), a.h + float64(k*th)}
		case tMulAddDK, tMulAddDD:
			// A lone link (tape_chain.go); runChainNormals has the same arithmetic
			// inline. Both inline: as a function called here, garch11's whole run
			// was 6% slower, and called in the chain's loop, its sums spill.
			a, b, c := &sl[in.a], &sl[in.b], &sl[in.aux]
			av, ag, ah, bv, bg, bh := a.v, a.g, a.h, b.v, b.g, b.h
			switch in.sub & 27 { // one factor the square of its slot (tSquareD's) or e minus it (tSubKD's)
			case 8:
				av, ag, ah = sl[in.e].v-av, -1*ag, -1*ah
			case 16:
				bv, bg, bh = sl[in.e].v-bv, -1*bg, -1*bh
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
			r := tslot{c.v + pv, pg, ph}
			if in.op == tMulAddDD {
				r.g, r.h = c.g+pg, c.h+ph
			}
			if in.sub&4 != 0 { // the root of the sum (tSqrtD's)
				f := math.Sqrt(r.v)
				d1 := 0.5 / f
				d2 := -0.25 / (f * r.v)
				r = tslot{f, d1 * r.g, d2*r.g*r.g + d1*r.h}
			}
			sl[in.out] = r
		default: // a link of a chain (tape_chain.go), run by tChain alone
			panic("graph: runTape: a link of a chain outside it")
		}
	}
	return total, true
}

// runNormals computes the scales' terms (tScale), adds the terms of the Normal
// observations norms (tNormal) to total, their derivatives to s.grad[0] and
// s.hess[0], and returns the sum and true, or false where the score ends there
// (−Inf or NaN). The scales first: a loop of logarithms, then one without calls
// (runChainNormals, of no links).
func (s *scorer) runNormals(sl []tslot, norms, scales []tinst, total float64) (float64, bool) {
	for k := range scales {
		sc := &scales[k]
		sv := sl[sc.a].v
		is := 1 / sv
		sl[sc.out] = tslot{math.Log(sv), is, is * is}
	}
	return s.runChainNormals(sl, tNormals, 0, nil, norms, len(norms), total)
}

// square is math.Pow(v, 2): v·v where that is a normal number or 0 (Pow squares
// the mantissa and scales it exactly), Pow itself below. Small enough to inline:
// the tape's loop pays one comparison for the common case.
func square(v float64) float64 {
	if r := v * v; r >= 0x1p-1022 {
		return r
	}
	return squareSmall(v)
}

// squareSmall is square where v·v is below the normal range (or NaN).
func squareSmall(v float64) float64 {
	if r := v * v; r == 0 && v == 0 || math.IsNaN(r) {
		return r
	}
	return math.Pow(v, 2)
}

// generalElem is element e of n by the general path (eval) in the active
// coordinate, dep false for a constant jet.
//
// A node of this model's plan is evaluated as the general path evaluates a
// scalar node in scalar mode (evalScalar), which keeps its jet in the memo as a
// unit jet: a node evaluated by eval alone would keep a dense jet (a hidden
// Markov model's), and an operation read after it (LogMix of it) would take the
// dense jets' arithmetic, a few ulps from the general path's (FuzzModel seed
// 38b948fa0ba239c4: a pair orbit's second derivative).
func (s *scorer) generalElem(n *Node, e int) (v, g, h float64, dep bool) {
	if n.plan == s.plan && n.width == 1 {
		return s.evalScalar(n, e)
	}
	top, ar := s.top, s.ops.ar.top
	out := s.push(1)
	s.eval(n, e, out)
	v, g, h, dep = fromJet(&out[0])
	s.top, s.ops.ar.top = top, ar
	return v, g, h, dep
}

// isNormalObs reports whether factor fc is an observation of Normal with scalar
// parameters, which a tape scores itself.
func isNormalObs(fc *factor) bool {
	if fc.jf != nil || fc.obs == nil || fc.width != 1 || len(fc.d.params) != 2 {
		return false
	}
	if _, ok := fc.d.fam.(dist.Normal); !ok {
		return false
	}
	return fc.d.params[0].width == 1 && fc.d.params[1].width == 1
}
