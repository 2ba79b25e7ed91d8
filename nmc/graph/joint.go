package graph

import (
	endian "encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/dist"
)

// Hamiltonian declares the continuous latents whose sites form the model's
// Hamiltonian block (nmc.Hamiltonian): the sampler moves all of them jointly by
// Hamiltonian Monte Carlo once per sweep, with the gradient of the log joint in all
// their coordinates at once (the scorers' JointGrad, nmc.JointGradienter), the
// summed-out latents (Marginalise) summed out. Declare it for the parameters that a
// summed-out latent ties together — Dawid-Skene's class weights and confusion rows,
// whose one slow direction (the rare class's prevalence against the rows that
// describe it) single-site steps cross only slowly:
//
//	b.Marginalise(z)
//	b.Hamiltonian(pi, theta)
//
// A latent declared with Augment may also be in the block (its augmentation steps
// and the block's moves both leave the posterior unchanged). Each node must be the
// node Latent or Vector returned, of a continuous latent that is not summed out, and
// may be given once; Build checks it, naming the latent.
func (b *Builder) Hamiltonian(nodes ...*Node) {
	if len(nodes) == 0 {
		b.fail(fmt.Errorf("graph: Hamiltonian: no latent given"))
		return
	}
	for _, n := range nodes {
		if _, err := latentOf("Hamiltonian", n); err != nil {
			b.fail(err)
			return
		}
		if err := appendOnce(&b.hams, n.fam, "Hamiltonian", "declared in the Hamiltonian block"); err != nil {
			b.fail(err)
			return
		}
	}
}

// compileHamiltonian checks the latents of the Hamiltonian block and records their
// sites, family by family in declaration order.
func (m *Model) compileHamiltonian(fams []*family) error {
	for _, f := range fams {
		site := m.sites[f.first]
		switch {
		case site.Marginalised:
			return fmt.Errorf("graph: Hamiltonian %q: the latent is summed out (Marginalise); only continuous latents can be in the Hamiltonian block", f.name)
		case site.Support == nmc.Discrete:
			return fmt.Errorf("graph: Hamiltonian %q: a discrete latent cannot be in the Hamiltonian block (its moves follow gradients in continuous coordinates)", f.name)
		}
		n := 1
		if !f.vector {
			n = f.length
		}
		for s := f.first; s < f.first+n; s++ {
			m.hamSites = append(m.hamSites, s)
		}
	}
	return nil
}

var _ nmc.Hamiltonian = (*Model)(nil)

// HamiltonianSites returns the indices of the sites of the latents declared with
// Builder.Hamiltonian (nmc.Hamiltonian): every site of each, in declaration order;
// nil without a declaration (no block).
func (m *Model) HamiltonianSites() []int { return m.hamSites }

var _ nmc.JointGradienter = (*scorer)(nil)

// JointGrad writes into grad the gradient of LogJoint at x with respect to the
// coordinates of the continuous sites listed, one site after another
// (nmc.JointGradienter): a simplex's coordinates each taken as free, as Score
// takes them; summed-out latents summed out. With value it returns LogJoint(x) (on
// the fast path the same terms summed in another order: equal to rounding), else
// 0; −Inf (or NaN) outside the support, grad then unspecified.
//
// The gradient with respect to a site's coordinates is that of its score (the two
// differ by terms that do not depend on them), so the general path scores each
// site with derivatives. When the summed-out groups the sites read are Categorical
// selections of probabilities (Dawid-Skene's labels; see jointPlan), one pass over
// the groups gives the responsibilities r_gv = P_gv / Σ_v P_gv of all of them, and a
// coordinate's part of the gradient is its expected count Σ r_gv (over the groups
// and values whose product P_gv reads it) divided by its value: the cost of one
// score of the weights instead of one score per site. When every summed-out group
// is of that kind the same pass gives the value, log Σ_v P_gv of each group, with
// one log for all of them (margSum's running product). The pass bounds every
// product by the least and the largest coordinate it reads; when a product could
// then leave [prodMin, prodMax] (confusion entries near 1e-28 read by an item of
// nine labels), JointGrad declines the point: it returns NaN, which the
// Hamiltonian move takes as a divergent trajectory (exact, see
// nmc.JointGradienter). The general path at such points sums in logarithms, up to
// 10 ms a call on Dawid-Skene's 5,000 items, and the points are ones the
// trajectory was leaving anyway (early warm-up, step sizes far too large: 196
// calls of the 155,000 of `nmc sample -model annotation -n 10000 -k 100`, seed 1,
// which cost 1.4 s of its 10 s CPU time; the draws did not change).
//
// A scorer is not safe for concurrent use: give each goroutine its own (they may
// share the Model).
func (s *scorer) JointGrad(x []float64, sites []int, grad []float64, value bool) float64 {
	m := s.m
	p := m.jointPlan()
	n, fast := 0, false
	for _, i := range sites {
		if i < 0 || i >= len(m.sites) || m.sites[i].Support == nmc.Discrete {
			panic(fmt.Sprintf("graph: JointGrad: site %d is not a continuous site of the model", i))
		}
		n += m.sites[i].Size
		fast = fast || p.siteFast[i]
	}
	if len(grad) != n {
		panic(fmt.Sprintf("graph: JointGrad: grad has %d entries, the sites listed %d coordinates", len(grad), n))
	}
	if fast {
		// The pass gives the log joint too when every summed-out group is in it.
		f, ok := s.jointFast(p, x, sites, grad, value && p.allSimple)
		switch {
		case !ok && math.IsNaN(f):
			return f // declined: out of the pass's range (see nmc.JointGradienter)
		case !ok:
		case value && !p.allSimple && !math.IsInf(f, 0) && !math.IsNaN(f):
			return s.LogJoint(x)
		default:
			return f
		}
	}
	lp := 0.0
	if value {
		if lp = s.LogJoint(x); math.IsInf(lp, -1) || math.IsNaN(lp) {
			return lp
		}
	}
	if f := s.jointGeneric(x, sites, grad); math.IsInf(f, 0) || math.IsNaN(f) {
		return f
	}
	return lp
}

// jointGeneric is JointGrad's general path: the gradient of each site's score.
// It returns 0, or the first score that is not finite.
func (s *scorer) jointGeneric(x []float64, sites []int, grad []float64) float64 {
	at := 0
	for _, i := range sites {
		k := s.m.sites[i].Size
		f := s.score(x, i, grad[at:at+k], s.jointHess(k), true)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return f
		}
		at += k
	}
	return 0
}

// jointHess returns scratch for the Hessian of a site of k coordinates.
func (s *scorer) jointHess(k int) []float64 {
	if len(s.jointH) < k*k {
		s.jointH = make([]float64, k*k)
	}
	return s.jointH[:k*k]
}

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

// jointFast is JointGrad's fast path (see jointPlan). It reports false, having
// written nothing useful, when a coordinate the pass reads is not in (0,
// MaxFloat64] (JointGrad then takes the general path) or, returning NaN, when a
// product of the table's groups could leave [prodMin, prodMax] (JointGrad then
// declines); else it returns 0, or −Inf (or NaN) when a site's score does.
func (s *scorer) jointFast(p *jointPlan, x []float64, sites []int, grad []float64, value bool) (float64, bool) {
	m := s.m
	if len(s.jointCnt) < m.dim {
		s.jointCnt = make([]float64, m.dim)
	}
	if len(s.jointTab) < len(p.rows) {
		s.jointTab = make([][8]float64, len(p.rows))
	}
	if len(s.jointNorm) < p.groups {
		s.jointNorm = make([]float64, p.groups)
	}
	cnt, tab := s.jointCnt[:m.dim], s.jointTab[:len(p.rows)]
	norm := s.jointNorm[:p.groups] // each group's Σ_v P_gv, bucket by bucket, then long
	// The shared live elements' product at each value, t[v]; then the table, and the
	// least and largest coordinate it holds.
	var t, sv [maxSimpleValues]float64
	nt := max(p.nShared, 3)
	for v := range nt {
		t[v] = 1
	}
	for _, pe := range p.shared {
		for v := range p.nShared {
			if v >= int(pe.lim) {
				t[v] = 0
				continue
			}
			q := x[int(pe.j0)+v*int(pe.jstep)]
			if !positiveBits(q) {
				return 0, false
			}
			t[v] *= q
		}
	}
	// The bits of floats ≥ +0 are ordered as the floats, and those of −0, negative
	// numbers and NaN are above every positive finite one's: the least and largest
	// bits of the coordinates tell both their bounds and whether all are in (0,
	// MaxFloat64].
	loBits, hiBits := uint64(math.MaxUint64), uint64(0)
	for r, row := range p.rows {
		j, st := int(row.j), int(row.step)
		q0, q1, q2 := x[j], x[j+st], x[j+2*st]
		b0, b1, b2 := math.Float64bits(q0), math.Float64bits(q1), math.Float64bits(q2)
		loBits, hiBits = min(loBits, min(b0, b1, b2)), max(hiBits, max(b0, b1, b2))
		e := &tab[r]
		e[0], e[1], e[2] = q0, q1, q2
		e[4], e[5], e[6] = 0, 0, 0
	}
	if len(p.rows) > 0 && (loBits == 0 || hiBits > maxPositiveBits) {
		return 0, false
	}
	lo, hi := math.Float64frombits(loBits), math.Float64frombits(hiBits)
	t0, t1, t2 := t[0], t[1], t[2]
	if len(p.rows) > 0 || p.none > 0 {
		// Every product of the table's groups is t_v times 1 … maxRows rows, each
		// coordinate in [lo, hi]: rounding is monotone, so the products of the
		// bounds bound the products (to a few ulps: the pass multiplies in another
		// order, (t·a)·(b·c)…), and the sums are at most 3 times the largest.
		// Within [prodMin, prodMax/6] every responsibility is exact to rounding.
		if !(t0 > 0 && t1 > 0 && t2 > 0) {
			return 0, false
		}
		blo, bhi := min(t0, t1, t2), max(t0, t1, t2)
		okRange := blo >= prodMin && bhi <= prodMax/6
		for range p.maxRows {
			blo, bhi = blo*lo, bhi*hi
			okRange = okRange && blo >= prodMin && bhi <= prodMax/6
		}
		if !okRange {
			return math.NaN(), false // declined (nmc.JointGradienter)
		}
	}
	var s0, s1, s2 float64 // the shared elements' expected counts at values 0, 1, 2
	if p.none > 0 {
		inv := p.none / (t0 + t1 + t2)
		s0, s1, s2 = t0*inv, t1*inv, t2*inv
	}
	// The groups, bucket by bucket (each loop in a function of its own, so that
	// its values stay in registers).
	t3 := [3]float64{t0, t1, t2}
	var r0, r1, r2 float64
	for n := 1; n <= 6; n++ {
		mult := p.mult[n]
		switch n {
		case 1:
			r0, r1, r2 = jointRows1(tab, p.rows1, mult, norm[:len(mult)], &t3, value)
		case 2:
			r0, r1, r2 = jointRows2(tab, p.rows2, mult, norm[:len(mult)], &t3, value)
		case 3:
			r0, r1, r2 = jointRows3(tab, p.rows3, mult, norm[:len(mult)], &t3, value)
		case 4:
			r0, r1, r2 = jointRows4(tab, p.rows4, mult, norm[:len(mult)], &t3, value)
		case 5:
			r0, r1, r2 = jointRows5(tab, p.rows5, mult, norm[:len(mult)], &t3, value)
		case 6:
			r0, r1, r2 = jointRows6(tab, p.rows6, mult, norm[:len(mult)], &t3, value)
		}
		s0, s1, s2 = s0+r0, s1+r1, s2+r2
		norm = norm[len(mult):]
	}
	for _, l := range p.long {
		r0, r1, r2 = jointRowsLong(tab, l.n, l.rows, l.mult, norm[:len(l.mult)], &t3, value)
		s0, s1, s2 = s0+r0, s1+r1, s2+r2
		norm = norm[len(l.mult):]
	}
	sv[0], sv[1], sv[2] = s0, s1, s2
	// The table's counts into the coordinates' (every count of cnt is 0 here, or
	// with rowsOwn every count of clear).
	if p.rowsOwn {
		for r, row := range p.rows {
			e := &tab[r]
			j, st := int(row.j), int(row.step)
			cnt[j] = e[4]
			cnt[j+st] = e[5]
			cnt[j+2*st] = e[6]
		}
	} else {
		for r, row := range p.rows {
			e := &tab[r]
			j, st := int(row.j), int(row.step)
			cnt[j] += e[4]
			cnt[j+st] += e[5]
			cnt[j+2*st] += e[6]
		}
	}
	logOther := 0.0
	if len(p.other) > 0 {
		var ok bool
		if logOther, ok = s.jointOther(p, x, t[:p.nShared], sv[:], cnt, value); !ok {
			s.jointClear(p, cnt)
			return 0, false
		}
	}
	for _, pe := range p.shared {
		for v := 0; v < p.nShared && v < int(pe.lim); v++ {
			cnt[int(pe.j0)+v*int(pe.jstep)] += sv[v]
		}
	}
	// Each site's gradient: its prior's, or its score's without the summed-out
	// groups, plus its coordinates' expected counts over their values.
	// Consecutive priorOnly sites whose coordinates follow one another in x (all
	// of Dawid-Skene's) are taken together.
	f := 0.0
	at := 0
	for si := 0; si < len(sites); si++ {
		i := sites[si]
		site := &m.sites[i]
		k, off := site.Size, m.offsets[i]
		if p.priorOnly[i] {
			for si+1 < len(sites) {
				next := sites[si+1]
				if !p.priorOnly[next] || m.offsets[next] != off+k {
					break
				}
				k += m.sites[next].Size
				si++
			}
		}
		g := grad[at : at+k]
		at += k
		switch {
		case p.priorOnly[i]:
			if !jointPriorGrad(g, p.priorC[off:off+k], x[off:off+k], cnt[off:off+k]) {
				f = math.Inf(-1)
			}
		case p.siteFast[i]:
			if sf := s.score(x, i, g, s.jointHess(k), false); math.IsInf(sf, 0) || math.IsNaN(sf) {
				f = sf
			}
			for c, cn := range cnt[off : off+k] {
				if cn != 0 {
					g[c] += cn / x[off+c]
				}
			}
		default:
			if sf := s.score(x, i, g, s.jointHess(k), true); math.IsInf(sf, 0) || math.IsNaN(sf) {
				f = sf
			}
		}
		if f != 0 {
			break
		}
	}
	s.jointClear(p, cnt)
	if !value || f != 0 {
		return f, true
	}
	return s.jointValue(p, x, t0+t1+t2, logOther), true
}

// jointRows1 is jointFast's pass over the groups of one row of the table: rows b,
// multiplicities mult, shared products t. It adds each group's responsibilities
// times its multiplicity to its rows' expected counts, writes its sum into nb
// when value, and returns the responsibilities' sums at values 0, 1, 2. The
// products are taken as (t·a)·(b·c)·(d·e)…, a short chain.
func jointRows1(tab [][8]float64, b []int32, mult, nb []float64, t *[3]float64, value bool) (s0, s1, s2 float64) {
	t0, t1, t2 := t[0], t[1], t[2]
	mult, nb = mult[:len(b)], nb[:len(b)]
	for g, r := range b {
		e := &tab[r]
		w0, w1, w2 := t0*e[0], t1*e[1], t2*e[2]
		sum := w0 + w1 + w2
		if value {
			nb[g] = sum
		}
		inv := mult[g] / sum
		w0, w1, w2 = w0*inv, w1*inv, w2*inv
		s0, s1, s2 = s0+w0, s1+w1, s2+w2
		addRowCounts(e, w0, w1, w2)
	}
	return s0, s1, s2
}

// jointRows2 is jointRows1 for the groups of two rows.
func jointRows2(tab [][8]float64, b [][2]int32, mult, nb []float64, t *[3]float64, value bool) (s0, s1, s2 float64) {
	t0, t1, t2 := t[0], t[1], t[2]
	mult, nb = mult[:len(b)], nb[:len(b)]
	for g := range b {
		rs := &b[g]
		ea, eb := &tab[rs[0]], &tab[rs[1]]
		w0 := (t0 * ea[0]) * eb[0]
		w1 := (t1 * ea[1]) * eb[1]
		w2 := (t2 * ea[2]) * eb[2]
		sum := w0 + w1 + w2
		if value {
			nb[g] = sum
		}
		inv := mult[g] / sum
		w0, w1, w2 = w0*inv, w1*inv, w2*inv
		s0, s1, s2 = s0+w0, s1+w1, s2+w2
		addRowCounts(ea, w0, w1, w2)
		addRowCounts(eb, w0, w1, w2)
	}
	return s0, s1, s2
}

// jointRows3 is jointRows1 for the groups of three rows.
func jointRows3(tab [][8]float64, b [][3]int32, mult, nb []float64, t *[3]float64, value bool) (s0, s1, s2 float64) {
	t0, t1, t2 := t[0], t[1], t[2]
	mult, nb = mult[:len(b)], nb[:len(b)]
	for g := range b {
		rs := &b[g]
		ea, eb, ec := &tab[rs[0]], &tab[rs[1]], &tab[rs[2]]
		w0 := (t0 * ea[0]) * (eb[0] * ec[0])
		w1 := (t1 * ea[1]) * (eb[1] * ec[1])
		w2 := (t2 * ea[2]) * (eb[2] * ec[2])
		sum := w0 + w1 + w2
		if value {
			nb[g] = sum
		}
		inv := mult[g] / sum
		w0, w1, w2 = w0*inv, w1*inv, w2*inv
		s0, s1, s2 = s0+w0, s1+w1, s2+w2
		addRowCounts(ea, w0, w1, w2)
		addRowCounts(eb, w0, w1, w2)
		addRowCounts(ec, w0, w1, w2)
	}
	return s0, s1, s2
}

// addRowCounts adds a group's responsibilities w0, w1, w2 to a row's expected
// counts (entries 4–6 of its table line).
func addRowCounts(e *[8]float64, w0, w1, w2 float64) {
	e[4] += w0
	e[5] += w1
	e[6] += w2
}

// jointRows4 is jointRows1 for the groups of four rows.
func jointRows4(tab [][8]float64, b [][4]int32, mult, nb []float64, t *[3]float64, value bool) (s0, s1, s2 float64) {
	t0, t1, t2 := t[0], t[1], t[2]
	mult, nb = mult[:len(b)], nb[:len(b)]
	for g := range b {
		rs := &b[g]
		ea, eb, ec, ed := &tab[rs[0]], &tab[rs[1]], &tab[rs[2]], &tab[rs[3]]
		w0 := (t0 * ea[0]) * (eb[0] * ec[0]) * ed[0]
		w1 := (t1 * ea[1]) * (eb[1] * ec[1]) * ed[1]
		w2 := (t2 * ea[2]) * (eb[2] * ec[2]) * ed[2]
		sum := w0 + w1 + w2
		if value {
			nb[g] = sum
		}
		inv := mult[g] / sum
		w0, w1, w2 = w0*inv, w1*inv, w2*inv
		s0, s1, s2 = s0+w0, s1+w1, s2+w2
		addRowCounts(ea, w0, w1, w2)
		addRowCounts(eb, w0, w1, w2)
		addRowCounts(ec, w0, w1, w2)
		addRowCounts(ed, w0, w1, w2)
	}
	return s0, s1, s2
}

// jointRows5 is jointRows1 for the groups of five rows.
func jointRows5(tab [][8]float64, b [][5]int32, mult, nb []float64, t *[3]float64, value bool) (s0, s1, s2 float64) {
	t0, t1, t2 := t[0], t[1], t[2]
	mult, nb = mult[:len(b)], nb[:len(b)]
	for g := range b {
		rs := &b[g]
		ea, eb, ec, ed, ee := &tab[rs[0]], &tab[rs[1]], &tab[rs[2]], &tab[rs[3]], &tab[rs[4]]
		w0 := (t0 * ea[0]) * (eb[0] * ec[0]) * (ed[0] * ee[0])
		w1 := (t1 * ea[1]) * (eb[1] * ec[1]) * (ed[1] * ee[1])
		w2 := (t2 * ea[2]) * (eb[2] * ec[2]) * (ed[2] * ee[2])
		sum := w0 + w1 + w2
		if value {
			nb[g] = sum
		}
		inv := mult[g] / sum
		w0, w1, w2 = w0*inv, w1*inv, w2*inv
		s0, s1, s2 = s0+w0, s1+w1, s2+w2
		addRowCounts(ea, w0, w1, w2)
		addRowCounts(eb, w0, w1, w2)
		addRowCounts(ec, w0, w1, w2)
		addRowCounts(ed, w0, w1, w2)
		addRowCounts(ee, w0, w1, w2)
	}
	return s0, s1, s2
}

// jointRows6 is jointRows1 for the groups of six rows.
func jointRows6(tab [][8]float64, b [][6]int32, mult, nb []float64, t *[3]float64, value bool) (s0, s1, s2 float64) {
	t0, t1, t2 := t[0], t[1], t[2]
	mult, nb = mult[:len(b)], nb[:len(b)]
	for g := range b {
		rs := &b[g]
		ea, eb, ec, ed, ee, ef := &tab[rs[0]], &tab[rs[1]], &tab[rs[2]], &tab[rs[3]], &tab[rs[4]], &tab[rs[5]]
		w0 := (t0 * ea[0]) * (eb[0] * ec[0]) * (ed[0] * ee[0]) * ef[0]
		w1 := (t1 * ea[1]) * (eb[1] * ec[1]) * (ed[1] * ee[1]) * ef[1]
		w2 := (t2 * ea[2]) * (eb[2] * ec[2]) * (ed[2] * ee[2]) * ef[2]
		sum := w0 + w1 + w2
		if value {
			nb[g] = sum
		}
		inv := mult[g] / sum
		w0, w1, w2 = w0*inv, w1*inv, w2*inv
		s0, s1, s2 = s0+w0, s1+w1, s2+w2
		addRowCounts(ea, w0, w1, w2)
		addRowCounts(eb, w0, w1, w2)
		addRowCounts(ec, w0, w1, w2)
		addRowCounts(ed, w0, w1, w2)
		addRowCounts(ee, w0, w1, w2)
		addRowCounts(ef, w0, w1, w2)
	}
	return s0, s1, s2
}

// jointRowsLong is jointRows1 for the groups of n rows, n ≥ 7 (b: n per group).
func jointRowsLong(tab [][8]float64, n int, b []int32, mult, nb []float64, t *[3]float64, value bool) (s0, s1, s2 float64) {
	t0, t1, t2 := t[0], t[1], t[2]
	nb = nb[:len(mult)]
	for g := range mult {
		rs := b[n*g : n*g+n : n*g+n]
		w0, w1, w2 := t0, t1, t2
		for _, r := range rs {
			e := &tab[r]
			w0 *= e[0]
			w1 *= e[1]
			w2 *= e[2]
		}
		sum := w0 + w1 + w2
		if value {
			nb[g] = sum
		}
		inv := mult[g] / sum
		w0, w1, w2 = w0*inv, w1*inv, w2*inv
		s0, s1, s2 = s0+w0, s1+w1, s2+w2
		for _, r := range rs {
			e := &tab[r]
			addRowCounts(e, w0, w1, w2)
		}
	}
	return s0, s1, s2
}

// jointValue returns the log joint at x from the pass just made: the groups' sums
// Σ_v P_gv in s.jointNorm (each merged group's times its multiplicity; the groups
// without rows sum to tsum), the log of the other groups' sums logOther, the priors
// of the priorOnly sites and the rest (jointPlan.allSimple).
func (s *scorer) jointValue(p *jointPlan, x []float64, tsum, logOther float64) float64 {
	// The groups' sums multiplied together (margSum's running product, in four
	// products taken in turn: prodSums), and one log.
	acc := scaledProd{acc: 1}
	for range int(p.none) {
		acc.mul(tsum)
	}
	norm := s.jointNorm[:p.groups]
	for n := 1; n <= 6; n++ {
		mult := p.mult[n]
		prodSums(&acc, norm[:len(mult)], mult)
		norm = norm[len(mult):]
	}
	for _, l := range p.long {
		prodSums(&acc, norm[:len(l.mult)], l.mult)
		norm = norm[len(l.mult):]
	}
	// The priors: Σ_j priorC[j]·log x_j, one log per distinct priorC.
	total := p.priorKSum
	for _, pt := range p.priorTerms {
		if pt.c == 0 {
			for _, j := range pt.coords {
				if !positiveBits(x[j]) {
					return math.Inf(-1)
				}
			}
			continue
		}
		pr := scaledProd{acc: 1}
		for _, j := range pt.coords {
			q := x[j]
			if !positiveBits(q) {
				return math.Inf(-1)
			}
			if prodOK(q) {
				pr.mul(q)
			} else {
				total += pt.c * math.Log(q)
			}
		}
		total += pt.c * pr.log()
	}
	s.x, s.active = x, -1
	s.newCall()
	for _, en := range p.rest {
		total += s.factorElem(int(en.f), int(en.e), false, false)
		if math.IsInf(total, -1) || math.IsNaN(total) {
			return total
		}
	}
	for _, li := range p.restLin {
		total += s.linearOrElems(int(li), false, false)
		if math.IsInf(total, -1) || math.IsNaN(total) {
			return total
		}
	}
	return addLogScaled(total+logOther, acc.acc, acc.expo)
}

// scaledProd is a running product of positive factors, each in [prodMin, prodMax],
// as a fraction acc in [accMin, accMax] times 2^expo (margSum's running product).
type scaledProd struct {
	acc  float64
	expo int
}

// mul multiplies the product by q, in [prodMin, prodMax].
func (a *scaledProd) mul(q float64) {
	a.acc, a.expo = mulScaled(a.acc, a.expo, q)
}

// mulScaled returns acc·q as a fraction in [accMin, accMax] times 2^expo; acc in
// [accMin, accMax], q in [prodMin, prodMax].
func mulScaled(acc float64, expo int, q float64) (float64, int) {
	acc *= q
	if !accOK(acc) {
		return rescale(acc, expo)
	}
	return acc, expo
}

// rescale returns acc as a fraction in [0.5, 1) times 2^expo.
func rescale(acc float64, expo int) (float64, int) {
	frac, e := math.Frexp(acc)
	return frac, expo + e
}

// prodSums multiplies the sums nb[g], each mult[g] times, into acc. Each sum is
// in [prodMin, prodMax] (jointFast's range check): it is taken as 2^e·f, f in
// [1, 2), from its bits; the exponents are added and the fractions multiplied in
// two products taken in turn (two chains of multiplications that do not wait on
// each other, and no test per factor), each folded into acc after at most 256
// factors (< 2^256).
func prodSums(acc *scaledProd, nb, mult []float64) {
	const fracBits, oneBits = 1<<52 - 1, 1023 << 52
	nb = nb[:len(mult)]
	fa, fb, e, n := 1.0, 1.0, 0, 0
	for g, mt := range mult {
		b := math.Float64bits(nb[g])
		f := math.Float64frombits(b&fracBits | oneBits)
		k := int(mt)
		e += k * (int(b>>52) - 1023)
		if k == 1 {
			fa, fb = fb, fa*f
			if n++; n == 512 {
				acc.fold(fa, fb, e)
				fa, fb, e, n = 1, 1, 0, 0
			}
			continue
		}
		for range k {
			fa, fb = fb, fa*f
			if n++; n == 512 {
				acc.fold(fa, fb, e)
				fa, fb, e, n = 1, 1, 0, 0
			}
		}
	}
	acc.fold(fa, fb, e)
}

// fold multiplies the product by fa·fb·2^e, fa and fb in [prodMin, prodMax].
func (a *scaledProd) fold(fa, fb float64, e int) {
	a.mul(fa)
	a.mul(fb)
	a.expo += e
}

// log returns the log of the product.
func (a *scaledProd) log() float64 {
	return addLogScaled(0, a.acc, a.expo)
}

// jointClear clears the expected counts the pass may have set that the next pass
// does not set anew (jointPlan.clear).
func (s *scorer) jointClear(p *jointPlan, cnt []float64) {
	for _, j := range p.clear {
		cnt[j] = 0
	}
}

// jointPriorGrad writes into g the gradient (pc_c + cs_c)/x_c of a priorOnly site
// (pc: its prior's α − 1, cs: its expected counts), with one division for two
// coordinates when their product is a normal float: 1/x_a = x_b/(x_a·x_b). It
// reports false when some x_c is not in (0, MaxFloat64].
func jointPriorGrad(g, pc, xs, cs []float64) bool {
	pc, xs, cs = pc[:len(g)], xs[:len(g)], cs[:len(g)]
	ok := true
	c := 0
	for ; c+1 < len(g); c += 2 {
		qa, qb := xs[c], xs[c+1]
		ok = ok && positiveBits(qa) && positiveBits(qb)
		ga, gb := pc[c]+cs[c], pc[c+1]+cs[c+1]
		if d := qa * qb; math.Float64bits(d)-minNormalBits <= maxPositiveBits-minNormalBits {
			inv := 1 / d
			g[c], g[c+1] = ga*(qb*inv), gb*(qa*inv)
		} else {
			g[c], g[c+1] = ga/qa, gb/qb
		}
	}
	if c < len(g) {
		q := xs[c]
		ok = ok && positiveBits(q)
		g[c] = (pc[c] + cs[c]) / q
	}
	return ok
}

// minNormalBits is the bit pattern of the least positive normal float64.
const minNormalBits = 0x0010000000000000

// jointOther is the pass over the groups outside the table (jointPlan.other):
// their responsibilities added to the coordinates' expected counts cnt and to the
// shared live elements' sv, with t the shared elements' product at each value. It
// returns the sum of the logs of their sums Σ_v P_gv when value. It reports false
// when a coordinate read is not in (0, MaxFloat64] or a product or sum is outside
// [prodMin, prodMax] and not 0.
func (s *scorer) jointOther(p *jointPlan, x, t, sv, cnt []float64, value bool) (float64, bool) {
	var buf [maxSimpleValues]float64
	logSum := 0.0
	for _, g := range p.other {
		prod := buf[:g.values]
		sum := 0.0
		for v := range prod {
			q := 1.0
			if v < len(t) {
				q = t[v]
			} else if p.shared != nil {
				q = 0
			}
			for _, pe := range g.elems {
				if v >= int(pe.lim) {
					q = 0
					break
				}
				c := x[int(pe.j0)+v*int(pe.jstep)]
				if !positiveBits(c) {
					return 0, false
				}
				q *= c
			}
			if !prodOK(q) {
				return 0, false
			}
			prod[v] = q
			sum += q
		}
		if sum == 0 || !prodOK(sum) {
			return 0, false // no value possible (the general path returns −Inf), or out of range
		}
		if value {
			logSum += math.Log(sum)
		}
		inv := 1 / sum
		for v, q := range prod {
			if q == 0 {
				continue
			}
			r := q * inv
			if v < len(t) && p.shared != nil {
				sv[v] += r
			}
			for _, pe := range g.elems {
				cnt[int(pe.j0)+v*int(pe.jstep)] += r
			}
		}
	}
	return logSum, true
}
