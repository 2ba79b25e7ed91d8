package graph

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc"
)

// blrBench builds Bayesian logistic regression with n rows and k features.
func blrBench(b *testing.B, n, k int) (*Model, []float64, *mat.Dense) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := mat.NewDense(n, k, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			x.Set(i, j, 10*rng.NormFloat64())
		}
		y[i] = float64(rng.IntN(2))
	}
	bd := New()
	alpha := bd.Latent("alpha", Normal(C(0), C(10)))
	beta := bd.Vector("beta", k, Normal(C(0), C(2.5)))
	bd.Observe("y", BernoulliLogit(Add(alpha, MatVec(x, beta))), y)
	bd.Group("scale(alpha, beta)", Dilate(alpha, 1), Dilate(beta, 1))
	m, err := bd.Build()
	if err != nil {
		b.Fatal(err)
	}
	state := make([]float64, nmc.Dim(m.Sites()))
	for i := range state {
		state[i] = 0.01 * rng.NormFloat64()
	}
	return m, state, x
}

var sinkF float64

// BenchmarkBLRBetaHessian measures f, g and H of the beta site (N = 10,000, K = 40).
func BenchmarkBLRBetaHessian(b *testing.B) { benchBetaHessian(b, 10000, 40) }

// BenchmarkBLRBetaHessian100K is BenchmarkBLRBetaHessian with 100,000 rows: a
// blanket scored in chunks, spread over the cores (compare -cpu 1,2).
func BenchmarkBLRBetaHessian100K(b *testing.B) { benchBetaHessian(b, 100000, 40) }

// benchStates is the number of states benchBetaHessian cycles over: more than the
// scorer keeps (X·β and the rows' terms of the last two states), so that every
// score computes them, as a chain's scores of β at new proposals do.
const benchStates = 5

// benchBetaHessian measures f, g and H of the beta site of blrBench(n, k) at
// states it has not just scored: it cycles over benchStates values of β.
func benchBetaHessian(b *testing.B, n, k int) {
	m, state, _ := blrBench(b, n, k)
	states := cycleStates(state, 1, k, benchStates)
	sc := m.NewScorer()
	g, h := make([]float64, k), make([]float64, k*k)
	for _, st := range states {
		sinkF = sc.Score(st, 1, g, h)
	}
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		sinkF += sc.Score(states[i%len(states)], 1, g, h)
		i++
	}
}

// cycleStates returns n copies of state whose coordinates [off, off+k) (a Vector
// site) differ from copy to copy.
func cycleStates(state []float64, off, k, n int) [][]float64 {
	rng := rand.New(rand.NewPCG(7, 8))
	out := make([][]float64, n)
	for i := range out {
		out[i] = append([]float64(nil), state...)
		for j := off; j < off+k; j++ {
			out[i][j] += 0.01 * rng.NormFloat64()
		}
	}
	return out
}

// BenchmarkBLROrbit measures the orbit score with its two derivatives of the
// (alpha, beta) dilation (N = 10,000, K = 40): X·beta, X·u and X·w per row.
func BenchmarkBLROrbit(b *testing.B) {
	m, state, _ := blrBench(b, 10000, 40)
	sc := m.NewScorer().(nmc.OrbitScorer)
	var d [2]float64
	sinkF = sc.ScoreOrbit(state, 0, &d)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		sinkF += sc.ScoreOrbit(state, 0, &d)
	}
}

// BenchmarkBLRSyrkBaseline is gonum's Syrk alone computing XᵀX on the same
// N×K matrix: the floor for X^T diag(w) X.
func BenchmarkBLRSyrkBaseline(b *testing.B) {
	const n, k = 10000, 40
	_, _, x := blrBench(b, n, k)
	raw := x.RawMatrix()
	c := blas64.Symmetric{Uplo: blas.Upper, N: k, Stride: k, Data: make([]float64, k*k)}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		blas64.Syrk(blas.Trans, 1, blas64.General{Rows: n, Cols: k, Stride: raw.Stride, Data: raw.Data}, 0, c)
	}
}

// BenchmarkBLRPlateSweep measures the site scores of one sweep (each site with
// gradient and Hessian) of logistic regression whose K = 40 coefficients are a plate
// of scalar sites (N = 10,000), as linear factors and element by element.
func BenchmarkBLRPlateSweep(b *testing.B) {
	for _, linear := range []bool{true, false} {
		name := map[bool]string{true: "linear", false: "elements"}[linear]
		b.Run(name, func(b *testing.B) {
			const n, k = 10000, 40
			rng := rand.New(rand.NewPCG(3, 4))
			x := mat.NewDense(n, k, nil)
			y := make([]float64, n)
			for i := 0; i < n; i++ {
				for j := 0; j < k; j++ {
					x.Set(i, j, rng.NormFloat64())
				}
				y[i] = float64(rng.IntN(2))
			}
			bd := New()
			bd.noLinear = !linear
			alpha := bd.Latent("alpha", Normal(C(0), C(10)))
			beta := bd.Latent("beta", Normal(C(0), C(2.5)), k)
			bd.Observe("y", BernoulliLogit(Add(alpha, MatVec(x, beta))), y)
			m, err := bd.Build()
			if err != nil {
				b.Fatal(err)
			}
			state := make([]float64, nmc.Dim(m.Sites()))
			for i := range state {
				state[i] = 0.1 * rng.NormFloat64()
			}
			sc := m.NewScorer()
			g, h := make([]float64, 1), make([]float64, 1)
			b.ReportAllocs()
			for b.Loop() {
				for i := range m.Sites() {
					sinkF += sc.Score(state, i, g, h)
				}
			}
		})
	}
}

// BenchmarkReplicate times one replicated data set (nmc sample -yrep calls it at
// every draw) at each of 16 states in turn, as at successive draws: logistic
// regression with 500 rows and 10 features (X·β, then a Bernoulli draw per row),
// and the per-draw calls' test model (perDrawModel).
func BenchmarkReplicate(b *testing.B) {
	blr, _, _ := blrBench(b, 500, 10)
	for _, c := range []struct {
		name string
		m    *Model
	}{{"blr500x10", blr}, {"small", perDrawModel(b)}} {
		b.Run(c.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(5, 6))
			states := make([][]float64, 16)
			for i := range states {
				states[i] = make([]float64, nmc.Dim(c.m.Sites()))
				if err := c.m.Init(rng, states[i]); err != nil {
					b.Fatal(err)
				}
			}
			dst := make([]float64, c.m.NumReplicated())
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := c.m.Replicate(rng, states[i%len(states)], dst); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
