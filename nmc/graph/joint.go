package graph

import (
	"fmt"
	"math"

	"github.com/nmc-go/nmc/nmc"
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
