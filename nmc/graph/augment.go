package graph

import (
	"fmt"
	"slices"

	"github.com/nmc-go/nmc/nmc"
)

// Augment declares the continuous latent n to be updated by data-augmentation
// steps instead of its own summed-out steps (nmc.Augmenter): each sweep, after the
// sampler has drawn the summed-out latents (Marginalise) from their exact
// conditional, every site of n takes one NMC step of its conditional GIVEN them —
// scored by the same model with nothing summed out — and the sweep's own step of
// the site is left out. The pair of draws (latents given the rest, then n given
// the latents) is a Gibbs step on their joint, so it leaves the summed-out
// posterior unchanged; the drawn latents stay a valid draw with the new values of
// n, and are recorded with them.
//
// Declare it for the parameters of what a summed-out latent selects, when their
// conditional given the latent is conjugate (a Dirichlet confusion row given the
// classes: exact, every step accepted, at the cost of counting) while their
// summed-out score costs a sum over every item they touch: Dawid-Skene's
// confusion rows. The augmentation moves all of them at once along the direction
// single-site summed-out steps find slowest — items changing class — and each
// sweep then costs about what the explicit model's does. Keep the sites whose
// summed-out steps carry the mixing, such as the weights the latents are drawn
// from (with Lead), out of it.
//
// n must be the node Latent or Vector returned, of a continuous latent, in a
// model that sums out at least one latent; Build checks it.
func (b *Builder) Augment(n *Node) {
	if _, err := latentOf("Augment", n); err != nil {
		b.fail(err)
		return
	}
	if err := appendOnce(&b.augs, n.fam, "Augment", "declared augmented"); err != nil {
		b.fail(err)
	}
}

// compileAugment records the augmented sites and builds the model with nothing
// summed out that scores them (m.augmented), from the same declarations.
func (m *Model) compileAugment(b *Builder) error {
	if len(b.augs) == 0 {
		return nil
	}
	if len(b.margs) == 0 {
		return fmt.Errorf("graph: Augment %q: the model sums out no latent (Marginalise), so there is nothing to augment with", b.augs[0].name)
	}
	for _, f := range b.augs {
		if slices.Contains(b.margs, f) {
			return fmt.Errorf("graph: Augment %q: the latent is summed out (Marginalise)", f.name)
		}
		if m.sites[f.first].Support == nmc.Discrete {
			return fmt.Errorf("graph: Augment %q: a discrete latent cannot be augmented (its steps already enumerate its values)", f.name)
		}
		n := 1
		if !f.vector {
			n = f.length
		}
		for s := f.first; s < f.first+n; s++ {
			m.augSites = append(m.augSites, s)
		}
	}
	// The same families and factors compiled without summing out: the same sites in
	// the same order (compile assigns each family the same first site and offset),
	// none Marginalised.
	a := b.newModel()
	a.plan = m.plan // the same nodes: keep m's numbering
	if err := a.compile(nil, nil); err != nil {
		return err
	}
	m.augmented = a
	return nil
}

var _ nmc.Augmenter = (*Model)(nil)

// AugmentedSites returns the indices of the sites declared with Augment, in
// declaration order (nmc.Augmenter); nil without.
func (m *Model) AugmentedSites() []int { return m.augSites }

// NewAugmentedScorer returns a Scorer of the model with nothing summed out, which
// scores the augmented sites given the summed-out latents' values in the state
// (nmc.Augmenter); nil without Augment.
func (m *Model) NewAugmentedScorer() nmc.Scorer {
	if m.augmented == nil {
		return nil
	}
	return m.augmented.NewScorer()
}
