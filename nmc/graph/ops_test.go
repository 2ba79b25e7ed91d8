package graph

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// opBase holds the latents that the expression of an op test reads.
type opBase struct {
	a    *Node // real scalar site
	s    *Node // positive scalar site
	v    *Node // Vector site of 3 coordinates
	p    *Node // plate of 3 real scalar sites
	q    *Node // plate of 2×3 real scalar sites
	z    *Node // plate of 2 discrete sites with 3 values
	x    *mat.Dense
	idx  []int // nOpObs indices into p, v
	item []int // nOpObs indices into z
	row  []int // nOpObs indices into q's first dimension
	obs  []float64
}

const nOpObs = 6

func newOpBase(b *Builder) *opBase {
	rng := rand.New(rand.NewPCG(21, 2))
	o := &opBase{
		a: b.Latent("a", Normal(C(0.3), C(1))),
		s: b.Latent("s", Gamma(C(4), C(3))),
		v: b.Vector("v", 3, Normal(C(0), C(0.7))),
		p: b.Latent("p", Normal(C(0), C(1)), 3),
		q: b.Latent("q", Normal(C(0.5), C(0.8)), 2, 3),
		z: b.Latent("z", Categorical(Vec(0.2, 0.3, 0.5)), 2),
		x: mat.NewDense(nOpObs, 3, nil),
	}
	for i := 0; i < nOpObs; i++ {
		for j := 0; j < 3; j++ {
			o.x.Set(i, j, rng.NormFloat64())
		}
		o.idx = append(o.idx, rng.IntN(3))
		o.item = append(o.item, rng.IntN(2))
		o.row = append(o.row, rng.IntN(2))
		o.obs = append(o.obs, 1.5*rng.NormFloat64())
	}
	return o
}

// TestOpDerivatives checks, for every expression op, f, ∇f and ∇²f of every site
// against finite differences of the log joint, with the op's result used as the
// location of normal observations, as the scale of others when it is positive,
// and (when it is a scalar) as the location of another latent's prior.
func TestOpDerivatives(t *testing.T) {
	cases := []struct {
		name     string
		positive bool
		expr     func(o *opBase) *Node
	}{
		{"Add", false, func(o *opBase) *Node { return Add(o.a, Index(o.p, o.idx)) }},
		{"Add/same-site", false, func(o *opBase) *Node { return Add(Mul(o.a, o.a), o.a) }},
		{"Sub", false, func(o *opBase) *Node { return Sub(MatVec(o.x, o.v), o.a) }},
		{"Sub/vector-coords", false, func(o *opBase) *Node { return Sub(Index(o.v, []int{0}), Index(o.v, o.idx)) }},
		{"Mul", false, func(o *opBase) *Node { return Mul(o.a, Index(o.v, o.idx)) }},
		{"Mul/same-row", false, func(o *opBase) *Node { return Mul(MatVec(o.x, o.v), MatVec(o.x, o.v)) }},
		{"Mul/rows-by-coord", false, func(o *opBase) *Node { return Mul(MatVec(o.x, o.v), Index(o.v, o.idx)) }},
		{"Div", false, func(o *opBase) *Node { return Div(o.a, o.s) }},
		{"Div/plate", false, func(o *opBase) *Node { return Div(Index(o.p, o.idx), Add(o.s, Exp(Index(o.v, o.idx)))) }},
		{"Neg", false, func(o *opBase) *Node { return Neg(Mul(o.a, o.s)) }},
		{"Exp", false, func(o *opBase) *Node { return Exp(Mul(C(0.5), Add(o.a, MatVec(o.x, o.v)))) }},
		{"Exp/positive", true, func(o *opBase) *Node { return Exp(Mul(C(0.3), Index(o.p, o.idx))) }},
		{"Log", false, func(o *opBase) *Node { return Log(o.s) }},
		{"Log/expression", false, func(o *opBase) *Node { return Log(Add(o.s, Exp(Index(o.v, o.idx)))) }},
		{"Log1p", false, func(o *opBase) *Node { return Log1p(Mul(o.s, Exp(o.a))) }},
		{"Sqrt", true, func(o *opBase) *Node { return Sqrt(Softplus(Add(o.a, MatVec(o.x, o.v)))) }},
		{"Pow", true, func(o *opBase) *Node { return Pow(o.s, 2.5) }},
		{"Pow/negative", true, func(o *opBase) *Node { return Pow(Add(o.s, Exp(Index(o.p, o.idx))), -1.5) }},
		{"Logistic", false, func(o *opBase) *Node { return Logistic(MatVec(o.x, o.v)) }},
		{"Logistic/positive", true, func(o *opBase) *Node { return Logistic(Add(o.a, Index(o.p, o.idx))) }},
		{"Softplus", true, func(o *opBase) *Node { return Softplus(Index(o.p, o.idx)) }},
		{"Sum/vector", false, func(o *opBase) *Node { return Sum(o.v) }},
		{"Sum/plate", false, func(o *opBase) *Node { return Sum(Mul(o.p, o.p)) }},
		{"Sum/mixed", false, func(o *opBase) *Node { return Sum(Mul(o.s, Exp(o.v))) }},
		{"Dot/data", false, func(o *opBase) *Node { return Dot(o.v, Data([]float64{0.5, -1, 2})) }},
		{"Dot/sites", false, func(o *opBase) *Node { return Dot(o.v, o.p) }},
		{"MatVec/vector", false, func(o *opBase) *Node { return MatVec(o.x, o.v) }},
		{"MatVec/plate", false, func(o *opBase) *Node { return MatVec(o.x, o.p) }},
		{"MatVec/expression", false, func(o *opBase) *Node { return MatVec(o.x, Exp(Mul(C(0.5), o.v))) }},
		{"Index/vector", false, func(o *opBase) *Node { return Index(o.v, o.idx) }},
		{"Index/plate", false, func(o *opBase) *Node { return Mul(Index(o.p, o.idx), Index(o.p, o.idx)) }},
		{"At/By", false, func(o *opBase) *Node { return At(o.p, By(o.idx)) }},
		{"At/By2", false, func(o *opBase) *Node { return Mul(At(o.q, By(o.row), By(o.idx)), o.s) }},
		{"At/ByNode", false, func(o *opBase) *Node { return At(o.p, ByNode(Index(o.z, o.item))) }},
		{"At/By-ByNode", false, func(o *opBase) *Node { return At(o.q, By(o.row), ByNode(Index(o.z, o.item))) }},
		{"Concat", false, func(o *opBase) *Node { return Concat(o.a, Mul(o.s, Index(o.p, o.idx[:3])), o.v, Exp(o.a)) }},
		{"Concat/recursion", false, func(o *opBase) *Node {
			steps := []*Node{o.a}
			for t := 1; t < nOpObs; t++ {
				steps = append(steps, Add(Mul(o.s, steps[t-1]), Index(o.p, o.idx[t:t+1])))
			}
			return Concat(steps...)
		}},
		{"Stack", false, func(o *opBase) *Node {
			return Components(Mul(Vec(1, 2, 3, 4, 5, 6), Stack(o.a, Exp(Index(o.v, []int{2})), o.s, Index(o.p, []int{1}), Mul(o.a, o.s), C(2))))
		}},
		{"Stack/columns", false, func(o *opBase) *Node { return Sum(Stack(Index(o.p, o.idx), o.a, MatVec(o.x, o.v))) }},
		{"Reshape/components", false, func(o *opBase) *Node {
			return Components(Mul(Reshape(Concat(o.v, o.p), 1, 6), Stack(o.s, o.s, o.a, o.a, C(1), C(2))))
		}},
		{"Reshape/rows", false, func(o *opBase) *Node { return Sum(Mul(Reshape(o.q, 3, 2), Vec(1, -2))) }},
		{"broadcast/scalar-over-plate", false, func(o *opBase) *Node { return Add(o.a, Data([]float64{1, 2, 3, 4, 5, 6})) }},
		{"broadcast/scalar-times-plate", true, func(o *opBase) *Node { return Mul(o.s, Exp(Index(o.p, o.idx))) }},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := New()
			o := newOpBase(b)
			e := c.expr(o)
			if err := e.Err(); err != nil {
				t.Fatalf("expression: %v", err)
			}
			if c.positive {
				b.Observe("y", Normal(C(0.2), e), o.obs[:max(e.Len(), 1)])
			} else {
				b.Observe("y", Normal(e, C(1.3)), o.obs[:max(e.Len(), 1)])
			}
			if e.Len() == 1 {
				if c.positive {
					b.Latent("c", Gamma(C(3), e))
				} else {
					b.Latent("c", Normal(e, C(2)))
				}
			}
			m, err := b.Build()
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			st := checkModelDerivs(t, c.name, m, rand.New(rand.NewPCG(5, uint64(ci))), 4, 40)
			if !t.Failed() && st.points < 4 {
				t.Errorf("only %d acceptable points out of 40 prior draws", st.points)
			}
		})
	}
}

// TestWidthBroadcasting checks a width-1 node broadcast over width-k components:
// a Dirichlet concentration scale·Vec, and categorical logits a·Vec + Vec, per
// observation (length-n width-1 times length-1 width-3).
func TestWidthBroadcasting(t *testing.T) {
	b := New()
	o := newOpBase(b)
	w := b.Latent("w", Dirichlet(Add(Vec(1, 1, 1), Mul(o.s, Vec(1, 2, 3)))))
	b.ObserveInts("y", CategoricalLogits(Add(Mul(Index(o.p, o.idx), Vec(1, -1, 0.5)), Mul(o.a, Vec(0, 1, 2)))), []int{0, 1, 2, 2, 1, 0})
	b.ObserveInts("y2", Categorical(w), []int{2, 2, 0})
	b.Observe("y3", Dirichlet(Mul(Exp(Add(o.a, Index(o.v, []int{1}))), Add(w, Vec(0.5, 0.5, 0.5)))), []float64{0.2, 0.3, 0.5, 0.6, 0.1, 0.3})
	m, err := b.Build()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if st := checkModelDerivs(t, "width", m, rand.New(rand.NewPCG(6, 1)), 6, 60); !t.Failed() && st.points < 6 {
		t.Errorf("only %d acceptable points", st.points)
	}
}
