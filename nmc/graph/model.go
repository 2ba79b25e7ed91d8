package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/dist"
)

// Model is a compiled graph model. It implements nmc.Model (and nmc.Deriver when
// the builder recorded deterministic quantities, nmc.Generator when it declared
// hidden Markov models), and reports each site's neighbours so that the sampler
// can reuse derivatives.
type Model struct {
	leads     []string            // names of the lead sites (Lead, AutoKernelLeads)
	followers map[string][]string // per lead, the names of its followers (AutoKernelLeads)
	carries   []*carryPlan        // the moves of rule AutoKernelCarry (carry.go)
	// augSites are the sites declared with Augment and augmented is the model that
	// scores them with nothing summed out (compileAugment); nil without.
	augSites  []int
	augmented *Model
	// hamSites are the sites of the Hamiltonian block (Builder.Hamiltonian), nil
	// without; joint is the plan of JointGrad's fast path, made by its first call.
	hamSites  []int
	jointOnce sync.Once
	joint     *jointPlan
	fams      []*family
	factors   []*factor
	derived   []namedNode
	hmms      []hmmDecl // hidden Markov models whose states Generate draws
	hmmSteer  []bool    // per site: a simplex read by an HMMMarginal (steerSimplex); nil: none
	// valueScorers holds value scorers (valueScorer) for the calls made at every
	// draw — Derive, Replicate, Init — reused across calls, draws and chains.
	valueScorers sync.Pool
	// obs: the indices in factors of the observations (observed), numReplicated the
	// values of one replicated data set, logLik their pointwise log-likelihood
	// (LogLik); set by compile.
	obs           []int
	numReplicated int
	logLik        *observedLogLik

	sites     []nmc.Site
	offsets   []int
	dim       int
	blanket   [][]entry // per site: factor elements whose log density involves it
	groups    [][]group // per site: elements evaluated by value (see factorGroup)
	neighbors [][]int
	maxArgs   int
	numMatVec int // MatVec nodes over a Vector site, numbered by Node.id
	orbits    []orbit
	auto      *autoConfig // the automatic groups' rules (autogroup.go); nil: none
	linear    []linFactor // factors scored as a whole (linear.go)
	linSites  [][]int32   // per site: its linear factors (indices into linear)
	linOf     []int32     // per factor: its index in linear, or −1
	noLinear  bool        // see Builder.noLinear
	noMemo    bool        // see Builder.noMemo
	// mixRows: per factor, its row plan as a mixture factor (mixrows.go), or nil
	// (nil without any); numMix of them.
	mixRows   []*mixFactor
	numMix    int
	noMixRows bool // see Builder.noMixRows

	// plan numbers the nodes and chooses the memoised ones (memo.go); constSc
	// evaluates constant parameters during compile.
	plan    *memoPlan
	constSc *scorer

	// Summed-out discrete sites (Builder.Marginalise): one group per site, the groups
	// each site's score reads, and per factor element its group (−1: none; a nil
	// slice for a factor without any).
	marg    []margGroup
	margAll []int32 // 0 … len(marg)−1 (LogJoint)
	margOf  [][]int32
	inMarg  [][]int32
	margIdx []int32 // per site: its own summed-out group, or −1 (WeighValues)

	sels     []*catSel   // per factor: its compiled selection (catSel), or nil
	valElems [][]valElem // per finite discrete site: per blanket entry (ScoreValues), or nil
	selPacks [][]selPack // per continuous site: per blanket entry (selRun), or nil
	valPlans *valPlans   // ScoreValues's plans of direct selections, or nil
	// constPrior: per factor, whether priorElem evaluates its elements (nil: none).
	constPrior []bool
	// conj: per site, how DrawConditional draws it (conjugate.go); nil entries for
	// the others, nil without any.
	conj []*conjSite
	// Selections whose counts scorers keep (counts.go): per factor the offset of its
	// counts in a scorer's countState.n (−1: not counted; nil without any), their
	// total length, and per site the count entries its observations move:
	// countElems[countStart[i]:countStart[i+1]].
	countOf    []int32
	countLen   int
	countStart []int32
	countElems []countElem
	// simpleProd holds the elements of the simple summed-out groups, contiguous.
	simpleProd []simpleProd
	liveProd   []simpleProd // the simple groups' live elements (margGroup.liveLo)
	// sharedLive: the live elements of every simple group when they are all the
	// same (nil otherwise), sharedValues the most values of a simple group.
	sharedLive   []simpleProd
	sharedValues int
	// margPicks: per site, its groups margOf and the elements of the simple ones
	// that select it (nil without summed-out groups).
	margPicks []sitePicks
	// allRefs: every summed-out group, without picks (LogJoint).
	allRefs sitePicks
	// The scorers' product cache (margCache): per entry its group; the state
	// coordinates the products read and, for readCoord[r], the entries that read
	// it, packed with their coordinates in readPack[readStart[r]:readStart[r+1]]:
	// per entry e, then its number of coordinates n, then entryCoord's n
	// coordinates of e (so that recomputing the entries of one coordinate reads
	// one contiguous run).
	pGroup []int32
	// entryCoord[entryStart[i]:entryStart[i+1]]: the state coordinates whose product
	// is entry i, in element order (−1: an element that makes it 0).
	entryStart, entryCoord []int32
	readCoord, readStart   []int32
	readPack               []int32
	readRuns               []readRun // readCoord as runs of consecutive coordinates
	// cacheGroups: per simple group, its entries and cached elements for
	// margRecomputeAll, which recomputes the entries group by group, all values of
	// an element at once; cacheElems[lo:hi] are a group's elements that are not live.
	cacheGroups []cacheGroup
	cacheElems  []cacheElem
	weighRefs   []weighRef // per site: what WeighValues reads of it
	tapes       tapeSet    // per site: its scalar score's tape, compiled at first use (tape.go)
}

type entry struct {
	f, e int32
}

// group is a run of elements of factor f in a site's blanket that share their
// parameters and whose values are integers in [0, values) not moved by the site.
type group struct {
	f      int32
	values int
	elems  []int32
}

// minGroup is the least number of elements worth tallying by value.
const minGroup = 8

var _ nmc.Model = (*Model)(nil)
var _ nmc.Deriver = (*Model)(nil)

// Sites lists the latent sites in state order.
func (m *Model) Sites() []nmc.Site { return m.sites }

// Neighbors returns the sites whose values enter site i's Markov-blanket score
// (site i included).
func (m *Model) Neighbors(i int) []int { return m.neighbors[i] }

// Blanket returns the number of factor elements (prior and likelihood terms) that
// site i's score sums over.
func (m *Model) Blanket(i int) int {
	n := len(m.blanket[i])
	for _, g := range m.groups[i] {
		n += len(g.elems)
	}
	if m.linSites != nil {
		for _, li := range m.linSites[i] {
			n += m.factors[m.linear[li].f].length
		}
	}
	for _, gi := range m.margOf[i] {
		n += len(m.marg[gi].elems)
	}
	return n
}

// Offset returns the position in the state of the first coordinate of the named
// latent family and the number of its coordinates.
func (m *Model) Offset(name string) (offset, size int, err error) {
	for _, f := range m.fams {
		if f.name == name {
			return f.offset, f.length * f.width, nil
		}
	}
	return 0, 0, fmt.Errorf("graph: unknown latent %q", name)
}

func (m *Model) compile(groups []groupDecl, margs []*family) error {
	if m.plan == nil {
		m.plan = newMemoPlan(m.factors, m.derived, !m.noMemo)
	}
	defer func() { m.constSc = nil }()
	// Number every family's sites and coordinates before finding the supports:
	// finding one evaluates constant parameters, an evaluation may collect the
	// sites a node depends on (a CholeskyMul's covariance), and the plan keeps the
	// site sets of the memoised nodes from then on (prepareDeps).
	nsites, off := 0, 0
	for _, f := range m.fams {
		f.first, f.offset = nsites, off
		if f.vector {
			nsites, off = nsites+1, off+f.length
		} else {
			nsites, off = nsites+f.length, off+f.length*f.width
		}
	}
	// Sites and supports.
	off = 0
	for _, f := range m.fams {
		f.first = len(m.sites)
		f.offset = off
		nsites := f.length
		if f.vector {
			nsites = 1
		}
		for s := 0; s < nsites; s++ {
			e := s
			if f.vector {
				e = 0
			}
			kind, lo, hi, nv, err := m.support(f, e)
			if err != nil {
				return err
			}
			if f.vector {
				for e2 := 1; e2 < f.length; e2++ {
					k2, lo2, hi2, _, err := m.support(f, e2)
					if err != nil {
						return err
					}
					if k2 != kind || lo2 != lo || hi2 != hi {
						return fmt.Errorf("graph: vector %q: coordinates %d and 0 have different supports", f.name, e2)
					}
				}
			}
			size := f.width
			if f.vector {
				size = f.length
			}
			if kind == nmc.Discrete && size != 1 {
				return fmt.Errorf("graph: latent %q: a discrete vector site is not supported; declare a plate", f.name)
			}
			site := nmc.Site{Name: f.elemName(s), Size: size, Support: kind, Lower: lo, Upper: hi, NumValues: nv}
			if f.vector {
				site.Name = f.name
			}
			site.CoordNames = make([]string, size)
			for c := 0; c < size; c++ {
				switch {
				case f.vector:
					site.CoordNames[c] = fmt.Sprintf("%s[%d]", f.name, c)
				case size == 1:
					site.CoordNames[c] = site.Name
				case len(f.shape) == 0:
					site.CoordNames[c] = fmt.Sprintf("%s[%d]", f.name, c)
				default:
					site.CoordNames[c] = site.Name[:len(site.Name)-1] + fmt.Sprintf(",%d]", c)
				}
			}
			m.sites = append(m.sites, site)
			off += size
		}
	}
	m.dim = off
	m.offsets = nmc.Offsets(m.sites)
	if err := m.checkIndexNodes(); err != nil {
		return err
	}

	// Check constant parameters and observed values.
	for _, fc := range m.factors {
		fc.memo, _ = fc.d.fam.(dist.MemoDeriver)
		fc.partial, _ = fc.d.fam.(dist.PartialDeriver)
		fc.jf, _ = fc.d.fam.(jetFamily)
		if err := m.checkFactor(fc); err != nil {
			return err
		}
	}
	if err := m.compileGroups(groups); err != nil {
		return err
	}

	// Markov blankets and neighbours.
	m.blanket = make([][]entry, len(m.sites))
	nb := make([]map[int]struct{}, len(m.sites))
	var deps, prev []int
	for fi, fc := range m.factors {
		_, pw := fc.d.fam.Layout(fc.d.k)
		na := fc.width
		for _, w := range pw {
			na += w
		}
		if fc.jf == nil { // a jetFamily evaluates its arguments itself
			m.maxArgs = max(m.maxArgs, na)
		}
		for e := 0; e < fc.length; e++ {
			deps = deps[:0]
			if fc.fam != nil {
				deps = addDep(deps, fc.fam.site(e))
			}
			for _, p := range fc.d.params {
				pe := e
				if p.length == 1 {
					pe = 0
				}
				deps = collectDeps(p, pe, deps)
			}
			for _, s := range deps {
				m.blanket[s] = append(m.blanket[s], entry{int32(fi), int32(e)})
			}
			if slices.Equal(deps, prev) {
				continue
			}
			prev = append(prev[:0], deps...)
			for _, s := range deps {
				if nb[s] == nil {
					nb[s] = map[int]struct{}{}
				}
				for _, t := range deps {
					nb[s][t] = struct{}{}
				}
			}
		}
	}
	if err := m.compileMarginals(margs); err != nil {
		return err
	}
	m.marginalNeighbors(nb)
	m.compileCatSels()
	m.compileMarginalProducts()
	m.orbitBlankets(m.blanket)
	m.groupBlankets()
	m.compileValElems()
	m.numberMatVecs()
	m.compileObserved()
	m.linearBlankets()
	m.compileSelPacks()
	m.compileSelCounts()
	m.compileValPlans()
	m.compileConstPriors()
	m.compileConjugate()
	m.compileMixRows()
	m.neighbors = make([][]int, len(m.sites))
	for s := range nb {
		for t := range nb[s] {
			m.neighbors[s] = append(m.neighbors[s], t)
		}
		slices.Sort(m.neighbors[s])
	}
	return nil
}

// numMemo returns the number of memoised nodes.
func (m *Model) numMemo() int {
	if m.plan == nil {
		return 0
	}
	return len(m.plan.memo)
}

// constScorer returns the value scorer that evaluates constant parameters during
// compile, one for the whole compile and in one evaluation context (constant nodes
// read no state), so that each node element is evaluated once however many
// parameters read it.
func (m *Model) constScorer() *scorer {
	if m.constSc == nil {
		m.constSc = m.valueScorer(nil)
		m.constSc.newCall()
	}
	return m.constSc
}

// NewScorer returns an evaluator for one chain.
func (m *Model) NewScorer() nmc.Scorer { return m.newScorer() }

// Init draws a starting state from the prior, latent families in declaration order.
// PriorPredictive calls it at every prior draw, so it reuses value scorers and
// their scratch (pooledValueScorer).
func (m *Model) Init(rng *rand.Rand, x []float64) error {
	if len(x) != m.dim {
		return fmt.Errorf("graph: Init: state has %d coordinates, want %d", len(x), m.dim)
	}
	sc := m.pooledValueScorer(x)
	err := sc.drawPrior(rng)
	m.releaseValueScorer(sc)
	return err
}

// drawPrior writes into s.x a draw from the prior (Init).
func (s *scorer) drawPrior(rng *rand.Rand) error {
	for _, f := range s.m.fams {
		for e := 0; e < f.length; e++ {
			s.params = s.params[:0]
			for _, p := range f.d.params {
				pe := e
				if p.length == 1 {
					pe = 0
				}
				s.params = s.values(p, pe, s.params)
			}
			for _, v := range s.params {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("graph: Init: latent %q element %d: prior parameter is %v", f.name, e, v)
				}
			}
			if err := f.d.fam.CheckParams(s.params, f.d.k); err != nil {
				return fmt.Errorf("graph: Init: latent %q element %d: %w", f.name, e, err)
			}
			s.drawn = slices.Grow(s.drawn[:0], f.width)[:f.width]
			f.d.fam.Rand(rng, s.params, f.d.k, s.drawn)
			copy(s.x[f.offset+e*f.width:], s.drawn)
		}
	}
	return nil
}

// DerivedNames names the deterministic quantities recorded with every draw.
func (m *Model) DerivedNames() []string {
	var out []string
	for _, d := range m.derived {
		n := d.n
		for e := 0; e < n.length; e++ {
			for c := 0; c < n.width; c++ {
				switch {
				case len(d.shape) > 1 && n.width == 1:
					out = append(out, plateName(d.name, d.shape, e))
				case n.length == 1 && n.width == 1:
					out = append(out, d.name)
				case n.width == 1:
					out = append(out, fmt.Sprintf("%s[%d]", d.name, e))
				case n.length == 1:
					out = append(out, fmt.Sprintf("%s[%d]", d.name, c))
				default:
					out = append(out, fmt.Sprintf("%s[%d,%d]", d.name, e, c))
				}
			}
		}
	}
	return out
}

// Derive writes the deterministic quantities at state x into dst.
// It is called at every recorded draw, from every chain, so it reuses value
// scorers (pooledValueScorer) instead of making one per call.
func (m *Model) Derive(x []float64, dst []float64) {
	if len(m.derived) == 0 {
		return
	}
	sc := m.pooledValueScorer(x)
	sc.newCall() // one context: the state does not change
	out := dst[:0]
	for _, d := range m.derived {
		for e := 0; e < d.n.length; e++ {
			out = sc.appendValues(d.n, e, out)
		}
	}
	m.releaseValueScorer(sc)
}

// groupBlankets moves, from each site's blanket, the runs of elements that
// factorGroup can tally by value: elements of one factor whose parameters all have
// length 1 and whose scalar values are small integers (observed, or a discrete latent
// other than the site itself).
func (m *Model) groupBlankets() {
	m.groups = make([][]group, len(m.sites))
	for s, bl := range m.blanket {
		var keep []entry
		for lo := 0; lo < len(bl); {
			hi := lo
			for hi < len(bl) && bl[hi].f == bl[lo].f {
				hi++
			}
			run := bl[lo:hi]
			if vals := m.groupValues(int(run[0].f), s); vals > 0 && len(run) >= minGroup {
				g := group{f: run[0].f, values: vals, elems: make([]int32, len(run))}
				for i, en := range run {
					g.elems[i] = en.e
				}
				m.groups[s] = append(m.groups[s], g)
			} else {
				keep = append(keep, run...)
			}
			lo = hi
		}
		m.blanket[s] = keep
	}
}

// groupValues returns the number of values to tally for factor fi seen from site s,
// or 0 if its elements cannot be grouped.
func (m *Model) groupValues(fi, s int) int {
	const maxValues = 4096
	fc := m.factors[fi]
	if fc.width != 1 {
		return 0
	}
	for _, p := range fc.d.params {
		if p.length != 1 {
			return 0
		}
	}
	if fc.fam != nil {
		f := fc.fam
		if s >= f.first && s < f.first+len(m.sitesOf(f)) {
			return 0 // the site's own prior
		}
		site := m.sites[f.first]
		if site.Support != nmc.Discrete || site.NumValues <= 0 || site.NumValues > maxValues {
			return 0
		}
		return site.NumValues
	}
	top := 0.0
	for _, v := range fc.obs {
		if v != math.Trunc(v) || v < 0 || v >= maxValues {
			return 0
		}
		top = max(top, v)
	}
	return int(top) + 1
}

// sitesOf returns the sites of family f.
func (m *Model) sitesOf(f *family) []nmc.Site {
	if f.vector {
		return m.sites[f.first : f.first+1]
	}
	return m.sites[f.first : f.first+f.length]
}

// numberMatVecs gives every MatVec node whose vector is a Vector site or a plate of
// scalar sites an id, its slot in each scorer's X·v cache (the element-by-element
// path caches only Vector sites; linear factors cache both).
func (m *Model) numberMatVecs() {
	for _, n := range m.plan.nodes {
		if a := n.args; n.op == opMatVec && a[0].op == opLatent && (a[0].fam.vector || a[0].fam.width == 1) {
			n.id = m.numMatVec
			m.numMatVec++
		}
	}
}
