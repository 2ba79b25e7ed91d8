package graph_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// The fuzz target of this file runs its committed seed corpus
// (testdata/fuzz/FuzzBuild/) with plain `go test`; explore with
//
//	go test -run '^$' -fuzz '^FuzzBuild$' -fuzztime 10m -parallel 1 ./nmc/graph/

// fuzzProg decodes fuzzer bytes; once they run out every read gives 0.
type fuzzProg struct{ b []byte }

func (p *fuzzProg) byte() byte {
	if len(p.b) == 0 {
		return 0
	}
	c := p.b[0]
	p.b = p.b[1:]
	return c
}

// fuzzGraphSpecials are the values a decoded number picks from most often.
var fuzzGraphSpecials = []float64{
	0, 1, -1, 0.5, 2, 10, math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1),
	1e-300, 1e300, -1e300, math.MaxFloat64, math.SmallestNonzeroFloat64, 3,
}

// float decodes a number: a special value, a small integer or a fine value.
func (p *fuzzProg) float() float64 {
	switch sel := p.byte(); sel % 4 {
	case 0:
		return fuzzGraphSpecials[int(p.byte())%len(fuzzGraphSpecials)]
	case 1:
		return float64(int8(p.byte()))
	default:
		return float64(int16(uint16(p.byte())<<8|uint16(p.byte()))) / 64
	}
}

func (p *fuzzProg) floats(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = p.float()
	}
	return v
}

// ints decodes n small integers, negative ones included.
func (p *fuzzProg) ints(n int) []int {
	v := make([]int, n)
	for i := range v {
		v[i] = int(int8(p.byte())) % 5
	}
	return v
}

// fuzzBuilder is the state of a decoded builder program.
type fuzzBuilder struct {
	p     *fuzzProg
	b     *graph.Builder
	nodes []*graph.Node
	names int
	trace []string // the calls made, for failure messages
}

// node picks a node made earlier (nil now and then: a bad input too).
func (s *fuzzBuilder) node() *graph.Node {
	c := s.p.byte()
	if c == 255 {
		return nil
	}
	if len(s.nodes) == 0 {
		return graph.C(1)
	}
	return s.nodes[int(c)%len(s.nodes)]
}

// name returns a fresh name, or now and then a repeated or invalid one.
func (s *fuzzBuilder) name() string {
	switch c := s.p.byte(); c % 16 {
	case 0:
		return "v0"
	case 1:
		return []string{"", "a[1]", "a b", "x,y", "]"}[int(c/16)%5]
	}
	s.names++
	return fmt.Sprintf("v%d", s.names)
}

// trials decodes the n of a binomial: small counts (negative ones included), a
// non-integer or a million. It is not an arbitrary node because sampling a
// binomial with an astronomically large n (1e30, 1e300) never returns (gonum's
// distuv.Binomial.Rand loops; see testdata/hangs/README), which would stop the
// fuzzer at that finding over and over.
func (s *fuzzBuilder) trials() *graph.Node {
	switch c := s.p.byte(); c % 4 {
	case 0, 1:
		return graph.Ints(s.p.ints(1 + int(c/4)%3))
	case 2:
		return graph.C(2.5)
	}
	return graph.C(1e6)
}

// dist decodes a distribution whose parameters are nodes made earlier.
func (s *fuzzBuilder) dist() *graph.Dist {
	switch s.p.byte() % 22 {
	case 0:
		return graph.Normal(s.node(), s.node())
	case 1:
		return graph.HalfNormal(s.node())
	case 2:
		return graph.LogNormal(s.node(), s.node())
	case 3:
		return graph.StudentT(s.node(), s.node(), s.node())
	case 4:
		return graph.Cauchy(s.node(), s.node())
	case 5:
		return graph.HalfCauchy(s.node())
	case 6:
		return graph.Gamma(s.node(), s.node())
	case 7:
		return graph.InverseGamma(s.node(), s.node())
	case 8:
		return graph.Exponential(s.node())
	case 9:
		return graph.Beta(s.node(), s.node())
	case 10:
		return graph.Uniform(s.node(), s.node())
	case 11:
		return graph.Dirichlet(s.node())
	case 12:
		k := 1 + int(s.p.byte()%3)
		cov := mat.NewSymDense(k, nil)
		for i := range k {
			for j := i; j < k; j++ {
				cov.SetSym(i, j, s.p.float())
			}
		}
		return graph.MultivariateNormal(s.node(), cov)
	case 13:
		return graph.Bernoulli(s.node())
	case 14:
		return graph.BernoulliLogit(s.node())
	case 15:
		return graph.Binomial(s.trials(), s.node())
	case 16:
		return graph.BinomialLogit(s.trials(), s.node())
	case 17:
		return graph.Categorical(s.node())
	case 18:
		return graph.CategoricalLogits(s.node())
	case 19:
		return graph.Poisson(s.node())
	case 20:
		return graph.PoissonLog(s.node())
	}
	return graph.NewDist(nil, 1, s.node())
}

// step decodes and runs one builder call.
func (s *fuzzBuilder) step() {
	p := s.p
	push := func(n *graph.Node, call string) {
		s.nodes = append(s.nodes, n)
		s.trace = append(s.trace, call)
	}
	switch p.byte() % 17 {
	case 0:
		v := p.float()
		push(graph.C(v), fmt.Sprintf("C(%v)", v))
	case 1:
		v := p.floats(1 + int(p.byte()%4))
		push(graph.Data(v), fmt.Sprintf("Data(%v)", v))
	case 2:
		v := p.floats(1 + int(p.byte()%3))
		push(graph.Vec(v...), fmt.Sprintf("Vec(%v)", v))
	case 3:
		v := p.ints(1 + int(p.byte()%4))
		push(graph.Ints(v), fmt.Sprintf("Ints(%v)", v))
	case 4:
		r, c := 1+int(p.byte()%3), 1+int(p.byte()%3)
		rows := make([][]float64, r)
		for i := range rows {
			rows[i] = p.floats(c)
		}
		push(graph.Rows(rows), fmt.Sprintf("Rows(%v)", rows))
	case 5:
		name, d := s.name(), s.dist()
		shape := make([]int, int(p.byte()%3))
		for i := range shape {
			shape[i] = int(p.byte() % 4) // 0 is a bad plate dimension
		}
		push(s.b.Latent(name, d, shape...), fmt.Sprintf("Latent(%q, shape %v)", name, shape))
	case 6:
		name, k := s.name(), int(p.byte()%4)
		push(s.b.Vector(name, k, s.dist()), fmt.Sprintf("Vector(%q, %d)", name, k))
	case 7:
		name, d := s.name(), s.dist()
		v := p.floats(int(p.byte() % 7))
		s.b.Observe(name, d, v)
		s.trace = append(s.trace, fmt.Sprintf("Observe(%q, %v)", name, v))
	case 8:
		name, d := s.name(), s.dist()
		v := p.ints(int(p.byte() % 7))
		s.b.ObserveInts(name, d, v)
		s.trace = append(s.trace, fmt.Sprintf("ObserveInts(%q, %v)", name, v))
	case 9:
		a, b := s.node(), s.node()
		ops := []func(a, b *graph.Node) *graph.Node{graph.Add, graph.Sub, graph.Mul, graph.Div, graph.Dot}
		k := int(p.byte()) % len(ops)
		push(ops[k](a, b), fmt.Sprintf("binary op %d", k))
	case 10:
		a := s.node()
		ops := []func(a *graph.Node) *graph.Node{graph.Neg, graph.Exp, graph.Log, graph.Log1p, graph.Sqrt,
			graph.Logistic, graph.Softplus, graph.Sum}
		k := int(p.byte()) % (len(ops) + 1)
		if k == len(ops) {
			e := p.float()
			push(graph.Pow(a, e), fmt.Sprintf("Pow(%v)", e))
		} else {
			push(ops[k](a), fmt.Sprintf("unary op %d", k))
		}
	case 11:
		a, idx := s.node(), p.ints(int(p.byte()%4))
		push(graph.Index(a, idx), fmt.Sprintf("Index(%v)", idx))
	case 12:
		src := s.node()
		idx := make([]graph.Idx, int(p.byte()%3))
		for i := range idx {
			if p.byte()%2 == 0 {
				idx[i] = graph.By(p.ints(int(p.byte() % 4)))
			} else {
				idx[i] = graph.ByNode(s.node())
			}
		}
		push(graph.At(src, idx...), fmt.Sprintf("At(%d indices)", len(idx)))
	case 13:
		r, c := 1+int(p.byte()%3), 1+int(p.byte()%3)
		x := mat.NewDense(r, c, p.floats(r*c))
		push(graph.MatVec(x, s.node()), fmt.Sprintf("MatVec(%d×%d)", r, c))
	case 14:
		name := s.name()
		s.b.Deterministic(name, s.node())
		s.trace = append(s.trace, fmt.Sprintf("Deterministic(%q)", name))
	case 15:
		push(graph.MatVec(nil, s.node()), "MatVec(nil)")
	case 16:
		s.b.Marginalise(s.node())
		s.trace = append(s.trace, "Marginalise")
	}
}

// FuzzBuild decodes fuzzer bytes into a small builder program (constants and
// data with NaN, ±Inf and negative values, every distribution and op, plates,
// indices in and out of range, repeated and invalid names, summed-out latents) and
// runs it. Build
// must return a model or an error, never panic; a built model's Init, Score on
// every site (at the initial state and at a decoded one), LogJoint, Derive and
// Neighbors must not panic either.
func FuzzBuild(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 0, 2, 5, 2, 0, 0, 1, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 512 {
			return
		}
		s := &fuzzBuilder{p: &fuzzProg{b: data}, b: graph.New()}
		for steps := 0; steps < 24 && len(s.p.b) > 0; steps++ {
			s.step()
		}
		checkFuzzBuild(t, s, data)
	})
}

// maxFuzzValues is the most values of a discrete site whose conditional the
// fuzz targets score value by value: ScoreValues is linear in the values, and a
// Binomial latent of 10⁶ trials, nine of them, took 16 s per input (the fuzzer
// reported it hung).
const maxFuzzValues = 1 << 12

// checkFuzzBuild builds the decoded program s and checks what FuzzBuild says.
func checkFuzzBuild(t *testing.T, s *fuzzBuilder, data []byte) {
	m, err := s.b.Build()
	if err != nil {
		t.Logf("Build: %v", err)
		if m != nil {
			t.Fatalf("Build returned a model with error %v", err)
		}
		if !strings.HasPrefix(err.Error(), "graph: ") && !strings.HasPrefix(err.Error(), "dist: ") {
			t.Fatalf("Build error without a package prefix: %v\ncalls: %v", err, s.trace)
		}
		return
	}
	if m == nil {
		t.Fatalf("Build returned neither a model nor an error\ncalls: %v", s.trace)
	}
	sites := m.Sites()
	dim := 0
	for _, st := range sites {
		if st.Size < 1 {
			t.Fatalf("site %q has size %d\ncalls: %v", st.Name, st.Size, s.trace)
		}
		dim += st.Size
	}
	x := make([]float64, dim)
	if err := m.Init(rand.New(rand.NewPCG(uint64(len(data)), 9)), x); err != nil {
		t.Logf("Init: %v", err)
		if !strings.HasPrefix(err.Error(), "graph: ") {
			t.Fatalf("Init error without the package prefix: %v", err)
		}
		return
	}
	if err := m.Init(rand.New(rand.NewPCG(1, 2)), make([]float64, dim+1)); err == nil {
		t.Fatalf("Init accepted a state of %d coordinates for %d", dim+1, dim)
	}
	sc := m.NewScorer()
	score := func(x []float64) {
		for i, st := range sites {
			var grad, hess []float64
			if st.Support != nmc.Discrete {
				grad, hess = make([]float64, st.Size), make([]float64, st.Size*st.Size)
			}
			sc.Score(x, i, grad, hess)
			sc.Score(x, i, nil, nil)
			if vs, ok := sc.(nmc.ValuesScorer); ok && st.Support == nmc.Discrete && st.NumValues > 0 && st.NumValues <= maxFuzzValues {
				vs.ScoreValues(x, i, make([]float64, st.NumValues))
			}
			_ = m.Neighbors(i)
			_ = m.Blanket(i)
		}
		sc.LogJoint(x)
		dst := make([]float64, len(m.DerivedNames()))
		m.Derive(x, dst)
	}
	score(x)
	// A state decoded from the rest of the bytes, in or out of the support.
	y := append([]float64(nil), x...)
	for i := range y {
		if len(s.p.b) == 0 {
			break
		}
		y[i] = s.p.float()
	}
	score(y)
	for _, st := range sites {
		base, _, _ := strings.Cut(st.Name, "[")
		off, size, err := m.Offset(base)
		if err != nil {
			// A single scalar declared with an indexed name ("a[1]") is a family of
			// that name.
			base = st.Name
			off, size, err = m.Offset(base)
		}
		if err != nil {
			t.Fatalf("Offset(%q) of site %q: %v", base, st.Name, err)
		}
		if off < 0 || size < 1 || off+size > dim {
			t.Fatalf("Offset(%q) = %d, %d for a state of %d", base, off, size, dim)
		}
	}
}

// FuzzGroups decodes a builder program as FuzzBuild does, then one to three groups
// of earlier nodes (latent or not, nil now and then, dilated about 0 or about
// another node, or shifted, with decoded rates) and builds the model. Build must
// return a model or an error naming the package, never panic; a built model's
// orbit scores, with and without derivatives, at the initial state and at a
// decoded one, must not panic either.
func FuzzGroups(f *testing.F) {
	f.Add([]byte{5, 0, 2, 0, 0, 0, 6, 1, 3, 0, 0, 0, 0, 2, 0, 1, 0, 2, 1, 1, 3})
	f.Add([]byte{5, 2, 0, 0, 0, 1, 0, 0, 2, 0, 1, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 512 {
			return
		}
		s := &fuzzBuilder{p: &fuzzProg{b: data}, b: graph.New()}
		for steps := 0; steps < 12 && len(s.p.b) > 0; steps++ {
			s.step()
		}
		for g := 0; g < 1+int(s.p.byte()%3); g++ {
			var members []graph.GroupMember
			for i := 0; i < 1+int(s.p.byte()%3); i++ {
				n, rate := s.node(), s.p.float()
				switch s.p.byte() % 4 {
				case 0:
					members = append(members, graph.Dilate(n, rate))
				case 1:
					members = append(members, graph.DilateAbout(n, s.node(), rate))
				case 2:
					members = append(members, graph.Shift(n, rate))
				case 3:
					members = append(members, graph.ShiftOver(n, s.node(), rate))
				}
			}
			s.b.Group(fmt.Sprintf("g%d", s.p.byte()%3), members...)
			s.trace = append(s.trace, fmt.Sprintf("Group(%d members)", len(members)))
		}
		m, err := s.b.Build()
		if err != nil {
			if m != nil {
				t.Fatalf("Build returned a model with error %v", err)
			}
			if !strings.HasPrefix(err.Error(), "graph: ") && !strings.HasPrefix(err.Error(), "dist: ") {
				t.Fatalf("Build error without a package prefix: %v\ncalls: %v", err, s.trace)
			}
			return
		}
		x := make([]float64, nmc.Dim(m.Sites()))
		if err := m.Init(rand.New(rand.NewPCG(uint64(len(data)), 9)), x); err != nil {
			return
		}
		sc := m.NewScorer().(nmc.OrbitScorer)
		score := func(x []float64) {
			for g := range m.Groups() {
				var d [2]float64
				sc.ScoreOrbit(x, g, &d)
				sc.ScoreOrbit(x, g, nil)
				_ = m.OrbitBlanket(g)
			}
		}
		score(x)
		y := append([]float64(nil), x...)
		for i := range y {
			if len(s.p.b) == 0 {
				break
			}
			y[i] = s.p.float()
		}
		score(y)
	})
}
