package graph

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/dist"
)

// buildDSAugmented declares the Dawid-Skene model on d with the classes summed out
// and theta augmented (and pi, when augPi).
func buildDSAugmented(t testing.TB, d dsData, augPi bool) *Model {
	t.Helper()
	b, pi, z, theta := declareDS(d)
	b.Marginalise(z)
	b.Augment(theta)
	if augPi {
		b.Augment(pi)
	}
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAugmentedScorer checks the two scorers of an augmented model: its own scores
// are those of the model without Augment, and its augmented scorer's are those of
// the model with nothing summed out, bit for bit, at random states: for
// Dawid-Skene and for a scale-mixture regression (matrix-vector products and a
// linear factor in the blanket).
func TestAugmentedScorer(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	d := makeDS(rng, 30, 4, 3, 3)
	checkAugmentedScorer(t, rng, buildDSAugmented(t, d, false), buildDS(t, d, true), buildDS(t, d, false), "theta[")
	b, z, s := declareMixtureRegression()
	b.Marginalise(z)
	b.Augment(s)
	augReg, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	checkAugmentedScorer(t, rng, augReg, buildMixtureRegression(t, true), buildMixtureRegression(t, false), "s[")
}

// checkAugmentedScorer checks aug's scorers against marg's and expl's (see
// TestAugmentedScorer); the augmented sites are those named with prefix.
func checkAugmentedScorer(t *testing.T, rng *rand.Rand, aug, marg, expl *Model, prefix string) {
	t.Helper()
	sites := aug.Sites()
	if !slices.EqualFunc(sites, expl.Sites(), func(a, b nmc.Site) bool { return a.Name == b.Name && a.Size == b.Size }) {
		t.Fatal("the augmented model's sites differ from the explicit model's")
	}
	var want []int
	for i, s := range sites {
		if strings.HasPrefix(s.Name, prefix) {
			want = append(want, i)
		}
	}
	if got := aug.AugmentedSites(); !slices.Equal(got, want) {
		t.Fatalf("AugmentedSites() = %v, want the %s… sites %v", got, prefix, want)
	}
	if marg.AugmentedSites() != nil || marg.NewAugmentedScorer() != nil {
		t.Error("a model without Augment reports augmented sites or a scorer")
	}
	x := make([]float64, nmc.Dim(sites))
	off := nmc.Offsets(sites)
	pairs := []struct {
		name string
		a, b nmc.Scorer
	}{{"own", aug.NewScorer(), marg.NewScorer()}, {"augmented", aug.NewAugmentedScorer(), expl.NewScorer()}}
	same := func(a, b []float64) bool {
		return slices.EqualFunc(a, b, func(u, v float64) bool { return math.Float64bits(u) == math.Float64bits(v) })
	}
	for range 20 {
		if err := aug.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		for _, p := range pairs {
			for i, s := range sites {
				if s.Support == nmc.Discrete && s.Marginalised && p.name == "own" {
					continue
				}
				k := s.Size
				ga, ha := make([]float64, k), make([]float64, k*k)
				gb, hb := make([]float64, k), make([]float64, k*k)
				fa, fb := p.a.Score(x, i, ga, ha), p.b.Score(x, i, gb, hb)
				if !same([]float64{fa}, []float64{fb}) || !same(ga, gb) || !same(ha, hb) {
					t.Fatalf("%s scorer, site %s at %v: %v %v %v, want %v %v %v", p.name, s.Name, x[off[i]:off[i]+k], fa, ga, ha, fb, gb, hb)
				}
			}
			if la, lb := p.a.LogJoint(x), p.b.LogJoint(x); math.Float64bits(la) != math.Float64bits(lb) {
				t.Fatalf("%s scorer: log joint %v, want %v", p.name, la, lb)
			}
		}
	}
}

// TestAugmentBuildErrors checks the declarations Build refuses.
func TestAugmentBuildErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2))
	d := makeDS(rng, 10, 2, 2, 2)
	cases := []struct {
		name string
		decl func() *Builder
		want string
	}{
		{"nothing summed out", func() *Builder {
			b, _, _, theta := declareDS(d)
			b.Augment(theta)
			return b
		}, `Augment "theta": the model sums out no latent`},
		{"discrete", func() *Builder {
			b := New()
			w := b.Latent("w", Dirichlet(Vec(1, 1)))
			z := b.Latent("z", Categorical(w), 2)
			k := b.Latent("k", Categorical(Vec(0.5, 0.5)))
			b.ObserveInts("y", Categorical(At(b.Latent("p", Dirichlet(Vec(1, 1)), 2), ByNode(z))), []int{0, 1})
			b.ObserveInts("u", Categorical(At(b.Latent("q", Dirichlet(Vec(1, 1)), 2), ByNode(k))), []int{1})
			b.Marginalise(z)
			b.Augment(k)
			return b
		}, `Augment "k": a discrete latent cannot be augmented`},
		{"summed out", func() *Builder {
			b, _, z, _ := declareDS(d)
			b.Marginalise(z)
			b.Augment(z)
			return b
		}, `Augment "z": the latent is summed out`},
		{"twice", func() *Builder {
			b, _, z, theta := declareDS(d)
			b.Marginalise(z)
			b.Augment(theta)
			b.Augment(theta)
			return b
		}, `Augment "theta"`},
		{"not a latent", func() *Builder {
			b, pi, z, _ := declareDS(d)
			b.Marginalise(z)
			b.Augment(Mul(pi, C(2)))
			return b
		}, "is not a latent variable"},
		{"nil", func() *Builder {
			b, _, z, _ := declareDS(d)
			b.Marginalise(z)
			b.Augment(nil)
			return b
		}, "Augment: nil node"},
	}
	for _, c := range cases {
		_, err := c.decl().Build()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Build error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestDrawConditional checks the conjugate draws of the explicit Dawid-Skene
// model's confusion rows: each row's conditional concentrations make its score
// differ from the Dirichlet(α + n) log density by a constant (the same difference
// at random rows), the draws' means match (α + n)/Σ within 4.5 standard errors, and
// every other site (pi, the classes), an unwatched state and a summed-out model's
// rows are refused.
func TestDrawConditional(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	d := makeDS(rng, 40, 3, 3, 3)
	m := buildDS(t, d, false)
	sites := m.Sites()
	off := nmc.Offsets(sites)
	x := make([]float64, nmc.Dim(sites))
	if err := m.Init(rng, x); err != nil {
		t.Fatal(err)
	}
	sc := m.NewScorer().(*scorer)
	sc.Watch(x)
	var dir dist.Dirichlet
	rows := 0
	for i, s := range sites {
		dst := make([]float64, s.Size)
		if !strings.HasPrefix(s.Name, "theta[") {
			if sc.DrawConditional(rng, x, i, dst) {
				t.Errorf("site %s: drawn, want refused", s.Name)
			}
			continue
		}
		rows++
		alpha := append([]float64(nil), sc.conjParams(x, i)...)
		if alpha == nil {
			t.Fatalf("site %s: no conjugate conditional", s.Name)
		}
		// Score − log Dirichlet(α + n) is the same at random rows.
		xi := x[off[i] : off[i]+s.Size]
		keep := append([]float64(nil), xi...)
		var first float64
		for r := range 5 {
			dir.Rand(rng, []float64{1, 1, 1}, 3, xi)
			diff := sc.Score(x, i, nil, nil) - dir.LogProb(append(append([]float64(nil), xi...), alpha...), 3)
			if r == 0 {
				first = diff
			} else if math.Abs(diff-first) > 1e-9*(1+math.Abs(first)) {
				t.Fatalf("site %s: score − log Dirichlet(%v) = %v at one row, %v at another", s.Name, alpha, first, diff)
			}
		}
		copy(xi, keep)
		// The draws' means.
		const n = 4000
		sum := make([]float64, 3)
		for range n {
			if !sc.DrawConditional(rng, x, i, dst) {
				t.Fatalf("site %s: refused", s.Name)
			}
			for c, v := range dst {
				sum[c] += v
			}
		}
		a0 := alpha[0] + alpha[1] + alpha[2]
		for c := range sum {
			mean := alpha[c] / a0
			se := math.Sqrt(mean * (1 - mean) / (a0 + 1) / n)
			if z := (sum[c]/n - mean) / se; math.Abs(z) > 4.5 {
				t.Errorf("site %s, category %d: mean %.4f, want %.4f (z = %.2f)", s.Name, c, sum[c]/n, mean, z)
			}
		}
	}
	if rows != 3*3 {
		t.Errorf("%d rows checked, want 9", rows)
	}
	// An unwatched state, and the summed-out model.
	other := append([]float64(nil), x...)
	theta := slices.IndexFunc(sites, func(s nmc.Site) bool { return strings.HasPrefix(s.Name, "theta[") })
	if sc.DrawConditional(rng, other, theta, make([]float64, 3)) {
		t.Error("an unwatched state: drawn, want refused")
	}
	ms := buildDS(t, d, true).NewScorer().(*scorer)
	ms.Watch(x)
	if ms.DrawConditional(rng, x, theta, make([]float64, 3)) {
		t.Error("a summed-out model's row: drawn, want refused")
	}
}

// TestAugmentMixture samples a two-component normal mixture with its classes
// summed out, once with every site's own steps and once with the means and the
// scale augmented (no conjugate draws for them: NMC steps scored given the drawn
// classes, with the exact MH ratio), and checks that the posterior means of the
// weights, means and scale agree within 4 combined Monte Carlo standard errors.
func TestAugmentMixture(t *testing.T) {
	if testing.Short() {
		t.Skip("samples two models (about 1 s)")
	}
	y := []float64{-2.6, -2.1, -1.4, -1.9, 0.3, 1.8, 2.2, 2.9, 2.4, 3.1}
	build := func(augment bool) *Model {
		b := New()
		w := b.Latent("w", Dirichlet(Vec(2, 2)))
		mu := b.Latent("mu", Normal(C(0), C(5)), 2)
		sigma := b.Latent("sigma", HalfNormal(C(2)))
		z := b.Latent("z", Categorical(w), len(y))
		b.Observe("y", Normal(At(mu, ByNode(z)), sigma), y)
		b.Marginalise(z)
		if augment {
			b.Augment(mu)
			b.Augment(sigma)
		}
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	opts := func(seed uint64) *nmc.Options { return &nmc.Options{Chains: 4, Draws: 4000, Warmup: 300, Seed: seed} }
	rs, err := nmc.Sample(context.Background(), build(false), opts(1))
	if err != nil {
		t.Fatal(err)
	}
	ra, err := nmc.Sample(context.Background(), build(true), opts(2))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range ra.Sites {
		if strings.HasPrefix(st.Name, "mu") || st.Name == "sigma" {
			if !strings.HasSuffix(st.Proposer, "-augmented") || st.Accepted == 0 {
				t.Errorf("%s: proposer %q, %d of %d accepted; want an augmented NMC step that moves", st.Name, st.Proposer, st.Accepted, st.Proposals)
			}
		}
	}
	for j, name := range rs.Draws.Names {
		if strings.HasPrefix(name, "z[") {
			continue
		}
		a, b := rs.Draws.Column(j), ra.Draws.Column(j)
		sa, err1 := diagnostics.MCSEMean(a)
		sb, err2 := diagnostics.MCSEMean(b)
		if err1 != nil || err2 != nil {
			t.Fatal(name, err1, err2)
		}
		if z := (mean2(a) - mean2(b)) / math.Hypot(sa, sb); math.Abs(z) > 4 {
			t.Errorf("%s: mean %.4f with own steps, %.4f augmented: z = %.2f", name, mean2(a), mean2(b), z)
		}
	}
}
