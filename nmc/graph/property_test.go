package graph

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// exprGen builds random expression trees over the latents of a random model,
// keeping every argument inside its op's domain: Log and Log1p take positive
// expressions, Sqrt and Pow take positive expressions, Div divides by a positive
// expression. Real expressions may be of length 1 (broadcast) or nObs.
type exprGen struct {
	rng   *rand.Rand
	a     *Node // real scalar site
	s     *Node // positive scalar site
	v     *Node // Vector site of 3 coordinates
	p     *Node // plate of 3 real scalar sites
	z     *Node // plate of 2 discrete sites with 3 values
	extra []*Node
	pos   []*Node // extra positive scalar latents
	x     *mat.Dense
	idx   []int // into p and v
	item  []int // into z
	ops   map[string]int
}

const (
	nObs     = 5
	maxDepth = 3
)

func (g *exprGen) note(op string) { g.ops[op]++ }

func (g *exprGen) data(n int, scale float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = scale * g.rng.NormFloat64()
	}
	return out
}

// realLeaf returns a real-valued leaf of length 1 or n.
func (g *exprGen) realLeaf(n int) *Node {
	const scalarLeaves = 6
	choices := scalarLeaves
	if n > 1 {
		choices += 6
	}
	switch c := g.rng.IntN(choices); c {
	case 0:
		return g.a
	case 1:
		return C(g.rng.NormFloat64())
	case 2:
		g.note("Index")
		return Index(g.v, []int{g.rng.IntN(3)})
	case 3:
		g.note("Index")
		return Index(g.p, []int{g.rng.IntN(3)})
	case 4:
		if g.rng.IntN(2) == 0 {
			g.note("Sum")
			return Mul(C(0.5), Sum(g.v))
		}
		g.note("Dot")
		if g.rng.IntN(2) == 0 {
			return Dot(g.v, Data(g.data(3, 1)))
		}
		return Mul(C(0.3), Dot(g.v, g.p))
	case 5:
		if len(g.extra) > 0 {
			return g.extra[g.rng.IntN(len(g.extra))]
		}
		return g.a
	case 6:
		return Data(g.data(n, 1))
	case 7:
		g.note("Index")
		return Index(g.p, g.idx)
	case 8:
		g.note("At/By")
		return At(g.p, By(g.idx))
	case 9:
		g.note("MatVec")
		return MatVec(g.x, g.v)
	case 10:
		g.note("At/ByNode")
		return At(g.p, ByNode(Index(g.z, g.item)))
	default:
		g.note("Index")
		return Index(g.v, g.idx)
	}
}

// posLeaf returns a positive leaf of length 1 or n.
func (g *exprGen) posLeaf(n int) *Node {
	switch g.rng.IntN(4) {
	case 0:
		return g.s
	case 1:
		return C(0.5 + g.rng.Float64())
	case 2:
		if len(g.pos) > 0 {
			return g.pos[g.rng.IntN(len(g.pos))]
		}
		return g.s
	default:
		g.note("Softplus")
		return Softplus(g.realLeaf(n))
	}
}

// length picks the length of an operand in a context of length n: n, or 1
// (broadcast over the context).
func (g *exprGen) length(n int) int {
	if n > 1 && g.rng.IntN(3) == 0 {
		return 1
	}
	return n
}

// real returns a real-valued expression of length 1 or n.
func (g *exprGen) real(n, depth int) *Node {
	if depth >= maxDepth || g.rng.IntN(4) == 0 {
		return g.realLeaf(n)
	}
	d := depth + 1
	switch g.rng.IntN(8) {
	case 0:
		g.note("Add")
		return Add(g.real(g.length(n), d), g.real(g.length(n), d))
	case 1:
		g.note("Sub")
		return Sub(g.real(g.length(n), d), g.real(g.length(n), d))
	case 2:
		g.note("Mul")
		return Mul(g.real(g.length(n), d), g.real(g.length(n), d))
	case 3:
		g.note("Neg")
		return Neg(g.real(n, d))
	case 4:
		g.note("Div")
		return Div(g.real(g.length(n), d), g.positive(g.length(n), d))
	case 5:
		g.note("Log")
		return Log(g.positive(n, d))
	case 6:
		g.note("Log1p")
		return Log1p(g.positive(n, d))
	default:
		g.note("Mul")
		return Mul(C(g.rng.NormFloat64()), g.real(n, d))
	}
}

// positive returns a positive expression of length 1 or n.
func (g *exprGen) positive(n, depth int) *Node {
	if depth >= maxDepth || g.rng.IntN(4) == 0 {
		return g.posLeaf(n)
	}
	d := depth + 1
	switch g.rng.IntN(9) {
	case 0:
		g.note("Exp")
		return Exp(Mul(C(0.5), g.real(n, d)))
	case 1:
		g.note("Softplus")
		return Softplus(g.real(n, d))
	case 2:
		g.note("Sqrt")
		return Sqrt(g.positive(n, d))
	case 3:
		g.note("Pow")
		return Pow(g.positive(n, d), []float64{-1, -0.5, 0.5, 1.5, 2, 3}[g.rng.IntN(6)])
	case 4:
		g.note("Logistic")
		return Logistic(g.real(n, d))
	case 5:
		g.note("Add")
		return Add(g.positive(g.length(n), d), g.positive(g.length(n), d))
	case 6:
		g.note("Mul")
		return Mul(g.positive(g.length(n), d), g.positive(g.length(n), d))
	case 7:
		g.note("Div")
		return Div(g.positive(g.length(n), d), g.positive(g.length(n), d))
	default:
		g.note("Sqrt")
		return Sqrt(Softplus(g.real(n, d)))
	}
}

// randomModel declares a model with the fixed latents a, s, v, p and z, up to two
// further latents whose priors are random expressions, and one to three
// observations, each a random family with random expression parameters.
func randomModel(rng *rand.Rand, ops map[string]int) (*Builder, []string) {
	b := New()
	g := &exprGen{rng: rng, ops: ops, x: mat.NewDense(nObs, 3, nil)}
	g.a = b.Latent("a", Normal(C(0), C(1)))
	g.s = b.Latent("s", Gamma(C(4), C(4)))
	g.v = b.Vector("v", 3, Normal(C(0), C(0.7)))
	g.p = b.Latent("p", Normal(C(0), C(1)), 3)
	g.z = b.Latent("z", Categorical(Vec(0.3, 0.3, 0.4)), 2)
	for i := 0; i < nObs; i++ {
		for j := 0; j < 3; j++ {
			g.x.Set(i, j, rng.NormFloat64())
		}
		g.idx = append(g.idx, rng.IntN(3))
		g.item = append(g.item, rng.IntN(2))
	}
	var desc []string
	if rng.IntN(2) == 0 {
		g.extra = append(g.extra, b.Latent("c", Normal(g.real(1, 0), g.positive(1, 0))))
		desc = append(desc, "c~Normal")
	}
	if rng.IntN(2) == 0 {
		g.pos = append(g.pos, b.Latent("w", Gamma(Add(C(1), g.positive(1, 1)), g.positive(1, 1))))
		desc = append(desc, "w~Gamma")
	}
	nobs := 1 + rng.IntN(3)
	for o := 0; o < nobs; o++ {
		name := fmt.Sprintf("y%d", o)
		switch rng.IntN(6) {
		case 0:
			b.Observe(name, Normal(g.real(nObs, 0), g.positive(g.length(nObs), 1)), g.data(nObs, 2))
			desc = append(desc, "Normal")
		case 1:
			b.Observe(name, StudentT(Add(C(1), g.positive(1, 2)), g.real(nObs, 0), g.positive(g.length(nObs), 1)), g.data(nObs, 2))
			desc = append(desc, "StudentT")
		case 2:
			y := g.data(nObs, 1)
			for i := range y {
				y[i] = 0.2 + y[i]*y[i]
			}
			b.Observe(name, Gamma(g.positive(g.length(nObs), 1), g.positive(nObs, 1)), y)
			desc = append(desc, "Gamma")
		case 3:
			y := make([]int, nObs)
			for i := range y {
				y[i] = rng.IntN(6)
			}
			b.ObserveInts(name, PoissonLog(g.real(nObs, 1)), y)
			desc = append(desc, "PoissonLog")
		case 4:
			y := make([]int, nObs)
			for i := range y {
				y[i] = rng.IntN(2)
			}
			b.ObserveInts(name, BernoulliLogit(g.real(nObs, 0)), y)
			desc = append(desc, "BernoulliLogit")
		default:
			// Width broadcasting: a length-nObs width-1 expression times a width-3 constant.
			y := make([]int, nObs)
			for i := range y {
				y[i] = rng.IntN(3)
			}
			g.note("broadcast/width")
			b.ObserveInts(name, CategoricalLogits(Add(Mul(g.real(nObs, 1), Vec(1, -0.5, 0)), Vec(0, 0.2, 0.4))), y)
			desc = append(desc, "CategoricalLogits")
		}
	}
	return b, desc
}

// TestRandomModels builds hundreds of random composed models and checks, for every
// site, the Markov-blanket identity and, for continuous sites, f, ∇f and ∇²f against
// finite differences of the log joint.
func TestRandomModels(t *testing.T) {
	const models = 1500
	rng := rand.New(rand.NewPCG(2020, 5))
	ops := map[string]int{}
	var total checkStats
	sparse := 0
	for mi := 0; mi < models; mi++ {
		b, desc := randomModel(rng, ops)
		m, err := b.Build()
		if err != nil {
			t.Fatalf("model %d (%s): Build: %v", mi, strings.Join(desc, ", "), err)
		}
		name := fmt.Sprintf("model %d (%s)", mi, strings.Join(desc, ", "))
		st := checkModelDerivs(t, name, m, rand.New(rand.NewPCG(uint64(mi), 17)), 2, 20)
		if t.Failed() {
			return
		}
		if st.points == 0 {
			sparse++
		}
		total.points += st.points
		total.sites += st.sites
		total.directions += st.directions
	}
	// The generator must reach every op, and most models must give acceptable points.
	want := []string{"Add", "Sub", "Mul", "Div", "Neg", "Exp", "Log", "Log1p", "Sqrt", "Pow", "Logistic",
		"Softplus", "Sum", "Dot", "MatVec", "Index", "At/By", "At/ByNode", "broadcast/width"}
	for _, op := range want {
		if ops[op] < 10 {
			t.Errorf("op %s generated %d times, want ≥ 10", op, ops[op])
		}
	}
	if sparse > models/10 {
		t.Errorf("%d of %d models gave no acceptable point", sparse, models)
	}
	keys := make([]string, 0, len(ops))
	for k := range ops {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var counts []string
	for _, k := range keys {
		counts = append(counts, fmt.Sprintf("%s:%d", k, ops[k]))
	}
	t.Logf("%d models, %d points, %d site checks, %d directions; ops %s", models, total.points, total.sites, total.directions, strings.Join(counts, " "))
}
