package graph

import (
	"fmt"
	"math"
	"slices"

	"github.com/nmc-go/nmc/nmc"
)

// The joint derivatives of several sites (nmc.JointHessianer). Scores are made
// for one active site at a time (its coordinates the jets' directions) or along a
// group's orbit (one direction). The gradient and the Hessian of a block of sites
// are assembled exactly from both, without finite differences:
//
//   - each site's score with derivatives gives its part of the gradient and its
//     diagonal block of the Hessian (the terms that do not read the site add
//     nothing to either);
//   - for coordinates p and q of two different sites a and b that share a factor
//     element (neighbours), the second derivative along the direction e_p + e_q of
//     the sum of the elements that read a or b — an orbit score of that union of
//     blankets with dx/dt = e_p + e_q — is H_pp + 2H_pq + H_qq, which gives H_pq
//     (polarisation); the cross terms of sites that share no element are 0;
//   - the value is the orbit score of the union of all the block's blankets (for a
//     single site its score; for two neighbours the pair's orbit score gives it).
//
// A block of n scalar sites, all neighbours, costs n site scores and n(n−1)/2
// orbit scores per call. The site scores are taken without the proposal-shaping
// changes Score makes to a simplex's Hessian (steerSimplex, steerHMM): these are the
// exact derivatives.

var _ nmc.JointHessianer = (*scorer)(nil)

// blockScore is the compiled form of one block of sites for JointHessian.
type blockScore struct {
	sites []int
	goff  []int  // per site: its coordinates' offset in grad
	all   *orbit // the union of the sites' blankets
	pairs []blockPair
	n     int   // coordinates
	clear []int // state coordinates of the member families (ranges: lo, hi, …)
	// value says where the value comes from: −1 the single site's score, 0 the
	// union's orbit score, 1 the first pair's orbit score (the union itself).
	value int
	// onePass: the union is scored in one pass with jets over all the block's
	// coordinates (see onePassable); index: per block coordinate, its state
	// coordinate.
	onePass bool
	one     *orbit // the union, its linear factors as elements
	index   []int
}

// blockPair is a pair of neighbouring sites of a block (indices into sites) and
// the orbit of the union of their blankets.
type blockPair struct {
	a, b int
	o    *orbit
}

// JointHessian returns the sum of the factor elements that depend on any of the
// listed continuous sites (the log joint up to a term that does not depend on
// them; summed-out latents summed out) and writes its gradient and Hessian with
// respect to their coordinates into grad and hess (nmc.JointHessianer), a
// simplex's coordinates each taken as free; with both nil, the value alone (an
// orbit score of the union without derivatives). Outside the support it returns
// −Inf.
func (s *scorer) JointHessian(x []float64, sites []int, grad, hess []float64) float64 {
	bs := s.blockOf(sites)
	n := bs.n
	if grad == nil && hess == nil {
		if len(sites) == 1 {
			return s.Score(x, sites[0], nil, nil)
		}
		return s.blockOrbitScore(x, bs, bs.all, -1, -1, nil)
	}
	if len(grad) != n || len(hess) != n*n {
		panic(fmt.Sprintf("graph: JointHessian: grad has %d entries and hess %d, the sites listed %d coordinates", len(grad), len(hess), n))
	}
	if bs.onePass {
		return s.blockOnePass(x, bs, grad, hess)
	}
	clear(hess)
	if s.jointH == nil || len(s.jointH) < n*n {
		s.jointH = make([]float64, n*n)
	}
	var value float64
	for a, i := range bs.sites {
		k := s.m.sites[i].Size
		g := grad[bs.goff[a] : bs.goff[a]+k]
		h := s.jointH[:k*k]
		f := s.exactSiteScore(x, i, g, h)
		if !(f > math.Inf(-1)) || math.IsNaN(f) {
			return f
		}
		if bs.value < 0 {
			value = f
		}
		o := bs.goff[a]
		for p := range k {
			copy(hess[(o+p)*n+o:(o+p)*n+o+k], h[p*k:p*k+k])
		}
	}
	for pi, pr := range bs.pairs {
		ia, ib := bs.sites[pr.a], bs.sites[pr.b]
		oa, ob := bs.goff[pr.a], bs.goff[pr.b]
		ka, kb := s.m.sites[ia].Size, s.m.sites[ib].Size
		xa, xb := s.m.offsets[ia], s.m.offsets[ib]
		for p := range ka {
			for q := range kb {
				var d [2]float64
				f := s.blockOrbitScore(x, bs, pr.o, xa+p, xb+q, &d)
				if !(f > math.Inf(-1)) || math.IsNaN(f) {
					return f
				}
				if pi == 0 && p == 0 && q == 0 && bs.value == 1 {
					value = f
				}
				hpq := 0.5 * (d[1] - hess[(oa+p)*n+oa+p] - hess[(ob+q)*n+ob+q])
				hess[(oa+p)*n+ob+q], hess[(ob+q)*n+oa+p] = hpq, hpq
			}
		}
	}
	if bs.value == 0 {
		value = s.blockOrbitScore(x, bs, bs.all, -1, -1, nil)
	}
	return value
}

// exactSiteScore is Score of the continuous site i with derivatives, without the
// simplex's and the hidden Markov model's Hessian steering.
func (s *scorer) exactSiteScore(x []float64, i int, grad, hess []float64) float64 {
	s.x = x
	s.newCall()
	s.active = i
	s.k = s.m.sites[i].Size
	s.ops.k = s.k
	s.base = s.m.offsets[i]
	s.grad, s.hess = grad[:s.k], hess[:s.k*s.k]
	clear(s.grad)
	clear(s.hess)
	lin, picks, pack := s.m.siteTables(i)
	if f, ok := s.tapeScore(i, s.m.blanket[i], lin, s.m.margOf[i], true); ok {
		return f
	}
	return s.sumBlanket(s.m.blanket[i], pack, s.m.groups[i], lin, s.m.margOf[i], picks, true, true)
}

// blockOrbitScore returns the orbit score of o (a union of blankets of bs's
// sites) along dx/dt = e_p + e_q (state coordinates; q < 0: e_p alone; p < 0: no
// derivatives), with its first and second derivatives in d when d is not nil.
func (s *scorer) blockOrbitScore(x []float64, bs *blockScore, o *orbit, p, q int, d *[2]float64) float64 {
	if len(s.ou) < s.m.dim {
		s.ou, s.ow = make([]float64, s.m.dim), make([]float64, s.m.dim)
	}
	for r := 0; r < len(bs.clear); r += 2 {
		clear(s.ou[bs.clear[r]:bs.clear[r+1]])
		clear(s.ow[bs.clear[r]:bs.clear[r+1]])
	}
	if p >= 0 {
		s.ou[p] = 1
	}
	if q >= 0 {
		s.ou[q] = 1
	}
	return s.orbitSum(x, o, d)
}

// blockOf returns the compiled block of the listed sites, compiling it on first
// use (kept per scorer; a sampler's block moves list the same sites every call).
func (s *scorer) blockOf(sites []int) *blockScore {
	for _, bs := range s.blocks {
		if slices.Equal(bs.sites, sites) {
			return bs
		}
	}
	bs := s.m.compileBlock(sites)
	s.blocks = append(s.blocks, bs)
	return bs
}

// compileBlock compiles the block of the listed sites (continuous, each once).
func (m *Model) compileBlock(sites []int) *blockScore {
	bs := &blockScore{sites: slices.Clone(sites)}
	seen := map[int]bool{}
	for _, i := range sites {
		if i < 0 || i >= len(m.sites) || m.sites[i].Support == nmc.Discrete || m.sites[i].Marginalised {
			panic(fmt.Sprintf("graph: JointHessian: site %d is not a continuous site of the model", i))
		}
		if seen[i] {
			panic(fmt.Sprintf("graph: JointHessian: site %q is listed twice", m.sites[i].Name))
		}
		seen[i] = true
		bs.goff = append(bs.goff, bs.n)
		bs.n += m.sites[i].Size
	}
	for _, f := range m.fams {
		for _, i := range sites {
			if i >= f.first && i < f.first+len(m.sitesOf(f)) {
				bs.clear = append(bs.clear, f.offset, f.offset+f.length*f.width)
				break
			}
		}
	}
	bs.all = m.unionOrbit(sites)
	for a := range sites {
		for b := a + 1; b < len(sites); b++ {
			if !slices.Contains(m.neighbors[sites[a]], sites[b]) {
				continue
			}
			o := bs.all
			if len(sites) > 2 {
				o = m.unionOrbit([]int{sites[a], sites[b]})
			}
			bs.pairs = append(bs.pairs, blockPair{a: a, b: b, o: o})
		}
	}
	switch {
	case len(sites) == 1:
		bs.value = -1
	case len(sites) == 2 && len(bs.pairs) == 1:
		bs.value = 1
	}
	if len(sites) > 1 {
		// Not with linear factors: scored element by element, a regression of 100
		// rows took 4 times the CPU of the site and orbit scores through them.
		if one := m.unionOrbit(sites); m.onePassable(one) {
			bs.onePass, bs.one = true, one
		}
	}
	for _, i := range sites {
		for c := range m.sites[i].Size {
			bs.index = append(bs.index, m.offsets[i]+c)
		}
	}
	return bs
}

// onePassable reports whether the union o of a block's blankets can be scored in
// one pass with jets over all the block's coordinates: every coordinate of the
// block a unit jet of its own (as a Vector site's coordinates are), which the
// general evaluation path chains through exactly. Only models whose nodes are
// the elementwise arithmetic, Sum, Index, MatVec (a row's product summed from its
// coordinates' unit jets, as for a plate of scalar sites) and the custom
// operations that chain any jets (manyDirections: a Gaussian process's kernel,
// AddDiag, Reshape, Stack) are taken, and of the factors scored from their
// argument jets (jetFamily) only the multivariate normal, which reads the
// directions of any jets (the Markov-blanket special paths — linear factors, the
// other custom operations, summed-out groups, joint factors — know one active
// site or one orbit direction), and only blankets scored serially (below
// chunkedMinElems elements). A Gaussian process regression's block of its
// kernel's hyperparameters is so one score, not one per site and one per pair.
func (m *Model) onePassable(o *orbit) bool {
	if len(o.lin) > 0 || len(o.marg) > 0 || len(o.blanket) >= chunkedMinElems {
		return false
	}
	manyDirs := func(f *factor) bool {
		_, mvn := f.jf.(*mvnFamily)
		return f.jf == nil || mvn
	}
	for _, g := range o.groups {
		if m.factors[g.f].jf != nil {
			return false
		}
	}
	for _, en := range o.blanket {
		if !manyDirs(m.factors[en.f]) {
			return false
		}
	}
	if m.plan == nil {
		return false
	}
	for _, n := range m.plan.nodes {
		switch n.op {
		case opConst, opLatent, opAdd, opSub, opMul, opDiv, opNeg, opExp, opLog, opLog1p,
			opSqrt, opPow, opLogistic, opSoftplus, opSum, opIndex, opMatVec:
		case opCustom:
			if _, ok := n.impl.(manyDirections); !ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// manyDirections marks the custom operations whose eval chains the jets of its
// arguments through the scorer's jet operations whatever their kind, so that
// jets over several directions at once (a block scored in one pass) come out
// exact.
type manyDirections interface {
	nodeOp
	manyDirections()
}

func (kernelOp) manyDirections()  {}
func (addDiagOp) manyDirections() {}
func (reshapeOp) manyDirections() {}
func (stackOp) manyDirections()   {}

// blockOnePass is JointHessian of a onePass block: the union's orbit score with
// the jets of the block's coordinates the unit jets of n directions.
func (s *scorer) blockOnePass(x []float64, bs *blockScore, grad, hess []float64) float64 {
	n := bs.n
	if len(s.ou) < s.m.dim {
		s.ou, s.ow = make([]float64, s.m.dim), make([]float64, s.m.dim)
	}
	if len(s.oiBuf) < s.m.dim {
		s.oiBuf = make([]int32, s.m.dim)
	}
	for r := 0; r < len(bs.clear); r += 2 {
		clear(s.ou[bs.clear[r]:bs.clear[r+1]])
		clear(s.ow[bs.clear[r]:bs.clear[r+1]])
		clear(s.oiBuf[bs.clear[r]:bs.clear[r+1]])
	}
	for a, j := range bs.index {
		s.ou[j], s.oiBuf[j] = 1, int32(a)
	}
	s.x, s.active, s.orbit, s.oi = x, -1, bs.one, s.oiBuf
	s.k, s.ops.k, s.base = n, n, 0
	s.newCall()
	s.grad, s.hess = grad[:n], hess[:n*n]
	clear(s.grad)
	clear(s.hess)
	o := bs.one
	f := s.sumBlanket(o.blanket, nil, o.groups, o.lin, o.marg, nil, true, true)
	s.orbit, s.oi = nil, nil
	return f
}

// unionOrbit returns an orbit over the listed sites (its members their families)
// whose blanket is the union of the sites' blankets, each element once: the
// elements scored one by one, the runs tallied by value (as orbitBlankets splits
// them), the linear factors scored whole and the summed-out groups.
func (m *Model) unionOrbit(sites []int) *orbit {
	o := &orbit{member: make([]bool, len(m.fams))}
	for _, f := range m.fams {
		for _, i := range sites {
			if i >= f.first && i < f.first+len(m.sitesOf(f)) {
				o.member[f.id] = true
			}
		}
	}
	var all []entry
	for _, i := range sites {
		all = append(all, m.blanket[i]...)
		for _, g := range m.groups[i] {
			for _, e := range g.elems {
				all = append(all, entry{g.f, e})
			}
		}
		if m.linSites != nil {
			o.lin = append(o.lin, m.linSites[i]...)
		}
		o.marg = append(o.marg, m.margOf[i]...)
	}
	slices.Sort(o.lin)
	o.lin = slices.Compact(o.lin)
	slices.Sort(o.marg)
	o.marg = slices.Compact(o.marg)
	// A linear factor scored whole by one site's blanket is left out of the
	// elements another site's blanket lists one by one.
	all = slices.DeleteFunc(all, func(en entry) bool {
		return m.linOf != nil && m.linOf[en.f] >= 0 && slices.Contains(o.lin, m.linOf[en.f])
	})
	m.splitBlanket(all, o)
	return o
}
