package graph

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc"
)

// TestScoresAtNewStatesDoNotAllocate: a warm scorer scores a state it has not seen
// (as a running chain's proposals are) without allocating, also when the score is
// spread over the cores — a linear factor's chunks and X·β's product (logistic
// regression, 10,000 rows; also written literally as a sum of coefficients times
// columns), and a blanket scored element by element in chunks (20,000 rows). The states cycle over more than the scorer keeps (two).
// Not parallel: AllocsPerRun needs the process to itself.
func TestScoresAtNewStatesDoNotAllocate(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector allocates when goroutines synchronise")
	}
	matVec := func(x *mat.Dense, beta *Node) *Node { return MatVec(x, beta) }
	literal := func(x *mat.Dense, beta *Node) *Node { // column terms (linear_cols.go)
		_, k := x.Dims()
		var eta *Node
		for j := 0; j < k; j++ {
			t := Mul(Index(beta, []int{j}), Data(mat.Col(nil, j, x)))
			if eta == nil {
				eta = t
			} else {
				eta = Add(eta, t)
			}
		}
		return eta
	}
	for _, c := range []struct {
		name     string
		n, k     int
		noLinear bool
		eta      func(x *mat.Dense, beta *Node) *Node
	}{
		{"linear", 10000, 5, false, matVec},
		{"elements", 20000, 3, true, matVec},
		{"literal", 10000, 2, false, literal},
	} {
		rng := rand.New(rand.NewPCG(11, 12))
		x := mat.NewDense(c.n, c.k, nil)
		y := make([]float64, c.n)
		for i := 0; i < c.n; i++ {
			for j := 0; j < c.k; j++ {
				x.Set(i, j, rng.NormFloat64())
			}
			y[i] = float64(rng.IntN(2))
		}
		b := New()
		b.noLinear = c.noLinear
		alpha := b.Latent("alpha", Normal(C(0), C(10)))
		beta := b.Vector("beta", c.k, Normal(C(0), C(2.5)))
		b.Observe("y", BernoulliLogit(Add(alpha, c.eta(x, beta))), y)
		b.Group("scale", Dilate(alpha, 1), Dilate(beta, 1))
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		states := make([][]float64, 5)
		for i := range states {
			states[i] = make([]float64, nmc.Dim(m.Sites()))
			for j := range states[i] {
				states[i][j] = 0.1 * rng.NormFloat64()
			}
		}
		sc := m.newScorer()
		sc.nworkers = 2 // spread over two goroutines whatever GOMAXPROCS is
		if c.noLinear == (len(m.linear) > 0) {
			t.Fatalf("%s: %d linear factors", c.name, len(m.linear))
		}
		g, h := make([]float64, c.k), make([]float64, c.k*c.k)
		var d [2]float64
		i := 0
		for _, call := range []struct {
			name string
			fn   func(x []float64)
		}{
			{"beta", func(x []float64) { sc.Score(x, 1, g, h) }},
			{"alpha", func(x []float64) { sc.Score(x, 0, g, h) }},
			{"orbit", func(x []float64) { sc.ScoreOrbit(x, 0, &d) }},
			{"log joint", func(x []float64) { sc.LogJoint(x) }},
		} {
			for _, x := range states {
				call.fn(x)
			}
			if a := testing.AllocsPerRun(20, func() { call.fn(states[i%len(states)]); i++ }); a != 0 {
				t.Errorf("%s: %s: %v allocations per score at a new state", c.name, call.name, a)
			}
		}
	}
}
