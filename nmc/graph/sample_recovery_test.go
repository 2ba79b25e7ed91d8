package graph_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// cdfer is a univariate distribution with a CDF.
type cdfer interface{ CDF(x float64) float64 }

// marginalCheck is one scalar function of the state whose exact posterior
// distribution is known.
type marginalCheck struct {
	what string
	f    func(x []float64) float64
	dist cdfer
}

// recoveryCase is a conjugate model declared with the graph API, a way to draw
// dispersed starting states anywhere in the support, and the exact posterior
// distributions of some scalar functions of the state.
type recoveryCase struct {
	name   string
	build  func(b *graph.Builder)
	start  func(rng *rand.Rand, x []float64)
	checks []marginalCheck
}

// coord returns the function reading coordinate i of the state.
func coord(i int) func(x []float64) float64 { return func(x []float64) float64 { return x[i] } }

// recoveryCases are the exact-recovery examples of DESIGN.md §3 (and a scalar
// Normal-Normal): with γ = 1 each site's proposal is its exact conditional posterior,
// whatever the current point.
func recoveryCases() []recoveryCase {
	cov := mat.NewSymDense(2, []float64{1, 0.8, 0.8, 1})
	return []recoveryCase{
		{
			// mu ~ N(0, 2), y = (1, 2) ~ N(mu, 1): precision 1/4 + 2 = 9/4, mean 3/(9/4).
			name: "normal-normal",
			build: func(b *graph.Builder) {
				mu := b.Latent("mu", graph.Normal(graph.C(0), graph.C(2)))
				b.Observe("y", graph.Normal(mu, graph.C(1)), []float64{1, 2})
			},
			start: func(rng *rand.Rand, x []float64) { x[0] = 40 * (rng.Float64() - 0.5) },
			checks: []marginalCheck{
				{"mu", coord(0), distuv.Normal{Mu: 4.0 / 3, Sigma: 2.0 / 3}},
			},
		},
		{
			// mu ~ MVN([1,1], S), y = [2,2] ~ MVN(mu, S), S = [[1,.8],[.8,1]]:
			// posterior N([1.5,1.5], S/2); mu[0] − mu[1] ~ N(0, √((1 − .8)·2/2)).
			name: "mvn-mvn",
			build: func(b *graph.Builder) {
				mu := b.Latent("mu", graph.MultivariateNormal(graph.Vec(1, 1), cov))
				b.Observe("y", graph.MultivariateNormal(mu, cov), []float64{2, 2})
			},
			start: func(rng *rand.Rand, x []float64) {
				x[0], x[1] = 40*(rng.Float64()-0.5), 40*(rng.Float64()-0.5)
			},
			checks: []marginalCheck{
				{"mu[0]", coord(0), distuv.Normal{Mu: 1.5, Sigma: math.Sqrt(0.5)}},
				{"mu[1]", coord(1), distuv.Normal{Mu: 1.5, Sigma: math.Sqrt(0.5)}},
				{"mu[0]-mu[1]", func(x []float64) float64 { return x[0] - x[1] }, distuv.Normal{Mu: 0, Sigma: math.Sqrt(0.2)}},
			},
		},
		{
			// lambda ~ Gamma(2, rate 1), y = (3, 5, 0, 2) ~ Poisson: Gamma(12, rate 5).
			name: "gamma-poisson",
			build: func(b *graph.Builder) {
				l := b.Latent("lambda", graph.Gamma(graph.C(2), graph.C(1)))
				b.ObserveInts("y", graph.Poisson(l), []int{3, 5, 0, 2})
			},
			start: func(rng *rand.Rand, x []float64) { x[0] = math.Exp(8 * (rng.Float64() - 0.5)) },
			checks: []marginalCheck{
				{"lambda", coord(0), distuv.Gamma{Alpha: 12, Beta: 5}},
			},
		},
		{
			// tau ~ Gamma(2, rate 1), y = (1, −0.5, 2) ~ N(0, 1/√tau):
			// Gamma(2 + 3/2, rate 1 + (1 + 0.25 + 4)/2).
			name: "gamma-normal-precision",
			build: func(b *graph.Builder) {
				tau := b.Latent("tau", graph.Gamma(graph.C(2), graph.C(1)))
				b.Observe("y", graph.Normal(graph.C(0), graph.Pow(tau, -0.5)), []float64{1, -0.5, 2})
			},
			start: func(rng *rand.Rand, x []float64) { x[0] = math.Exp(8 * (rng.Float64() - 0.5)) },
			checks: []marginalCheck{
				{"tau", coord(0), distuv.Gamma{Alpha: 3.5, Beta: 3.625}},
			},
		},
		{
			// p ~ Beta(2, 2), 5 heads in 5 Binomial trials: Beta(7, 2).
			name: "beta-binomial",
			build: func(b *graph.Builder) {
				p := b.Latent("p", graph.Beta(graph.C(2), graph.C(2)))
				b.ObserveInts("s", graph.Binomial(graph.Ints([]int{5}), p), []int{5})
			},
			start: func(rng *rand.Rand, x []float64) { x[0] = 0.001 + 0.998*rng.Float64() },
			checks: []marginalCheck{
				{"p", coord(0), distuv.Beta{Alpha: 7, Beta: 2}},
			},
		},
		{
			// p ~ Dirichlet(1, 2, 3), counts (2, 2, 3): Dirichlet(3, 4, 6), whose
			// components are Beta(α_i, 13 − α_i).
			name: "dirichlet-categorical",
			build: func(b *graph.Builder) {
				p := b.Latent("p", graph.Dirichlet(graph.Vec(1, 2, 3)))
				b.ObserveInts("y", graph.Categorical(p), []int{0, 0, 1, 2, 2, 2, 1})
			},
			start: func(rng *rand.Rand, x []float64) {
				var s float64
				for i := range 3 {
					x[i] = math.Exp(6 * (rng.Float64() - 0.5))
					s += x[i]
				}
				for i := range 3 {
					x[i] /= s
				}
			},
			checks: []marginalCheck{
				{"p[0]", coord(0), distuv.Beta{Alpha: 3, Beta: 10}},
				{"p[1]", coord(1), distuv.Beta{Alpha: 4, Beta: 9}},
				{"p[2]", coord(2), distuv.Beta{Alpha: 6, Beta: 7}},
			},
		},
	}
}

// ksDistance returns sup_x |F_n(x) − F(x)| of the sample v (sorted in place).
func ksDistance(v []float64, d cdfer) float64 {
	slices.Sort(v)
	n := float64(len(v))
	var dmax float64
	for i, x := range v {
		f := d.CDF(x)
		dmax = max(dmax, math.Abs(float64(i+1)/n-f), math.Abs(f-float64(i)/n))
	}
	return dmax
}

// TestOneStepExactRecovery checks, through the graph and the sampler with the exact
// Newton step (γ = 1), that one Metropolis-Hastings step from any starting point
// lands on an exact posterior draw: n chains start at dispersed points (far in the
// tails too) and record one draw each; every proposal must be accepted, and the n
// first draws, independent, must follow the exact posterior. The distribution check
// is the Kolmogorov-Smirnov distance with the Dvoretzky-Kiefer-Wolfowitz-Massart
// bound P(D > ε) ≤ 2·exp(−2nε²), Šidák-corrected to a family-wise α = 0.01 over
// every check of every model.
func TestOneStepExactRecovery(t *testing.T) {
	t.Parallel()
	const n = 1000
	cases := recoveryCases()
	nChecks := 0
	for _, c := range cases {
		nChecks += len(c.checks)
	}
	per := -math.Expm1(math.Log1p(-0.01) / float64(nChecks))
	eps := math.Sqrt(math.Log(2/per) / (2 * n))
	for ci, c := range cases {
		b := graph.New()
		c.build(b)
		m, err := b.Build()
		if err != nil {
			t.Fatalf("%s: Build: %v", c.name, err)
		}
		rng := rand.New(rand.NewPCG(77, uint64(ci)))
		init := make([][]float64, n)
		for i := range init {
			init[i] = make([]float64, nmc.Dim(m.Sites()))
			c.start(rng, init[i])
		}
		res, err := nmc.Sample(context.Background(), m, &nmc.Options{Warmup: nmc.NoWarmup, Chains: n, Draws: 1, Seed: 5, Init: init})
		if err != nil {
			t.Fatalf("%s: Sample: %v", c.name, err)
		}
		for _, s := range res.Sites {
			if s.Proposals != n || s.Accepted != n || s.Fallbacks != 0 {
				t.Errorf("%s: site %s: %d proposals, %d accepted, %d fallbacks; want %d, %d, 0",
					c.name, s.Name, s.Proposals, s.Accepted, s.Fallbacks, n, n)
			}
		}
		d := len(res.Draws.Names)
		for _, mc := range c.checks {
			v := make([]float64, n)
			for ch := range n {
				v[ch] = mc.f(res.Draws.Chains[ch][:d])
			}
			if ks := ksDistance(v, mc.dist); !(ks < eps) {
				t.Errorf("%s: %s after one step: KS distance %.4f to the exact posterior, limit %.4f (n = %d)",
					c.name, mc.what, ks, eps, n)
			}
		}
	}
}

// TestOneStepWrongPosteriorDetected guards the power of TestOneStepExactRecovery's
// check: draws from the exact Beta(7, 2) posterior pass it, and the same number of
// draws from the prior-shifted Beta(6, 2) — what a proposal that ignored one
// observation would give — fail it.
func TestOneStepWrongPosteriorDetected(t *testing.T) {
	t.Parallel()
	const n = 1000
	eps := math.Sqrt(math.Log(2/0.01) / (2 * n))
	rng := rand.New(rand.NewPCG(3, 3))
	right, wrong := distuv.Beta{Alpha: 7, Beta: 2, Src: rng}, distuv.Beta{Alpha: 6, Beta: 2, Src: rng}
	v, w := make([]float64, n), make([]float64, n)
	for i := range v {
		v[i], w[i] = right.Rand(), wrong.Rand()
	}
	if ks := ksDistance(v, right); !(ks < eps) {
		t.Errorf("exact draws: KS distance %.4f, limit %.4f", ks, eps)
	}
	if ks := ksDistance(w, right); ks < eps {
		t.Errorf("draws from Beta(6, 2): KS distance %.4f to Beta(7, 2) is below the limit %.4f", ks, eps)
	}
}
