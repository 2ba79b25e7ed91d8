package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc"
)

// TestBuiltLogLik checks the regressions' training log-likelihood, evaluated by the
// graph at the model's states, against LogisticPointwise and
// RobustPointwise on the training data.
func TestBuiltLogLik(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	n, k := 30, 3
	x := mat.NewDense(n, k, nil)
	yb, yr := make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
		yb[i], yr[i] = float64(rng.IntN(2)), 3*rng.NormFloat64()
	}
	for _, robust := range []bool{false, true} {
		var b *Built
		var err error
		train := RegressionData{X: x, Y: yb}
		if robust {
			train.Y = yr
			b, err = Robust(train, nil, nil)
		} else {
			b, err = Logistic(train, nil, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		h := b.LogLik()
		if h.Len() != n {
			t.Fatalf("%s: Len %d, want %d", b.Name, h.Len(), n)
		}
		off := func(name string) int {
			o, _, err := b.Graph.Offset(name)
			if err != nil {
				t.Fatal(err)
			}
			return o
		}
		state := make([]float64, nmc.Dim(b.Model.Sites()))
		got, want := make([]float64, n), make([]float64, n)
		for rep := 0; rep < 5; rep++ {
			if err := b.Model.Init(rng, state); err != nil {
				t.Fatal(err)
			}
			h.LogLik(state, got)
			ba := off("beta")
			beta := state[ba : ba+k]
			if robust {
				err = RobustPointwise(train, state[off("nu")], state[off("sigma")], state[off("alpha")], beta, want)
			} else {
				err = LogisticPointwise(train, state[off("alpha")], beta, want)
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-10*math.Max(1, math.Abs(want[i])) {
					t.Errorf("%s: point %d: graph %v, pointwise function %v", b.Name, i, got[i], want[i])
				}
			}
		}
	}
}
