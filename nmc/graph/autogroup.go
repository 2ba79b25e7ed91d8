package graph

import (
	"fmt"
	"math"
	"strings"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/dist"
)

// Group moves found when the model is built (the structures users write without
// declaring moves). Build looks for three shapes and declares for each the group a
// user would write with Group, after the declared groups, under a name that starts
// with "auto: " (the schedule and Result.Moves show it; NoAutoGroups turns the
// rules off one by one, and nmc.Defaults.NoGroupMoves, `nmc sample
// -no-group-moves`, leaves them out of the schedule with the declared groups):
//
//  1. Scale (AutoScale): a scalar positive latent τ (bounded below by 0) that is
//     the scale of latents θ with a location-scale prior — Normal(μ, τ),
//     StudentT(ν, μ, τ) or Cauchy(μ, τ), μ a latent with one coordinate or one per
//     coordinate of θ, or the constant 0 — gets the dilation the centred eight
//     schools declares by hand: every θ dilated about μ, τ dilated about 0, rate 1
//     each, which leaves (θ − μ)/τ unchanged. Positive latents with a scale prior
//     HalfNormal(τ), HalfCauchy(τ) or HalfStudentT(ν, τ) are dilated with τ about 0.
//     Every latent whose scale is τ is in τ's group. The amplitude α of a
//     non-centred Gaussian process, f = CholeskyMul(K, η) with K a kernel of α
//     (plus a constant diagonal or not), gets the orbit α·e^t, η·e^{−t}, which
//     keeps f (see amplitudeGroups).
//  2. Location (AutoLocation): a scalar real latent μ that is the location of
//     latents θ with a location-scale prior gets the shift of μ and every θ
//     together, which leaves θ − μ unchanged.
//  3. Coefficient (AutoCoefficient): a scalar real latent b that multiplies a data
//     column x in the linear predictor of an observation beside a plate of
//     intercepts a[g] — y_i ~ Normal(a[g_i] + b·x_i + …, σ), and the same
//     predictor in StudentT, Cauchy, BernoulliLogit, BinomialLogit or PoissonLog —
//     is shifted with the intercepts: b(t) = b + t, a_j(t) = a_j − κ_j·x̄_j·t, x̄_j
//     the mean of x over group j's rows, which keeps every group's mean linear
//     predictor a_j + b·x̄_j where the data pin it (κ_j below). Given the a's, b is
//     pinned by Σ x_i² of information, while its posterior spread is set by the
//     within-group information Σ (x_i − x̄_j)² (and the a's prior): the rule
//     applies when the share Σ κ_j n_j x̄_j² / Σ x_i² (κ_j = 1 without partial
//     rates) is at least minPinned. That share is the squared canonical
//     correlation between b and the a's in the posterior's curvature given the
//     rest (information I_bb = Σ x_i²/σ², I_{b a_j} = n_j x̄_j/σ², I_{a_j a_j} =
//     n_j/σ² + 1/τ², so Σ_j I_{b a_j}²/(I_bb I_{a_j a_j}) = Σ κ_j n_j x̄_j² / Σ x_i²).
//
// Their non-centred forms, b0 + b·x + σ·z[g] with z ~ Normal(0, c), have other
// slow directions, along which the data's pinned values stay: σ·e^t with
// z·e^{−t} (AutoScale), b0 + t with z − t/σ (AutoLocation) and b + t with
// z_j − t·x̄_j/σ (AutoCoefficient); autogroup_nc.go has those rules.
//
// Along each orbit the log density changes, so the group move is a
// Metropolis-Hastings step like any declared group's, exact for any choice of
// orbit (nmc.GroupMoves); the rules only choose orbits that follow the posterior's
// slow directions.
//
// Partial rates (AutoPartialRates). When θ is read by one Normal observation
// through its location, additively as θ[g_i] (a plate of group effects) or θ_i,
// each coordinate moves at a rate of its own: w_j = 1/(1 + I_j·τ̂²) in rule 2,
// w_j(2 − w_j) = 1 − κ_j² in rule 1 and κ_j = 1 − w_j in rule 3, where
// I_j = Σ_{i in group j} 1/v_i is the data's information about θ_j and τ̂² an
// estimate of τ² from the data. w_j is the prior's share of θ_j's conditional
// precision: given the rest, θ_j's conditional mean moves with μ at rate w_j
// (dm_j/dμ = w_j) and with b at −κ_j·x̄_j; along τ, its conditional sd has
// elasticity w_j (d log sd_j / d log τ = w_j) and the offset m_j − μ of its
// conditional mean 2w_j (d log κ_j / d log τ = 2w_j); the dilation's rate
// w_j(2 − w_j) lies between the two and never exceeds 1. A group with many rows (I_j τ² ≫ 1) is pinned by its data
// and barely moves; a group of one row moves with μ and τ fully (the partially
// non-centred parameterisation of Papaspiliopoulos, Roberts and Sköld 2007, as an
// orbit). The estimate: v_i is the observation's variance, σ_i² for a constant
// scale, else the pooled within-group variance of y; τ̂² is τ² for a constant
// prior scale, else max(0, the variance of the groups' weighted means of y − the
// mean of 1/I_j) (the method of moments of the one-way random-effects model).
// Terms of the location other than θ[g] are ignored: they inflate both variance
// estimates. Without such an observation (or with τ̂² = 0) every rate is 1 — the
// hand-declared orbit (centred eight schools: τ̂² = 0, the auto groups equal its
// declared ones).
//
// What is left out: a latent already in a declared group (Group) is not put in
// an automatic one; a latent in no rule's shape (θ with a prior location that is
// an expression or a non-zero constant, a scale that is an expression, bounded
// supports that an orbit would leave: a scale on an Interval or bounded below by
// a non-zero bound, a θ with a bounded support) is not grouped. A latent may be in
// several automatic groups (a plate of intercepts moves in its scale's, its
// location's and its coefficients' groups); an anchor never moves in its own
// group (a θ whose location is itself dilated in the same group is left out).

// AutoRule names one rule of the group moves Build finds (see NoAutoGroups).
type AutoRule uint8

const (
	// AutoScale is the dilation of the latents whose prior scale is a positive
	// latent, with it, and of a non-centred Gaussian process's amplitude or a
	// non-centred plate's scale against its standardised values (rule 1).
	AutoScale AutoRule = 1 << iota
	// AutoLocation is the shift of the latents whose prior location is a real
	// latent, with it, and of an intercept against a non-centred plate (rule 2).
	AutoLocation
	// AutoCoefficient is the shift of a coefficient against a plate of
	// intercepts in the same linear predictor, centred or not (rule 3).
	AutoCoefficient
	// AutoPartialRates gives each coordinate of rules 1–3 its rate from the data's
	// information; without it every rate is 1 (rule 3: κ_j = 1).
	AutoPartialRates
	// AutoKernelLeads makes the continuous latents that the covariance of a
	// latent's multivariate normal prior reads (a Gaussian process's length scale
	// and amplitude) leads of the sampler's lead-and-follow moves, the latent
	// following them (Model.Leads, Model.Followers).
	AutoKernelLeads
	// AutoKernelCarry moves a non-centred Gaussian process's length scale with its
	// standardised values carried along, f = L·η kept (Model.ModelMoves, carry.go).
	AutoKernelCarry

	autoAll = AutoScale | AutoLocation | AutoCoefficient | AutoPartialRates | AutoKernelLeads | AutoKernelCarry
)

// minPinned is the least share Σ κ_j n_j x̄_j² / Σ x_i² of a coefficient's
// information that lies between groups for rule 3 to apply. Single-site steps of
// b given the intercepts then have a lag-one autocorrelation of about that share
// (a Gibbs sampler on two blocks whose squared canonical correlation it is); at
// 0.2 its ESS per step is still 2/3 of independent draws, and the orbit step
// costs a pass over the rows.
const minPinned = 0.2

// NoAutoGroups turns off group moves Build would find: with no argument every
// rule (the model's groups are then only the declared ones), else the rules given
// (AutoScale, AutoLocation, AutoCoefficient, AutoPartialRates, AutoKernelLeads,
// AutoKernelCarry).
func (b *Builder) NoAutoGroups(rules ...AutoRule) {
	if len(rules) == 0 {
		b.noAuto = autoAll
		return
	}
	for _, r := range rules {
		b.noAuto |= r
	}
}

// autoConfig is what Build tells compileGroups about the automatic groups.
type autoConfig struct {
	off AutoRule // the rules turned off
}

// autoFinder finds the automatic groups of a model whose sites are compiled.
type autoFinder struct {
	m       *Model
	partial bool
	taken   []bool // by family id: in a declared group
	readers [][]*factor
}

// autoGroups returns the groups the rules find in m, given the declared ones (to
// leave their members out and not reuse their names).
func (m *Model) autoGroups(declared []groupDecl) []groupDecl {
	if m.auto == nil || m.auto.off&(AutoScale|AutoLocation|AutoCoefficient) == AutoScale|AutoLocation|AutoCoefficient {
		return nil
	}
	a := &autoFinder{m: m, partial: m.auto.off&AutoPartialRates == 0, taken: make([]bool, len(m.fams))}
	names := map[string]bool{}
	for _, d := range declared {
		names[d.name] = true
		for _, mem := range d.members {
			if f := m.famOf(mem.node); f != nil {
				a.taken[f.id] = true
			}
		}
	}
	a.readers = make([][]*factor, len(m.fams))
	for _, fc := range m.factors {
		seen := map[*Node]bool{}
		read := make([]bool, len(m.fams))
		for _, p := range fc.d.params {
			markReads(p, read, seen)
		}
		for id, r := range read {
			if r && fc.fam != m.fams[id] {
				a.readers[id] = append(a.readers[id], fc)
			}
		}
	}
	var out []groupDecl
	if m.auto.off&AutoScale == 0 {
		out = append(out, a.scaleGroups()...)
		out = append(out, a.amplitudeGroups()...)
	}
	if m.auto.off&AutoLocation == 0 {
		out = append(out, a.locationGroups()...)
	}
	if m.auto.off&AutoCoefficient == 0 {
		out = append(out, a.coefficientGroups()...)
	}
	out = append(out, a.nonCentredGroups(m.auto.off)...)
	kept := out[:0]
	for _, d := range out {
		if !names[d.name] { // a declared group of that name wins
			names[d.name] = true
			kept = append(kept, d)
		}
	}
	return kept
}

// markReads marks in read the latent families node n reads.
func markReads(n *Node, read []bool, seen map[*Node]bool) {
	if n == nil || seen[n] {
		return
	}
	seen[n] = true
	if n.op == opLatent && n.fam != nil && n.fam.id >= 0 && n.fam.id < len(read) {
		read[n.fam.id] = true
	}
	for _, a := range n.args {
		markReads(a, read, seen)
	}
}

// free reports whether family f may join an automatic group: a latent of this
// model in no declared group, with scalar elements.
func (a *autoFinder) free(f *family) bool {
	return f != nil && !a.taken[f.id] && f.width == 1
}

// allSupport reports whether every site of f has support kind (for Positive:
// bounded below by 0).
func (a *autoFinder) allSupport(f *family, kind nmc.Support) bool {
	for _, s := range a.m.sitesOf(f) {
		if s.Support != kind || (kind == nmc.Positive && s.Lower != 0) {
			return false
		}
	}
	return true
}

// locScale returns the location and scale parameters of a location-scale prior.
func locScale(d *Dist) (loc, scale *Node, ok bool) {
	switch d.fam.(type) {
	case dist.Normal, *dist.Normal, dist.Cauchy, *dist.Cauchy:
		return d.params[0], d.params[1], true
	case dist.StudentT, *dist.StudentT:
		return d.params[1], d.params[2], true
	}
	return nil, nil, false
}

// halfScale returns the scale parameter of a scale prior on (0, ∞).
func halfScale(d *Dist) (scale *Node, ok bool) {
	switch d.fam.(type) {
	case dist.HalfNormal, *dist.HalfNormal, dist.HalfCauchy, *dist.HalfCauchy:
		return d.params[0], true
	case dist.HalfStudentT, *dist.HalfStudentT:
		return d.params[1], true
	}
	return nil, false
}

// isZero reports whether n is a constant whose every value is 0.
func isZero(n *Node) bool {
	if n.op != opConst {
		return false
	}
	for _, v := range n.vals {
		if v != 0 {
			return false
		}
	}
	return true
}

// scaleGroups applies rule 1: per positive scalar latent τ, the latents whose
// prior scale it is, dilated with it.
func (a *autoFinder) scaleGroups() []groupDecl {
	var out []groupDecl
	for _, tau := range a.m.fams {
		if !a.free(tau) || tau.length != 1 || !a.allSupport(tau, nmc.Positive) {
			continue
		}
		var mems []GroupMember
		var what []string
		in := map[*family]bool{tau: true}
		for _, th := range a.m.fams {
			if th == tau || !a.free(th) {
				continue
			}
			if loc, scale, ok := locScale(th.d); ok && scale == tau.node && a.allSupport(th, nmc.Real) {
				var anchor *Node
				switch af := a.m.famOf(loc); {
				case isZero(loc):
				case af != nil && af.width == 1 && (af.length == 1 || af.length == th.length) && a.m.sites[af.first].Support != nmc.Discrete:
					anchor = loc
				default:
					continue
				}
				mems = append(mems, a.dilation(th, anchor))
				in[th] = true
				if anchor != nil {
					what = append(what, th.name+" about "+anchor.fam.name)
				} else {
					what = append(what, th.name)
				}
			} else if s, ok := halfScale(th.d); ok && s == tau.node && a.allSupport(th, nmc.Positive) {
				mems = append(mems, Dilate(th.node, 1))
				in[th] = true
				what = append(what, th.name)
			}
		}
		// An anchor must stay fixed: leave out the members dilated about another.
		kept, keptWhat := mems[:0], what[:0]
		for k, mem := range mems {
			if mem.anchor != nil && in[mem.anchor.fam] {
				continue
			}
			kept, keptWhat = append(kept, mem), append(keptWhat, what[k])
		}
		if len(kept) == 0 {
			continue
		}
		kept = append(kept, Dilate(tau.node, 1))
		out = append(out, groupDecl{name: "auto: dilate " + strings.Join(keptWhat, ", ") + " with " + tau.name, members: kept})
	}
	return out
}

// dilation returns θ's member of a scale group: about anchor (nil: 0), at the
// partial rates when they are known.
func (a *autoFinder) dilation(th *family, anchor *Node) GroupMember {
	if w, ok := a.priorShares(th); ok {
		for j, wj := range w {
			w[j] = wj * (2 - wj) // 1 − κ_j²
		}
		return DilateEach(th.node, anchor, w)
	}
	if anchor == nil {
		return Dilate(th.node, 1)
	}
	return DilateAbout(th.node, anchor, 1)
}

// locationGroups applies rule 2: per real scalar latent μ, the latents whose prior
// location it is, shifted with it.
func (a *autoFinder) locationGroups() []groupDecl {
	var out []groupDecl
	for _, mu := range a.m.fams {
		if !a.free(mu) || mu.length != 1 || !a.allSupport(mu, nmc.Real) {
			continue
		}
		mems := []GroupMember{Shift(mu.node, 1)}
		var what []string
		for _, th := range a.m.fams {
			if th == mu || !a.free(th) || !a.allSupport(th, nmc.Real) {
				continue
			}
			if loc, _, ok := locScale(th.d); !ok || loc != mu.node {
				continue
			}
			if w, ok := a.priorShares(th); ok {
				mems = append(mems, ShiftEach(th.node, w))
			} else {
				mems = append(mems, Shift(th.node, 1))
			}
			what = append(what, th.name)
		}
		if len(what) == 0 {
			continue
		}
		out = append(out, groupDecl{name: "auto: shift " + mu.name + " with " + strings.Join(what, ", "), members: mems})
	}
	return out
}

// linearPredictor returns the parameter of an observation's family that is its
// location or linear predictor, or nil.
func linearPredictor(d *Dist) *Node {
	switch d.fam.(type) {
	case dist.Normal, *dist.Normal, dist.Cauchy, *dist.Cauchy, dist.BernoulliLogit, *dist.BernoulliLogit, dist.PoissonLog, *dist.PoissonLog:
		return d.params[0]
	case dist.StudentT, *dist.StudentT, dist.BinomialLogit, *dist.BinomialLogit:
		return d.params[1]
	}
	return nil
}

// addTerms appends the terms of a sum (the leaves of a tree of Add nodes).
func addTerms(n *Node, out []*Node) []*Node {
	if n.op == opAdd {
		return addTerms(n.args[1], addTerms(n.args[0], out))
	}
	return append(out, n)
}

// groupIndex returns the plate and the data index of a term a[g] (Index, or At
// with one data index) of a latent plate of scalar elements, or the latent itself
// with the identity index when it has one element per row.
func groupIndex(t *Node, rows int) (f *family, g []int) {
	switch t.op {
	case opIndex:
		if src := t.args[0]; src.op == opLatent && src.width == 1 {
			return src.fam, t.idx
		}
	case opAt:
		if src := t.args[0]; src.op == opLatent && src.width == 1 && len(t.atData) == 1 && t.atNode[0] == nil {
			return src.fam, t.atData[0]
		}
	case opLatent:
		if t.width == 1 && t.length == rows && rows > 1 {
			g = make([]int, rows)
			for i := range g {
				g[i] = i
			}
			return t.fam, g
		}
	}
	return nil, nil
}

// coefTerm returns the scalar latent b and the data column x of a term b·x.
func coefTerm(t *Node, rows int) (b *family, x []float64) {
	if t.op != opMul {
		return nil, nil
	}
	l, r := t.args[0], t.args[1]
	if r.op == opLatent {
		l, r = r, l
	}
	if l.op != opLatent || l.length != 1 || l.width != 1 || r.op != opConst || r.length != rows || r.width != 1 {
		return nil, nil
	}
	return l.fam, r.vals
}

// pinned accumulates, for one coefficient and one plate of intercepts, the rows
// that read both: per group the count and sum of x, and Σ x².
type pinned struct {
	b, a   *family
	n, sx  []float64
	sumXX  float64
	factor *factor
}

// eachPredictor calls fn with each observation factor whose linear predictor
// (linearPredictor) has one scalar element per row, and the predictor's terms.
func (a *autoFinder) eachPredictor(fn func(fc *factor, terms []*Node)) {
	for _, fc := range a.m.factors {
		if fc.fam != nil || fc.obs == nil {
			continue
		}
		if lp := linearPredictor(fc.d); lp != nil && lp.length == fc.length && lp.width == 1 {
			fn(fc, addTerms(lp, nil))
		}
	}
}

// coefficientGroups applies rule 3.
func (a *autoFinder) coefficientGroups() []groupDecl {
	var found []*pinned
	a.eachPredictor(func(fc *factor, terms []*Node) {
		var plate *family
		var g []int
		for _, t := range terms {
			if f, idx := groupIndex(t, fc.length); f != nil {
				if plate != nil || len(idx) != fc.length {
					plate = nil // two plates of effects (crossed): no rule
					break
				}
				plate, g = f, idx
			}
		}
		if plate == nil || !a.free(plate) || plate.length < 2 || !a.allSupport(plate, nmc.Real) {
			return
		}
		for _, t := range terms {
			b, x := coefTerm(t, fc.length)
			if b == nil || b == plate || !a.free(b) || !a.allSupport(b, nmc.Real) {
				continue
			}
			var p *pinned
			for _, q := range found {
				if q.b == b && q.a == plate {
					p = q
				}
			}
			if p == nil {
				p = &pinned{b: b, a: plate, n: make([]float64, plate.length), sx: make([]float64, plate.length), factor: fc}
				found = append(found, p)
			} else if p.factor != fc {
				p.factor = nil // rows of several factors: no single observation to weigh them by
			}
			for i, j := range g {
				p.n[j]++
				p.sx[j] += x[i]
				p.sumXX += x[i] * x[i]
			}
		}
	})
	var out []groupDecl
	for _, p := range found {
		w, partial := a.priorShares(p.a)
		partial = partial && p.factor != nil
		kappa := make([]float64, p.a.length) // the data's share of a_j's precision
		between, sumKappa, sumKappaX := 0.0, 0.0, 0.0
		for j, n := range p.n {
			if n == 0 {
				continue
			}
			kappa[j] = 1
			if partial {
				kappa[j] = 1 - w[j]
			}
			between += kappa[j] * p.sx[j] * p.sx[j] / n
			sumKappa += kappa[j]
			sumKappaX += kappa[j] * p.sx[j] / n
		}
		if !(p.sumXX > 0) || !(between > 0) || between < minPinned*p.sumXX {
			continue
		}
		// With the plate's prior location a free real latent μ, μ moves at −c,
		// c = Σ κ_j x̄_j / Σ κ_j, and a_j at −(w_j·c + κ_j·x̄_j), w_j = 1 − κ_j:
		// the slope in b of the conditional mode of (μ, a) given b (μ's mode is
		// the mean of the a's, a_j's is w_j·μ + κ_j·(ȳ_j − b·x̄_j)).
		mems := []GroupMember{Shift(p.b.node, 1)}
		c := 0.0
		if loc, _, ok := locScale(p.a.d); ok {
			if mu := a.m.famOf(loc); mu != nil && mu != p.b && a.free(mu) && mu.length == 1 && a.allSupport(mu, nmc.Real) && sumKappaX != 0 {
				c = sumKappaX / sumKappa
				mems = append(mems, Shift(mu.node, -c))
			}
		}
		rates := make([]float64, p.a.length)
		moves := false
		for j, n := range p.n {
			xbar := 0.0
			if n > 0 {
				xbar = p.sx[j] / n
			}
			rates[j] = -((1-kappa[j])*c + kappa[j]*xbar)
			moves = moves || rates[j] != 0
		}
		if !moves { // the intercepts would stay: no orbit against them
			continue
		}
		mems = append(mems, ShiftEach(p.a.node, rates))
		if len(mems) == 3 {
			out = append(out, groupDecl{name: fmt.Sprintf("auto: shift %s against %s and %s", p.b.name, p.a.name, mems[1].node.fam.name), members: mems})
		} else {
			out = append(out, groupDecl{name: fmt.Sprintf("auto: shift %s against %s", p.b.name, p.a.name), members: mems})
		}
	}
	return out
}

// priorShares returns, per coordinate of θ, the prior's share w_j = 1/(1 + I_j τ̂²)
// of its conditional precision (see the partial rates above), and false when the
// partial rates are off or θ is not read by a single Normal observation through a
// term θ[g] of its location.
func (a *autoFinder) priorShares(th *family) ([]float64, bool) {
	if !a.partial || th.vector && th.length < 2 {
		return nil, false
	}
	readers := a.readers[th.id]
	if len(readers) != 1 {
		return nil, false
	}
	fc := readers[0]
	switch fc.d.fam.(type) {
	case dist.Normal, *dist.Normal:
	default:
		return nil, false
	}
	if fc.fam != nil || fc.obs == nil || fc.width != 1 {
		return nil, false
	}
	loc, scale := fc.d.params[0], fc.d.params[1]
	if reads(scale, th) || loc.length != fc.length {
		return nil, false
	}
	var g []int
	for _, t := range addTerms(loc, nil) {
		if f, idx := groupIndex(t, fc.length); f == th && g == nil && len(idx) == fc.length {
			g = idx
		} else if reads(t, th) {
			return nil, false
		}
	}
	if g == nil {
		return nil, false
	}
	y := fc.obs
	ng := th.length
	info, wsum := make([]float64, ng), make([]float64, ng)
	// The observations' variances: a constant scale's squares, else the pooled
	// within-group variance of y.
	v := make([]float64, len(y))
	if scale.op == opConst {
		for i := range v {
			s := scale.vals[0]
			if scale.length > 1 {
				s = scale.vals[i]
			}
			v[i] = s * s
		}
	} else {
		n, sum := make([]float64, ng), make([]float64, ng)
		for i, j := range g {
			n[j]++
			sum[j] += y[i]
		}
		ss, df := 0.0, 0.0
		for i, j := range g {
			d := y[i] - sum[j]/n[j]
			ss += d * d
		}
		for _, c := range n {
			if c > 0 {
				df += c - 1
			}
		}
		if !(df > 0) || !(ss > 0) {
			return nil, false
		}
		for i := range v {
			v[i] = ss / df
		}
	}
	for i, j := range g {
		if !(v[i] > 0) || math.IsInf(v[i], 0) {
			return nil, false
		}
		info[j] += 1 / v[i]
		wsum[j] += y[i] / v[i]
	}
	// The prior's variance: a constant scale's square, else the method of moments.
	tau2 := make([]float64, ng)
	_, pscale, _ := locScale(th.d)
	switch {
	case pscale != nil && pscale.op == opConst:
		for j := range tau2 {
			s := pscale.vals[0]
			if pscale.length > 1 {
				s = pscale.vals[j]
			}
			tau2[j] = s * s
		}
	default:
		var means []float64
		noise := 0.0
		for j := range info {
			if info[j] > 0 {
				means = append(means, wsum[j]/info[j])
				noise += 1 / info[j]
			}
		}
		k := float64(len(means))
		if k < 2 {
			return nil, false
		}
		mean := 0.0
		for _, m := range means {
			mean += m
		}
		mean /= k
		ss := 0.0
		for _, m := range means {
			ss += (m - mean) * (m - mean)
		}
		for j := range tau2 {
			tau2[j] = max(0, ss/(k-1)-noise/k)
		}
	}
	w := make([]float64, ng)
	for j := range w {
		w[j] = 1 / (1 + info[j]*tau2[j])
		if !(w[j] > 0) { // a prior scale so wide that I_j·τ̂² overflows: rate 1
			return nil, false
		}
	}
	return w, true
}

// reads reports whether node n reads latent family f.
func reads(n *Node, f *family) bool {
	read := make([]bool, f.id+1)
	markReads(n, read, map[*Node]bool{})
	return read[f.id]
}
