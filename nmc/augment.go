package nmc

import (
	"fmt"
	"math/rand/v2"
)

// Augmenter is an optional interface of a Model with Marginalised sites that
// updates some continuous sites by data-augmentation steps instead of their own
// summed-out steps. In each augmentation round (AugmentRound; two per sweep by
// default, see Defaults.AugmentRounds)
// the Marginalised sites are drawn from their exact conditional, then every
// augmented site is updated given the drawn values, scored by NewAugmentedScorer:
// drawn from its exact conditional when that scorer is a ConditionalDrawer that
// can, else by one NMC step (the same proposer, the exact Metropolis-Hastings
// ratio). The sweep's own steps leave the augmented sites out. The draw of the
// latents given the rest followed by updates that keep the augmented sites'
// conditional given the latents invariant is a Gibbs step on their joint, so the
// summed-out posterior is unchanged, and the latents drawn before the updates
// remain a draw jointly with the new values: they are recorded with them.
//
// The graph engine implements it (graph.Builder.Augment). Defaults.NoAugment
// turns the rounds off: the augmented sites then take their summed-out steps.
type Augmenter interface {
	// AugmentedSites returns the indices of the augmented sites: continuous, not
	// Marginalised; the same value on every call. Empty: no augmentation.
	AugmentedSites() []int
	// NewAugmentedScorer returns a Scorer of the model with every Marginalised
	// site explicit: Score(x, i, …) of an augmented site i is its log density given
	// every other coordinate of x, the values of the Marginalised sites included.
	// Called once per chain.
	NewAugmentedScorer() Scorer
}

// augmentedSuffix ends the proposer name of an augmented site in Result.Sites
// ("dirichlet-augmented").
const augmentedSuffix = "-augmented"

// marginalProposer is the Proposer name of a Marginalised site in Result.Sites.
const marginalProposer = "marginal-draw"

// defaultAugmentRounds is the default of Defaults.AugmentRounds.
const defaultAugmentRounds = 2

// augmentedSites validates the model's augmented sites (Augmenter) and returns
// them; nil when the model has none.
func augmentedSites(m Model, sites []Site) ([]int, error) {
	a, ok := m.(Augmenter)
	if !ok {
		return nil, nil
	}
	idx := a.AugmentedSites()
	if len(idx) == 0 {
		return nil, nil
	}
	marginalised := false
	for _, s := range sites {
		marginalised = marginalised || s.Marginalised
	}
	seen := make(map[int]bool, len(idx))
	for _, i := range idx {
		switch {
		case i < 0 || i >= len(sites):
			return nil, fmt.Errorf("nmc: the model's AugmentedSites() names site %d; it has %d sites", i, len(sites))
		case sites[i].Support == Discrete || sites[i].Marginalised:
			return nil, fmt.Errorf("nmc: the model's AugmentedSites() names site %q, which is discrete; augmented sites are continuous", sites[i].Name)
		case seen[i]:
			return nil, fmt.Errorf("nmc: the model's AugmentedSites() names site %q twice", sites[i].Name)
		case !marginalised:
			return nil, fmt.Errorf("nmc: the model's AugmentedSites() names site %q, but no site is Marginalised: there is nothing to augment with", sites[i].Name)
		}
		seen[i] = true
	}
	return idx, nil
}

// ConditionalDrawer is an optional interface of a Scorer that draws some sites
// exactly from their conditional given the rest of the state (a conjugate
// confusion row given the classes: Dirichlet(α + counts)). The sampler uses it for
// augmented sites (Augmenter): a site it draws takes that exact Gibbs draw instead
// of a Metropolis-Hastings step, and counts as an accepted proposal.
type ConditionalDrawer interface {
	// DrawConditional draws site i from its exact conditional given every other
	// coordinate of x into dst (the site's Size values) and reports true; or, for a
	// site or state it cannot draw, reports false and leaves dst alone.
	DrawConditional(rng *rand.Rand, x []float64, i int, dst []float64) bool
}
