package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/nmc-go/nmc/internal/special"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/dist"
)

// Constrained latents (Ordered, PositiveOrdered, Bounded) have the constrained
// value y of Stan's declarations (ordered[k], positive_ordered[k],
// real<lower=L, upper=U> with L and U expressions) and Stan's density: the prior's
// log density at y on the constrained set, not renormalised. Stan samples them on an
// unconstrained scale through exponential maps (yᵢ = yᵢ₋₁ + e^{xᵢ}, y = L + (U − L)
// logistic(x)), whose log densities are not concave even for a normal prior, and
// whose tails are linear in x: Newton's proposals there step far out and are
// rejected, so an NMC chain sticks. Here the sampler moves instead the affine image of
// y in the supports it proposes natively (DESIGN §1: constrained variables in their
// own space), sites named after the latent with RawSuffix: an ordered vector's first
// component (Real) and its gaps yᵢ − yᵢ₋₁ (Positive, Gamma proposals), a bounded
// value's distance to its one bound (Positive) or its fraction (y − L)/(U − L) of
// the interval (unit Interval, Beta proposals). The maps are linear in the raw
// coordinates, so a log-concave prior stays log-concave; their log Jacobians are 0
// and log(U − L). The log density gains, per element, the prior's log density at y
// plus the log Jacobian (one Factor term), and y is recorded with every draw under
// the latent's own name.

// RawSuffix is appended to the name of a constrained latent (Ordered,
// PositiveOrdered, Bounded) to name the sites the sampler moves: the draws of an
// ordered latent mu hold its values in the derived columns mu[0], …, mu[k−1] and the
// raw coordinates mu__raw[0] = mu[0], mu__raw[i] = mu[i] − mu[i−1] in site columns;
// those of a bounded latent beta hold beta and beta__raw, the fraction
// (beta − lower)/(upper − lower) of its interval, or its distance to its one bound.
const RawSuffix = "__raw"

// Kinds of raw coordinates (rawCoord's parameter).
const (
	rawReal     = 0 // the reals
	rawPositive = 1 // (0, ∞)
	rawUnit     = 2 // (0, 1)
)

// rawCoord is the prior of the raw sites of constrained latents: flat on the support
// its parameter names (rawReal, rawPositive, rawUnit). The constrained latent's prior
// is a Factor term of its own.
type rawCoord struct{}

var _ dist.Family = rawCoord{}

func (rawCoord) Name() string            { return "raw coordinate" }
func (rawCoord) ParamNames() []string    { return []string{"kind"} }
func (rawCoord) Layout(int) (int, []int) { return 1, []int{1} }

func (rawCoord) InSupport(args []float64, _ int) bool {
	x := args[0]
	switch args[1] {
	case rawPositive:
		return x > 0 && !math.IsInf(x, 1)
	case rawUnit:
		return x > 0 && x < 1
	}
	return !math.IsNaN(x) && !math.IsInf(x, 0)
}

func (f rawCoord) LogProb(args []float64, k int) float64 {
	if !f.InSupport(args, k) {
		return math.Inf(-1)
	}
	return 0
}

func (f rawCoord) Derivs(args []float64, k int, grad, hess []float64) float64 {
	clear(grad[:2])
	clear(hess[:4])
	return f.LogProb(args, k)
}

func (rawCoord) CheckParams(params []float64, _ int) error {
	if len(params) != 1 || (params[0] != rawReal && params[0] != rawPositive && params[0] != rawUnit) {
		return fmt.Errorf("graph: raw coordinate: parameters %v", params)
	}
	return nil
}

func (rawCoord) Support(params []float64, _ int) (dist.Support, float64, float64, int) {
	switch params[0] {
	case rawPositive:
		return dist.Positive, 0, math.Inf(1), 0
	case rawUnit:
		return dist.Interval, 0, 1, 0
	}
	return dist.Real, math.Inf(-1), math.Inf(1), 0
}

// Rand writes Stan's start: x uniform on (−2, 2) on Stan's unconstrained scale, that
// is x, eˣ or logistic(x).
func (rawCoord) Rand(rng *rand.Rand, params []float64, _ int, dst []float64) {
	x := 4*rng.Float64() - 2
	switch params[0] {
	case rawPositive:
		x = math.Exp(x)
	case rawUnit:
		x = special.Logistic(x)
	}
	dst[0] = x
}

// cumSumOp is the transform of Ordered and PositiveOrdered: element e is
// t₀ + … + t_e of its argument's elements (the first component and the gaps).
type cumSumOp struct{ positive bool }

func (o cumSumOp) name() string {
	if o.positive {
		return "PositiveOrdered"
	}
	return "Ordered"
}

func (cumSumOp) reads(n *Node, e int, visit func(*Node, int)) {
	for i := 0; i <= e; i++ {
		visit(n.args[0], i)
	}
}

func (cumSumOp) eval(s *scorer, n *Node, e int, out []jet) {
	top := s.top
	t := n.args[0]
	j := s.push(1)
	acc := jet{}
	for i := 0; i <= e; i++ {
		s.eval(t, i, j)
		acc = s.ops.lin(1, &acc, 1, &j[0])
	}
	out[0] = acc
	s.top = top
}

// boundOp is the transform of Bounded: arguments t, then the lower bound if any,
// then the upper bound if any; y = l + (u − l)·t, l + t or u − t.
type boundOp struct{ lower, upper bool }

func (boundOp) name() string { return "Bounded" }

func (boundOp) reads(n *Node, e int, visit func(*Node, int)) {
	for _, a := range n.args {
		visit(a, elem(a, e))
	}
}

func (o boundOp) eval(s *scorer, n *Node, e int, out []jet) {
	top := s.top
	args := s.push(len(n.args))
	for j, a := range n.args {
		s.eval(a, elem(a, e), args[j:j+1])
	}
	switch {
	case o.lower && o.upper:
		t, l, u := args[0].v, args[1].v, args[2].v
		if !(l < u) {
			out[0] = jet{v: math.NaN()}
			break
		}
		// y = l + (u − l)t, from the nearer bound (1 − t is exact for t ≥ ½).
		y := l + (u-l)*t
		if t > 0.5 {
			y = u - (u-l)*(1-t)
		}
		// ∂t = u − l, ∂l = 1 − t, ∂u = t, ∂tl = −1, ∂tu = 1.
		d1 := [3]float64{u - l, 1 - t, t}
		d2 := [9]float64{0, -1, 1, -1, 0, 0, 1, 0, 0}
		out[0] = s.ops.chainJet(y, args, d1[:], d2[:])
	case o.lower:
		out[0] = s.ops.lin(1, &args[1], 1, &args[0])
	default:
		out[0] = s.ops.lin(1, &args[1], -1, &args[0])
	}
	s.top = top
}

// rawName returns the name of a constrained latent's raw sites: name+RawSuffix,
// the suffix before the indices of an indexed scalar's name (beta[3]: beta__raw[3]).
func rawName(name string) string {
	if i := strings.IndexByte(name, '['); i >= 0 {
		return name[:i] + RawSuffix + name[i:]
	}
	return name + RawSuffix
}

// Ordered declares an ordered vector latent of k ≥ 2 components, y₀ < y₁ < … <
// y_{k−1} (Stan's ordered[k]), with the prior d on each component: the log density
// gains Σᵢ log p(yᵢ) on the ordered set, not renormalised, as Stan's
// `ordered[K] mu; mu ~ normal(0, 10);` does. d is a continuous scalar distribution
// on the reals whose parameters broadcast or give one value per component.
//
// The sampler moves k sites, name+RawSuffix: t₀ = y₀ on the reals and the gaps
// tᵢ = yᵢ − yᵢ₋₁ on (0, ∞), y being their cumulative sum (log Jacobian 0). The
// returned node has k scalar elements, y; the draws record them as name[0], …,
// name[k−1] (derived columns, after the sites' columns name__raw[0], …). Init
// starts by Stan's rule, y₀ and the log gaps uniform on (−2, 2), not from d: sorted
// draws of a wide prior start a mixture's components far from the data, where one
// of them stays empty (measured in the package doc).
//
// Build returns an error naming the latent for k < 2, a prior with a bounded
// support (PositiveOrdered takes positive values), a vector or discrete prior, or
// parameters of the wrong length.
func (b *Builder) Ordered(name string, k int, d *Dist) *Node {
	return b.ordered(name, k, d, false)
}

// PositiveOrdered declares a positive ordered vector latent of k ≥ 2 components,
// 0 < y₀ < … < y_{k−1} (Stan's positive_ordered[k]), with the prior d on each
// component, as Ordered, whose first raw coordinate t₀ = y₀ is then on (0, ∞). d is
// a continuous scalar distribution whose support includes (0, ∞) (a normal, a
// gamma, …). Init starts log y₀ and the log gaps uniform on (−2, 2).
func (b *Builder) PositiveOrdered(name string, k int, d *Dist) *Node {
	return b.ordered(name, k, d, true)
}

func (b *Builder) ordered(name string, k int, d *Dist, positive bool) *Node {
	what := "ordered"
	if positive {
		what = "positive ordered"
	}
	fail := func(err error) *Node {
		b.fail(err)
		return &Node{op: opCustom, impl: cumSumOp{positive}, length: 1, width: 1, err: err}
	}
	if k < 2 {
		return fail(fmt.Errorf("graph: %s %q: size %d, want at least 2", what, name, k))
	}
	if err := b.claim(name, false); err != nil {
		return fail(err)
	}
	if err := checkConstrainedPrior(what, name, d, k); err != nil {
		return fail(err)
	}
	kind, lo, hi := priorSupport(d)
	switch {
	case kind == nmc.Real:
	case positive && kind == nmc.Positive && (lo <= 0 || math.IsNaN(lo)):
	default:
		values, hint := "real", ""
		if positive {
			values = "positive"
		} else if kind == nmc.Positive {
			hint = " (PositiveOrdered declares positive ordered values)"
		}
		return fail(fmt.Errorf("graph: %s %q: its %s prior has support %s, but the latent takes every %s ordered vector%s",
			what, name, d.fam.Name(), supportText(kind, lo, hi), values, hint))
	}
	kinds := make([]float64, k)
	for i := range kinds {
		kinds[i] = rawPositive
	}
	if !positive {
		kinds[0] = rawReal
	}
	t := b.latent(name+RawSuffix, NewDist(rawCoord{}, 1, Data(kinds)), []int{k}, k, false)
	if t.err != nil {
		return t
	}
	y := custom(cumSumOp{positive}, k, 1, t)
	b.addConstrained(name, y, LogDensity(d, y), nil)
	return y
}

// Bounded declares a latent on the interval (lower, upper) whose bounds are nodes:
// constants, or expressions of other latents, as the GARCH constraint
// 0 < β₁ < 1 − α₁ (Stan's real<lower=0, upper=1-alpha1> beta1):
//
//	alpha1 := b.Latent("alpha1", graph.Uniform(graph.C(0), graph.C(1)))
//	beta1 := b.Bounded("beta1", graph.C(0), graph.Sub(graph.C(1), alpha1), graph.Flat())
//
// A nil bound leaves that side open. d is the prior of the constrained value, a
// continuous scalar distribution (Flat for none, as Stan's default): the log
// density gains log p(y) on (lower, upper), not renormalised, as Stan does. With a
// shape it is a plate of such latents, one per index; bounds and d's parameters
// broadcast (length 1) or give one value per element.
//
// The sampler moves sites named name+RawSuffix: with both bounds the fraction
// t = (y − lower)/(upper − lower) on (0, 1), y = lower + (upper − lower)·t (log
// Jacobian log(upper − lower)); with one bound the distance t = y − lower or
// upper − y on (0, ∞) (log Jacobian 0). The returned node holds y, recorded with
// every draw under name (name[i], or name[i,j] for a plate of two dimensions), after
// the site columns name__raw…. One scalar may have an indexed name, as a Latent's
// (b[3], whose raw site is b__raw[3]: the states of a recursion declared in a Go
// loop). A state whose lower bound is not below its upper
// bound is impossible (log density −Inf: the sampler draws another start). Init
// starts by Stan's rule, x uniform on (−2, 2) on Stan's unconstrained scale
// (t = logistic(x), or eˣ with one bound), not from d.
//
// Build returns an error naming the latent for no bound, a bound of the wrong width
// or length, constant bounds that are not ordered, a prior whose support does not
// contain (lower, upper) where both are known when the model is built (a Beta prior
// without an upper bound at most 1), a vector or discrete prior, or parameters of
// the wrong length.
func (b *Builder) Bounded(name string, lower, upper *Node, d *Dist, shape ...int) *Node {
	fail := func(err error) *Node {
		b.fail(err)
		return &Node{op: opCustom, impl: boundOp{}, length: 1, width: 1, err: err}
	}
	n := 1
	for _, s := range shape {
		if s <= 0 {
			return fail(fmt.Errorf("graph: bounded %q: plate dimension %d must be positive", name, s))
		}
		n *= s
	}
	if err := b.claim(name, n == 1); err != nil {
		return fail(err)
	}
	if lower == nil && upper == nil {
		return fail(fmt.Errorf("graph: bounded %q: no bound (declare an unbounded latent with Latent)", name))
	}
	for _, bd := range []struct {
		side string
		n    *Node
	}{{"lower", lower}, {"upper", upper}} {
		if bd.n == nil {
			continue
		}
		if bd.n.err != nil {
			return fail(fmt.Errorf("graph: bounded %q: %s bound: %w", name, bd.side, bd.n.err))
		}
		if bd.n.width != 1 || (bd.n.length != 1 && bd.n.length != n) {
			want := "one scalar element"
			if n > 1 {
				want = fmt.Sprintf("1 or %d scalar elements", n)
			}
			return fail(fmt.Errorf("graph: bounded %q: %s bound has %d elements of width %d, want %s", name, bd.side, bd.n.length, bd.n.width, want))
		}
	}
	if err := checkConstrainedPrior("bounded", name, d, n); err != nil {
		return fail(err)
	}
	if err := checkBounds(name, lower, upper, d, n); err != nil {
		return fail(err)
	}
	kind := rawPositive
	if lower != nil && upper != nil {
		kind = rawUnit
	}
	t := b.latent(rawName(name), NewDist(rawCoord{}, 1, C(float64(kind))), shape, n, false)
	if t.err != nil {
		return t
	}
	args := []*Node{t}
	if lower != nil {
		args = append(args, lower)
	}
	if upper != nil {
		args = append(args, upper)
	}
	y := custom(boundOp{lower != nil, upper != nil}, n, 1, args...)
	if len(shape) > 0 {
		y.shape = t.fam.shape
	}
	expr := LogDensity(d, y)
	if kind == rawUnit {
		expr = Add(expr, Log(Sub(upper, lower)))
	}
	b.addConstrained(name, y, expr, t.fam.shape)
	return y
}

// addConstrained adds a constrained latent's prior and log Jacobian, expr, to the
// log density and records its value y under name.
func (b *Builder) addConstrained(name string, y, expr *Node, shape []int) {
	d := NewDist(exprFactor{}, 1, expr)
	if d.err != nil {
		b.fail(fmt.Errorf("graph: latent %q: %w", name, d.err))
		return
	}
	b.factors = append(b.factors, &factor{name: name, d: d, obs: make([]float64, expr.length), length: expr.length, width: 1})
	b.derived = append(b.derived, namedNode{name: name, n: y, shape: shape})
}

// checkConstrainedPrior checks the prior d of a constrained latent of n elements:
// a continuous scalar family whose parameters have 1 or n elements and, where they
// are constant, valid values.
func checkConstrainedPrior(what, name string, d *Dist, n int) error {
	if d == nil {
		return fmt.Errorf("graph: %s %q: nil distribution", what, name)
	}
	if d.err != nil {
		return fmt.Errorf("graph: %s %q: %w", what, name, d.err)
	}
	if vw, _ := d.fam.Layout(d.k); vw != 1 {
		return fmt.Errorf("graph: %s %q: %s is not a scalar distribution", what, name, d.fam.Name())
	}
	if kind, _, _ := priorSupport(d); kind == nmc.Discrete || kind == nmc.Simplex {
		return fmt.Errorf("graph: %s %q: %s is not a continuous distribution", what, name, d.fam.Name())
	}
	names := d.fam.ParamNames()
	for i, p := range d.params {
		if p.length != 1 && p.length != n {
			return fmt.Errorf("graph: %s %q: parameter %s has %d elements, want 1 or %d", what, name, names[i], p.length, n)
		}
	}
	for e := 0; e < n; e++ {
		params, ok := constValues(d.params, e)
		if !ok {
			break
		}
		if err := d.fam.CheckParams(params, d.k); err != nil {
			return fmt.Errorf("graph: %s %q, element %d: %w", what, name, e, err)
		}
	}
	return nil
}

// checkBounds checks, where they are constant, that the bounds are ordered and
// that the prior's support contains (lower, upper).
func checkBounds(name string, lower, upper *Node, d *Dist, n int) error {
	kind, lo, hi := priorSupport(d)
	if kind == nmc.Positive {
		hi = math.Inf(1)
	}
	for e := 0; e < n; e++ {
		l, u := math.Inf(-1), math.Inf(1)
		lc, uc := true, true
		if lower != nil {
			v, ok := constValues([]*Node{lower}, e)
			lc = ok
			if ok {
				l = v[0]
			}
		}
		if upper != nil {
			v, ok := constValues([]*Node{upper}, e)
			uc = ok
			if ok {
				u = v[0]
			}
		}
		if lc && uc && !(l < u) {
			return fmt.Errorf("graph: bounded %q, element %d: lower bound %v is not below the upper bound %v", name, e, l, u)
		}
		if kind == nmc.Real {
			continue
		}
		if lc && !math.IsNaN(lo) && l < lo || uc && !math.IsNaN(hi) && u > hi {
			hint := ""
			if lower == nil || upper == nil {
				hint = "; give the missing bound"
			}
			return fmt.Errorf("graph: bounded %q, element %d: its %s prior has support %s, but the latent's bounds are (%v, %v)%s",
				name, e, d.fam.Name(), supportText(kind, lo, hi), l, u, hint)
		}
	}
	return nil
}

// constValues returns the values of element e of nodes (length 1 or more) when
// they are all constant.
func constValues(nodes []*Node, e int) ([]float64, bool) {
	var out []float64
	for _, p := range nodes {
		if !isConst(p) {
			return nil, false
		}
	}
	sc := (&Model{}).valueScorer(nil)
	for _, p := range nodes {
		out = sc.values(p, elem(p, e), out)
	}
	return out, true
}

// priorSupport returns the support of d, with NaN bounds where they depend on
// parameters that are not constant.
func priorSupport(d *Dist) (nmc.Support, float64, float64) {
	var params []float64
	sc := (&Model{}).valueScorer(nil)
	for _, p := range d.params {
		if isConst(p) && p.length == 1 {
			params = sc.values(p, 0, params)
			continue
		}
		for c := 0; c < p.width; c++ {
			params = append(params, math.NaN())
		}
	}
	kind, lo, hi, _ := d.fam.Support(params, d.k)
	return kind, lo, hi
}

func supportText(kind nmc.Support, lo, hi float64) string {
	switch kind {
	case nmc.Positive:
		return fmt.Sprintf("(%v, ∞)", lo)
	case nmc.Interval:
		return fmt.Sprintf("(%v, %v)", lo, hi)
	}
	return "the reals"
}
