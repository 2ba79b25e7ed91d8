package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/dist"
)

// forwardNodes declares a hidden Markov model of k states over len(y) steps whose
// forward algorithm is written with nodes, as a user without an HMM primitive
// would: per step and state f_t[j] = (Σ_i f̂_{t−1}[i]·A[i][j])·e_t[j], the scaled
// forward variables f̂_t[j] = f_t[j]/c_t with c_t = Σ_j f_t[j], the log-likelihood
// Σ_t log c_t (a Factor), emissions e_t[j] = exp(−z²/2)/sigma with
// z = (y_t − mu_j)/sigma (the normal density without its constant), and a uniform
// initial distribution. Each step reads every node of the step before: evaluated
// as trees, the score of step t would cost kᵗ. Latents: mu (k states), sigma and
// the transition rows A[i] (Dirichlet(1, …, 1)).
func forwardNodes(y []float64, k int) *Builder {
	b := New()
	mu := b.Latent("mu", Normal(C(0), C(5)), k)
	sigma := b.Latent("sigma", HalfNormal(C(2)))
	ones := make([]float64, k)
	for i := range ones {
		ones[i] = 1
	}
	rows := b.Latent("A", Dirichlet(Vec(ones...)), k)
	comps := Components(rows)
	a := make([][]*Node, k)
	muj := make([]*Node, k)
	for i := range a {
		a[i] = make([]*Node, k)
		for j := range a[i] {
			a[i][j] = Index(comps, []int{i*k + j})
		}
		muj[i] = Index(mu, []int{i})
	}
	logc := make([]*Node, len(y))
	prev := make([]*Node, k)
	f := make([]*Node, k)
	for t, yt := range y {
		for j := range k {
			z := Div(Sub(C(yt), muj[j]), sigma)
			e := Div(Exp(Mul(C(-0.5), Pow(z, 2))), sigma)
			if t == 0 {
				f[j] = Mul(C(1/float64(k)), e)
				continue
			}
			in := Mul(prev[0], a[0][j])
			for i := 1; i < k; i++ {
				in = Add(in, Mul(prev[i], a[i][j]))
			}
			f[j] = Mul(in, e)
		}
		c := f[0]
		for j := 1; j < k; j++ {
			c = Add(c, f[j])
		}
		for j := range k {
			prev[j] = Div(f[j], c)
		}
		logc[t] = Log(c)
	}
	b.Factor("loglik", Concat(logc...))
	return b
}

// forwardLogLik is forwardNodes's log-likelihood Σ_t log c_t by the same
// recursion in float64s, at mu, sigma and the transition matrix a (row-major).
func forwardLogLik(y []float64, k int, mu []float64, sigma float64, a []float64) float64 {
	prev, f := make([]float64, k), make([]float64, k)
	ll := 0.0
	for t, yt := range y {
		c := 0.0
		for j := range k {
			z := (yt - mu[j]) / sigma
			e := math.Exp(-0.5*z*z) / sigma
			in := 1 / float64(k)
			if t > 0 {
				in = 0
				for i := range k {
					in += prev[i] * a[i*k+j]
				}
			}
			f[j] = in * e
			c += f[j]
		}
		for j := range k {
			prev[j] = f[j] / c
		}
		ll += math.Log(c)
	}
	return ll
}

// forwardData simulates n observations of a k-state hidden Markov chain with
// sticky transitions and normal emissions of means 0, 3, 6, … and scale 1.
func forwardData(rng *rand.Rand, n, k int) []float64 {
	y := make([]float64, n)
	s := 0
	for t := range y {
		if t > 0 && rng.Float64() < 0.2 {
			s = rng.IntN(k)
		}
		y[t] = 3*float64(s) + rng.NormFloat64()
	}
	return y
}

// reachableElems counts the distinct elements of nodes other than constants and
// latents that the factor elements bl read (a walk of its own over the node
// elements, each once, by the operations' reads).
func reachableElems(m *Model, bl []entry) int {
	type key struct {
		n *Node
		e int
	}
	seen := map[key]bool{}
	var walk func(n *Node, e int)
	walk = func(n *Node, e int) {
		if n.op == opConst || n.op == opLatent || seen[key{n, e}] {
			return
		}
		seen[key{n, e}] = true
		switch n.op {
		case opSum, opMatVec:
			a := n.args[0]
			if n.op == opMatVec && a.op == opLatent {
				return
			}
			for i := range a.length {
				walk(a, i)
			}
		case opIndex:
			walk(n.args[0], n.idx[e])
		case opCustom:
			n.impl.reads(n, e, walk)
		default:
			for _, a := range n.args {
				walk(a, elem(a, e))
			}
		}
	}
	for _, en := range bl {
		for _, p := range m.factors[en.f].d.params {
			walk(p, elem(p, int(en.e)))
		}
	}
	return len(seen)
}

// TestForwardNodesScale builds the forward algorithm of a 5-state hidden Markov
// model over 2,000 steps written with nodes (about 180,000 node elements, each
// step reading all of the previous step's nodes) and scores every site: evaluated
// as trees it would never finish. It checks that one score evaluates each node
// element of the site's blanket exactly once, and the log-likelihood against the
// same recursion in float64s.
func TestForwardNodesScale(t *testing.T) {
	const n, k = 2000, 5
	y := forwardData(rand.New(rand.NewPCG(1, 2)), n, k)
	start := time.Now()
	m, err := forwardNodes(y, k).Build()
	if err != nil {
		t.Fatal(err)
	}
	build := time.Since(start)
	sites := m.Sites()
	if len(sites) != 2*k+1 {
		t.Fatalf("%d sites, want %d", len(sites), 2*k+1)
	}
	x := make([]float64, nmc.Dim(sites))
	if err := m.Init(rand.New(rand.NewPCG(3, 4)), x); err != nil {
		t.Fatal(err)
	}
	for j := range k {
		x[j] = 3 * float64(j) // the means the data were drawn from
	}
	sc := m.newScorer()
	start = time.Now()
	for i, s := range sites {
		g, h := make([]float64, s.Size), make([]float64, s.Size*s.Size)
		before := sc.evals
		f := sc.Score(x, i, g, h)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			t.Fatalf("site %s: score %v", s.Name, f)
		}
		got, want := sc.evals-before, reachableElems(m, m.blanket[i])
		if got != uint64(want) {
			t.Errorf("site %s: %d node elements evaluated, %d distinct ones read", s.Name, got, want)
		}
		if want < n*k {
			t.Errorf("site %s: its blanket reads %d node elements, want at least %d", s.Name, want, n*k)
		}
	}
	t.Logf("%d node elements of %d nodes; build %v, one score of each of the %d sites %v",
		reachableElems(m, m.blanket[k]), len(m.plan.nodes), build, len(sites), time.Since(start))

	// sigma's score is its prior and the whole log-likelihood.
	a := x[k+1:]
	want := forwardLogLik(y, k, x[:k], x[k], a) + dist.HalfNormal{}.LogProb([]float64{x[k], 2}, 1)
	if got := sc.Score(x, k, nil, nil); math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Errorf("sigma's score %v, by the recursion in float64s %v", got, want)
	}
}

// TestForwardNodesDerivs checks the forward algorithm written with nodes (3
// states, 12 steps) against finite differences, with its transition rows'
// dense Hessians memoised.
func TestForwardNodesDerivs(t *testing.T) {
	y := forwardData(rand.New(rand.NewPCG(5, 6)), 12, 3)
	m, err := forwardNodes(y, 3).Build()
	if err != nil {
		t.Fatal(err)
	}
	st := checkModelDerivs(t, "forward", m, rand.New(rand.NewPCG(7, 8)), 4, 200)
	if st.points < 4 {
		t.Fatalf("checked %d points, want 4", st.points)
	}
}

// BenchmarkForwardNodes measures the declaration and build of the 2,000-step,
// 5-state forward algorithm written with nodes, its build alone (the declared
// builder built again), and one score with derivatives of each kind of site (a
// state's mean, the scale, a transition row of 5 coordinates).
func BenchmarkForwardNodes(b *testing.B) {
	const n, k = 2000, 5
	y := forwardData(rand.New(rand.NewPCG(1, 2)), n, k)
	b.Run("declare+build", func(b *testing.B) {
		b.ReportAllocs()
		cpuLoop(b, func() {
			if _, err := forwardNodes(y, k).Build(); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("build", func(b *testing.B) {
		bd := forwardNodes(y, k)
		b.ReportAllocs()
		cpuLoop(b, func() {
			if _, err := bd.Build(); err != nil {
				b.Fatal(err)
			}
		})
	})
	m, err := forwardNodes(y, k).Build()
	if err != nil {
		b.Fatal(err)
	}
	x := make([]float64, nmc.Dim(m.Sites()))
	if err := m.Init(rand.New(rand.NewPCG(3, 4)), x); err != nil {
		b.Fatal(err)
	}
	for j := range k {
		x[j] = 3 * float64(j)
	}
	for _, i := range []int{0, k, k + 1} {
		s := m.Sites()[i]
		b.Run(fmt.Sprintf("score/%s", s.Name), func(b *testing.B) {
			sc := m.NewScorer()
			g, h := make([]float64, s.Size), make([]float64, s.Size*s.Size)
			b.ReportAllocs()
			cpuLoop(b, func() { sinkF += sc.Score(x, i, g, h) })
		})
	}
}

// TestDoublingChain builds and scores expressions in which each of 64 steps reads
// the step before twice, x_t = (x_{t−1} + x_{t−1})·½, from a latent and from a
// constant: as trees they have 2⁶⁴ paths, so Build's walks (constness, the
// constant parameters' values, the sites an element depends on) and the scores
// finish only if they visit each node once. The values are the latent's and 1.
func TestDoublingChain(t *testing.T) {
	const steps = 64
	b := New()
	mu := b.Latent("mu", Normal(C(0), C(1)))
	x, c := mu, C(1)
	for range steps {
		x = Mul(Add(x, x), C(0.5))
		c = Mul(Add(c, c), C(0.5))
	}
	b.Observe("y", Normal(x, c), []float64{0.3})
	b.Deterministic("x", x)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	sc := m.newScorer()
	g, h := make([]float64, 1), make([]float64, 1)
	const at = 0.7
	f := sc.Score([]float64{at}, 0, g, h)
	// N(at | 0, 1) + N(0.3 | at, 1) and its derivatives in at.
	want := -0.5*at*at - 0.5*(0.3-at)*(0.3-at) - 2*logSqrt2PiTest
	if !relClose(f, want, 1e-12) || !relClose(g[0], -at+(0.3-at), 1e-12) || !relClose(h[0], -2, 1e-12) {
		t.Errorf("score (%v, %v, %v), want (%v, %v, -2)", f, g[0], h[0], want, -at+(0.3-at))
	}
	if n := sc.evals; n > 4*steps {
		t.Errorf("%d node elements evaluated, want at most %d", n, 4*steps)
	}
	d := make([]float64, 1)
	m.Derive([]float64{at}, d)
	if d[0] != at {
		t.Errorf("derived x = %v, want %v", d[0], at)
	}
}
