package nmc

import (
	"fmt"
	"math"
)

// scorers are a chain's Scorer and the optional interfaces it implements.
type scorers struct {
	sc     Scorer
	vs     ValuesScorer    // sc when it implements ValuesScorer, else nil
	dw     DiscreteWatcher // sc when it implements DiscreteWatcher, else nil
	keeper StateKeeper     // sc when it implements StateKeeper, else nil
	orb    OrbitScorer     // sc when it implements OrbitScorer, else nil
	// aug is the scorer with the Marginalised sites explicit (Augmenter), shared
	// by the augmentation rounds of the chain; nil until one starts.
	aug *augmentedScorer
}

// startScorer makes the chain's Scorer (in the chain's goroutine).
func (c *Chain) startScorer() error {
	sc := c.run.m.NewScorer()
	if sc == nil {
		return fmt.Errorf("nmc: chain %d: NewScorer returned nil", c.num())
	}
	c.sc.sc = sc
	c.sc.vs, _ = sc.(ValuesScorer)
	c.sc.keeper, _ = sc.(StateKeeper)
	c.sc.orb, _ = sc.(OrbitScorer)
	if c.sc.dw, _ = sc.(DiscreteWatcher); c.sc.dw != nil {
		c.sc.dw.Watch(c.x)
	}
	return nil
}

// init sets the starting state: the user's, or a draw of the start rule
// (Options.Start) retried until every site's score and the log joint are finite.
func (c *Chain) init() error {
	o := c.run.opts
	if o.Init != nil {
		copy(c.x, o.Init[min(c.local, len(o.Init)-1)])
		c.discreteWritten(-1)
		if msg := c.checkStart(); msg != "" {
			return fmt.Errorf("nmc: chain %d: Options.Init is not a valid starting point: %s", c.num(), msg)
		}
		return c.refineStart()
	}
	ok, last := c.freshStart()
	if ok {
		return c.refineStart()
	}
	return fmt.Errorf("nmc: chain %d: no finite starting point after %d tries (last: %s)", c.num(), o.InitRetries, last)
}

// refineStart applies start refinement (unless disabled) to a valid start.
func (c *Chain) refineStart() error {
	if c.run.opts.InitRefine > 0 {
		c.at.phase = "start refinement"
		c.refine()
		c.at.phase = "initialisation"
		if msg := c.checkStart(); msg != "" {
			return fmt.Errorf("nmc: chain %d: start refinement left an invalid state: %s", c.num(), msg)
		}
	}
	c.invalidateAll()
	return nil
}

// checkStart returns "" if x is a valid starting point, else what is wrong with it.
// Every site's values are checked against its support before any score is
// evaluated, so that a value outside its support is reported at its own site, not
// at a site whose score reads it.
func (c *Chain) checkStart() string {
	off := c.run.off
	for i, s := range c.run.sites {
		if msg := outsideSupport(s, c.x[off[i]:off[i]+s.Size]); msg != "" {
			return msg
		}
	}
	for i, s := range c.run.sites {
		c.at.site = i
		f := c.sc.sc.Score(c.x, i, nil, nil)
		c.at.site = -1
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Sprintf("site %q score %g", s.Name, f)
		}
	}
	if f := c.sc.sc.LogJoint(c.x); math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Sprintf("log joint %g", f)
	}
	return ""
}

// outsideSupport returns "" if the coordinates x of site s are finite and in its
// support, else what is wrong with them, naming the site, the coordinate and the value.
func outsideSupport(s Site, x []float64) string {
	for j, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Sprintf("site %q coordinate %d = %g", s.Name, j, v)
		}
	}
	switch s.Support {
	case Discrete:
		v := x[0]
		if v < 0 || v != math.Trunc(v) || (s.NumValues > 0 && v >= float64(s.NumValues)) {
			return fmt.Sprintf("site %q value %g is not one of its values", s.Name, v)
		}
	case Positive:
		for j, v := range x {
			if !(v > s.Lower) {
				return fmt.Sprintf("site %q coordinate %d = %g is not above its lower bound %g", s.Name, j, v, s.Lower)
			}
		}
	case Interval:
		for j, v := range x {
			if !(v > s.Lower && v < s.Upper) {
				return fmt.Sprintf("site %q coordinate %d = %g is not in (%g, %g)", s.Name, j, v, s.Lower, s.Upper)
			}
		}
	case Simplex:
		sum := 0.0
		for j, v := range x {
			if !(v > 0) {
				return fmt.Sprintf("site %q coordinate %d = %g is not positive (simplex)", s.Name, j, v)
			}
			sum += v
		}
		if math.Abs(sum-1) > 1e-6 {
			return fmt.Sprintf("site %q coordinates sum to %.17g, want 1 (simplex)", s.Name, sum)
		}
	}
	return ""
}
