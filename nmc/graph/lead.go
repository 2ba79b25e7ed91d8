package graph

import (
	"fmt"

	"github.com/nmc-go/nmc/nmc"
)

// Lead declares the sites of the latent n as leads of the sampler's lead-and-follow
// moves (nmc.Leader, nmc.LeadMoves): after warm-up each sweep adds random-walk
// moves of each of them in its unconstrained coordinates, fitted to its warm-up
// draws. Declare a lead whose marginal is much broader than its conditional given
// the rest — the weights of a mixture whose rare components' parameters are fitted
// to them, as π of Dawid-Skene with the classes summed out. n must be the node
// Latent or Vector returned, of a continuous latent; Build checks it (a finite
// discrete latent cannot lead).
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

// Leads returns the names of the sites declared with Builder.Lead (nmc.Leader); nil
// when none was.
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
