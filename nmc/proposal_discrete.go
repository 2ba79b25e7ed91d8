package nmc

import (
	"math"
	"math/rand/v2"
)

// Discrete sites. A finite site (NumValues > 0) is updated by its exact conditional,
// enumerated (a Gibbs step, always accepted). An unbounded site (values 0, 1, 2, …) is
// updated by Metropolis-Hastings with a folded two-sided geometric walk: from x, a step
// ±n with P(n) = p(1−p)^(n−1), n ≥ 1, p = 1/(1 + √x/2), and a negative result y mapped
// to −y − 1. Its density is q(y|x) = K_x(y − x) + K_x(−y − 1 − x), K_x(0) = 0.

// discreteP returns the geometric parameter p of the walk from x.
func discreteP(x float64) float64 { return 1 / (1 + 0.5*math.Sqrt(x)) }

// discreteDraw draws y from the walk at x.
func discreteDraw(rng *rand.Rand, x float64) float64 {
	p := discreteP(x)
	n := 1.0
	if p < 1 {
		n = 1 + math.Floor(math.Log(1-rng.Float64())/math.Log1p(-p))
	}
	if rng.Uint64()&1 == 0 {
		n = -n
	}
	y := x + n
	if y < 0 {
		y = -y - 1
	}
	return y
}

// discreteLogKernel returns log K(d) = log(½·p(1−p)^(|d|−1)) for d ≠ 0, −Inf for d = 0.
func discreteLogKernel(d, p float64) float64 {
	n := math.Abs(d)
	if n == 0 {
		return math.Inf(-1)
	}
	lk := math.Log(0.5 * p)
	if n > 1 {
		lk += (n - 1) * math.Log1p(-p)
	}
	return lk
}

// discreteLogq returns log q(y|x) of the folded walk.
func discreteLogq(x, y float64) float64 {
	p := discreteP(x)
	a := discreteLogKernel(y-x, p)
	b := discreteLogKernel(-y-1-x, p)
	m := max(a, b)
	if math.IsInf(m, -1) {
		return m
	}
	return m + math.Log1p(math.Exp(min(a, b)-m))
}

// stepEnumerate updates the finite discrete site i by its exact conditional: the
// score of every value, then one value drawn with probability proportional to
// exp(score). The weights are taken relative to the largest score (whose weight is
// 1), so one exponential per value suffices and the sum lies in [1, NumValues].
func (c *Chain) stepEnumerate(i int) {
	off, nv := c.run.off[i], c.run.sites[i].NumValues
	old := c.x[off]
	lp := c.logits[:nv]
	top := math.Inf(-1)
	if c.sc.vs != nil {
		c.sc.vs.ScoreValues(c.x, i, lp)
		for v, f := range lp {
			if math.IsNaN(f) {
				f = math.Inf(-1)
				lp[v] = f
			}
			top = max(top, f)
		}
	} else {
		for v := range lp {
			c.x[off] = float64(v)
			c.discreteWritten(i)
			f := c.sc.sc.Score(c.x, i, nil, nil)
			if math.IsNaN(f) {
				f = math.Inf(-1)
			}
			lp[v] = f
			top = max(top, f)
		}
	}
	st := &c.sites[i].stats
	st.Proposals++
	if math.IsInf(top, 0) {
		// No value has a finite, positive weight (all −Inf, or one +Inf): keep the
		// current value.
		c.x[off] = old
		c.discreteWritten(i)
		st.Fallbacks++
		return
	}
	sum := 0.0
	for v, l := range lp {
		w := 1.0 // exp(0), the largest weight, without the call
		if l != top {
			w = math.Exp(l - top)
		}
		lp[v] = w
		sum += w
	}
	v := pickWeighted(c.rng.Float64()*sum, lp)
	st.Accepted++
	c.x[off] = float64(v)
	// No other score reads a Marginalised site (see Site.Marginalised), so drawing
	// one leaves every cache valid.
	if float64(v) != old && !c.run.sites[i].Marginalised {
		c.changed(i)
	} else if c.sc.vs == nil && !c.run.sites[i].Marginalised {
		c.discreteWritten(i) // the values tried above, put back
	}
}

// drawWeighted updates the Marginalised site i by its exact conditional from the
// weights w (ValuesWeigher), overwritten: the draw of stepEnumerate, weights taken
// relative to the largest, one uniform. It reports false, having drawn nothing,
// when the weights break ValuesWeigher's contract (not all finite and ≥ 0, or all
// 0). As the site is Marginalised, no other score reads it and every cache stays
// valid.
func (c *Chain) drawWeighted(i int, w []float64) bool {
	top := 0.0
	for _, f := range w {
		if !(f >= 0 && f <= math.MaxFloat64) {
			return false
		}
		top = max(top, f)
	}
	if top == 0 {
		return false
	}
	sum := 0.0
	for v, f := range w {
		f /= top
		w[v] = f
		sum += f
	}
	c.setDrawn(i, pickWeighted(c.rng.Float64()*sum, w))
	return true
}

// drawWeighted3 is drawWeighted for three values, unrolled: the same arithmetic in
// the same order (the largest weight found by comparisons, which give max's result
// for weights checked ≥ 0 and finite), so the same draw.
func (c *Chain) drawWeighted3(i int, w []float64) bool {
	w = w[:3:3]
	f0, f1, f2 := w[0], w[1], w[2]
	if !(f0 >= 0 && f0 <= math.MaxFloat64 && f1 >= 0 && f1 <= math.MaxFloat64 && f2 >= 0 && f2 <= math.MaxFloat64) {
		return false
	}
	top := 0.0
	if f0 > top {
		top = f0
	}
	if f1 > top {
		top = f1
	}
	if f2 > top {
		top = f2
	}
	if top == 0 {
		return false
	}
	f0, f1, f2 = f0/top, f1/top, f2/top
	w[0], w[1], w[2] = f0, f1, f2
	sum := 0.0
	sum += f0
	sum += f1
	sum += f2
	c.setDrawn(i, pickWeighted(c.rng.Float64()*sum, w))
	return true
}

// stepDiscreteMH updates the unbounded discrete site i by the folded geometric walk.
func (c *Chain) stepDiscreteMH(i int) {
	off := c.run.off[i]
	cur := &c.sites[i].slots[0]
	x := c.x[off]
	if !c.isValid(i) {
		cur.f = c.sc.sc.Score(c.x, i, nil, nil)
		c.setValid(i)
	}
	st := &c.sites[i].stats
	st.Proposals++
	y := discreteDraw(c.rng, x)
	u := c.rng.Float64()
	c.x[off] = y
	c.discreteWritten(i)
	fy := c.sc.sc.Score(c.x, i, nil, nil)
	logr := fy - cur.f + discreteLogq(y, x) - discreteLogq(x, y)
	if fy > math.Inf(-1) && math.Log(u) < logr {
		st.Accepted++
		cur.f = fy
		if y != x {
			c.changed(i)
		}
		c.setValid(i)
		return
	}
	c.x[off] = x
	c.discreteWritten(i)
}

// pickWeighted returns the value v whose cumulative weight interval holds u, for
// u uniform on [0, Σw): the first v with u < w_0 + … + w_v, and never a value of
// weight 0 (rounding may push u past the last value with weight).
func pickWeighted(u float64, w []float64) int {
	v, cum := len(w)-1, 0.0
	for j, f := range w {
		cum += f
		if u < cum {
			v = j
			break
		}
	}
	for w[v] == 0 {
		v--
	}
	return v
}

// setDrawn sets Marginalised site i to the value v drawn from its conditional and
// counts the draw as an accepted proposal.
func (c *Chain) setDrawn(i, v int) {
	st := &c.sites[i].stats
	st.Proposals++
	st.Accepted++
	c.x[c.run.off[i]] = float64(v)
}

// conditionalLogits writes the normalised log-probabilities of the values of the
// finite Discrete site i given the rest of the state into c.logits and reports
// whether they are defined (some value has a finite score). x is left as it was.
func (c *Chain) conditionalLogits(i int) ([]float64, bool) {
	off, nv := c.run.off[i], c.run.sites[i].NumValues
	lp := c.logits[:nv]
	if c.sc.vs != nil {
		c.sc.vs.ScoreValues(c.x, i, lp)
	} else {
		old := c.x[off]
		for v := range lp {
			c.x[off] = float64(v)
			c.discreteWritten(i)
			lp[v] = c.sc.sc.Score(c.x, i, nil, nil)
		}
		c.x[off] = old
		c.discreteWritten(i)
	}
	top := math.Inf(-1)
	for v, f := range lp {
		if math.IsNaN(f) {
			lp[v] = math.Inf(-1)
		}
		top = max(top, lp[v])
	}
	if math.IsInf(top, 0) {
		return nil, false
	}
	sum := 0.0
	for _, f := range lp {
		sum += math.Exp(f - top)
	}
	norm := top + math.Log(sum)
	for v := range lp {
		lp[v] -= norm
	}
	return lp, true
}

// drawConditional draws the finite Discrete site i from its exact conditional,
// writes it into the state and returns its log-probability.
func (c *Chain) drawConditional(i int) (float64, bool) {
	lp, ok := c.conditionalLogits(i)
	if !ok {
		return 0, false
	}
	u := c.rng.Float64()
	v, acc := len(lp)-1, 0.0
	for k, f := range lp {
		if acc += math.Exp(f); u < acc {
			v = k
			break
		}
	}
	c.x[c.run.off[i]] = float64(v)
	c.discreteWritten(i)
	return lp[v], lp[v] > math.Inf(-1)
}

// conditionalLogProb returns the log-probability of value v of the finite Discrete
// site i under its exact conditional given the rest of the state.
func (c *Chain) conditionalLogProb(i int, v float64) (float64, bool) {
	lp, ok := c.conditionalLogits(i)
	if !ok {
		return 0, false
	}
	return lp[int(v)], true
}
