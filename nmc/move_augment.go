package nmc

import (
	"fmt"
	"math"

	"github.com/nmc-go/nmc/draws"
)

// AugmentRound is the move of an augmentation round: it draws every Marginalised
// site from its exact conditional given the rest (a Gibbs step; by enumeration,
// or from the weights of a ValuesWeigher Scorer), in state order, then, for a model
// that augments (Augmenter), makes one step of each augmented site given the drawn
// values, scored by the model's augmented scorer: an exact draw when that scorer is
// a ConditionalDrawer that can, else one NMC step with the exact
// Metropolis-Hastings ratio. A round is a Gibbs step on the latents and the
// augmented sites together, so the summed-out posterior is kept, and the latents
// drawn before the steps remain a draw jointly with the new values: the schedule's
// last round is what is recorded. The augmented sites are taken from SiteSteps
// (see Planner.Take). Its counts are the sites' own (Result.Sites: a Marginalised
// site's proposer is "marginal-draw", every draw a proposal and accepted, and
// Fallbacks the draws where no value had a finite score and the site kept its
// value; an augmented site's proposer ends in "-augmented"). A model without
// Marginalised sites plans nothing.
//
// The zero value is the default: draw, then augment.
type AugmentRound struct {
	// DrawOnly leaves the augmented sites alone: the round only draws the
	// Marginalised sites, and the augmented sites take their summed-out steps
	// among the site steps (Defaults.NoAugment).
	DrawOnly bool
}

// Plan finds the Marginalised and the augmented sites and takes the latter.
func (a AugmentRound) Plan(p *Planner) ([]Planned, error) {
	rp := &roundPlan{}
	for i, s := range p.run.sites {
		if s.Marginalised {
			rp.marg = append(rp.marg, i)
		}
	}
	if !a.DrawOnly {
		aug, err := augmentedSites(p.run.m, p.run.sites)
		if err != nil {
			return nil, err
		}
		rp.augmented = aug
		for _, i := range aug {
			if err := p.Take(i); err != nil {
				return nil, err
			}
		}
	}
	if len(rp.marg) == 0 {
		return nil, nil
	}
	return []Planned{rp}, nil
}

// roundPlan is an augmentation round planned for a model.
type roundPlan struct {
	marg      []int // the Marginalised sites, in state order
	augmented []int // the augmented sites (Augmenter), none for a draw-only round
}

// Name is "augment" for a round that augments, "marginal-draw" for one that only
// draws the Marginalised sites.
func (rp *roundPlan) Name() string {
	if len(rp.augmented) > 0 {
		return "augment"
	}
	return marginalProposer
}

// String says what the round does.
func (rp *roundPlan) String() string {
	if len(rp.augmented) == 0 {
		return fmt.Sprintf("%s: draws of the %d Marginalised sites from their exact conditionals", rp.Name(), len(rp.marg))
	}
	return fmt.Sprintf("%s: draws of the %d Marginalised sites, then a step of each of the %d augmented sites given them", rp.Name(), len(rp.marg), len(rp.augmented))
}

// nameSites names the augmented sites' proposers ("dirichlet-augmented").
func (rp *roundPlan) nameSites(names []string) {
	for _, i := range rp.augmented {
		if !hasSuffix(names[i], augmentedSuffix) {
			names[i] += augmentedSuffix
		}
	}
}

func hasSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}

// Start makes the chain's augmented scorer, shared by its rounds (the first round
// to start makes it), and the round's buffers.
func (rp *roundPlan) Start(c *Chain) (Stepper, error) {
	st := &roundStepper{plan: rp, slots: make([][2]slot, len(rp.augmented))}
	for n, i := range rp.augmented {
		s := c.run.sites[i]
		st.slots[n] = [2]slot{newSlot(s.Size), newSlot(s.Size)}
	}
	if vw, ok := c.sc.sc.(ValuesWeigher); ok {
		st.vw = vw
		n := 0
		for _, i := range rp.marg {
			n += c.run.sites[i].NumValues
		}
		st.w, st.ok = make([]float64, n), make([]bool, len(rp.marg))
	}
	if len(rp.augmented) > 0 && c.sc.aug == nil {
		c.at.phase = "NewAugmentedScorer"
		sc := c.run.m.(Augmenter).NewAugmentedScorer()
		if sc == nil {
			return nil, fmt.Errorf("the model declares augmented sites but NewAugmentedScorer returned nil")
		}
		a := &augmentedScorer{sc: sc, moved: make([]int, 0, len(rp.marg)), allMarg: true}
		a.cd, _ = sc.(ConditionalDrawer)
		if a.dw, _ = sc.(DiscreteWatcher); a.dw != nil {
			a.dw.Watch(c.x)
			for i, s := range c.run.sites {
				if s.Support == Discrete && !s.Marginalised {
					a.explicit = append(a.explicit, i)
				}
			}
		}
		c.sc.aug = a
	}
	return st, nil
}

// augmentedScorer is a chain's scorer with the Marginalised sites explicit
// (Augmenter.NewAugmentedScorer), shared by its augmentation rounds.
type augmentedScorer struct {
	sc Scorer
	dw DiscreteWatcher   // sc when it implements DiscreteWatcher, else nil
	cd ConditionalDrawer // sc when it implements ConditionalDrawer, else nil
	// moved lists the Marginalised sites whose value the draws changed since the
	// last round's steps; allMarg says that any Marginalised site may have
	// changed besides (the start, a state written from outside:
	// invalidateAll). The steps report those to dw, and every Discrete site that
	// is not Marginalised (explicit, with dw only): the other moves write those
	// and tell the chain's Scorer alone, and to dw, which counts by them too, a
	// site that kept its value costs a comparison.
	moved    []int
	allMarg  bool
	explicit []int
}

// roundStepper is an augmentation round's state in one chain.
type roundStepper struct {
	plan  *roundPlan
	slots [][2]slot // per augmented site: current and proposed point
	// vw is the chain's Scorer when it implements ValuesWeigher; w and ok are its
	// buffers (ValuesWeigher.WeighValues over the Marginalised sites).
	vw ValuesWeigher
	w  []float64
	ok []bool
}

// Stats returns nil: the round counts into its sites' statistics.
func (st *roundStepper) Stats() []draws.SiteStats { return nil }

// Step draws every Marginalised site from its exact conditional, then steps the
// augmented sites given those draws.
func (st *roundStepper) Step(c *Chain) {
	st.drawMarginalised(c)
	if len(st.plan.augmented) > 0 {
		st.stepAugmented(c)
	}
}

// drawMarginalised draws every Marginalised site from its exact conditional, in
// state order: from the weights the Scorer gives (ValuesWeigher) where it gives
// valid ones, else by scoring each value (stepEnumerate). With an augmented scorer
// it lists the sites drawn to a new value for the round's steps
// (augmentedScorer.moved).
func (st *roundStepper) drawMarginalised(c *Chain) {
	if st.vw != nil {
		c.at.site = -1
		st.vw.WeighValues(c.x, st.plan.marg, st.w, st.ok)
	}
	w := st.w
	aug := c.sc.aug
	for n, i := range st.plan.marg {
		c.at.site = i
		nv := c.run.sites[i].NumValues
		off := c.run.off[i]
		old := c.x[off]
		switch {
		case st.vw == nil || !st.ok[n]:
			c.stepEnumerate(i)
		case nv == 3:
			if !c.drawWeighted3(i, w[:3:3]) {
				c.stepEnumerate(i)
			}
		case !c.drawWeighted(i, w[:nv]):
			c.stepEnumerate(i)
		}
		if aug != nil && math.Float64bits(c.x[off]) != math.Float64bits(old) {
			aug.moved = append(aug.moved, i)
		}
		if st.vw != nil {
			w = w[nv:]
		}
	}
	c.at.site = -1
}

// stepAugmented updates every augmented site once given the Marginalised sites'
// current values (see Augmenter), counted in the sites' statistics.
func (st *roundStepper) stepAugmented(c *Chain) {
	a := c.sc.aug
	if a.dw != nil {
		// The Marginalised sites drawn to a new value since the last round (every
		// one after a write from outside; a kept value would cost a comparison).
		moved := a.moved
		if a.allMarg {
			moved = c.run.marg
		}
		for _, i := range moved {
			a.dw.Changed(i)
		}
		for _, i := range a.explicit {
			a.dw.Changed(i)
		}
	}
	a.moved, a.allMarg = a.moved[:0], false
	for n, i := range st.plan.augmented {
		c.at.site = i
		ss := &c.sites[i]
		p := ss.prop
		cur, nxt := &st.slots[n][0], &st.slots[n][1]
		off := c.run.off[i]
		xs := c.x[off : off+c.run.sites[i].Size]
		stats := &ss.stats
		stats.Proposals++
		if a.cd != nil && a.cd.DrawConditional(c.rng, c.x, i, nxt.x) {
			copy(xs, nxt.x) // an exact Gibbs draw
			stats.Accepted++
		} else {
			copy(cur.x, xs)
			cur.f = a.sc.Score(c.x, i, cur.g, cur.h)
			p.fit(cur)
			if cur.fb {
				stats.Fallbacks++
			}
			if _, _, accept := c.proposeStep(a.sc, p, i, cur, nxt, 1); !accept {
				continue
			}
			countAccepted(stats, cur.x, nxt.x)
		}
		c.changed(i)
		c.invalidate(i) // its cache holds the summed-out score at the old point
	}
	c.at.site = -1
}
