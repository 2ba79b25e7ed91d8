package nmc

import (
	"math"
)

// refineThreshold returns a bound on log q(centre) − log q(x) that a point drawn from
// a k-dimensional Gaussian fit exceeds with probability about 1e-4: the difference is
// ½χ²_k there, with mean k/2 and standard deviation √(k/2).
func refineThreshold(k int) float64 {
	h := float64(k) / 2
	return h + 4*math.Sqrt(h) + 5
}

// refine moves a start drawn from the prior towards the region the sampler works in.
// A prior draw can be so far out (logistic regression with thousands of rows starts
// at log densities of −10⁵) that the Newton fit there proposes points the MH ratio
// never accepts. For at most Options.InitRefine sweeps, every continuous site whose
// point is atypical under its own fitted proposal (or, for a Positive site, lies in
// a convex tail where its Gamma fit is invalid) is moved towards the proposal's
// centre, halving the step until the site's score rises. Refinement stops at the
// first sweep that moves nothing. It only chooses the starting point; every recorded
// draw still comes from exact MH steps. The adaptive warm-up applies it again at the
// end of every window (see warmup.go). It reports whether it moved anything.
func (c *Chain) refine() (movedAny bool) {
	sweeps := c.run.opts.InitRefine
	for sweep := 0; sweep < sweeps; sweep++ {
		moved := false
		for i, s := range c.run.sites {
			if s.Support == Discrete {
				continue
			}
			if c.refineSite(i) {
				moved = true
			}
		}
		if !moved {
			break
		}
		movedAny = true
	}
	c.invalidateAll()
	return movedAny
}

// fitAtCurrent scores site i at the chain's current point (with derivatives, into
// the slot cur that caches the site's current point, so that the other, nxt, is
// free for a draw that may be refused) and fits its proposal there; it returns
// the proposer, the two slots and the site's coordinates in the state, and false
// when the score is not finite (nothing fitted). The caller sets c.at.site.
func (c *Chain) fitAtCurrent(i int) (p proposer, cur, nxt *slot, xs []float64, ok bool) {
	p = c.sites[i].prop
	off, k := c.run.off[i], c.run.sites[i].Size
	ss := &c.sites[i]
	cur, nxt = &ss.slots[ss.cur], &ss.slots[1-ss.cur]
	xs = c.x[off : off+k]
	copy(cur.x, xs)
	cur.f = c.sc.sc.Score(c.x, i, cur.g, cur.h)
	if math.IsNaN(cur.f) || math.IsInf(cur.f, 0) {
		return p, cur, nxt, xs, false
	}
	p.fit(cur)
	return p, cur, nxt, xs, true
}

// refineSite tries one refinement move of site i; it reports whether the site moved.
func (c *Chain) refineSite(i int) bool {
	c.at.site = i
	defer func() { c.at.site = -1 }()
	p, cur, nxt, xs, ok := c.fitAtCurrent(i)
	if !ok {
		return false
	}
	k := len(xs)
	if !p.centre(cur, nxt.x) {
		return false
	}
	gap := p.logqFit(cur, nxt.x) - p.logqFit(cur, cur.x)
	// A Positive site on a fallback sits where its Gamma fit is invalid (a convex
	// tail): it is moved towards the fallback's centre (the log-scale Newton point
	// or the drifted walk's mean) whenever that raises the score.
	tail := cur.fb && (c.run.sites[i].Support == Positive || c.run.sites[i].Support == Interval)
	if !(gap > refineThreshold(k)) && !tail {
		return false
	}
	target := nxt.x
	for t := 1.0; t > 1e-9; t /= 2 {
		for j := range xs {
			xs[j] = cur.x[j] + t*(target[j]-cur.x[j])
		}
		f := c.sc.sc.Score(c.x, i, nil, nil)
		if f > cur.f {
			return true
		}
	}
	copy(xs, cur.x)
	return false
}
