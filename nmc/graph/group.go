package graph

import (
	"fmt"
	"math"
	"slices"

	"github.com/nmc-go/nmc/nmc"
)

// A GroupMember is one latent node of a group and how all of its coordinates move
// along the group's orbit x(t). Make one with Dilate, DilateAbout, Shift,
// ShiftEach, ShiftOver, ShiftOverEach or DilateEach.
type GroupMember struct {
	node   *Node
	kind   nmc.OrbitKind
	rate   float64
	rates  []float64 // ShiftEach, ShiftOverEach, DilateEach: one rate per coordinate (rate unused)
	anchor *Node     // DilateAbout, DilateEach (nil: about 0); ShiftOver, ShiftOverEach: the scale
}

// Dilate moves every coordinate of the latent node n as x(t) = e^{rate·t}·x, a
// dilation about 0. A positive site with lower bound 0 stays positive.
func Dilate(n *Node, rate float64) GroupMember {
	return GroupMember{node: n, kind: nmc.Dilate, rate: rate}
}

// DilateAbout moves every coordinate of the latent node n as
// x(t) = a + e^{rate·t}·(x − a), a dilation about the value a of the latent node
// anchor, which stays where it is (it must not be in the group). anchor is a scalar
// latent (every coordinate of n is dilated about it, as θⱼ about μ in a centred
// hierarchical model) or a latent with as many coordinates as n (coordinate by
// coordinate). Only real sites may be dilated about an anchor.
func DilateAbout(n, anchor *Node, rate float64) GroupMember {
	return GroupMember{node: n, kind: nmc.Dilate, rate: rate, anchor: anchor}
}

// Shift moves every coordinate of the latent node n as x(t) = x + rate·t. Only real
// sites may be shifted.
func Shift(n *Node, rate float64) GroupMember {
	return GroupMember{node: n, kind: nmc.Shift, rate: rate}
}

// ShiftEach moves coordinate j of the latent node n as x_j(t) = x_j + rates[j]·t,
// a shift at a rate of its own per coordinate (rates has one entry per coordinate
// of n); a coordinate of rate 0 stays where it is. Only real sites may be shifted.
// For example a coefficient b and a plate of group intercepts a_j, which the
// rows of group j (their mean predictor x̄_j) pin against each other,
//
//	b.Group("b with a", graph.Shift(b, 1), graph.ShiftEach(a, negMeans))
//
// with negMeans[j] = −x̄_j keeps every group's mean fitted value a_j + b·x̄_j.
func ShiftEach(n *Node, rates []float64) GroupMember {
	return GroupMember{node: n, kind: nmc.Shift, rates: append([]float64(nil), rates...)}
}

// ShiftOver moves every coordinate of the latent node n as x(t) = x + (rate/σ)·t,
// σ the value of the latent node scale: a positive scalar latent bounded below by
// 0 or more, outside the group, which stays where it is (so the direction is the
// same at every point of the orbit). In a non-centred hierarchical model whose
// data pin b0 + σ·z[g], the intercept b0 and the standardised effects z move
// along that ridge with
//
//	b.Group("b0 with z", graph.Shift(b0, 1), graph.ShiftOver(z, sigma, -1))
//
// Build finds this group itself (see NoAutoGroups). Only real sites may be
// shifted.
func ShiftOver(n, scale *Node, rate float64) GroupMember {
	return GroupMember{node: n, kind: nmc.ShiftOver, rate: rate, anchor: scale}
}

// ShiftOverEach is ShiftOver at a rate of its own per coordinate, as ShiftEach:
// coordinate j moves as x_j(t) = x_j + (rates[j]/σ)·t.
func ShiftOverEach(n, scale *Node, rates []float64) GroupMember {
	return GroupMember{node: n, kind: nmc.ShiftOver, anchor: scale, rates: append([]float64(nil), rates...)}
}

// DilateEach moves coordinate j of the latent node n as
// x_j(t) = a_j + e^{rates[j]·t}·(x_j − a_j), a dilation at a rate of its own per
// coordinate (rates has one entry per coordinate of n; a coordinate of rate 0
// stays), about the latent anchor as DilateAbout, or about 0 when anchor is nil
// (then, as for Dilate, a positive site bounded below by 0 may be dilated).
func DilateEach(n, anchor *Node, rates []float64) GroupMember {
	return GroupMember{node: n, kind: nmc.Dilate, anchor: anchor, rates: append([]float64(nil), rates...)}
}

// rateOf returns the rate of coordinate j of the member.
func (mem GroupMember) rateOf(j int) float64 {
	if mem.rates != nil {
		return mem.rates[j]
	}
	return mem.rate
}

// groupDecl is a group as declared, checked by Build.
type groupDecl struct {
	name    string
	members []GroupMember
}

// Group declares a group move: a Metropolis-Hastings step along the one-parameter
// orbit that moves every member together (generalised Gibbs; see nmc.Group). Each
// member is a whole latent node (a scalar latent, a Vector or a plate) made with
// Dilate, DilateAbout, Shift, ShiftEach or DilateEach. For example the scale of
// logistic-regression coefficients,
//
//	b.Group("scale(alpha, beta)", graph.Dilate(alpha, 1), graph.Dilate(beta, 1))
//
// or Neal's funnel, whose x/e^{z/2} the orbit leaves unchanged,
//
//	b.Group("funnel", graph.Shift(z, 2), graph.Dilate(x, 1))
//
// Build checks the group: a non-empty name used by no other group, latent members
// of this builder each at most once, finite non-zero rates, anchors that are
// continuous latents outside the group, and an orbit that stays inside every
// member site's support (a Shift only of real sites, a Dilate only of real sites
// or, about 0, of positive sites bounded below by 0). The groups Build finds itself
// (NoAutoGroups) come after the declared ones and leave their members out.
func (b *Builder) Group(name string, members ...GroupMember) {
	b.groups = append(b.groups, groupDecl{name: name, members: append([]GroupMember(nil), members...)})
}

// orbit is a compiled group: its coordinates and the factor elements that depend
// on them, split like a site's blanket into elements evaluated one by one and runs
// tallied by value.
type orbit struct {
	group   nmc.Group
	member  []bool // by family id: the family's coordinates move
	still   []int  // coordinates of member families that stay (rate 0 in ShiftEach, DilateEach)
	blanket []entry
	groups  []group
	lin     []int32 // linear factors scored as a whole (linear.go)
	marg    []int32 // summed-out groups read by any member site
}

// Groups returns the declared groups (nmc.Grouper), then those Build found
// (NoAutoGroups), with state indices from the model's layout; nil when there are
// none. Each call returns a fresh copy.
func (m *Model) Groups() []nmc.Group {
	if len(m.orbits) == 0 {
		return nil
	}
	out := make([]nmc.Group, len(m.orbits))
	for g, o := range m.orbits {
		out[g] = nmc.Group{Name: o.group.Name, Coords: slices.Clone(o.group.Coords)}
	}
	return out
}

// OrbitBlanket returns the number of factor elements that group g's orbit score
// sums over: the union of the Markov blankets of its sites, each element once.
func (m *Model) OrbitBlanket(g int) int {
	if g < 0 || g >= len(m.orbits) {
		return 0
	}
	n := len(m.orbits[g].blanket)
	for _, gr := range m.orbits[g].groups {
		n += len(gr.elems)
	}
	for _, li := range m.orbits[g].lin {
		n += m.factors[m.linear[li].f].length
	}
	return n
}

var _ nmc.Grouper = (*Model)(nil)

// famOf returns the latent family of node n if n is a latent node of this model.
func (m *Model) famOf(n *Node) *family {
	if n == nil || n.op != opLatent || n.fam == nil {
		return nil
	}
	f := n.fam
	if f.id < 0 || f.id >= len(m.fams) || m.fams[f.id] != f {
		return nil
	}
	return f
}

// compileGroups checks the declared groups, adds the automatic ones after them
// (autogroup.go) and compiles their coordinates (after the sites and offsets are
// known).
func (m *Model) compileGroups(decls []groupDecl) error {
	decls = append(slices.Clip(decls), m.autoGroups(decls)...)
	names := map[string]bool{}
	for _, d := range decls {
		if d.name == "" {
			return fmt.Errorf("graph: a group has an empty name")
		}
		if names[d.name] {
			return fmt.Errorf("graph: duplicate group name %q", d.name)
		}
		names[d.name] = true
		if len(d.members) == 0 {
			return fmt.Errorf("graph: group %q has no members", d.name)
		}
		o := orbit{group: nmc.Group{Name: d.name}, member: make([]bool, len(m.fams))}
		for mi, mem := range d.members {
			n := mem.node
			if n == nil {
				return fmt.Errorf("graph: group %q: member %d is a nil node", d.name, mi)
			}
			if n.err != nil {
				return fmt.Errorf("graph: group %q: member %d: %w", d.name, mi, n.err)
			}
			f := m.famOf(n)
			if f == nil {
				return fmt.Errorf("graph: group %q: member %d (%s) is not a latent node of this model; give the node Latent or Vector returned", d.name, mi, n)
			}
			if o.member[f.id] {
				return fmt.Errorf("graph: group %q: latent %q is in the group twice", d.name, f.name)
			}
			o.member[f.id] = true
			if mem.rates != nil {
				if err := checkRates(d.name, f, mem.rates); err != nil {
					return err
				}
			} else if math.IsNaN(mem.rate) || math.IsInf(mem.rate, 0) || mem.rate == 0 {
				return fmt.Errorf("graph: group %q: latent %q: rate %v, want a finite non-zero number", d.name, f.name, mem.rate)
			}
		}
		// Anchors and supports, once every member is known.
		for _, mem := range d.members {
			f := mem.node.fam
			anchor, err := m.groupAnchor(d.name, f, mem, o.member)
			if err != nil {
				return err
			}
			if err := m.checkOrbitSupport(d.name, f, mem); err != nil {
				return err
			}
			size := f.length * f.width
			for j := 0; j < size; j++ {
				rate := mem.rateOf(j)
				if rate == 0 { // ShiftEach, DilateEach: this coordinate stays
					o.still = append(o.still, f.offset+j)
					continue
				}
				a := -1
				if anchor != nil {
					a = anchor.offset
					if anchor.length*anchor.width > 1 {
						a += j
					}
				}
				o.group.Coords = append(o.group.Coords, nmc.OrbitCoord{Coord: f.offset + j, Kind: mem.kind, Rate: rate, Anchor: a})
			}
		}
		m.orbits = append(m.orbits, o)
	}
	return nil
}

// checkRates checks the rates of a ShiftEach or DilateEach member of latent f:
// one per coordinate, finite, at least one non-zero.
func checkRates(group string, f *family, rates []float64) error {
	if n := f.length * f.width; len(rates) != n {
		return fmt.Errorf("graph: group %q: latent %q has %d coordinates and %d rates", group, f.name, n, len(rates))
	}
	moves := false
	for j, r := range rates {
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return fmt.Errorf("graph: group %q: latent %q: rate %d is %v, want a finite number", group, f.name, j, r)
		}
		moves = moves || r != 0
	}
	if !moves {
		return fmt.Errorf("graph: group %q: latent %q: every rate is 0, want at least one non-zero", group, f.name)
	}
	return nil
}

// groupAnchor checks the anchor of a member (a dilation's, or a ShiftOver's
// scale) and returns its family (nil: about 0).
func (m *Model) groupAnchor(group string, f *family, mem GroupMember, member []bool) (*family, error) {
	if mem.anchor == nil {
		if mem.kind == nmc.ShiftOver {
			return nil, fmt.Errorf("graph: group %q: latent %q: ShiftOver has a nil scale", group, f.name)
		}
		return nil, nil
	}
	if mem.kind == nmc.Shift {
		return nil, fmt.Errorf("graph: group %q: latent %q: only a dilation has an anchor", group, f.name) // unreachable through the constructors
	}
	if mem.anchor.err != nil {
		return nil, fmt.Errorf("graph: group %q: anchor of latent %q: %w", group, f.name, mem.anchor.err)
	}
	a := m.famOf(mem.anchor)
	if a == nil {
		return nil, fmt.Errorf("graph: group %q: the anchor of latent %q (%s) is not a latent node of this model", group, f.name, mem.anchor)
	}
	if member[a.id] {
		return nil, fmt.Errorf("graph: group %q: the anchor %q of latent %q is in the group; an anchor must stay fixed along the orbit", group, a.name, f.name)
	}
	if mem.kind == nmc.ShiftOver {
		if s := m.sites[a.first]; a.length*a.width != 1 || s.Support != nmc.Positive || !(s.Lower >= 0) {
			return nil, fmt.Errorf("graph: group %q: the scale %q of latent %q's ShiftOver is not a positive scalar latent bounded below by 0 or more", group, a.name, f.name)
		}
		return a, nil
	}
	if m.sites[a.first].Support == nmc.Discrete {
		return nil, fmt.Errorf("graph: group %q: the anchor %q of latent %q is discrete", group, a.name, f.name)
	}
	if n := a.length * a.width; n != 1 && n != f.length*f.width {
		return nil, fmt.Errorf("graph: group %q: the anchor %q has %d coordinates and latent %q %d; want 1 or the same number", group, a.name, n, f.name, f.length*f.width)
	}
	return a, nil
}

// checkOrbitSupport refuses a member whose orbit can leave one of its sites'
// supports.
func (m *Model) checkOrbitSupport(group string, f *family, mem GroupMember) error {
	for _, s := range m.sitesOf(f) {
		var why string
		switch s.Support {
		case nmc.Real:
			continue
		case nmc.Positive:
			switch {
			case mem.kind != nmc.Dilate:
				why = "a shift can take it to 0 or below; dilate it about 0 instead"
			case mem.anchor != nil:
				why = "a dilation about an anchor can take it to 0 or below; dilate it about 0 instead"
			case s.Lower != 0:
				why = fmt.Sprintf("its lower bound is %v, and only a dilation about 0 of a site bounded below by 0 stays inside", s.Lower)
			default:
				continue
			}
		case nmc.Interval:
			why = fmt.Sprintf("its support (%v, %v) is bounded on both sides", s.Lower, s.Upper)
		case nmc.Simplex:
			why = "it lives on the simplex"
		case nmc.Discrete:
			why = "it is discrete"
		default:
			why = "its support is unknown"
		}
		what := "shift"
		if mem.kind == nmc.Dilate {
			what = "dilation"
		}
		return fmt.Errorf("graph: group %q: the %s of site %q (%s support) can leave its support: %s", group, what, s.Name, s.Support, why)
	}
	return nil
}

// orbitBlankets compiles each group's blanket: the union of its sites' blankets
// (given per site in blankets, before groupBlankets splits them), each element once,
// with runs that can be tallied by value split off as in groupBlankets.
func (m *Model) orbitBlankets(blankets [][]entry) {
	for g := range m.orbits {
		o := &m.orbits[g]
		var all []entry
		for _, f := range m.fams {
			if !o.member[f.id] {
				continue
			}
			for s := f.first; s < f.first+len(m.sitesOf(f)); s++ {
				all = append(all, blankets[s]...)
				o.marg = append(o.marg, m.margOf[s]...)
			}
		}
		slices.Sort(o.marg)
		o.marg = slices.Compact(o.marg)
		m.splitBlanket(all, o)
	}
}

// splitBlanket sorts the factor elements all of an orbit's blanket, drops repeats,
// and adds each factor's elements to o: as a group tallied by value (groupValues)
// when there are at least minGroup of them, else to o.blanket. No member of an
// orbit is discrete, so a factor tallied by value never has its values moved by
// the orbit: the site-free test (s = −1) applies.
func (m *Model) splitBlanket(all []entry, o *orbit) {
	slices.SortFunc(all, func(a, b entry) int {
		if a.f != b.f {
			return int(a.f) - int(b.f)
		}
		return int(a.e) - int(b.e)
	})
	all = slices.Compact(all)
	for lo := 0; lo < len(all); {
		hi := lo
		for hi < len(all) && all[hi].f == all[lo].f {
			hi++
		}
		run := all[lo:hi]
		if vals := m.groupValues(int(run[0].f), -1); vals > 0 && len(run) >= minGroup {
			gr := group{f: run[0].f, values: vals, elems: make([]int32, len(run))}
			for i, en := range run {
				gr.elems[i] = en.e
			}
			o.groups = append(o.groups, gr)
		} else {
			o.blanket = append(o.blanket, run...)
		}
		lo = hi
	}
}
