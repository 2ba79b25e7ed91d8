package graph

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/nmc-go/nmc/nmc/dist"
)

// A Dist is a distribution family with its parameters given as nodes. Make one with
// the constructors of this package (Normal, Gamma, Dirichlet, …) or with NewDist.
type Dist struct {
	fam    dist.Family
	k      int
	params []*Node
	err    error
}

// NewDist returns a distribution of family fam with vector dimension k (1 for scalar
// families) and the given parameter nodes, whose widths must match fam.Layout(k).
func NewDist(fam dist.Family, k int, params ...*Node) *Dist {
	d := &Dist{fam: fam, k: k, params: params}
	if fam == nil {
		d.err = errors.New("graph: nil distribution family")
		return d
	}
	names := fam.ParamNames()
	for i, p := range params {
		if p == nil {
			name := fmt.Sprint(i)
			if i < len(names) {
				name = names[i]
			}
			d.err = fmt.Errorf("graph: %s parameter %s is a nil node", fam.Name(), name)
			return d
		}
	}
	if err := firstErr(fam.Name(), params...); err != nil {
		d.err = err
		return d
	}
	_, pw := fam.Layout(k)
	if len(pw) != len(params) {
		d.err = fmt.Errorf("graph: %s takes %d parameters, got %d", fam.Name(), len(pw), len(params))
		return d
	}
	for i, p := range params {
		if p.width != pw[i] {
			d.err = fmt.Errorf("graph: %s parameter %s has width %d, want %d", fam.Name(), names[i], p.width, pw[i])
			return d
		}
	}
	return d
}

// family is a latent variable family: one site (Vector, or a single Latent) or a
// plate of sites.
type family struct {
	name   string
	d      *Dist
	shape  []int // plate shape; nil for a single site
	vector bool  // one site of `length` scalar coordinates
	length int   // elements of the node
	width  int   // components per element
	node   *Node
	first  int // index of the first site in the model
	offset int // offset of the first coordinate in the state
	id     int
}

// site returns the model index of the site holding element e.
func (f *family) site(e int) int {
	if f.vector {
		return f.first
	}
	return f.first + e
}

// coord returns the index within its site of component c of element e.
func (f *family) coord(e, c int) int {
	if f.vector {
		return e
	}
	return c
}

// factor is a log-density term per element: a latent family's prior or an
// observed node's likelihood.
type factor struct {
	name string
	d    *Dist
	fam  *family          // for a prior
	obs  []float64        // for an observation: length*width values
	memo dist.MemoDeriver // d.fam, when it caches parameter-only terms
	// d.fam, when it computes the derivatives in some arguments only (used by
	// chain for the arguments that depend on the active site)
	partial dist.PartialDeriver
	length  int
	width   int

	jf jetFamily // d.fam, when it scores its elements from the argument jets
}

// Builder declares a model: latent families, observations and derived quantities.
// Its methods record the first error; Build returns it. The zero value is an empty
// builder, like New().
type Builder struct {
	fams    []*family
	factors []*factor
	derived []namedNode
	groups  []groupDecl
	margs   []*family // summed out (Marginalise)
	leads   []*family // lead sites (Lead)
	augs    []*family // augmented latents (Augment)
	hams    []*family // the Hamiltonian block's latents (Hamiltonian)
	hmms    []hmmDecl // hidden Markov models whose states are recorded (HiddenMarkov)
	noAuto  AutoRule  // the rules of the automatic groups turned off (NoAutoGroups)
	names   map[string]bool
	indexed map[string]int // per base of an indexed name, its number of indices (names.go)
	err     error
	// noLinear (tests) scores every factor element by element: no linear factors
	// (linear.go), as the engine did before them.
	noLinear bool
	// noMemo (tests) memoises no node (memo.go): every element is evaluated once
	// per path that reads it, as the engine did before memoisation.
	noMemo bool
	// noMixRows (tests) scores mixture factors element by element (mixrows.go).
	noMixRows bool
}

type namedNode struct {
	name  string
	n     *Node
	shape []int // a plate's shape, to name its elements name[i,j] (nil: name[e])
}

// New returns an empty model builder.
func New() *Builder { return &Builder{names: map[string]bool{}} }

func (b *Builder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// Latent declares a latent variable with prior d. With no shape it is one site
// holding one value of d (a scalar, or a vector for Dirichlet and
// MultivariateNormal). With a shape it is a plate of independent sites, one per
// index, e.g. Latent("theta", Dirichlet(…), L, C) declares theta[l,m]. The returned
// node has one element per site, each of d's value width. Parameters of d broadcast
// over the plate (length 1) or give one value per site (length = number of sites).
func (b *Builder) Latent(name string, d *Dist, shape ...int) *Node {
	n := 1
	for _, s := range shape {
		if s <= 0 {
			err := fmt.Errorf("graph: latent %q: plate dimension %d must be positive", name, s)
			b.fail(err)
			return &Node{op: opLatent, length: 1, width: 1, err: err}
		}
		n *= s
	}
	return b.latent(name, d, shape, n, false)
}

// Vector declares one site of k scalar coordinates with independent priors d (its
// parameters broadcast, or give one value per coordinate). The sampler moves the k
// coordinates together with one joint Newton step, as for regression coefficients.
// The node has k scalar elements.
func (b *Builder) Vector(name string, k int, d *Dist) *Node {
	if k <= 0 {
		err := fmt.Errorf("graph: vector %q: size %d must be positive", name, k)
		b.fail(err)
		return &Node{op: opLatent, length: 1, width: 1, err: err}
	}
	return b.latent(name, d, nil, k, true)
}

func (b *Builder) latent(name string, d *Dist, shape []int, n int, vector bool) *Node {
	fail := func(err error) *Node {
		b.fail(err)
		return &Node{op: opLatent, length: 1, width: 1, err: err}
	}
	if d == nil {
		return fail(fmt.Errorf("graph: latent %q: nil distribution", name))
	}
	if d.err != nil {
		return fail(fmt.Errorf("graph: latent %q: %w", name, d.err))
	}
	vw, _ := d.fam.Layout(d.k)
	if err := b.claim(name, !vector && len(shape) == 0 && vw == 1); err != nil {
		return fail(err)
	}
	if vector && vw != 1 {
		return fail(fmt.Errorf("graph: vector %q: %s is not a scalar distribution", name, d.fam.Name()))
	}
	for i, p := range d.params {
		if p.length != 1 && p.length != n {
			return fail(fmt.Errorf("graph: latent %q: parameter %s has %d elements, want 1 or %d", name, d.fam.ParamNames()[i], p.length, n))
		}
	}
	f := &family{name: name, d: d, shape: append([]int(nil), shape...), vector: vector, length: n, width: vw, id: len(b.fams)}
	f.node = &Node{op: opLatent, length: n, width: vw, fam: f}
	if len(shape) > 0 {
		f.node.shape = f.shape
	}
	b.fams = append(b.fams, f)
	b.factors = append(b.factors, &factor{name: name, d: d, fam: f, length: n, width: vw})
	return f.node
}

// Observe binds data to a distribution: values holds Len elements of the
// distribution's value width (element-major), where Len is the longest parameter
// length (parameters of length 1 broadcast). Discrete values are given as float64
// integers. The improper Flat and HalfFlat are refused: they are priors for latents,
// whose log density does not depend on the value.
func (b *Builder) Observe(name string, d *Dist, values []float64) {
	if d == nil {
		b.fail(fmt.Errorf("graph: observed %q: nil distribution", name))
		return
	}
	if d.err != nil {
		b.fail(fmt.Errorf("graph: observed %q: %w", name, d.err))
		return
	}
	if improper(d.fam) {
		b.fail(fmt.Errorf("graph: observed %q: %s is an improper prior for latents, not a likelihood: its log density is 0 whatever the value, so the data would add nothing to the model; give the data a distribution whose parameters depend on the latents", name, d.fam.Name()))
		return
	}
	vw, _ := d.fam.Layout(d.k)
	n := 1
	for _, p := range d.params {
		n = max(n, p.length)
	}
	for i, p := range d.params {
		if p.length != 1 && p.length != n {
			b.fail(fmt.Errorf("graph: observed %q: parameter %s has %d elements, others %d", name, d.fam.ParamNames()[i], p.length, n))
			return
		}
	}
	if n == 1 && len(values) > vw {
		n = len(values) / vw
	}
	if err := b.claim(name, n == 1 && vw == 1); err != nil {
		b.fail(err)
		return
	}
	if len(values) != n*vw {
		b.fail(fmt.Errorf("graph: observed %q: %d values, want %d (%d elements of width %d)", name, len(values), n*vw, n, vw))
		return
	}
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b.fail(fmt.Errorf("graph: observed %q: element %d is %v", name, i/vw, v))
			return
		}
	}
	b.factors = append(b.factors, &factor{name: name, d: d, obs: append([]float64(nil), values...), length: n, width: vw})
}

// improper reports whether fam is one of the improper flat laws (Flat, HalfFlat),
// which Observe refuses.
func improper(fam dist.Family) bool {
	switch fam.(type) {
	case dist.Flat, *dist.Flat, dist.HalfFlat, *dist.HalfFlat:
		return true
	}
	return false
}

// ObserveInts is Observe for integer data.
func (b *Builder) ObserveInts(name string, d *Dist, values []int) {
	f := make([]float64, len(values))
	for i, v := range values {
		f[i] = float64(v)
	}
	b.Observe(name, d, f)
}

// Deterministic records a derived quantity with every draw, named name[i] (or name
// for a scalar), e.g. theta = mu + tau·theta_raw in a non-centred model.
func (b *Builder) Deterministic(name string, n *Node) {
	if n == nil {
		b.fail(fmt.Errorf("graph: deterministic %q: nil node", name))
		return
	}
	if err := n.err; err != nil {
		b.fail(fmt.Errorf("graph: deterministic %q: %w", name, err))
		return
	}
	if err := b.claim(name, n.length == 1 && n.width == 1); err != nil {
		b.fail(err)
		return
	}
	b.derived = append(b.derived, namedNode{name: name, n: n})
}

// Build checks the model and compiles it. The result implements nmc.Model,
// nmc.Deriver and the sampler's Neighbors interface.
func (b *Builder) Build() (built *Model, err error) {
	defer recoverFuncPanic(&built, &err)
	if b.err != nil {
		return nil, b.err
	}
	if len(b.fams) == 0 {
		return nil, errors.New("graph: the model has no latent variables")
	}
	m := b.newModel()
	m.auto = &autoConfig{off: b.noAuto}
	if err := m.compile(b.groups, b.margs); err != nil {
		return nil, err
	}
	m.compileHMMSteer()
	if err := m.compileLeads(b.leads); err != nil {
		return nil, err
	}
	m.compileKernelLeads()
	m.compileKernelCarries()
	if err := m.compileAugment(b); err != nil {
		return nil, err
	}
	if err := m.compileHamiltonian(b.hams); err != nil {
		return nil, err
	}
	if err := m.checkFuncs(); err != nil {
		return nil, err
	}
	return m, nil
}

// newModel returns an uncompiled model of b's families, factors and derived
// quantities.
func (b *Builder) newModel() *Model {
	return &Model{fams: b.fams, factors: b.factors, derived: b.derived, hmms: b.hmms, noLinear: b.noLinear, noMemo: b.noMemo, noMixRows: b.noMixRows}
}

// elemIndexName formats plate indices of element e of a family.
func (f *family) elemName(e int) string {
	if f.vector || len(f.shape) == 0 {
		if f.vector {
			return fmt.Sprintf("%s[%d]", f.name, e)
		}
		return f.name
	}
	return plateName(f.name, f.shape, e)
}

// plateName names element e (row-major) of a plate of the given shape: name[i,j,…].
func plateName(name string, shape []int, e int) string {
	idx := make([]string, len(shape))
	r := e
	for d := len(shape) - 1; d >= 0; d-- {
		idx[d] = fmt.Sprint(r % shape[d])
		r /= shape[d]
	}
	return name + "[" + strings.Join(idx, ",") + "]"
}

// randSource is what Init needs from math/rand/v2.
var _ = rand.New
