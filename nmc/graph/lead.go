package graph

import (
	"fmt"
	"slices"

	"github.com/nmc-go/nmc/nmc"
)

// Lead declares the sites of the latent n as leads of the sampler's lead-and-follow
// moves (nmc.Leader, nmc.LeadMoves): each sweep adds random-walk moves of each of
// them in its unconstrained coordinates, fitted to its warm-up draws (after
// warm-up, and in warm-up from its first windows on). Declare a lead whose
// marginal is much broader than its conditional given the rest — the weights of
// a mixture whose rare components' parameters are fitted to them, as π of
// Dawid-Skene with the classes summed out. n must be the node Latent or Vector
// returned, of a continuous latent; Build checks it (a finite discrete latent
// cannot lead).
func (b *Builder) Lead(n *Node) {
	if _, err := latentOf("Lead", n); err != nil {
		b.fail(err)
		return
	}
	if err := appendOnce(&b.leads, n.fam, "Lead", "declared a lead"); err != nil {
		b.fail(err)
	}
}

// compileLeads records the names of the lead sites, in declaration order.
func (m *Model) compileLeads(leads []*family) error {
	for _, f := range leads {
		if m.sites[f.first].Support == nmc.Discrete {
			return fmt.Errorf("graph: Lead %q: a discrete latent cannot lead (the moves are random walks in continuous coordinates)", f.name)
		}
		n := 1
		if !f.vector {
			n = f.length
		}
		for s := f.first; s < f.first+n; s++ {
			m.leads = append(m.leads, m.sites[s].Name)
		}
	}
	return nil
}

// compileKernelLeads adds the leads of rule AutoKernelLeads: each continuous site
// of at most maxAutoLeadCoords coordinates that the covariance of a latent's
// multivariate normal prior reads leads, the latent's sites following it. Given
// the latent values a length scale is pinned (a smooth draw admits few length
// scales) while its marginal is broad, and single-site steps crawl (gp_pois_regr:
// bulk ESS of rho 211 of 4 × 1000 draws thinned 10, R-hat 1.02); the moves carry
// the values along, each from its Newton fit at the moved lead.
func (m *Model) compileKernelLeads() {
	if m.auto != nil && m.auto.off&AutoKernelLeads != 0 {
		return
	}
	for _, fc := range m.factors {
		if _, ok := fc.d.fam.(*mvnFamily); !ok || fc.fam == nil {
			continue
		}
		cov := fc.d.params[1]
		var deps []int
		for e := 0; e < cov.length; e++ {
			deps = collectDeps(cov, e, deps)
		}
		slices.Sort(deps)
		var follow []string
		for _, s := range m.sitesOf(fc.fam) {
			follow = append(follow, s.Name)
		}
		for _, i := range slices.Compact(deps) {
			site := m.sites[i]
			if m.siteFamily(i) == fc.fam || site.Support == nmc.Discrete || site.Size > maxAutoLeadCoords {
				continue
			}
			if !slices.Contains(m.leads, site.Name) {
				m.leads = append(m.leads, site.Name)
			}
			if m.followers == nil {
				m.followers = map[string][]string{}
			}
			for _, name := range follow {
				if !slices.Contains(m.followers[site.Name], name) {
					m.followers[site.Name] = append(m.followers[site.Name], name)
				}
			}
		}
	}
}

// maxAutoLeadCoords is the most coordinates of a lead AutoKernelLeads makes
// (nmc's limit for a lead).
const maxAutoLeadCoords = 20

// Followers returns the names of the sites that follow the lead site named lead
// in the sampler's lead-and-follow moves (nmc.LeadFollower): a latent whose
// multivariate normal covariance reads it (AutoKernelLeads); nil for others.
func (m *Model) Followers(lead string) []string {
	return slices.Clone(m.followers[lead])
}

// Leads returns the names of the sites declared with Builder.Lead and of those
// AutoKernelLeads makes leads (nmc.Leader); nil when there are none.
func (m *Model) Leads() []string {
	if len(m.leads) == 0 {
		return nil
	}
	return append([]string(nil), m.leads...)
}

// latentOf returns the family of n, the node Latent or Vector returned, or an error
// naming the declaration what (Lead, Marginalise) when n is nil, carries an error or
// is not a latent variable.
func latentOf(what string, n *Node) (*family, error) {
	if n == nil {
		return nil, fmt.Errorf("graph: %s: nil node", what)
	}
	if n.err != nil {
		return nil, fmt.Errorf("graph: %s: %w", what, n.err)
	}
	if n.op != opLatent || n.fam == nil {
		return nil, fmt.Errorf("graph: %s: %s is not a latent variable; give the node Latent returned", what, n)
	}
	return n.fam, nil
}

// appendOnce appends f to *list, or reports that the builder call what already
// did (the latent is done twice).
func appendOnce(list *[]*family, f *family, what, done string) error {
	for _, g := range *list {
		if g == f {
			return fmt.Errorf("graph: %s %q: the latent is %s twice", what, f.name, done)
		}
	}
	*list = append(*list, f)
	return nil
}
