package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/internal/special"
)

// TestConstrainedDerivatives checks the scores of models with ordered and bounded
// latents — the transform, the prior at the constrained value and the log Jacobian,
// with the constrained values read by observations — against finite differences of
// the log joint at Init's starts.
func TestConstrainedDerivatives(t *testing.T) {
	y := []float64{-1.5, 0.2, 0.9, 2.5, -0.3, 1.1}
	group := []int{0, 1, 2, 2, 1, 0}
	cases := []struct {
		name  string
		build func(b *Builder)
	}{
		{"ordered", func(b *Builder) {
			mu := b.Ordered("mu", 3, Normal(C(0), C(3)))
			b.Observe("y", Normal(Index(mu, group), C(1)), y)
		}},
		{"ordered/latent-prior", func(b *Builder) {
			tau := b.Latent("tau", Gamma(C(3), C(1)))
			mu := b.Ordered("mu", 4, Normal(Data([]float64{-1, 0, 1, 2}), tau))
			b.Observe("y", Normal(Index(mu, []int{0, 1, 2, 3, 3, 0}), C(1)), y)
		}},
		{"positive-ordered", func(b *Builder) {
			r := b.PositiveOrdered("r", 3, Gamma(C(2), C(1)))
			b.Observe("y", Normal(C(0), Index(r, group)), y)
		}},
		{"positive-ordered/normal-prior", func(b *Builder) {
			r := b.PositiveOrdered("r", 2, Normal(C(1), C(2)))
			b.ObserveInts("n", Poisson(Index(r, []int{0, 1, 1})), []int{1, 4, 6})
		}},
		{"bounded/garch", func(b *Builder) {
			alpha := b.Latent("alpha", Uniform(C(0), C(1)))
			beta := b.Bounded("beta", C(0), Sub(C(1), alpha), Flat())
			b.Observe("y", Normal(Mul(C(3), alpha), Add(C(0.5), beta)), y)
		}},
		{"bounded/uniform-node-prior", func(b *Builder) {
			alpha := b.Latent("alpha", Beta(C(2), C(2)))
			beta := b.Bounded("beta", C(0), Sub(C(1), alpha), Uniform(C(0), Sub(C(1), alpha)))
			b.Observe("y", Normal(alpha, Add(C(0.5), beta)), y)
		}},
		{"bounded/lower-node", func(b *Builder) {
			mu := b.Latent("mu", Normal(C(0), C(1)))
			z := b.Bounded("z", mu, nil, Normal(mu, C(2)), 3)
			b.Observe("y", Normal(Index(z, group), C(1)), y)
		}},
		{"bounded/upper-node", func(b *Builder) {
			mu := b.Latent("mu", Normal(C(3), C(1)))
			z := b.Bounded("z", nil, mu, Normal(C(0), C(2)))
			b.Observe("y", Normal(z, C(1)), y)
		}},
		{"bounded/both-nodes-plate", func(b *Builder) {
			lo := b.Latent("lo", Normal(C(-2), C(0.5)))
			hi := b.Latent("hi", Normal(C(2), C(0.5)), 3)
			z := b.Bounded("z", lo, hi, Normal(C(0), C(1)), 3)
			b.Observe("y", Normal(Index(z, group), Exp(lo)), y)
		}},
		{"bounded/beta-prior-2d", func(b *Builder) {
			s := b.Latent("s", Gamma(C(5), C(5)))
			p := b.Bounded("p", C(0), C(1), Beta(s, C(2)), 2, 3)
			b.ObserveInts("k", Binomial(Ints([]int{5}), At(p, By([]int{0, 1, 1, 0, 1, 0}), By(group))), []int{1, 2, 5, 0, 3, 4})
		}},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := New()
			c.build(b)
			m, err := b.Build()
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			st := checkModelDerivs(t, c.name, m, rand.New(rand.NewPCG(9, uint64(ci))), 5, 50)
			if !t.Failed() && st.points < 5 {
				t.Errorf("only %d acceptable points out of 50 starts", st.points)
			}
		})
	}
}

// TestConstrainedValues checks the constrained values recorded with the draws, and
// the log joint (prior at the constrained value plus log Jacobian), against the
// transforms and densities computed by hand at a fixed state.
func TestConstrainedValues(t *testing.T) {
	b := New()
	b.Ordered("mu", 3, Normal(C(0), C(10)))
	b.PositiveOrdered("r", 2, Exponential(C(2)))
	alpha := b.Latent("alpha", Uniform(C(0), C(1)))
	b.Bounded("beta", C(0), Sub(C(1), alpha), Beta(C(2), C(3)))
	b.Bounded("lo", C(1.5), nil, Flat(), 2)
	b.Bounded("up", nil, C(-1), Normal(C(0), C(1)))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	wantNames := []string{"mu__raw[0]", "mu__raw[1]", "mu__raw[2]", "r__raw[0]", "r__raw[1]", "alpha", "beta__raw", "lo__raw[0]", "lo__raw[1]", "up__raw"}
	var names []string
	for _, s := range m.Sites() {
		names = append(names, s.Coords()...)
	}
	if strings.Join(names, " ") != strings.Join(wantNames, " ") {
		t.Errorf("site coordinates %v, want %v", names, wantNames)
	}
	wantDerived := "mu[0] mu[1] mu[2] r[0] r[1] beta lo[0] lo[1] up"
	if got := strings.Join(m.DerivedNames(), " "); got != wantDerived {
		t.Errorf("derived names %q, want %q", got, wantDerived)
	}
	x := []float64{-1.2, 0.4, 0.7, 0.3, 2, 0.35, 0.8, 0.5, 1.2, 0.1}
	got := make([]float64, len(m.DerivedNames()))
	m.Derive(x, got)
	mu0 := -1.2
	mu1 := mu0 + 0.4
	mu2 := mu1 + 0.7
	r0 := 0.3
	r1 := r0 + 2
	alpha0 := 0.35
	beta0 := (1 - alpha0) * 0.8
	lo0, lo1 := 1.5+0.5, 1.5+1.2
	up0 := -1 - 0.1
	want := []float64{mu0, mu1, mu2, r0, r1, beta0, lo0, lo1, up0}
	for i := range want {
		if !(math.Abs(got[i]-want[i]) <= 1e-15*math.Max(1, math.Abs(want[i]))) {
			t.Errorf("%s = %.17g, want %.17g", m.DerivedNames()[i], got[i], want[i])
		}
	}
	normal := func(v, mu, s float64) float64 {
		return -0.5*math.Log(2*math.Pi) - math.Log(s) - 0.5*(v-mu)*(v-mu)/(s*s)
	}
	lbeta, _ := math.Lgamma(2)
	l3, _ := math.Lgamma(3)
	l5, _ := math.Lgamma(5)
	betaLog := func(v float64) float64 { return math.Log(v) + 2*math.Log1p(-v) - (lbeta + l3 - l5) }
	// The raw coordinates are linear in the values: log Jacobians 0, except
	// log(1 − alpha) for beta's fraction of (0, 1 − alpha).
	lj := normal(mu0, 0, 10) + normal(mu1, 0, 10) + normal(mu2, 0, 10) + // mu
		math.Log(2) - 2*r0 + math.Log(2) - 2*r1 + // r
		0 + // alpha: Uniform(0, 1)
		betaLog(beta0) + math.Log(1-alpha0) + // beta
		0 + // lo: Flat
		normal(up0, 0, 1) // up
	if got := m.NewScorer().LogJoint(x); !(math.Abs(got-lj) <= 1e-13*math.Abs(lj)) {
		t.Errorf("log joint %.17g, want %.17g", got, lj)
	}
}

// TestConstrainedIndexedNames: scalar Bounded latents declared one by one with
// indexed names (a recursion's states) are recorded as a plate's would be, their
// raw sites with the suffix before the index.
func TestConstrainedIndexedNames(t *testing.T) {
	b := New()
	prev := C(1)
	for i := range 3 {
		prev = b.Bounded(fmt.Sprintf("h[%d]", i), C(0), prev, Flat())
	}
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var sites []string
	for _, s := range m.Sites() {
		sites = append(sites, s.Name)
	}
	if got, want := strings.Join(sites, " "), "h__raw[0] h__raw[1] h__raw[2]"; got != want {
		t.Errorf("sites %q, want %q", got, want)
	}
	if got, want := strings.Join(m.DerivedNames(), " "), "h[0] h[1] h[2]"; got != want {
		t.Errorf("derived %q, want %q", got, want)
	}
	y := make([]float64, 3)
	m.Derive([]float64{0.5, 0.5, 0.5}, y)
	if y[0] != 0.5 || y[1] != 0.25 || y[2] != 0.125 {
		t.Errorf("values %v, want [0.5 0.25 0.125]", y)
	}
}

// TestConstrainedInit checks that Init starts constrained latents by Stan's rule, x
// uniform on (−2, 2) on Stan's unconstrained scale: an ordered vector's first
// component in (−2, 2) (positive: in (e⁻², e²)) and its gaps in (e⁻², e²), a
// bounded value's fraction of its interval in (logistic(−2), logistic(2)) and a
// distance to one bound in (e⁻², e²); that the starts are valid and differ.
func TestConstrainedInit(t *testing.T) {
	b := New()
	b.Ordered("mu", 4, Normal(C(0), C(10)))
	b.PositiveOrdered("r", 3, Normal(C(0), C(1)))
	alpha := b.Latent("alpha", Uniform(C(0), C(1)))
	b.Bounded("beta", C(0), Sub(C(1), alpha), Flat())
	b.Bounded("g", C(5), nil, Normal(C(50), C(1)), 2)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, 4+3+1+1+2)
	y := make([]float64, len(m.DerivedNames()))
	lo, hi := math.Exp(-2), math.Exp(2)
	in := func(v, a, b float64) bool { return v > a && v < b }
	distinct := map[float64]bool{}
	for range 200 {
		if err := m.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		m.Derive(x, y)
		mu, r, beta, g := y[0:4], y[4:7], y[7], y[8:10]
		ok := in(x[0], -2, 2) && in(x[4], lo, hi) && in(x[8], special.Logistic(-2), special.Logistic(2)) &&
			in(x[9], lo, hi) && in(x[10], lo, hi)
		for _, gap := range []float64{x[1], x[2], x[3], x[5], x[6]} {
			ok = ok && in(gap, lo, hi)
		}
		if !ok {
			t.Fatalf("start %v outside Stan's rule", x)
		}
		for i := 1; i < 4; i++ {
			ok = ok && mu[i] > mu[i-1]
		}
		ok = ok && r[0] > 0 && r[1] > r[0] && r[2] > r[1] && beta > 0 && beta < 1-x[7] && g[0] > 5 && g[1] > 5
		if !ok {
			t.Fatalf("values %v at the start %v outside their constraints", y, x)
		}
		if lj := m.NewScorer().LogJoint(x); math.IsInf(lj, 0) || math.IsNaN(lj) {
			t.Fatalf("log joint %v at the start %v", lj, x)
		}
		distinct[x[1]] = true
	}
	if len(distinct) != 200 {
		t.Errorf("%d distinct starts of 200", len(distinct))
	}
}

// TestConstrainedErrors checks that Build names the latent and the problem.
func TestConstrainedErrors(t *testing.T) {
	cases := []struct {
		name  string
		build func(b *Builder)
		want  string
	}{
		{"ordered-size", func(b *Builder) { b.Ordered("mu", 1, Normal(C(0), C(1))) }, `ordered "mu": size 1, want at least 2`},
		{"ordered-positive-prior", func(b *Builder) { b.Ordered("mu", 2, Gamma(C(2), C(1))) }, `ordered "mu": its Gamma prior has support (0, ∞), but the latent takes every real ordered vector (PositiveOrdered`},
		{"positive-ordered-interval", func(b *Builder) { b.PositiveOrdered("r", 3, Beta(C(2), C(1))) }, `positive ordered "r": its Beta prior has support (0, 1)`},
		{"ordered-vector-prior", func(b *Builder) { b.Ordered("mu", 3, Dirichlet(Vec(1, 1, 1))) }, `ordered "mu": Dirichlet is not a scalar distribution`},
		{"ordered-discrete-prior", func(b *Builder) { b.Ordered("mu", 3, Poisson(C(1))) }, `ordered "mu": Poisson is not a continuous distribution`},
		{"ordered-param-length", func(b *Builder) { b.Ordered("mu", 3, Normal(Vec(0, 1), C(1))) }, `ordered "mu": graph: Normal parameter mu has width 2`},
		{"ordered-param-elements", func(b *Builder) { b.Ordered("mu", 3, Normal(Data([]float64{0, 1}), C(1))) }, `ordered "mu": parameter mu has 2 elements, want 1 or 3`},
		{"ordered-bad-param", func(b *Builder) { b.Ordered("mu", 3, Normal(C(0), C(-1))) }, `ordered "mu", element 0`},
		{"ordered-nil", func(b *Builder) { b.Ordered("mu", 3, nil) }, `ordered "mu": nil distribution`},
		{"ordered-duplicate", func(b *Builder) {
			b.Latent("mu", Normal(C(0), C(1)))
			b.Ordered("mu", 3, Normal(C(0), C(1)))
		}, `duplicate variable name "mu"`},
		{"raw-name-taken", func(b *Builder) {
			b.Latent("mu__raw", Normal(C(0), C(1)))
			b.Ordered("mu", 3, Normal(C(0), C(1)))
		}, `duplicate variable name "mu__raw"`},
		{"bounded-none", func(b *Builder) { b.Bounded("z", nil, nil, Flat()) }, `bounded "z": no bound`},
		{"bounded-width", func(b *Builder) { b.Bounded("z", Vec(0, 1), nil, Flat()) }, `bounded "z": lower bound has 1 elements of width 2`},
		{"bounded-length", func(b *Builder) { b.Bounded("z", nil, Data([]float64{1, 2}), Flat(), 3) }, `bounded "z": upper bound has 2 elements of width 1, want 1 or 3 scalar elements`},
		{"bounded-order", func(b *Builder) { b.Bounded("z", C(1), Data([]float64{2, 1}), Flat(), 2) }, `bounded "z", element 1: lower bound 1 is not below the upper bound 1`},
		{"bounded-beta-open", func(b *Builder) { b.Bounded("z", C(0), nil, Beta(C(2), C(2))) }, `bounded "z", element 0: its Beta prior has support (0, 1), but the latent's bounds are (0, +Inf); give the missing bound`},
		{"bounded-beta-wide", func(b *Builder) { b.Bounded("z", C(0), C(2), Beta(C(2), C(2))) }, `its Beta prior has support (0, 1), but the latent's bounds are (0, 2)`},
		{"bounded-gamma-below", func(b *Builder) { b.Bounded("z", C(-1), C(2), Gamma(C(2), C(2))) }, `its Gamma prior has support (0, ∞), but the latent's bounds are (-1, 2)`},
		{"bounded-halfflat-open", func(b *Builder) { b.Bounded("z", nil, C(2), HalfFlat()) }, `its HalfFlat prior has support (0, ∞), but the latent's bounds are (-Inf, 2)`},
		{"bounded-plate", func(b *Builder) { b.Bounded("z", C(0), nil, Flat(), 2, 0) }, `bounded "z": plate dimension 0 must be positive`},
		{"bounded-bound-error", func(b *Builder) { b.Bounded("z", C(math.NaN()), nil, Flat()) }, `bounded "z": lower bound: graph: C: constant is NaN`},
		{"ordered-indexed-name", func(b *Builder) { b.Ordered("mu[1]", 2, Normal(C(0), C(1))) }, `invalid variable name "mu[1]": an index is accepted in the name of one scalar only`},
		{"bounded-plate-indexed-name", func(b *Builder) { b.Bounded("z[1]", C(0), nil, Flat(), 2) }, `invalid variable name "z[1]"`},
		{"uniform-node-bounds", func(b *Builder) {
			a := b.Latent("a", Uniform(C(0), C(1)))
			b.Latent("z", Uniform(C(0), Sub(C(1), a)))
		}, `latent "z": the bounds of its Uniform prior must be constant; for bounds given by nodes declare it with Bounded`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := New()
			b.Latent("other", Normal(C(0), C(1)))
			c.build(b)
			_, err := b.Build()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestPrimitivesNoAllocation: once warm, scores with derivatives, the log joint,
// Derive and Init of a model with the new nodes and constrained latents allocate
// nothing. Not parallel: AllocsPerRun needs the process to itself.
func TestPrimitivesNoAllocation(t *testing.T) {
	if raceDetector {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	b := New()
	alpha := b.Latent("alpha", Uniform(C(0), C(1)))
	beta := b.Bounded("beta", C(0), Sub(C(1), alpha), Flat())
	mu := b.Ordered("mu", 3, Normal(C(0), C(5)))
	r := b.PositiveOrdered("r", 2, Gamma(C(2), C(1)))
	v := b.Vector("v", 3, Normal(C(0), C(1)))
	y := Data([]float64{-1, 0.5, 2, 3})
	idx := []int{0, 1, 2, 2}
	b.Factor("mix", LogMix(Add(C(0.1), Mul(C(0.8), alpha)), LogDensity(Normal(Index(mu, idx), Index(r, []int{0, 1, 0, 1})), y), LogDensity(StudentT(C(3), beta, C(1)), y)))
	b.Factor("lse", LogSumExp(Index(v, idx), Mul(beta, y), Index(mu, []int{0, 1, 2, 0})))
	b.Factor("lse1", Add(LogSumExp(Stack(alpha, beta, Index(v, []int{1}))), Neg(Exp(LogSumExp(v)))))
	b.Deterministic("d", LogSumExp(mu))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 3))
	x := make([]float64, m.dim)
	if err := m.Init(rng, x); err != nil {
		t.Fatal(err)
	}
	sc := m.NewScorer()
	g, h := make([]float64, 3), make([]float64, 9)
	derived := make([]float64, len(m.DerivedNames()))
	calls := []struct {
		name string
		call func()
	}{
		{"LogJoint", func() { sc.LogJoint(x) }},
		{"Derive", func() { m.Derive(x, derived) }},
		{"Init", func() {
			if err := m.Init(rng, x); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for i := range m.Sites() {
		calls = append(calls, struct {
			name string
			call func()
		}{m.Sites()[i].Name, func() { sc.Score(x, i, g, h) }})
	}
	for _, c := range calls {
		c.call()
		if a := testing.AllocsPerRun(50, c.call); a != 0 {
			t.Errorf("%s: %v allocations per call, want 0", c.name, a)
		}
	}
}
