package graph

import (
	"fmt"
	"math"

	"github.com/nmc-go/nmc/internal/simplexfit"
	"github.com/nmc-go/nmc/nmc"
)

// maxMarginalValues bounds the number of values of a site that can be summed out:
// every score through it evaluates its blanket once per value.
const maxMarginalValues = 1 << 12

// Marginalise sums the finite discrete latent n (a family declared with Latent, such
// as the classes of a mixture) out of the model. For each of its sites z_i, the
// factor elements that depend on z_i — its own prior and everything it is a parent
// of, its Markov blanket's factors — are replaced, in the scores of every other site
// and in the log joint, by
//
//	log Σ_v exp(a_iv),  a_iv = the summed log density of those elements at z_i = v,
//
// with exact gradients and Hessians through the responsibilities r_iv =
// softmax(a_i)_v: ∇ = Σ_v r_iv ∇a_iv and ∇² = Σ_v r_iv (∇²a_iv + ∇a_iv ∇a_ivᵀ) − ḡḡᵀ,
// ḡ the gradient. The sites are nmc.Site.Marginalised: the sampler takes them out of
// the sweep and draws each from its exact conditional after every sweep, so they are
// still recorded in every draw. Summing out removes the slow direction between the
// latent and its parents (a mixture's weights against its classes) at the cost of
// evaluating each blanket once per value.
//
// The Dirichlet proposer of a simplex site fits its concentration from the Hessian
// alone, which is exact for a Dirichlet conditional but not for a marginal
// likelihood; the Hessian of a simplex site whose score reads a summed-out latent is
// therefore reported steered (internal/simplexfit): equal along the simplex, with the
// gradient and the tangent Hessian exact.
//
// Build refuses a node that is not a latent family, a family with a continuous or an
// unbounded discrete prior (more than 4096 values included), a family summed out
// twice, and two summed-out sites that share a factor element (their sums would not
// be independent), naming the latent and the element.
func (b *Builder) Marginalise(n *Node) {
	if n == nil {
		b.fail(fmt.Errorf("graph: Marginalise: nil node"))
		return
	}
	if n.err != nil {
		b.fail(fmt.Errorf("graph: Marginalise: %w", n.err))
		return
	}
	if n.op != opLatent || n.fam == nil {
		b.fail(fmt.Errorf("graph: Marginalise: %s is not a latent variable; give the node Latent returned", n))
		return
	}
	if n.fam.vector {
		b.fail(fmt.Errorf("graph: Marginalise %q: a Vector site is continuous; only a finite discrete latent can be summed out", n.fam.name))
		return
	}
	for _, f := range b.margs {
		if f == n.fam {
			b.fail(fmt.Errorf("graph: Marginalise %q: the latent is summed out twice", f.name))
			return
		}
	}
	b.margs = append(b.margs, n.fam)
}

// margGroup is the Markov blanket of one summed-out site: the factor elements that
// depend on it, scored together for each of its values.
type margGroup struct {
	site   int     // the summed-out site
	values int     // its number of values
	elems  []entry // factor elements that depend on it (its prior first), in factor order
}

// compileMarginals makes the sites of the summed-out families Marginalised and
// moves the elements of their blankets out of every other site's blanket into one
// margGroup per site, listed in margOf of every site whose score reads them. It runs
// after the blankets are built and before they are split by value (groupBlankets)
// and joined into orbits.
func (m *Model) compileMarginals(fams []*family) error {
	m.margOf = make([][]int32, len(m.sites))
	if len(fams) == 0 {
		return nil
	}
	owner := make([][]int32, len(m.factors)) // per factor element: its group, or −1
	for _, f := range fams {
		for s := f.first; s < f.first+f.length; s++ {
			site := &m.sites[s]
			switch {
			case site.Support != nmc.Discrete:
				return fmt.Errorf("graph: Marginalise %q: its %s prior is not discrete; only a finite discrete latent can be summed out", f.name, f.d.fam.Name())
			case site.NumValues <= 0:
				return fmt.Errorf("graph: Marginalise %q: site %s has an unbounded support (%s prior); only a finite discrete latent can be summed out", f.name, site.Name, f.d.fam.Name())
			case site.NumValues > maxMarginalValues:
				return fmt.Errorf("graph: Marginalise %q: site %s has %d values, more than the %d that can be summed out", f.name, site.Name, site.NumValues, maxMarginalValues)
			}
			gi := int32(len(m.marg))
			g := margGroup{site: s, values: site.NumValues, elems: append([]entry(nil), m.blanket[s]...)}
			for _, en := range g.elems {
				if owner[en.f] == nil {
					owner[en.f] = make([]int32, m.factors[en.f].length)
					for e := range owner[en.f] {
						owner[en.f][e] = -1
					}
				}
				if o := owner[en.f][en.e]; o >= 0 {
					return fmt.Errorf("graph: Marginalise %q: %s element %d depends on both %s and %s; summed-out sites must not share a factor element", f.name, m.factorName(int(en.f)), en.e, m.sites[m.marg[o].site].Name, site.Name)
				}
				owner[en.f][en.e] = gi
			}
			site.Marginalised = true
			m.marg = append(m.marg, g)
		}
	}
	m.inMarg = owner
	last := make([]int, len(m.marg)) // 1 + the last site that listed the group
	for s := range m.sites {
		if m.sites[s].Marginalised {
			continue // its own score is the explicit conditional it is drawn from
		}
		var keep []entry
		for _, en := range m.blanket[s] {
			if o := m.owner(en); o >= 0 {
				if last[o] != s+1 {
					last[o] = s + 1
					m.margOf[s] = append(m.margOf[s], int32(o))
				}
				continue
			}
			keep = append(keep, en)
		}
		m.blanket[s] = keep
	}
	return nil
}

// owner returns the summed-out group of factor element en, or −1.
func (m *Model) owner(en entry) int {
	if m.inMarg == nil || m.inMarg[en.f] == nil {
		return -1
	}
	return int(m.inMarg[en.f][en.e])
}

// factorName describes factor fi for messages: "the prior of z" or "observed y".
func (m *Model) factorName(fi int) string {
	fc := m.factors[fi]
	if fc.fam != nil {
		return fmt.Sprintf("the prior of %q", fc.name)
	}
	return fmt.Sprintf("observed %q", fc.name)
}

// marginalNeighbors adds to nb what the summed-out groups make every site's score
// read: every site that an element of a group read by site s depends on (the
// summed-out site itself excepted).
func (m *Model) marginalNeighbors(nb []map[int]struct{}) {
	if len(m.marg) == 0 {
		return
	}
	deps := make([][]int, len(m.marg))
	for gi, g := range m.marg {
		var d []int
		for _, en := range g.elems {
			fc := m.factors[en.f]
			if fc.fam != nil {
				d = addDep(d, fc.fam.site(int(en.e)))
			}
			for _, p := range fc.d.params {
				d = collectDeps(p, elem(p, int(en.e)), d)
			}
		}
		deps[gi] = d
	}
	for s, gs := range m.margOf {
		for _, gi := range gs {
			if nb[s] == nil {
				nb[s] = map[int]struct{}{}
			}
			for _, t := range deps[gi] {
				if t != m.marg[gi].site {
					nb[s][t] = struct{}{}
				}
			}
		}
	}
}

// margLSE returns log Σ_v exp(a_v) for summed-out group gi, a_v the summed log
// density of its elements with its site at value v, and with deriv adds the
// derivatives with respect to the active coordinates through the responsibilities
// to s.grad and s.hess. Row batches must be flushed before it is called.
func (s *scorer) margLSE(gi int, deriv bool) float64 {
	g := &s.m.marg[gi]
	nv, k := g.values, s.k
	if cap(s.margA) < nv {
		s.margA = make([]float64, nv)
	}
	a := s.margA[:nv]
	if deriv && len(s.margG) < nv*k {
		s.margG, s.margH = make([]float64, nv*k), make([]float64, nv*k*k)
		s.margBar = make([]float64, k)
	}
	grad, hess := s.grad, s.hess
	s.fixSite = g.site + 1
	top := math.Inf(-1)
	for v := range a {
		s.fixVal = float64(v)
		if deriv {
			s.grad, s.hess = s.margG[v*k:(v+1)*k], s.margH[v*k*k:(v+1)*k*k]
			clear(s.grad)
			clear(s.hess)
		}
		t := 0.0
		for _, en := range g.elems {
			t += s.factorElem(int(en.f), int(en.e), deriv, false)
			if math.IsInf(t, -1) || math.IsNaN(t) {
				break
			}
		}
		if deriv {
			if math.IsInf(t, -1) || math.IsNaN(t) {
				s.resetBatches()
			} else {
				s.flushBatches()
			}
		}
		a[v] = t
		if math.IsNaN(t) {
			top = t
		} else if !math.IsNaN(top) {
			top = max(top, t)
		}
	}
	s.fixSite = 0
	s.grad, s.hess = grad, hess
	if math.IsNaN(top) || math.IsInf(top, -1) {
		return top
	}
	sum := 0.0
	for v, t := range a {
		a[v] = math.Exp(t - top)
		sum += a[v]
	}
	lse := top + math.Log(sum)
	if !deriv {
		return lse
	}
	// a now holds the unnormalised responsibilities.
	bar := s.margBar[:k]
	clear(bar)
	inv := 1 / sum
	for v, w := range a {
		r := w * inv
		if r == 0 {
			continue
		}
		gv, hv := s.margG[v*k:(v+1)*k], s.margH[v*k*k:(v+1)*k*k]
		for p := 0; p < k; p++ {
			s.grad[p] += r * gv[p]
			bar[p] += r * gv[p]
			c := r * gv[p]
			hp, vp := s.hess[p*k:(p+1)*k], hv[p*k:(p+1)*k]
			for q := 0; q < k; q++ {
				hp[q] += r*vp[q] + c*gv[q]
			}
		}
	}
	for p := 0; p < k; p++ {
		hp := s.hess[p*k : (p+1)*k]
		for q := 0; q < k; q++ {
			hp[q] -= bar[p] * bar[q]
		}
	}
	return lse
}

// steerSimplex steers the Hessian of simplex site i, whose score reads summed-out
// groups, for the Dirichlet proposer (see Builder.Marginalise).
func (s *scorer) steerSimplex(x []float64, i int) {
	k := s.k
	if len(s.steerScratch) < simplexfit.ScratchLen(k) {
		s.steerScratch = make([]float64, simplexfit.ScratchLen(k))
	}
	simplexfit.SteerHessian(s.hess, s.grad, x[s.base:s.base+k], k, s.steerScratch)
}
