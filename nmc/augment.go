package nmc

import (
	"fmt"
	"math/rand/v2"
)

// Augmenter is an optional interface of a Model with Marginalised sites that
// updates some continuous sites by data-augmentation steps instead of their own
// summed-out steps. In each augmentation round (Options.AugmentRounds per sweep)
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
// The graph engine implements it (graph.Builder.Augment). Options.NoAugment turns
// the rounds off: the augmented sites then take their summed-out steps.
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

// defaultAugmentRounds is the default Options.AugmentRounds.
const defaultAugmentRounds = 2

// augmentedSites validates the model's augmented sites (Augmenter) and returns
// them; nil when the model has none or opts turn them off.
func augmentedSites(m Model, sites []Site, opts *Options) ([]int, error) {
	a, ok := m.(Augmenter)
	if !ok || opts.NoAugment {
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

// augmentation is a chain's state for the augmented steps.
type augmentation struct {
	sc    Scorer
	dw    DiscreteWatcher   // sc when it implements DiscreteWatcher, else nil
	cd    ConditionalDrawer // sc when it implements ConditionalDrawer, else nil
	sites []int
	slots [][2]slot // per augmented site: current and proposed point
	skip  []bool    // per site: augmented (left out of the sweep's steps)
	// moved lists the Marginalised sites whose value drawMarginalised changed
	// since the last round's steps; allMarg says that any Marginalised site may
	// have changed besides (the start, a state written from outside:
	// invalidateAll). stepAugmented reports those to dw.
	moved   []int
	allMarg bool
}

// newAugmentation returns the chain's augmentation of the sites idx, or nil
// without; startAugmentation makes its scorer, in the chain's goroutine.
func newAugmentation(sites []Site, idx []int) *augmentation {
	if len(idx) == 0 {
		return nil
	}
	a := &augmentation{sites: idx, slots: make([][2]slot, len(idx)), skip: make([]bool, len(sites)), allMarg: true}
	for n, i := range idx {
		a.slots[n] = [2]slot{newSlot(sites[i].Size), newSlot(sites[i].Size)}
		a.skip[i] = true
	}
	return a
}

// startAugmentation makes the augmented scorer (the chain's goroutine).
func (c *chain) startAugmentation() error {
	a := c.aug
	if a == nil {
		return nil
	}
	am := c.m.(Augmenter)
	if a.sc = am.NewAugmentedScorer(); a.sc == nil {
		return fmt.Errorf("nmc: chain %d: the model declares augmented sites but NewAugmentedScorer returned nil", c.num)
	}
	a.cd, _ = a.sc.(ConditionalDrawer)
	if a.dw, _ = a.sc.(DiscreteWatcher); a.dw != nil {
		a.dw.Watch(c.x)
	}
	return nil
}

// stepAugmented updates every augmented site once given the Marginalised sites'
// current values (see Augmenter), counted in the sites' statistics.
func (c *chain) stepAugmented() {
	a := c.aug
	if a.dw != nil {
		// The Marginalised sites drawn to a new value since the last round (every
		// one after a write from outside; a kept value would cost a comparison).
		moved := a.moved
		if a.allMarg {
			moved = c.marg
		}
		for _, i := range moved {
			a.dw.Changed(i)
		}
	}
	a.moved, a.allMarg = a.moved[:0], false
	for n, i := range a.sites {
		c.site = i
		p := c.props[i]
		cur, nxt := &a.slots[n][0], &a.slots[n][1]
		xs := c.x[c.off[i] : c.off[i]+c.sites[i].Size]
		st := &c.stats[i]
		st.Proposals++
		if a.cd != nil && a.cd.DrawConditional(c.rng, c.x, i, nxt.x) {
			copy(xs, nxt.x) // an exact Gibbs draw
			st.Accepted++
		} else {
			copy(cur.x, xs)
			cur.f = a.sc.Score(c.x, i, cur.g, cur.h)
			p.fit(cur)
			if cur.fb {
				st.Fallbacks++
			}
			if _, _, accept := c.proposeStep(a.sc, p, i, cur, nxt, 1); !accept {
				continue
			}
			countAccepted(st, cur.x, nxt.x)
		}
		c.changed(i)
		c.invalidate(i) // its cache holds the summed-out score at the old point
	}
	c.site = -1
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
