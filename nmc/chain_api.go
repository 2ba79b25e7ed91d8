package nmc

import "math/rand/v2"

// What a move (Stepper) may use of its chain. A move reads and writes the state
// in place, draws every random number it needs from Rand (so that the chain's
// draws depend on the seed and the chain's number only), scores with Scorer, and
// reports each change of a site's coordinates with Changed, so that the cached
// scores of the sites that read it are made again.

// State returns the chain's state: the coordinates of every site, in the order of
// the model's Sites() (see Offsets). A move may write it; see Changed.
func (c *Chain) State() []float64 { return c.x }

// Coords returns site i's coordinates: the part of State that holds them.
func (c *Chain) Coords(i int) []float64 {
	off := c.run.off[i]
	return c.x[off : off+c.run.sites[i].Size]
}

// Rand returns the chain's random stream.
func (c *Chain) Rand() *rand.Rand { return c.rng }

// Scorer returns the chain's Scorer (Model.NewScorer, one per chain).
func (c *Chain) Scorer() Scorer { return c.sc.sc }

// Changed reports that site i's coordinates in State changed (an accepted
// proposal): the cached scores of site i and of the sites whose score reads it
// are made again before their next steps. For a Discrete site it must be called
// after every write, a proposal tried and the value put back included: a Scorer
// may keep statistics of the discrete values of the state (DiscreteWatcher). A
// proposal tried and put back in a continuous site needs no call.
func (c *Chain) Changed(i int) { c.moved(i) }

// Reverted tells a Scorer that keeps values of the states it scored last
// (StateKeeper) that the state is back to what it was before a rejected proposal.
// Calling it is optional: it saves a Scorer work, it changes no score.
func (c *Chain) Reverted() { c.keep() }

// Warmup reports whether the current sweep is a warm-up sweep.
func (c *Chain) Warmup() bool { return c.warm.warmup }

// Number returns the chain's global number, Options.FirstChain plus its index in
// the run.
func (c *Chain) Number() int { return c.num() }
