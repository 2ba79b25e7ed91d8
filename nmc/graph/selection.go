package graph

import (
	"math"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/dist"
)

// catSel is the compiled form of a Categorical factor whose probability vector is
// one element of a latent plate selected by data and by discrete latents — the
// Dawid-Skene likelihood y_j ~ Categorical(theta[labeler_j, z[item_j]]), a mixture's
// classes z_i ~ Categorical(pi), Categorical(Index(p, group)). Element e reads
// src's element base[e] + Σ_d stride_d·(value of site idx_d[e]) directly from the
// state instead of evaluating the parameter's expression by jets, and takes its log
// probability from the scorer's per-coordinate log cache; the result is the same as
// the generic evaluation's, bit for bit (see scorer.catSelElem).
type catSel struct {
	src  *family // the selected plate (not a Vector)
	k    int     // categories: src's width
	base []int32 // per element (one entry when the parameter has length 1)
	dims []selDim
}

// selDim is a plate dimension indexed by a discrete latent: per element the site
// whose value is the index, the dimension's stride in src's elements and its size.
type selDim struct {
	site         []int32
	off          []int32 // per element: the state offset of site[e]
	stride, size int
}

// compileCatSels finds the factors that catSel can evaluate.
func (m *Model) compileCatSels() {
	m.sels = make([]*catSel, len(m.factors))
	for fi, fc := range m.factors {
		if _, ok := fc.d.fam.(dist.Categorical); !ok || len(fc.d.params) != 1 || fc.width != 1 {
			continue
		}
		if fc.fam != nil && (fc.fam.vector || fc.fam.width != 1) {
			continue
		}
		m.sels[fi] = m.selectionOf(fc.d.params[0], fc.length)
	}
}

// selectionOf compiles p, a parameter of n elements, as a selection of a latent
// plate's elements, or returns nil when p is not one: a latent plate, Index of one,
// or At of one by data and by discrete latents (or Index of them).
func (m *Model) selectionOf(p *Node, n int) *catSel {
	plate := func(a *Node) *family {
		if a.op != opLatent || a.fam == nil || a.fam.vector || a.width != p.width {
			return nil
		}
		return a.fam
	}
	base := make([]int32, n)
	switch p.op {
	case opLatent:
		f := plate(p)
		if f == nil {
			return nil
		}
		for e := range base {
			base[e] = int32(elem(p, e))
		}
		return &catSel{src: f, k: p.width, base: base}
	case opIndex:
		f := plate(p.args[0])
		if f == nil {
			return nil
		}
		for e := range base {
			base[e] = int32(p.idx[elem(p, e)])
		}
		return &catSel{src: f, k: p.width, base: base}
	case opAt:
		src := p.args[0]
		f := plate(src)
		if f == nil {
			return nil
		}
		shape := src.shape
		if shape == nil {
			shape = []int{src.length}
		}
		cs := &catSel{src: f, k: p.width, base: base}
		stride := 1
		for d := len(shape) - 1; d >= 0; d-- {
			if data := p.atData[d]; data != nil {
				for e := range base {
					base[e] += int32(stride * data[elem1(len(data), elem(p, e))])
				}
			} else {
				in := p.atNode[d]
				sd := selDim{site: make([]int32, n), off: make([]int32, n), stride: stride, size: shape[d]}
				for e := range sd.site {
					ie := elem(in, elem(p, e))
					switch {
					case in.op == opLatent && in.fam != nil && !in.fam.vector && in.width == 1:
						sd.site[e] = int32(in.fam.site(ie))
					case in.op == opIndex && in.args[0].op == opLatent && in.args[0].fam != nil && !in.args[0].fam.vector && in.width == 1:
						sd.site[e] = int32(in.args[0].fam.site(in.idx[ie]))
					default:
						return nil
					}
					sd.off[e] = int32(m.offsets[sd.site[e]])
				}
				cs.dims = append(cs.dims, sd)
			}
			stride *= shape[d]
		}
		return cs
	}
	return nil
}

// siteValue returns the value of the scalar site i: fixVal while a summed-out group
// of site i is scored (margLSE), else its coordinate in the state.
func (s *scorer) siteValue(i int) float64 {
	if s.fixSite == i+1 {
		return s.fixVal
	}
	return s.x[s.m.offsets[i]]
}

// selValue returns the value of element e of a selection factor: the observed
// value, or for a latent's prior (a hidden Markov chain's z_t, whose row of
// transition probabilities another discrete latent selects) its site's value.
func (s *scorer) selValue(fc *factor, e int) float64 {
	if fc.obs != nil {
		return fc.obs[e]
	}
	return s.siteValue(fc.fam.site(e))
}

// resolve returns the element of sel.src that element e selects at the current
// state, or false when an index is not an integer in range.
func (s *scorer) resolve(sel *catSel, e int) (int, bool) {
	flat := int(sel.base[elem1(len(sel.base), e)])
	for d := range sel.dims {
		dm := &sel.dims[d]
		v := s.siteValue(int(dm.site[e]))
		if !(v >= 0 && v < float64(dm.size)) || v != math.Trunc(v) {
			return 0, false
		}
		flat += dm.stride * int(v)
	}
	return flat, true
}

// logx returns log x[j] from the per-coordinate log cache, recomputed whenever x[j]
// differs from the value it was computed from: math.Log(x[j]) when x[j] is finite and
// > 0 (its callers check that first), −Inf otherwise (posLog).
func (s *scorer) logx(j int) float64 {
	c := &s.logCache()[j]
	if v := s.x[j]; v != c.src {
		c.src, c.lg = v, posLog(v)
	}
	return c.lg
}

// posLog returns math.Log(v) for v finite and > 0, −Inf otherwise: the log density
// the Categorical selections add for probability v.
func posLog(v float64) float64 {
	if v > 0 && !math.IsInf(v, 1) {
		return math.Log(v)
	}
	return math.Inf(-1)
}

// logCache returns the per-coordinate log cache (logx), allocating it on first use.
func (s *scorer) logCache() []cachedLog {
	if s.logs == nil {
		s.logs = make([]cachedLog, s.m.dim)
		for i := range s.logs {
			s.logs[i].src = math.NaN() // never equal: every log is computed on first use
		}
	}
	return s.logs
}

// cachedLog is a value and its log, side by side (one cache line).
type cachedLog struct{ src, lg float64 }

// catSelElem is factorElem for a factor compiled as a catSel: the same value and the
// same additions to the gradient and Hessian as the generic evaluation through jets
// and dist.Categorical (log p_y; ∂ = 1/p_y and ∂² = −1/p_y² in coordinate y of the
// active site, when the element selects it), with the same skipping of elements
// that do not read the active site.
func (s *scorer) catSelElem(sel *catSel, fi, e int, deriv, skipConst bool) float64 {
	fc := s.m.factors[fi]
	y := s.selValue(fc, e)
	flat, ok := s.resolve(sel, e)
	if !ok {
		if skipConst {
			return 0 // NaN parameters, constant in the active site
		}
		return math.Inf(-1)
	}
	site := sel.src.site(flat)
	active := s.active >= 0 && site == s.active
	if skipConst && !active {
		return 0
	}
	if !(y >= 0 && y < float64(sel.k)) || y != math.Trunc(y) {
		return math.Inf(-1)
	}
	j := sel.src.offset + flat*sel.k + int(y)
	p := s.x[j]
	if !(p > 0) || math.IsInf(p, 1) {
		return math.Inf(-1)
	}
	if deriv && active {
		c := int(y)
		s.grad[c] += 1 / p
		s.hess[c*s.k+c] += -1 / (p * p)
	}
	return s.logx(j)
}

var _ nmc.ValuesScorer = (*scorer)(nil)

// selRun is sumBlanket's loop over the leading entries of bl that belong to the
// catSel factor of bl[0], for the continuous active site (elements that do not read
// it are skipped, as factorElem skips them): it adds each element's log density to
// total in order, and with deriv its derivatives, as catSelElem does one at a time.
// It returns the new total, the number of entries consumed, and false when the
// total became −Inf or NaN (sumBlanket then stops).
func (s *scorer) selRun(sel *catSel, bl []entry, pack []selPack, total float64, deriv bool) (float64, int, bool) {
	fi := bl[0].f
	fc := s.m.factors[fi]
	active, x, k := s.active, s.x, sel.k
	src := sel.src
	n := 0
	if len(sel.dims) == 1 && s.fixSite == 0 && fc.obs != nil && len(sel.base) > 1 {
		// The common case (one latent index, observed values): the sufficient
		// statistics. Element e selects src's element base[e] + stride·v, v =
		// x[off[e]]; the elements selecting the active site are counted by value y
		// (without a data-dependent branch for those of the first element's base),
		// and the run adds Σ_y n_y log p_y with its derivatives n_y/p_y and −n_y/p_y².
		dm := &sel.dims[0]
		want := active - src.first // the active site's element of src
		if c := s.m.countOf; c != nil && c[fi] >= 0 && want >= 0 && want < src.length {
			if cnt := s.countsFor(int(c[fi]), x); cnt != nil {
				// The counts kept for the watched state: the same integers as
				// counted below, without reading the run.
				if pack != nil && pack[0].run > 0 {
					n = int(pack[0].run)
				}
				for n < len(bl) && bl[n].f == fi {
					n++
				}
				return addCounts(s, cnt[want*k:(want+1)*k], nil, want, src, total, n, deriv)
			}
		}
		b0 := int(sel.base[bl[0].e])
		if cap(s.selCnt) < dm.size*k {
			s.selCnt = make([]int, dm.size*k)
		}
		cnt := s.selCnt[:dm.size*k]
		clear(cnt)
		var other []float64 // counts of elements with another base (rare), lazily
		if pack != nil && pack[0].run > 0 {
			// The same loop over the element data packed in blanket order
			// (compileSelPacks), read sequentially.
			run := pack[:pack[0].run]
			for r := range run {
				pk := &run[r]
				v := x[pk.off]
				iv := int(v)
				if float64(iv) != v || iv < 0 || iv >= dm.size {
					continue
				}
				if b := int(pk.base); b != b0 {
					if b+dm.stride*iv == want {
						if other == nil {
							other = make([]float64, k)
						}
						other[pk.y]++
					}
					continue
				}
				cnt[iv*k+int(pk.y)]++
			}
			n = len(run)
		}
		for ; n < len(bl) && bl[n].f == fi; n++ {
			e := int(bl[n].e)
			v := x[dm.off[e]]
			iv := int(v)
			if float64(iv) != v || iv < 0 || iv >= dm.size {
				continue // an invalid index: constant in the active site
			}
			if b := int(sel.base[e]); b != b0 {
				if b+dm.stride*iv == want {
					if other == nil {
						other = make([]float64, k)
					}
					other[int(fc.obs[e])]++
				}
				continue
			}
			cnt[iv*k+int(fc.obs[e])]++
		}
		var row []int
		if d := want - b0; d >= 0 && d%dm.stride == 0 && d/dm.stride < dm.size {
			row = cnt[(d/dm.stride)*k : (d/dm.stride+1)*k]
		}
		return addCounts(s, row, other, want, src, total, n, deriv)
	}
	for ; n < len(bl) && bl[n].f == fi; n++ {
		e := int(bl[n].e)
		flat := int(sel.base[elem1(len(sel.base), e)])
		ok := true
		for d := range sel.dims {
			dm := &sel.dims[d]
			v := s.siteValue(int(dm.site[e]))
			if !(v >= 0 && v < float64(dm.size)) || v != math.Trunc(v) {
				ok = false
				break
			}
			flat += dm.stride * int(v)
		}
		if !ok || src.site(flat) != active {
			continue
		}
		y := s.selValue(fc, e)
		if !(y >= 0 && y < float64(k)) || y != math.Trunc(y) {
			return math.Inf(-1), n + 1, false
		}
		j := src.offset + flat*k + int(y)
		p := x[j]
		if !(p > 0) || math.IsInf(p, 1) {
			return math.Inf(-1), n + 1, false
		}
		if deriv {
			c := int(y)
			s.grad[c] += 1 / p
			s.hess[c*s.k+c] += -1 / (p * p)
		}
		total += s.logx(j)
		if math.IsInf(total, -1) || math.IsNaN(total) {
			return total, n + 1, false
		}
	}
	return total, n, true
}

// addCounts is selRun's sum over the categories y of src's element want: it adds
// n_y log p_y to total and, with deriv, n_y/p_y and −n_y/p_y² to the gradient and
// Hessian, n_y = row[y] + other[y] (either may be nil: 0), and returns the new total,
// n (the entries consumed) and false when the total became −Inf or NaN.
func addCounts[C int | int32](s *scorer, row []C, other []float64, want int, src *family, total float64, n int, deriv bool) (float64, int, bool) {
	x := s.x
	for y := range src.width {
		ny := 0.0
		if row != nil {
			ny = float64(row[y]) // an integer count, exact
		}
		if other != nil {
			ny += other[y]
		}
		if ny == 0 {
			continue
		}
		j := src.offset + want*src.width + y
		p := x[j]
		if !(p > 0) || math.IsInf(p, 1) {
			return math.Inf(-1), n, false
		}
		if deriv {
			s.grad[y] += ny / p
			s.hess[y*s.k+y] += -ny / (p * p)
		}
		total += ny * s.logx(j)
	}
	if math.IsInf(total, -1) || math.IsNaN(total) {
		return total, n, false
	}
	return total, n, true
}

// selPack is the data selRun's counting loop reads of one blanket entry of a
// continuous site, packed in blanket order: the state offset of the element's index
// site, its selection base and its observed value (an integer in [0, k)). run is
// set on the first entry of every run of a selection factor whose entries are all
// packed: the run's length (0: not packed).
type selPack struct {
	off, base, y, run int32
}

// compileSelPacks fills selPacks for the continuous sites whose blanket holds runs of
// observed Categorical selections through one latent index (selRun's counting case),
// so that the loop reads the runs' element data sequentially instead of gathering it
// by element number from the factor's arrays.
func (m *Model) compileSelPacks() {
	if m.sels == nil {
		return
	}
	for i, site := range m.sites {
		if site.Support == nmc.Discrete {
			continue
		}
		bl := m.blanket[i]
		var pack []selPack
		for n := 0; n < len(bl); {
			fi := bl[n].f
			sel := m.sels[fi]
			fc := m.factors[fi]
			end := n + 1
			for end < len(bl) && bl[end].f == fi {
				end++
			}
			if sel == nil || len(sel.dims) != 1 || fc.obs == nil || len(sel.base) <= 1 {
				n = end
				continue
			}
			run := make([]selPack, end-n)
			ok := true
			for r, en := range bl[n:end] {
				e := int(en.e)
				y := fc.obs[e]
				if !(y >= 0 && y < float64(sel.k)) || y != math.Trunc(y) {
					ok = false
					break
				}
				run[r] = selPack{off: sel.dims[0].off[e], base: sel.base[e], y: int32(y)}
			}
			if ok {
				if pack == nil {
					pack = make([]selPack, len(bl))
				}
				copy(pack[n:end], run)
				pack[n].run = int32(end - n)
			}
			n = end
		}
		if pack != nil {
			if m.selPacks == nil {
				m.selPacks = make([][]selPack, len(m.sites))
			}
			m.selPacks[i] = pack
		}
	}
}
