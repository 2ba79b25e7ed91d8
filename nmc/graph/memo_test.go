package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc"
)

// memoModel declares a model twice from one builder function: with the nodes
// memoised and without (Builder.noMemo, every element evaluated once per path).
type memoModel struct {
	name  string
	build func(b *Builder)
}

// memoModels are models whose memoised nodes depend on what each kind of scorer
// call changes: the active site (a recursion, a broadcast scale), a summed-out
// site's fixed value (a mixture's selected mean read by two observations), the
// values of a discrete site (the same mixture with its classes as sites), a
// group's orbit, and a blanket scored in chunks by helper scorers.
func memoModels() []memoModel {
	rng := rand.New(rand.NewPCG(7, 8))
	ya := armaSeries(rng, 12, 1, 0.5, 0.3, 1)
	yg := garchSeries(rng, 12, 0.5, 0.2, 0.3, 0.5, 1)
	const n, k = 30, 3
	y1, y2 := make([]float64, n), make([]float64, n)
	for i := range y1 {
		c := float64(rng.IntN(k))
		y1[i] = 3*c + rng.NormFloat64()
		y2[i] = 6*c + 2*rng.NormFloat64()
	}
	mixture := func(marginal bool) func(b *Builder) {
		return func(b *Builder) {
			pi := b.Latent("pi", Dirichlet(Vec(2, 2, 2)))
			mu := b.Latent("mu", Normal(C(0), C(5)), k)
			ls := b.Latent("ls", Normal(C(0), C(1)))
			sigma := Exp(ls)
			z := b.Latent("z", Categorical(pi), n)
			m := At(mu, ByNode(z))
			b.Observe("y1", Normal(m, sigma), y1)
			b.Observe("y2", Normal(Mul(m, C(2)), Mul(sigma, C(2))), y2)
			b.Deterministic("m", m)
			if marginal {
				b.Marginalise(z)
			}
		}
	}
	const big = 20000 // a blanket scored in chunks (chunkedMinElems)
	xb, yb := make([]float64, big), make([]float64, big)
	for i := range xb {
		xb[i] = rng.Float64()
		yb[i] = math.Exp(0.3*xb[i]) + 0.5*rng.NormFloat64()
	}
	return []memoModel{
		{"arma", func(b *Builder) {
			mu := b.Latent("mu", Normal(C(0), C(10)))
			phi := b.Latent("phi", Normal(C(0), C(2)))
			theta := b.Latent("theta", Normal(C(0), C(2)))
			sigma := b.Latent("sigma", HalfCauchy(C(2.5)))
			nu := make([]*Node, len(ya))
			nu[0] = Add(mu, Mul(phi, mu))
			err := Sub(C(ya[0]), nu[0])
			for t := 1; t < len(ya); t++ {
				nu[t] = Add(Add(mu, Mul(phi, C(ya[t-1]))), Mul(theta, err))
				err = Sub(C(ya[t]), nu[t])
				b.Observe(fmt.Sprintf("y%d", t), Normal(nu[t], sigma), ya[t:t+1])
			}
			b.Deterministic("nu", Concat(nu...))
			b.Group("scale", Dilate(phi, 1), Dilate(theta, 1))
			b.Hamiltonian(mu, phi, theta, sigma)
		}},
		{"garch", func(b *Builder) {
			mu := b.Latent("mu", Normal(C(0), C(5)))
			a0 := b.Latent("alpha0", HalfNormal(C(1)))
			a1 := b.Latent("alpha1", Uniform(C(0), C(1)))
			u := b.Latent("u", Uniform(C(0), C(1)))
			b1 := Mul(Sub(C(1), a1), u)
			s := make([]*Node, len(yg))
			s[0] = C(1)
			for t := 1; t < len(yg); t++ {
				r := Sub(C(yg[t-1]), mu)
				s[t] = Sqrt(Add(Add(a0, Mul(a1, Pow(r, 2))), Mul(b1, Pow(s[t-1], 2))))
			}
			b.Observe("y", Normal(mu, Concat(s...)), yg)
			b.Group("shift", Shift(mu, 1))
		}},
		{"vector", func(b *Builder) {
			// A Vector site's coordinates mixed by a shared nonlinear node: dense jets.
			beta := b.Vector("beta", 3, Normal(C(0), C(1)))
			s := Sum(Mul(beta, beta))
			lin := Add(Index(beta, []int{0, 1, 2, 0, 1, 2}), Mul(s, C(0.1)))
			b.Observe("y", Normal(lin, Exp(Mul(s, C(0.05)))), []float64{0.1, -0.3, 0.8, 0.2, -0.1, 0.5})
		}},
		{"hmm", func(b *Builder) {
			// Emissions read through a broadcast (memoised) rate; Generate draws the
			// states from a pooled value scorer.
			y := Data([]float64{0, 1, 0, 2, 9, 7, 11, 8, 1, 0, 2, 10, 9})
			lambda := b.Latent("lambda", Gamma(C(2), C(0.5)), 2)
			gamma := b.Latent("Gamma", Dirichlet(Vec(1, 1)), 2)
			rho := b.Latent("rho", Dirichlet(Vec(1, 1)))
			logOmega := Stack(
				LogDensity(Poisson(Index(lambda, []int{0})), y),
				LogDensity(Poisson(Index(lambda, []int{1})), y))
			b.HiddenMarkov("z", logOmega, gamma, rho)
		}},
		{"mixture-summed", mixture(true)},
		{"mixture-sites", mixture(false)},
		{"chunked", func(b *Builder) {
			a := b.Latent("a", Normal(C(0), C(1)))
			ls := b.Latent("ls", Normal(C(0), C(1)))
			sigma := Exp(ls)
			b.Observe("y", Normal(Exp(Mul(a, Data(xb))), sigma), yb)
			b.Group("g", Shift(ls, 1), Dilate(a, 1))
		}},
	}
}

// TestMemoMatchesTree checks that a model whose shared nodes are memoised gives
// every scorer call's result bit for bit as the same model evaluated as trees
// (nothing memoised): scores with derivatives of every site, the log joint,
// orbit scores, the values of discrete sites, summed-out weights, joint
// gradients, derived quantities and pointwise log-likelihoods, at random states,
// calls interleaved so that a table kept from an earlier call would be read.
func TestMemoMatchesTree(t *testing.T) {
	for _, mm := range memoModels() {
		t.Run(mm.name, func(t *testing.T) {
			var models [2]*Model
			for i, off := range []bool{false, true} {
				b := New()
				b.noMemo = off
				mm.build(b)
				m, err := b.Build()
				if err != nil {
					t.Fatal(err)
				}
				models[i] = m
			}
			if len(models[0].plan.memo) == 0 || len(models[1].plan.memo) != 0 {
				t.Fatalf("memoised nodes: %d with, %d without", len(models[0].plan.memo), len(models[1].plan.memo))
			}
			rng := rand.New(rand.NewPCG(1, 1))
			scs := [2]*scorer{models[0].newScorer(), models[1].newScorer()}
			sites := models[0].Sites()
			states := make([][]float64, 6)
			for i := range states {
				states[i] = make([]float64, nmc.Dim(sites))
				if err := models[0].Init(rng, states[i]); err != nil {
					t.Fatal(err)
				}
			}
			for si, x := range states[1:] {
				prev := states[si]
				// Each result as a list of numbers from both models.
				var got [2][]float64
				for v, m := range models {
					sc := scs[v]
					var r []float64
					r = append(r, sc.LogJoint(x))
					for i, s := range sites {
						g, h := make([]float64, s.Size), make([]float64, s.Size*s.Size)
						r = append(r, sc.Score(x, i, g, h))
						r = append(append(r, g...), h...)
						r = append(r, sc.Score(x, i, nil, nil))
						if s.Support == nmc.Discrete && s.NumValues > 0 {
							dst := make([]float64, s.NumValues)
							sc.ScoreValues(x, i, dst)
							r = append(r, dst...)
						}
					}
					for g := range m.orbits {
						var d [2]float64
						r = append(r, sc.ScoreOrbit(x, g, &d), d[0], d[1])
					}
					if len(m.marg) > 0 {
						var ms []int
						for i, s := range sites {
							if s.Marginalised {
								ms = append(ms, i)
							}
						}
						dst, ok := make([]float64, len(ms)*sites[ms[0]].NumValues), make([]bool, len(ms))
						sc.WeighValues(x, ms, dst, ok)
						r = append(r, dst...)
					}
					if hs := m.HamiltonianSites(); hs != nil {
						grad := make([]float64, len(hs))
						r = append(r, sc.JointGrad(x, hs, grad, true))
						r = append(r, grad...)
					}
					// Derive and LogLik at the previous state and then at x, in a row
					// (their scorers are pooled).
					for _, at := range [][]float64{prev, x} {
						if len(m.derived) > 0 {
							d := make([]float64, len(m.DerivedNames()))
							m.Derive(at, d)
							r = append(r, d...)
						}
						pw := make([]float64, m.logLik.Len())
						m.logLik.LogLik(at, pw)
						r = append(r, pw...)
					}
					if len(m.hmms) > 0 {
						for _, at := range [][]float64{prev, x} {
							dst := make([]float64, len(m.GeneratedNames()))
							m.Generate(rand.New(rand.NewPCG(9, 9)), at, dst)
							r = append(r, dst...)
						}
					}
					sc.Keep(x)
					r = append(r, sc.LogJoint(x))
					got[v] = r
				}
				if len(got[0]) != len(got[1]) {
					t.Fatalf("%d results memoised, %d not", len(got[0]), len(got[1]))
				}
				for j := range got[0] {
					if a, b := got[0][j], got[1][j]; math.Float64bits(a) != math.Float64bits(b) {
						t.Fatalf("result %d at %v: memoised %v, as trees %v", j, x, a, b)
					}
				}
			}
		})
	}
}

// TestIndexByContinuousLatent checks that Build refuses an At index node that reads
// a continuous latent, however deep, naming the observation and the latent, and
// accepts one that reads a discrete latent.
func TestIndexByContinuousLatent(t *testing.T) {
	for _, continuous := range []bool{true, false} {
		b := New()
		theta := b.Latent("theta", Normal(C(0), C(1)), 3)
		var idx *Node
		if continuous {
			u := b.Latent("u", Normal(C(0), C(1)))
			idx = Add(Mul(u, C(0)), C(1)) // an integer in value, but not by construction
		} else {
			idx = b.Latent("z", Categorical(Vec(0.2, 0.3, 0.5)), 2)
		}
		b.Observe("y", Normal(At(theta, ByNode(idx)), C(1)), []float64{0.5, 1.5})
		_, err := b.Build()
		if continuous {
			if err == nil || !strings.Contains(err.Error(), `observed "y": At index 0 reads the continuous latent "u"`) {
				t.Errorf("continuous index: error %v", err)
			}
		} else if err != nil {
			t.Errorf("discrete index: %v", err)
		}
	}
}

// TestBuiltTwice checks that a model whose nodes a later Build took over (the same
// builder built twice) scores as the later one, bit for bit, without its tables.
func TestBuiltTwice(t *testing.T) {
	b := New()
	memoModels()[0].build(b)
	first, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	second, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, nmc.Dim(first.Sites()))
	if err := first.Init(rand.New(rand.NewPCG(3, 3)), x); err != nil {
		t.Fatal(err)
	}
	// The general path, whose tables the first model lacks (a site's tape does not
	// read the tables: below, both models' tapes give the same scores).
	s1, s2 := first.newScorer(), second.newScorer()
	s1.tape.off, s2.tape.off = true, true
	t1, t2 := first.newScorer(), second.newScorer()
	for i, s := range first.Sites() {
		gt1, ht1 := make([]float64, s.Size), make([]float64, s.Size*s.Size)
		gt2, ht2 := make([]float64, s.Size), make([]float64, s.Size*s.Size)
		ft1, ft2 := t1.Score(x, i, gt1, ht1), t2.Score(x, i, gt2, ht2)
		if ft1 != ft2 || gt1[0] != gt2[0] || ht1[0] != ht2[0] || t1.tape.runs == 0 {
			t.Errorf("site %d: tapes of the first model (%v, %v, %v), of the second (%v, %v, %v), %d tape runs", i, ft1, gt1, ht1, ft2, gt2, ht2, t1.tape.runs)
		}
		g1, h1 := make([]float64, s.Size), make([]float64, s.Size*s.Size)
		g2, h2 := make([]float64, s.Size), make([]float64, s.Size*s.Size)
		e1, e2 := s1.evals, s2.evals
		f1, f2 := s1.Score(x, i, g1, h1), s2.Score(x, i, g2, h2)
		if f1 != f2 || g1[0] != g2[0] || h1[0] != h2[0] {
			t.Errorf("site %d: first model (%v, %v, %v), second (%v, %v, %v)", i, f1, g1, h1, f2, g2, h2)
		}
		if n1, n2 := s1.evals-e1, s2.evals-e2; i < 3 && n1 <= n2 {
			t.Errorf("site %d: the first model evaluated %d node elements, the second %d: want more without tables", i, n1, n2)
		}
	}
}

// TestMatVecOfExpression checks that a MatVec over an expression evaluates each
// element of the expression once per score, not once per row.
func TestMatVecOfExpression(t *testing.T) {
	const rows = 50
	x := mat.NewDense(rows, 2, nil)
	y := make([]float64, rows)
	for r := range rows {
		x.Set(r, 0, 1)
		x.Set(r, 1, float64(r)/rows)
		y[r] = float64(r % 3)
	}
	b := New()
	beta := b.Latent("beta", Normal(C(0), C(1)), 2)
	b.Observe("y", Poisson(MatVec(x, Exp(beta))), y)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	sc := m.newScorer()
	g, h := make([]float64, 1), make([]float64, 1)
	sc.Score([]float64{0.1, -0.2}, 0, g, h)
	// 50 rows of the MatVec and the 2 elements of Exp(beta), once each.
	if sc.evals != rows+2 {
		t.Errorf("%d node elements evaluated, want %d", sc.evals, rows+2)
	}
}
