package graph

import (
	"math"
	"runtime"

	"github.com/nmc-go/nmc/internal/parallel"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/dist"
)

// scorer evaluates Markov-blanket scores for one chain. It owns every buffer it
// uses, so a warm scorer does not allocate (a score spread over the cores hands
// its chunks to parked goroutines: parallel.Group).
type scorer struct {
	conjAlpha []float64 // DrawConditional's concentrations
	m         *Model
	x         []float64
	active    int // site whose derivatives are wanted; -1 for values only
	k         int
	base      int // state offset of the active site
	ops       jetOps
	stack     []jet
	top       int

	argv   []float64
	argj   []jet
	d1, d2 []float64

	grad, hess []float64
	batches    []*rowBatch
	tally      []float64     // factorGroup: elements per value
	memos      []dist.Memo   // per factor: parameter-only terms (dist.MemoDeriver)
	mv         []mvCache     // per MatVec node over a Vector site or a plate: X·v at the last two v seen
	lin        []*linScratch // per linear factor (linear.go), made when first needed
	mix        []*mixScratch // per mixture factor (mixrows.go), made when first needed
	epoch      uint64        // counts Score, LogJoint and values calls (for mvCache)

	// Memoised node elements (memo.go): the model's plan, per memoised node its
	// table, the current evaluation context (≥ 1; advanced by newContext whenever
	// anything eval reads changes) and the arena of the kept dense jets.
	plan     *memoPlan
	memo     []memoTab
	gen      uint64
	genEpoch uint64 // the epoch in which gen began (checkCall)
	memoAr   arena
	evals    uint64 // elements of nodes other than constants and latents evaluated (tests)
	// verifying: a kept element is being evaluated again (memoVerify); computing:
	// eval's next call evaluates its node without looking it up (evalNode).
	verifying, computing bool

	// Large blankets are scored in fixed chunks (see scoreChunked) by helper
	// scorers, one per goroutine.
	nworkers int       // goroutines for chunked scores (GOMAXPROCS at creation)
	helpers  []*scorer // lazily created
	chunkF   []float64 // per chunk: partial score
	chunkGH  []float64 // per chunk: partial gradient (k) then Hessian (k×k)
	par      parallel.Group
	// The chunked call's blanket and flags, read by chunkFn (scoreChunk, made once).
	chunkBl               []entry
	chunkDeriv, chunkCont bool
	chunkFn               func(w, c int)

	// Orbit scores (ScoreOrbit): the group whose orbit parameter t is the one active
	// coordinate (nil otherwise), and per state coordinate dx/dt and d²x/dt² at t = 0
	// (set for the group's coordinates).
	orbit   *orbit
	ou, ow  []float64
	orbitGH [2]float64

	// Summed-out groups (margLSE): 1 + the site whose value is fixed at fixVal while
	// its group is scored (0: none), and scratch: per value the summed log density,
	// gradient (k) and Hessian (k×k), the mean gradient, and steerSimplex's.
	fixSite             int
	fixVal              float64
	margA, margG, margH []float64
	margBar             []float64
	steerScratch        []float64

	// logx's cache: per state coordinate, a value (NaN: none) and its log.
	logs   []cachedLog
	selCnt []int      // selRun's counts by (index value, category)
	cs     countState // the selection counts of the watched state
	mc     margCache  // products of the simple summed-out groups
	// liveTab: margSum's values of the shared live elements (Model.sharedLive).
	liveTab []float64

	// JointGrad's scratch: a site's Hessian (jointHess), the expected count of each
	// state coordinate, the table of the fast path's rows and its groups' sums
	// (jointPlan).
	jointH    []float64
	jointCnt  []float64
	jointTab  [][8]float64
	jointNorm []float64
	// blocks: JointHessian's compiled blocks; oi, while one is scored in one
	// pass, the jet coordinate of each state coordinate of its member families
	// (block.go).
	blocks []*blockScore
	oi     []int32
	oiBuf  []int32

	// A value scorer's scratch for Init and Replicate: one element's parameter
	// values and one drawn element.
	params, drawn []float64

	gp gpScratch // multivariate normals and Cholesky products (mvn_score.go)
	// ext: the scratch of the nodeOps that keep their own (LogDensity, HMMMarginal).
	ext opScratch
	// tape: the slots of the site tapes (tape.go).
	tape tapeRun
}

const (
	// blanketChunk is the number of blanket elements of one chunk of a chunked score.
	blanketChunk = 8192
	// chunkedMinElems is the smallest blanket scored in chunks.
	chunkedMinElems = 2 * blanketChunk
	// chunkedMaxFloats bounds the per-chunk gradient and Hessian buffers
	// (chunks × (k + k²) floats); a larger site is scored serially.
	chunkedMaxFloats = 1 << 22
)

func (m *Model) newScorer() *scorer {
	na := max(m.maxArgs, 1)
	return &scorer{
		plan:     m.plan,
		memo:     newMemoTabs(m.plan),
		gen:      1,
		nworkers: runtime.GOMAXPROCS(0),
		mv:       make([]mvCache, m.numMatVec),
		memos:    make([]dist.Memo, len(m.factors)),
		m:        m,
		stack:    make([]jet, 256),
		argv:     make([]float64, na),
		argj:     make([]jet, na),
		d1:       make([]float64, na),
		d2:       make([]float64, na*na),
	}
}

func (m *Model) valueScorer(x []float64) *scorer {
	return &scorer{m: m, x: x, active: -1, stack: make([]jet, 64), mv: make([]mvCache, m.numMatVec),
		plan: m.plan, memo: make([]memoTab, m.numMemo()), gen: 1} // tables made as read
}

// pooledValueScorer returns a value scorer at state x for a call made at every draw
// (Derive, Replicate, Init), taken from m's pool or new; give it back with
// releaseValueScorer. A reused scorer gives what a new one gives, bit for bit: what
// it keeps of earlier states (the MatVec products, the log cache) is looked up by
// the exact values it was computed at and recomputed from scratch on a miss.
// Only for a compiled model: a scorer made during compile (support, checkFactor)
// would lack the MatVec caches numbered later, so those make their own.
func (m *Model) pooledValueScorer(x []float64) *scorer {
	sc, _ := m.valueScorers.Get().(*scorer)
	if sc == nil {
		return m.valueScorer(x)
	}
	sc.x = x
	return sc
}

// releaseValueScorer returns a scorer of pooledValueScorer to the pool, without
// the state it was given.
func (m *Model) releaseValueScorer(sc *scorer) {
	sc.x = nil
	m.valueScorers.Put(sc)
}

// push reserves n jets on the stack.
func (s *scorer) push(n int) []jet {
	if s.top+n > len(s.stack) {
		ns := make([]jet, 2*(s.top+n))
		copy(ns, s.stack[:s.top])
		s.stack = ns
	}
	out := s.stack[s.top : s.top+n]
	s.top += n
	return out
}

// LogJoint returns the full unnormalised log joint density, −Inf at an impossible
// state.
func (s *scorer) LogJoint(x []float64) float64 { return orImpossible(s.logJoint(x)) }

// orImpossible returns f, or −Inf for NaN: a log density whose arithmetic failed
// (Inf − Inf: a Gamma of shape 6e307, whose log Γ(α) and (α − 1)·log x both
// overflow) is not representable, and the state is taken as impossible, as at a
// NaN parameter (constElem), so that no caller reads NaN as a value.
func orImpossible(f float64) float64 {
	if math.IsNaN(f) {
		return math.Inf(-1)
	}
	return f
}

// logJoint is LogJoint, NaN where the arithmetic failed.
func (s *scorer) logJoint(x []float64) float64 {
	s.x, s.active = x, -1
	s.newCall()
	total := 0.0
	for fi, fc := range s.m.factors {
		if s.m.linOf != nil && s.m.linOf[fi] >= 0 {
			total += s.linearOrElems(int(s.m.linOf[fi]), false, false)
			if math.IsInf(total, -1) || math.IsNaN(total) {
				return total
			}
			continue
		}
		if mf := s.m.mixFor(int32(fi)); mf != nil {
			t, _ := s.mixRun(mf, mf.all, false, false)
			total += t
			if math.IsInf(total, -1) || math.IsNaN(total) {
				return total
			}
			continue
		}
		var own []int32
		if s.m.inMarg != nil {
			own = s.m.inMarg[fi]
		}
		for e := 0; e < fc.length; e++ {
			if own != nil && own[e] >= 0 {
				continue // in a summed-out group, added below
			}
			total += s.factorElem(fi, e, false, false)
			if math.IsInf(total, -1) || math.IsNaN(total) {
				return total
			}
		}
	}
	return s.margSum(s.m.margAll, &s.m.allRefs, false, total)
}

// Score returns the Markov-blanket score of site i, with its gradient and Hessian
// when grad and hess are non-nil. For a continuous site, factor elements that do not
// depend on the site at the current values of the others (a label whose item is
// currently in another class) are skipped: they are the same at x and at any move
// of the site, so they cancel in every score difference.
func (s *scorer) Score(x []float64, i int, grad, hess []float64) float64 {
	return orImpossible(s.score(x, i, grad, hess, true))
}

// score is Score, without the summed-out groups the site reads unless withMarg
// (JointGrad adds their part to the gradient itself).
func (s *scorer) score(x []float64, i int, grad, hess []float64, withMarg bool) float64 {
	s.x = x
	s.newCall()
	deriv := grad != nil && hess != nil
	continuous := s.m.sites[i].Support != nmc.Discrete
	if continuous {
		s.active = i
		s.k = s.m.sites[i].Size
		s.ops.k = s.k
		s.base = s.m.offsets[i]
	} else {
		s.active = -1
		deriv = false
	}
	if deriv {
		s.grad, s.hess = grad[:s.k], hess[:s.k*s.k]
		clear(s.grad)
		clear(s.hess)
	}
	lin, picks, pack := s.m.siteTables(i)
	margs := s.m.margOf[i]
	if !withMarg {
		margs, picks = nil, nil
	}
	if continuous {
		if f, ok := s.tapeScore(i, s.m.blanket[i], lin, margs, deriv); ok {
			return f
		}
	}
	f := s.sumBlanket(s.m.blanket[i], pack, s.m.groups[i], lin, margs, picks, deriv, continuous)
	if deriv && len(margs) > 0 && s.m.sites[i].Support == nmc.Simplex {
		s.steerSimplex(x, i)
	} else if deriv && s.m.hmmSteer != nil && s.m.hmmSteer[i] {
		s.steerHMM(x, i)
	}
	return f
}

// sumBlanket returns the summed log density of the blanket elements bl, the
// tallied runs gs, the linear factors lin and the summed-out groups margs and, with
// deriv, their derivatives with respect to the active coordinates (a site's, or a
// group's orbit parameter) in s.grad and s.hess. picks, when not nil, lists the
// groups margs with the active site's picks (margSum).
func (s *scorer) sumBlanket(bl []entry, pack []selPack, gs []group, lin, margs []int32, picks *sitePicks, deriv, continuous bool) float64 {
	total := 0.0
	if nch := (len(bl) + blanketChunk - 1) / blanketChunk; len(bl) >= chunkedMinElems && nch*(s.k+s.k*s.k) <= chunkedMaxFloats {
		total = s.scoreChunked(bl, nch, deriv, continuous)
		if math.IsInf(total, -1) || math.IsNaN(total) {
			return total
		}
	} else {
		fast := continuous && s.active >= 0 && s.orbit == nil && s.m.sels != nil
		for n := 0; n < len(bl); {
			en := bl[n]
			if fast && s.m.sels[en.f] != nil {
				var used int
				var ok bool
				var pk []selPack
				if pack != nil {
					pk = pack[n:]
				}
				total, used, ok = s.selRun(s.m.sels[en.f], bl[n:], pk, total, deriv)
				n += used
				if !ok {
					s.resetBatches()
					return total
				}
				continue
			}
			if mf := s.m.mixFor(en.f); mf != nil {
				t, used := s.mixRun(mf, bl[n:], deriv, continuous)
				total += t
				n += used
			} else {
				total += s.factorElem(int(en.f), int(en.e), deriv, continuous)
				n++
			}
			if math.IsInf(total, -1) || math.IsNaN(total) {
				s.resetBatches()
				return total
			}
		}
	}
	for gi := range gs {
		total += s.factorGroup(&gs[gi], deriv)
		if math.IsInf(total, -1) || math.IsNaN(total) {
			s.resetBatches()
			return total
		}
	}
	for _, li := range lin {
		total += s.linearOrElems(int(li), deriv, continuous)
		if math.IsInf(total, -1) || math.IsNaN(total) {
			s.resetBatches()
			return total
		}
	}
	if len(margs) > 0 {
		if deriv {
			s.flushBatches() // margLSE scores into buffers of its own
		}
		total = s.margSum(margs, picks, deriv, total)
		if math.IsInf(total, -1) || math.IsNaN(total) {
			return total
		}
	}
	if deriv {
		s.flushBatches()
		s.symmetrize()
	}
	return total
}

// scoreChunked scores the blanket elements bl in nch fixed chunks of blanketChunk
// elements, spread over up to nworkers goroutines, each with its own helper scorer
// (own scratch, caches and row batches). Every chunk's score, gradient and Hessian
// are partial sums of their own, added in chunk order, so the result does not depend
// on GOMAXPROCS or on which goroutine ran which chunk. The partial derivatives are
// added to s.grad and s.hess. It returns the summed score, or the first non-finite
// running total (−Inf or NaN) in chunk order.
func (s *scorer) scoreChunked(bl []entry, nch int, deriv, continuous bool) float64 {
	k := s.k
	per := 0
	if deriv {
		per = k + k*k
	}
	if cap(s.chunkF) < nch {
		s.chunkF = make([]float64, nch)
	}
	if cap(s.chunkGH) < nch*per {
		s.chunkGH = make([]float64, nch*per)
	}
	chunkF, chunkGH := s.chunkF[:nch], s.chunkGH[:nch*per]
	for len(s.helpers) < min(s.nworkers, nch) {
		s.helpers = append(s.helpers, s.m.newScorer())
	}
	for _, h := range s.helpers {
		h.x, h.active, h.k, h.base = s.x, s.active, s.k, s.base
		h.orbit, h.ou, h.ow = s.orbit, s.ou, s.ow
		h.ops.k = s.k
		h.fixSite, h.fixVal = s.fixSite, s.fixVal
		h.newCall()
	}
	if s.chunkFn == nil {
		s.chunkFn = s.scoreChunk
	}
	s.chunkBl, s.chunkDeriv, s.chunkCont = bl, deriv, continuous
	s.par.Chunks(nch, s.nworkers, s.chunkFn)
	s.chunkBl = nil
	total := 0.0
	for c := range chunkF {
		total += chunkF[c]
		if math.IsInf(total, -1) || math.IsNaN(total) {
			return total
		}
	}
	if deriv {
		for c := 0; c < nch; c++ {
			gh := chunkGH[c*per : (c+1)*per]
			for p, v := range gh[:k] {
				s.grad[p] += v
			}
			for p, v := range gh[k:] {
				s.hess[p] += v
			}
		}
	}
	return total
}

// scoreChunk scores chunk c of scoreChunked's call on helper scorer w.
func (s *scorer) scoreChunk(w, c int) {
	bl, deriv, continuous := s.chunkBl, s.chunkDeriv, s.chunkCont
	k := s.k
	per := 0
	if deriv {
		per = k + k*k
	}
	h := s.helpers[w]
	lo, hi := c*blanketChunk, min((c+1)*blanketChunk, len(bl))
	if deriv {
		gh := s.chunkGH[c*per : (c+1)*per]
		clear(gh)
		h.grad, h.hess = gh[:k], gh[k:]
	}
	total := 0.0
	for n := lo; n < hi; {
		en := bl[n]
		if mf := s.m.mixFor(en.f); mf != nil {
			t, used := h.mixRun(mf, bl[n:hi], deriv, continuous)
			total += t
			n += used
		} else {
			total += h.factorElem(int(en.f), int(en.e), deriv, continuous)
			n++
		}
		if math.IsInf(total, -1) || math.IsNaN(total) {
			break
		}
	}
	s.chunkF[c] = total
	if math.IsInf(total, -1) || math.IsNaN(total) {
		h.resetBatches()
	} else if deriv {
		h.flushBatches()
	}
}

// symmetrize makes the Hessian exactly symmetric. Dense products and outer
// products add the same terms to [p,q] and [q,p] in different orders, so the two
// triangles can differ in the last bits; the Scorer contract promises a symmetric
// matrix.
func (s *scorer) symmetrize() {
	k := s.k
	for p := 0; p < k; p++ {
		for q := p + 1; q < k; q++ {
			v := 0.5 * (s.hess[p*k+q] + s.hess[q*k+p])
			s.hess[p*k+q], s.hess[q*k+p] = v, v
		}
	}
}

// factorElem returns the log density of element e of factor fi and, with deriv,
// adds its derivatives with respect to the active site to the accumulators. With
// skipConst, an element none of whose arguments depends on the active site
// contributes 0.
func (s *scorer) factorElem(fi, e int, deriv, skipConst bool) float64 {
	if s.m.sels != nil && s.orbit == nil {
		if sel := s.m.sels[fi]; sel != nil {
			return s.catSelElem(sel, fi, e, deriv, skipConst)
		}
	}
	fc := s.m.factors[fi]
	if fc.jf != nil {
		return fc.jf.scoreElem(s, fi, e, deriv, skipConst)
	}
	if deriv && s.m.constPrior != nil && s.m.constPrior[fi] && s.orbit == nil && s.fixSite == 0 &&
		s.active >= 0 && fc.fam.site(e) == s.active {
		return s.priorElem(fi, e)
	}
	d := fc.d
	s.top = 0
	s.ops.ar.top = 0
	na := 0
	vw := fc.width
	if fc.obs != nil {
		for c := 0; c < vw; c++ {
			s.argj[c] = jet{v: fc.obs[e*vw+c]}
		}
	} else {
		s.eval(fc.fam.node, e, s.argj[:vw])
	}
	na = vw
	scalar := s.scalarMode()
	for _, p := range d.params {
		if scalar && p.width == 1 && p.op > opLatent {
			// An expression: in registers (a constant or a latent is read as is).
			v, g, h, dep := s.evalScalar(p, elem(p, e))
			s.argj[na] = unitJet(v, g, h, dep)
		} else {
			s.eval(p, elem(p, e), s.argj[na:na+p.width])
		}
		na += p.width
	}
	args := s.argj[:na]
	anyDeriv := false
	for c := range args {
		s.argv[c] = args[c].v
		if args[c].kind != jConst {
			anyDeriv = true
		}
	}
	if skipConst && !anyDeriv {
		return s.constElem(d.fam, na)
	}
	if !deriv || !anyDeriv {
		return d.fam.LogProb(s.argv[:na], d.k)
	}
	return s.chain(fi, args, 1)
}

// constElem is factorElem's contribution of an element none of whose arguments
// depends on the active site: 0 (it adds the same to the scores of both states of a
// step), unless an argument is NaN or a Factor's value is not a log density (NaN,
// ±Inf) — an expression of the active site that failed (a scale below 0, a weight
// outside [0, 1]) leaves a constant NaN jet, and the state is impossible: −Inf, as
// LogJoint says.
func (s *scorer) constElem(fam dist.Family, na int) float64 {
	for _, v := range s.argv[:na] {
		if math.IsNaN(v) {
			return math.Inf(-1)
		}
	}
	if _, ok := fam.(exprFactor); ok && math.IsInf(s.argv[1], 0) {
		return math.Inf(-1)
	}
	return 0
}

// chain returns w·log p at s.argv and adds w times its derivatives with respect to
// the active site, through the argument jets args, to the accumulators.
func (s *scorer) chain(fi int, args []jet, w float64) float64 {
	fc := s.m.factors[fi]
	d := fc.d
	na := len(args)
	d1, d2 := s.d1[:na], s.d2[:na*na]
	var lp float64
	if fc.partial != nil && na <= 64 {
		// Only the entries of arguments that depend on the active site are read
		// below: ask for those alone (a Dirichlet prior with constant
		// concentrations skips its digamma and trigamma terms).
		var wrt uint64
		for a := range args {
			if args[a].kind != jConst {
				wrt |= 1 << a
			}
		}
		lp = fc.partial.DerivsOf(s.argv[:na], d.k, wrt, d1, d2, &s.memos[fi])
	} else if fc.memo != nil {
		lp = fc.memo.DerivsMemo(s.argv[:na], d.k, d1, d2, &s.memos[fi])
	} else {
		lp = d.fam.Derivs(s.argv[:na], d.k, d1, d2)
	}
	if math.IsInf(lp, 0) || math.IsNaN(lp) {
		return lp
	}
	if w != 1 {
		for a := range d1 {
			d1[a] *= w
		}
		for a := range d2 {
			d2[a] *= w
		}
	}
	s.chainSums(args, d1, d2)
	return w * lp
}

// factorGroup returns the summed log density of a group of elements of one factor
// whose parameters are shared (length 1) and whose values are small integers
// independent of the active site, such as z_i ~ Categorical(pi) seen from pi: the
// elements are tallied by value, and each distinct value costs one evaluation.
func (s *scorer) factorGroup(g *group, deriv bool) float64 {
	fc := s.m.factors[g.f]
	d := fc.d
	s.top = 0
	s.ops.ar.top = 0
	if cap(s.tally) < g.values {
		s.tally = make([]float64, g.values)
	}
	tally := s.tally[:g.values]
	for _, e := range g.elems {
		var v float64
		if fc.obs != nil {
			v = fc.obs[e]
		} else {
			v = s.x[fc.fam.offset+int(e)]
		}
		if !(v >= 0 && v < float64(g.values)) {
			clear(tally)
			return math.Inf(-1)
		}
		tally[int(v)]++
	}
	na := 1
	for _, p := range d.params {
		s.eval(p, 0, s.argj[na:na+p.width])
		na += p.width
	}
	args := s.argj[:na]
	anyDeriv := false
	for c := 1; c < na; c++ {
		s.argv[c] = args[c].v
		if args[c].kind != jConst {
			anyDeriv = true
		}
	}
	total := 0.0
	for v, n := range tally {
		if n == 0 {
			continue
		}
		tally[v] = 0
		if math.IsInf(total, -1) || math.IsNaN(total) {
			continue // keep clearing the tally
		}
		args[0] = jet{v: float64(v)}
		s.argv[0] = float64(v)
		if deriv && anyDeriv {
			total += s.chain(int(g.f), args, n)
		} else {
			total += n * d.fam.LogProb(s.argv[:na], d.k)
		}
	}
	return total
}

// siteTables returns the compiled tables of site i's blanket that sumBlanket reads:
// its linear factors, its summed-out groups' picks and its selection packs (each
// nil when the model has none).
func (m *Model) siteTables(i int) (lin []int32, picks *sitePicks, pack []selPack) {
	if m.linSites != nil {
		lin = m.linSites[i]
	}
	if m.margPicks != nil {
		picks = &m.margPicks[i]
	}
	if m.selPacks != nil {
		pack = m.selPacks[i]
	}
	return lin, picks, pack
}
