package graph

import (
	"context"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc"
)

// literalForms declares one normal regression with 2 coefficients over n rows in
// four ways: the coefficients as a Vector site read by MatVec over [1, h] or by
// Index(b, 0) + Index(b, 1)·h, and as two scalar sites read by MatVec over a plate
// or written alpha + beta·h. The two forms of each pair have the same sites and
// density.
func literalForms(tb testing.TB, n int) map[string]*Model {
	rng := rand.New(rand.NewPCG(51, 52))
	h, y := make([]float64, n), make([]float64, n)
	x := mat.NewDense(n, 2, nil)
	for i := range h {
		h[i] = rng.NormFloat64()
		y[i] = 1 + 0.5*h[i] + 0.8*rng.NormFloat64()
		x.Set(i, 0, 1)
		x.Set(i, 1, h[i])
	}
	prior := func() *Dist { return Normal(C(0), C(2.5)) }
	forms := map[string]func(b *Builder) *Node{
		"vector-matvec": func(b *Builder) *Node { return MatVec(x, b.Vector("b", 2, prior())) },
		"vector-index": func(b *Builder) *Node {
			v := b.Vector("b", 2, prior())
			return Add(Index(v, []int{0}), Mul(Index(v, []int{1}), Data(h)))
		},
		"scalars-matvec": func(b *Builder) *Node { return MatVec(x, b.Latent("b", prior(), 2)) },
		"scalars-literal": func(b *Builder) *Node {
			alpha, beta := b.Latent("alpha", prior()), b.Latent("beta", prior())
			return Add(alpha, Mul(beta, Data(h)))
		},
	}
	out := map[string]*Model{}
	for name, eta := range forms {
		b := New()
		sigma := b.Latent("sigma", Gamma(C(2), C(2)))
		b.Observe("y", Normal(eta(b), sigma), y)
		m, err := b.Build()
		if err != nil {
			tb.Fatal(err)
		}
		out[name] = m
	}
	return out
}

// BenchmarkLiteralRegression measures the literal regressions against their MatVec
// forms (1,000 rows): "sweep" scores every site with its gradient and Hessian at
// states that cycle over more than the scorer keeps; "sample" is a whole run of one
// chain (1,000 draws after 1,000 warm-up sweeps).
func BenchmarkLiteralRegression(b *testing.B) {
	forms := literalForms(b, 1000)
	for _, name := range []string{"vector-matvec", "vector-index", "scalars-matvec", "scalars-literal"} {
		m := forms[name]
		b.Run(name+"/sweep", func(b *testing.B) {
			rng := rand.New(rand.NewPCG(53, 54))
			states := make([][]float64, benchStates)
			for i := range states {
				states[i] = make([]float64, nmc.Dim(m.Sites()))
				states[i][0] = 0.8 + 0.1*rng.Float64()
				for j := 1; j < len(states[i]); j++ {
					states[i][j] = 0.5 + 0.1*rng.NormFloat64()
				}
			}
			sc := m.NewScorer()
			g, h := make([]float64, 2), make([]float64, 4)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				x := states[i%len(states)]
				for s := range m.Sites() {
					sinkF += sc.Score(x, s, g, h)
				}
				i++
			}
		})
		b.Run(name+"/sample", func(b *testing.B) {
			for b.Loop() {
				if _, err := nmc.Sample(context.Background(), m, &nmc.Options{Chains: 1, Draws: 1000, Warmup: 1000, Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
