package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/nmc-go/nmc/internal/special"
	"github.com/nmc-go/nmc/nmc"
)

// annotationFast is the Dawid-Skene annotation model written by hand: the same
// sites, state layout, start (majority vote, from annotationStart) and scores as the
// graph model that Annotation builds, evaluated directly from per-item and
// per-labeler label lists instead of by the generic graph engine.
//
//	pi ~ Dirichlet(conc);  z[i] ~ Categorical(pi);  theta[l,m] ~ Dirichlet(rows[m]);
//	label r ~ Categorical(theta[labeler_r, z[item_r]]).
//
// Every Score equals the graph model's Score at the same state and site up to
// rounding (including its constants: the Dirichlet normalisers, which do not depend
// on any site, are kept so that scores and log joints agree as values, not only in
// differences). As in the graph model, the Categorical is the paper's homogeneous
// form (log theta[y], not divided by Σ theta) and the Dirichlet is evaluated without
// checking Σ x = 1, so gradients and Hessians with respect to a simplex site are
// those of the homogeneous extension that the Dirichlet proposer expects:
// ∂_n = a_n/x_n and ∂²_nn = −a_n/x_n², all other Hessian entries 0, where a_n is the
// Dirichlet concentration minus 1 plus the count of the data terms in x_n.
//
// It is the form with the classes explicit (the paper's, AnnotationPrior.ExplicitClasses);
// with the classes summed out (Annotation's default) Annotation returns the
// graph model itself, whose summed-out groups (graph.Builder.Marginalise) take
// 1.2–1.25× the time per sweep of the hand-written marginalised form this type had
// (median of interleaved pairs, BenchmarkAnnotationSweep).
//
// It is kept beside the graph model, and sampled instead of it, for speed only, and
// that reason is gone: with the graph engine's Categorical selections, the counts of a
// labeler's labels by class kept between calls and moved when a class changes
// (nmc.DiscreteWatcher), enumeration of a class by a flat plan of its direct
// selections, the Dirichlet rows' priors evaluated without chaining over jets and the
// Dirichlet's memoised constants, the graph form of the same model takes 1.06–1.08×
// the time per sweep of this one at 5,000 items, 100 labelers and 3 classes
// (BenchmarkAnnotationSweep, graph/explicit over builtin/explicit at -benchtime 16x on
// a loaded two-core machine: medians of 15 and 11 interleaved per-process pairs,
// quartiles 1.03–1.14; it was 1.54–1.57 before those changes, 1.95 before the
// selections were packed), within the 1.3× at which this type goes. Sampled instead
// of this type (Annotation returning the graph model with the classes explicit, a
// build for the measurement only), `nmc sample -model annotation -explicit-classes
// -n 10000 -k 100 -draws 1000 -chains 4 -seed 1` took 1.02× the CPU (1.01–1.04, 5
// interleaved whole-process pairs) and printed the same summary table digit for
// digit (draws equal to 6.7e-16: the two sum in different orders).
//
// It is deliberately not an nmc.Neighborer: within one sweep the classes of some of
// nearly every labeler's items move, and pi reads every class, so precise cache
// invalidation saves no score evaluation (measured: the same number of theta scores
// with and without) while its bookkeeping costs time at every class change.
type annotationFast struct {
	start *annotationStart
	sites []nmc.Site

	numItems, numLabelers, numClasses int
	dim                               int
	piOff, zOff, thetaOff             int // state offsets of pi, z[0] and theta[0,0]
	zSite, thetaSite                  int // site indices of z[0] and theta[0,0]; pi is site piSite
	piSite                            int

	conc     []float64   // pi's Dirichlet concentration
	rows     [][]float64 // theta[l,m]'s Dirichlet concentration is rows[m]
	piConst  float64     // log Γ(Σ conc) − Σ log Γ(conc)
	rowConst []float64   // the same for every rows[m]

	// Labels of item i: itemCode[itemStart[i]:itemStart[i+1]], each the state offset
	// of theta[labeler, 0, label] relative to thetaOff (add m·C for class m).
	itemStart []int32
	itemCode  []int32
	// Labels given by labeler l: labItem[labStart[l]:labStart[l+1]] (the items) and
	// labLabel (the labels), in row order.
	labStart []int32
	labItem  []int32
	labLabel []int32
}

var _ nmc.Model = (*annotationFast)(nil)

// newAnnotationFast builds the hand-written model over the graph model's layout. It
// returns an error if the graph model's sites are not laid out as pi, z[0 … N−1],
// theta[0,0 … L−1,C−1].
func newAnnotationFast(start *annotationStart, train AnnotationData, conc []float64, rows [][]float64) (*annotationFast, error) {
	g := start.Model
	n, l, c := train.NumItems, train.NumLabelers, train.NumClasses
	if n > math.MaxInt32 || train.NumLabels() > math.MaxInt32 || l > math.MaxInt32/(c*c) {
		return nil, fmt.Errorf("models: annotation: %d items, %d labels, %d labelers × %d² classes: too many for 32-bit indices", n, train.NumLabels(), l, c)
	}
	f := &annotationFast{
		start: start, sites: g.Sites(),
		numItems: n, numLabelers: l, numClasses: c,
		piOff: start.pi, zOff: start.z, thetaOff: start.theta,
		conc: conc, rows: rows,
	}
	f.dim = nmc.Dim(f.sites)
	off := nmc.Offsets(f.sites)
	f.piSite, f.zSite, f.thetaSite = -1, -1, -1
	for i, o := range off {
		switch o {
		case f.piOff:
			f.piSite = i
		case f.zOff:
			f.zSite = i
		case f.thetaOff:
			f.thetaSite = i
		}
	}
	if len(f.sites) != 1+n+l*c || f.piSite != 0 || f.zSite != 1 || f.thetaSite != 1+n ||
		f.dim != c+n+l*c*c || f.sites[0].Support != nmc.Simplex || f.sites[0].Size != c {
		return nil, fmt.Errorf("models: annotation: unexpected graph layout (%d sites, dimension %d; pi at site %d, z[0] at %d, theta[0,0] at %d)",
			len(f.sites), f.dim, f.piSite, f.zSite, f.thetaSite)
	}
	f.piConst = dirichletConst(conc)
	f.rowConst = make([]float64, c)
	for m := range rows {
		f.rowConst[m] = dirichletConst(rows[m])
	}

	// Per-item and per-labeler label lists (CSR).
	f.itemStart = make([]int32, n+1)
	f.labStart = make([]int32, l+1)
	for r, it := range train.Item {
		f.itemStart[it+1]++
		f.labStart[train.Labeler[r]+1]++
	}
	for i := 0; i < n; i++ {
		f.itemStart[i+1] += f.itemStart[i]
	}
	for i := 0; i < l; i++ {
		f.labStart[i+1] += f.labStart[i]
	}
	rowsN := train.NumLabels()
	f.itemCode = make([]int32, rowsN)
	f.labItem = make([]int32, rowsN)
	f.labLabel = make([]int32, rowsN)
	ipos := slices.Clone(f.itemStart[:n])
	lpos := slices.Clone(f.labStart[:l])
	for r, it := range train.Item {
		lab, y := train.Labeler[r], train.Label[r]
		f.itemCode[ipos[it]] = int32(lab*c*c + y)
		ipos[it]++
		f.labItem[lpos[lab]] = int32(it)
		f.labLabel[lpos[lab]] = int32(y)
		lpos[lab]++
	}
	return f, nil
}

// dirichletConst returns log Γ(Σ a) − Σ log Γ(a).
func dirichletConst(a []float64) float64 {
	s, c := 0.0, 0.0
	for _, v := range a {
		lg, _ := math.Lgamma(v)
		c -= lg
		s += v
	}
	lg, _ := math.Lgamma(s)
	return c + lg
}

// Sites lists the latent sites in state order: those of the graph model.
func (f *annotationFast) Sites() []nmc.Site { return f.sites }

// Init writes the majority-vote start of annotationStart into x.
func (f *annotationFast) Init(rng *rand.Rand, x []float64) error { return f.start.Init(rng, x) }

// NewScorer returns an evaluator for one chain.
func (f *annotationFast) NewScorer() nmc.Scorer {
	s := &annotationFastScorer{
		f:    f,
		logs: make([]cachedLog, f.dim),
		a:    make([]float64, f.numClasses),
		cnt:  make([]float64, f.numClasses*f.numClasses),
	}
	for j := range s.logs {
		s.logs[j].src = math.NaN() // never equal to a state value: every log is computed on first use
	}
	return s
}

// annotationFastScorer evaluates scores for one chain. It caches the logs of the pi
// and theta coordinates: logs[j].lg = log logs[j].src, recomputed whenever x[j]
// differs from logs[j].src, so every value read is the log of the current state
// whatever the order of calls.
type annotationFastScorer struct {
	f    *annotationFast
	logs []cachedLog // per state coordinate (only those of pi and theta are used)
	a    []float64   // per-class scratch: concentration − 1 + counts
	cnt  []float64   // C×C scratch: label counts by (class, label)
}

// posLog returns log v for finite v > 0 and −Inf otherwise (the graph's Dirichlet and
// Categorical return −Inf for such arguments).
func posLog(v float64) float64 {
	if v > 0 && v <= math.MaxFloat64 {
		return math.Log(v)
	}
	return math.Inf(-1)
}

// cachedLog holds a coordinate's value and its log (posLog).
type cachedLog struct{ src, lg float64 }

// logAt returns log x[j] through the cache.
func (s *annotationFastScorer) logAt(x []float64, j int) float64 {
	c := &s.logs[j]
	if v := x[j]; v != c.src {
		return c.refresh(v)
	}
	return c.lg
}

// refresh stores v and its log.
func (c *cachedLog) refresh(v float64) float64 {
	c.src, c.lg = v, posLog(v)
	return c.lg
}

// class returns the class z[i] as an int, or −1 when it is not an integer in [0, C).
func (f *annotationFast) class(x []float64, i int) int {
	v := x[f.zOff+i]
	m := int(v)
	if float64(m) != v || m < 0 || m >= f.numClasses {
		return -1
	}
	return m
}

// Score returns site i's Markov-blanket score (see annotationFast) and, for pi and
// theta sites with non-nil grad and hess, its gradient and Hessian.
func (s *annotationFastScorer) Score(x []float64, i int, grad, hess []float64) float64 {
	f := s.f
	switch {
	case i >= f.zSite && i < f.thetaSite:
		return s.scoreZ(x, i-f.zSite)
	case i >= f.thetaSite:
		return s.scoreTheta(x, i-f.thetaSite, grad, hess)
	default:
		return s.scorePi(x, grad, hess)
	}
}

// scoreZ returns log pi[z_i] + Σ_{labels r of item i} log theta[labeler_r, z_i, label_r].
func (s *annotationFastScorer) scoreZ(x []float64, i int) float64 {
	m := s.f.class(x, i)
	if m < 0 {
		return math.Inf(-1)
	}
	return s.classScore(x, i, m)
}

// classScore returns the score of item i in class m, reading the logs of pi and
// theta through the cache: the model's hottest loop.
func (s *annotationFastScorer) classScore(x []float64, i, m int) float64 {
	f := s.f
	logs := s.logs
	c := &logs[f.piOff+m]
	if v := x[f.piOff+m]; v != c.src {
		c.refresh(v)
	}
	total := c.lg
	base := f.thetaOff + m*f.numClasses
	for _, code := range f.itemCode[f.itemStart[i]:f.itemStart[i+1]] {
		j := base + int(code)
		c := &logs[j]
		if v := x[j]; v != c.src {
			c.refresh(v)
		}
		total += c.lg
	}
	return total
}

// ScoreValues writes the score of every class of item site i into dst: the
// sampler's enumeration of z_i without a Score call per class. It leaves x
// unchanged. Only the class sites are discrete; for any other site, or a dst of
// the wrong length, it writes NaN (which the sampler treats as weight 0).
func (s *annotationFastScorer) ScoreValues(x []float64, i int, dst []float64) {
	f := s.f
	if i < f.zSite || i >= f.thetaSite || len(dst) != f.numClasses {
		for v := range dst {
			dst[v] = math.NaN()
		}
		return
	}
	for m := range dst {
		dst[m] = s.classScore(x, i-f.zSite, m)
	}
}

// dirichletScore returns the Dirichlet log density with exponents a (concentration
// − 1 plus data counts) and constant cst at the coordinates y, writing the gradient
// a_n/y_n and the diagonal Hessian −a_n/y_n² when grad and hess are non-nil.
func dirichletScore(y, a []float64, cst float64, grad, hess []float64) float64 {
	for _, v := range y {
		if !(v > 0 && v <= math.MaxFloat64) {
			return math.Inf(-1)
		}
	}
	total := cst
	for n, v := range y {
		total += a[n] * math.Log(v)
	}
	if grad != nil && hess != nil {
		k := len(y)
		clear(hess[:k*k])
		for n, v := range y {
			g := a[n] / v
			grad[n] = g
			hess[n*k+n] = -g / v
		}
	}
	return total
}

// scorePi returns the Dirichlet(conc) log density of pi plus Σ_m #{i: z_i = m} log pi_m.
func (s *annotationFastScorer) scorePi(x []float64, grad, hess []float64) float64 {
	f := s.f
	c := f.numClasses
	a := s.a
	for m := range a {
		a[m] = f.conc[m] - 1
	}
	for i := 0; i < f.numItems; i++ {
		v := x[f.zOff+i]
		m := int(v)
		if float64(m) != v || m < 0 || m >= c {
			return math.Inf(-1)
		}
		a[m]++
	}
	return dirichletScore(x[f.piOff:f.piOff+c], a, f.piConst, grad, hess)
}

// scoreTheta returns the Dirichlet(rows[m]) log density of theta[l,m] plus
// Σ_n c_n log theta[l,m,n], c_n the number of labels n labeler l gave to items now in
// class m. Labels of items in other classes do not depend on theta[l,m] and are left
// out (as the graph model leaves them out).
func (s *annotationFastScorer) scoreTheta(x []float64, t int, grad, hess []float64) float64 {
	f := s.f
	c := f.numClasses
	l, m := t/c, t%c
	a := s.a
	for n := range a {
		a[n] = f.rows[m][n] - 1
	}
	// Count the labels of labeler l by (class, label) without a data-dependent branch,
	// then keep class m's row. A class outside [0, C) (never set by the sampler)
	// counts nowhere.
	cnt := s.cnt
	clear(cnt)
	zs := x[f.zOff : f.zOff+f.numItems]
	lo, hi := f.labStart[l], f.labStart[l+1]
	labels := f.labLabel[lo:hi]
	for r, it := range f.labItem[lo:hi] {
		v := zs[it]
		k := int(v)
		if uint(k) >= uint(c) || float64(k) != v {
			continue
		}
		cnt[k*c+int(labels[r])]++
	}
	for n := range a {
		a[n] += cnt[m*c+n]
	}
	off := f.thetaOff + t*c
	return dirichletScore(x[off:off+c], a, f.rowConst[m], grad, hess)
}

// LogJoint returns the full log joint density, normalising constants of the priors
// included (the graph model's LogJoint).
func (s *annotationFastScorer) LogJoint(x []float64) float64 {
	f := s.f
	c := f.numClasses
	total := s.scorePiPrior(x)
	for i := 0; i < f.numItems && total > math.Inf(-1); i++ {
		m := f.class(x, i)
		if m < 0 {
			return math.Inf(-1)
		}
		total += s.logAt(x, f.piOff+m)
		base := f.thetaOff + m*c
		for _, code := range f.itemCode[f.itemStart[i]:f.itemStart[i+1]] {
			total += s.logAt(x, base+int(code))
		}
	}
	return s.addThetaPriors(x, total)
}

// addThetaPriors adds to total the Dirichlet log priors of every confusion row
// theta[l,m] at x, stopping at the first −Inf (and at once if total is −Inf).
func (s *annotationFastScorer) addThetaPriors(x []float64, total float64) float64 {
	f := s.f
	c := f.numClasses
	for t := 0; t < f.numLabelers*c && total > math.Inf(-1); t++ {
		m := t % c
		for n := range s.a {
			s.a[n] = f.rows[m][n] - 1
		}
		off := f.thetaOff + t*c
		total += dirichletScore(x[off:off+c], s.a, f.rowConst[m], nil, nil)
	}
	return total
}

// scorePiPrior returns the Dirichlet(conc) log density of pi.
func (s *annotationFastScorer) scorePiPrior(x []float64) float64 {
	f := s.f
	for m := range s.a {
		s.a[m] = f.conc[m] - 1
	}
	return dirichletScore(x[f.piOff:f.piOff+f.numClasses], s.a, f.piConst, nil, nil)
}

// annotationFastHeldOut is the held-out likelihood of annotationHeldOut (per test
// item, log Σ_m pi_m Π_labels theta[l,m,y]; log Σ_m pi_m for an item without labels)
// computed with one logarithm per item: the sum of products is formed directly and
// only an item whose sum leaves [1e-250, 1e250] (underflow or overflow ahead) is
// summed in the log domain. Invalid pi or theta (an entry that is negative, NaN or
// +Inf among those the test labels read) is handed to annotationHeldOut, which
// fills dst with NaN.
type annotationFastHeldOut struct {
	slow      *annotationHeldOut
	c         int
	numItems  int
	pi, theta int     // state offsets
	start     []int32 // labels of test item j: code[start[j]:start[j+1]]
	code      []int32 // theta offset (relative to theta) of theta[labeler, 0, label]
	used      []int32 // the theta offsets (relative) that some label reads, sorted
}

var _ nmc.HeldOut = (*annotationFastHeldOut)(nil)

// newAnnotationFastHeldOut wraps slow, built on the same test data. It returns slow
// itself when the test data is too large for 32-bit indices.
func newAnnotationFastHeldOut(slow *annotationHeldOut) nmc.HeldOut {
	d := slow.test
	c := d.NumClasses
	if d.NumItems > math.MaxInt32 || d.NumLabels() > math.MaxInt32 || d.NumLabelers > math.MaxInt32/(c*c) {
		return slow
	}
	h := &annotationFastHeldOut{slow: slow, c: c, numItems: d.NumItems, pi: slow.pi, theta: slow.theta}
	h.start = make([]int32, d.NumItems+1)
	for _, it := range d.Item {
		h.start[it+1]++
	}
	for j := 0; j < d.NumItems; j++ {
		h.start[j+1] += h.start[j]
	}
	pos := slices.Clone(h.start[:d.NumItems])
	h.code = make([]int32, d.NumLabels())
	read := make([]bool, d.NumLabelers*c*c)
	for r, it := range d.Item {
		code := d.Labeler[r]*c*c + d.Label[r]
		h.code[pos[it]] = int32(code)
		pos[it]++
		for m := 0; m < c; m++ {
			read[code+m*c] = true
		}
	}
	for o, u := range read {
		if u {
			h.used = append(h.used, int32(o))
		}
	}
	return h
}

// Len is the number of test items.
func (h *annotationFastHeldOut) Len() int { return h.numItems }

// LogLik writes the log-likelihood of every test item's labels, its class summed out.
func (h *annotationFastHeldOut) LogLik(x []float64, dst []float64) {
	c := h.c
	pi := x[h.pi : h.pi+c]
	theta := x[h.theta:]
	ok := len(dst) == h.numItems
	for _, p := range pi {
		ok = ok && p >= 0 && p <= math.MaxFloat64
	}
	for _, o := range h.used {
		t := theta[o]
		ok = ok && t >= 0 && t <= math.MaxFloat64
	}
	if !ok {
		h.slow.LogLik(x, dst)
		return
	}
	var stack [16]float64
	acc := stack[:0]
	if c <= len(stack) {
		acc = stack[:c]
	} else {
		acc = make([]float64, c)
	}
	for j := range dst {
		codes := h.code[h.start[j]:h.start[j+1]]
		s := 0.0
		for m, p := range pi {
			base := theta[m*c:]
			for _, o := range codes {
				p *= base[o]
			}
			s += p
		}
		if s >= 1e-250 && s <= 1e250 {
			dst[j] = math.Log(s)
			continue
		}
		if len(codes) == 0 {
			dst[j] = math.Log(s) // log Σ pi, as annotationHeldOut
			continue
		}
		for m, p := range pi {
			a := math.Log(p)
			base := theta[m*c:]
			for _, o := range codes {
				a += math.Log(base[o])
			}
			acc[m] = a
		}
		dst[j] = special.LogSumExp(acc)
	}
}
