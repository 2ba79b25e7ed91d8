package graph

import (
	endian "encoding/binary"
	"math"
	"slices"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/dist"
)

// jointPlan is what JointGrad's fast path reads of the model, compiled at its first
// call (Model.jointPlan). Its pass covers every simple summed-out group (every
// element a Categorical selection of a probability, margGroup.simple): P_gv is the
// product of the coordinates its elements read at v (times the live elements shared
// by every group, Model.sharedLive, kept apart: a mixture's weights), and the pass
// adds each group's responsibilities r_gv to the expected counts of the coordinates
// read at v.
//
// Groups of three values whose elements read a coordinate at every value are the
// common case (three classes) and run in loops of fixed length: their elements are
// rows of a table, one per distinct (first coordinate, stride), holding the three
// coordinates read and their three expected counts side by side; the groups are
// bucketed by their number of rows (1 … 6, and 7 or more), and groups reading the
// same rows (items with the same labels from the same labelers, most items with a
// single label) are merged into one with a multiplicity.
type jointPlan struct {
	// fast: some site can take the fast path. siteFast: per site, its score reads
	// summed-out groups, every one simple; priorOnly: the rest of its blanket is its own
	// prior, a Dirichlet with constant concentrations, whose gradient is
	// priorC[j] / x_j in each coordinate j (priorC = α − 1).
	fast      bool
	siteFast  []bool
	priorOnly []bool
	priorC    []float64
	// allSimple: every summed-out group is simple, so the pass sees all of them
	// and gives the log joint with: the priors of the priorOnly sites (priorSites,
	// Σ_j priorC[j]·log x_j + priorK of each), the factor elements outside every
	// summed-out group that are not such a prior (rest, and the linear factors
	// restLin, as LogJoint scores them) and log Σ_v P_gv of each group.
	allSimple  bool
	priorSites []int32
	priorK     []float64
	rest       []entry
	restLin    []int32
	// priorTerms: the coordinates of the priorOnly sites grouped by their priorC,
	// so that Σ_j priorC[j]·log x_j takes one log per distinct priorC (the log of
	// the coordinates' product); priorKSum: the sum of priorK.
	priorTerms []jointPriorTerm
	priorKSum  float64
	// shared: the live elements of every group (nil: none), read at values
	// 0 … nShared−1.
	shared  []simpleProd
	nShared int
	// rows: the table's rows; rows1 … rows6: the rows of each group of 1 … 6
	// rows, and mult[n] each group's multiplicity (n = 1 … 6); none: the number of
	// three-value groups without rows; long: the groups of 7 or more rows, in
	// buckets of one number of rows each (so that the loops over a group's rows
	// run a number of times the branch predictor learns).
	rows  []jointRow
	rows1 []int32
	rows2 [][2]int32
	rows3 [][3]int32
	rows4 [][4]int32
	rows5 [][5]int32
	rows6 [][6]int32
	mult  [7][]float64
	none  float64
	long  []jointLong
	// maxRows: the most rows of a group; groups: the table's groups (the sum of
	// the lengths of mult and long).
	maxRows, groups int
	// other: the simple groups outside the table (not three values, or an element
	// that makes some product 0).
	other []jointOther
	// touched: the state coordinates whose expected count the pass may set.
	// rowsOwn: no two rows read a coordinate, and no group outside the table or
	// shared element reads one a row reads, so the pass writes the rows'
	// coordinates' counts (every row's, every pass) instead of adding to them, and
	// clears after it only clear, the others of touched (all of touched without
	// rowsOwn).
	touched []int32
	rowsOwn bool
	clear   []int32
}

// jointRow is a row of the table: the element reads coordinates j, j+step, j+2·step
// at values 0, 1, 2.
type jointRow struct {
	j, step int32
}

// jointPriorTerm is the coordinates of the priorOnly sites whose priorC is c.
type jointPriorTerm struct {
	c      float64
	coords []int32
}

// jointLong is the groups of n rows, n ≥ 7: their rows, n per group, and their
// multiplicities.
type jointLong struct {
	n    int
	rows []int32
	mult []float64
}

// jointOther is a simple group outside the table: its number of values and its
// elements (shared live elements excluded).
type jointOther struct {
	values int
	elems  []simpleProd
}

// jointPlan returns the model's plan of JointGrad's fast path, compiling it at the
// first call.
func (m *Model) jointPlan() *jointPlan {
	m.jointOnce.Do(func() { m.joint = m.compileJointPlan() })
	return m.joint
}

// compileJointPlan compiles the fast path's plan (see jointPlan).
func (m *Model) compileJointPlan() *jointPlan {
	p := &jointPlan{siteFast: make([]bool, len(m.sites)), priorOnly: make([]bool, len(m.sites))}
	for i, site := range m.sites {
		if site.Support == nmc.Discrete {
			continue
		}
		fast := len(m.margOf[i]) > 0
		for _, gi := range m.margOf[i] {
			fast = fast && m.marg[gi].simple
		}
		p.siteFast[i] = fast
		p.fast = p.fast || fast
	}
	if !p.fast {
		return p
	}
	p.priorC = make([]float64, m.dim)
	m.compilePriorOnly(p)
	p.shared, p.nShared = m.sharedLive, m.sharedValues
	touched := map[int32]bool{}
	read := func(pe simpleProd, nv int) {
		for v := 0; v < nv && v < int(pe.lim); v++ {
			touched[pe.j0+int32(v)*pe.jstep] = true
		}
	}
	for _, pe := range p.shared {
		read(pe, p.nShared)
	}
	rowOf := map[jointRow]int32{}
	type at struct{ n, g int } // a merged group: its number of rows and index in its bucket
	longOf := map[int]int{}    // the index in p.long of the groups of n ≥ 7 rows
	merged := map[string]at{}
	var key []byte
	for gi := range m.marg {
		g := &m.marg[gi]
		if !g.simple {
			continue
		}
		var els []simpleProd
		for _, pe := range m.simpleProd[g.lo:g.hi] {
			if pe.sstep == 0 && p.shared != nil {
				continue // a shared live element
			}
			els = append(els, pe)
			read(pe, g.values)
		}
		full := g.values == 3
		for _, pe := range els {
			full = full && pe.lim >= 3
		}
		if !full {
			p.other = append(p.other, jointOther{values: g.values, elems: els})
			continue
		}
		if len(els) == 0 {
			p.none++
			continue
		}
		rows := make([]int32, len(els))
		for e, pe := range els {
			r := jointRow{pe.j0, pe.jstep}
			ri, ok := rowOf[r]
			if !ok {
				ri = int32(len(p.rows))
				rowOf[r] = ri
				p.rows = append(p.rows, r)
			}
			rows[e] = ri
		}
		slices.Sort(rows) // the product does not depend on the order
		key = key[:0]
		for _, r := range rows {
			key = endian.LittleEndian.AppendUint32(key, uint32(r))
		}
		if a, ok := merged[string(key)]; ok {
			if a.n > 6 {
				p.long[longOf[a.n]].mult[a.g]++
			} else {
				p.mult[a.n][a.g]++
			}
			continue
		}
		n := len(rows)
		p.maxRows = max(p.maxRows, n)
		if n <= 6 {
			merged[string(key)] = at{n, len(p.mult[n])}
			switch n {
			case 1:
				p.rows1 = append(p.rows1, rows[0])
			case 2:
				p.rows2 = append(p.rows2, [2]int32(rows))
			case 3:
				p.rows3 = append(p.rows3, [3]int32(rows))
			case 4:
				p.rows4 = append(p.rows4, [4]int32(rows))
			case 5:
				p.rows5 = append(p.rows5, [5]int32(rows))
			case 6:
				p.rows6 = append(p.rows6, [6]int32(rows))
			}
			p.mult[n] = append(p.mult[n], 1)
			continue
		}
		b, ok := longOf[n]
		if !ok {
			b = len(p.long)
			longOf[n] = b
			p.long = append(p.long, jointLong{n: n})
		}
		l := &p.long[b]
		merged[string(key)] = at{n, len(l.mult)}
		l.rows = append(l.rows, rows...)
		l.mult = append(l.mult, 1)
	}
	for j := range touched {
		p.touched = append(p.touched, j)
	}
	slices.Sort(p.touched)
	p.compileClear()
	for _, ml := range p.mult {
		p.groups += len(ml)
	}
	for _, l := range p.long {
		p.groups += len(l.mult)
	}
	p.allSimple = true
	for gi := range m.marg {
		p.allSimple = p.allSimple && m.marg[gi].simple
	}
	m.compileRest(p)
	return p
}

// compileClear sets p.rowsOwn and p.clear (see jointPlan.touched).
func (p *jointPlan) compileClear() {
	byRows := map[int32]int{}
	for _, r := range p.rows {
		for v := range int32(3) {
			byRows[r.j+v*r.step]++
		}
	}
	p.rowsOwn = true
	for _, n := range byRows {
		p.rowsOwn = p.rowsOwn && n == 1
	}
	notRow := func(pe simpleProd, nv int) {
		for v := 0; v < nv && v < int(pe.lim); v++ {
			p.rowsOwn = p.rowsOwn && byRows[pe.j0+int32(v)*pe.jstep] == 0
		}
	}
	for _, pe := range p.shared {
		notRow(pe, p.nShared)
	}
	for _, g := range p.other {
		for _, pe := range g.elems {
			notRow(pe, g.values)
		}
	}
	for _, j := range p.touched {
		if !p.rowsOwn || byRows[j] == 0 {
			p.clear = append(p.clear, j)
		}
	}
}

// compileRest sets p.priorSites and p.rest, p.restLin: the priorOnly sites, and what
// else LogJoint scores outside the summed-out groups (see jointPlan.allSimple).
func (m *Model) compileRest(p *jointPlan) {
	own := map[entry]bool{}
	termOf := map[float64]int{}
	for i, only := range p.priorOnly {
		if !only {
			continue
		}
		p.priorSites = append(p.priorSites, int32(i))
		p.priorKSum += p.priorK[len(p.priorSites)-1]
		own[m.blanket[i][0]] = true
		for j := m.offsets[i]; j < m.offsets[i]+m.sites[i].Size; j++ {
			c := p.priorC[j]
			t, ok := termOf[c]
			if !ok {
				t = len(p.priorTerms)
				termOf[c] = t
				p.priorTerms = append(p.priorTerms, jointPriorTerm{c: c})
			}
			p.priorTerms[t].coords = append(p.priorTerms[t].coords, int32(j))
		}
	}
	for fi, fc := range m.factors {
		if m.linOf != nil && m.linOf[fi] >= 0 {
			p.restLin = append(p.restLin, m.linOf[fi])
			continue
		}
		for e := range fc.length {
			en := entry{int32(fi), int32(e)}
			if m.owner(en) < 0 && !own[en] {
				p.rest = append(p.rest, en)
			}
		}
	}
}

// compilePriorOnly sets p.priorOnly and p.priorC: the sites whose blanket without
// the summed-out groups is their own prior, a Dirichlet with constant
// concentrations α, whose gradient in coordinate j is (α_j − 1)/x_j.
func (m *Model) compilePriorOnly(p *jointPlan) {
	sc := m.newScorer()
	sc.x = make([]float64, m.dim)
	sc.active = -1
	for i := range m.sites {
		if !p.siteFast[i] || len(m.blanket[i]) != 1 || len(m.groups[i]) != 0 ||
			(m.linSites != nil && len(m.linSites[i]) != 0) {
			continue
		}
		en := m.blanket[i][0]
		fc := m.factors[en.f]
		if m.constPrior == nil || !m.constPrior[en.f] || fc.fam == nil || fc.fam.site(int(en.e)) != i {
			continue
		}
		if _, ok := fc.d.fam.(dist.Dirichlet); !ok {
			continue
		}
		k := fc.width
		alpha := sc.argj[:k]
		sc.top, sc.ops.ar.top = 0, 0
		sc.eval(fc.d.params[0], elem(fc.d.params[0], int(en.e)), alpha)
		base := m.offsets[i]
		// log Γ(Σ α) − Σ log Γ(α_j), as dist.Dirichlet's density.
		sa, lg := 0.0, 0.0
		for c := range k {
			a := alpha[c].v
			p.priorC[base+c] = a - 1
			sa += a
			l, _ := math.Lgamma(a)
			lg += l
		}
		l, _ := math.Lgamma(sa)
		p.priorK = append(p.priorK, l-lg)
		p.priorOnly[i] = true
	}
}

// positiveBits reports whether q is in (0, MaxFloat64] (not NaN), by one unsigned
// comparison of its bits.
func positiveBits(q float64) bool {
	return math.Float64bits(q)-1 <= maxPositiveBits-1
}
