package graph

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc"
)

// TestChunkedScore checks the chunked score of a large blanket (robust regression
// with 40,000 rows: five chunks, the last one partial) against the serial one and
// across worker counts: 1, 2 and 3 goroutines give bit-identical scores, gradients
// and Hessians, and these agree with the serial evaluation to rounding.
func TestChunkedScore(t *testing.T) {
	const n, k = 40000, 6
	rng := rand.New(rand.NewPCG(21, 22))
	x := mat.NewDense(n, k, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
		y[i] = 3 * rng.NormFloat64()
	}
	b := New()
	b.noLinear = true // the element-by-element path (linear factors have their own chunks)
	nu := b.Latent("nu", Gamma(C(2), C(0.1)))
	sigma := b.Latent("sigma", Exponential(C(0.1)))
	beta := b.Vector("beta", k, Normal(C(0), C(2.5)))
	b.Observe("y", StudentT(nu, MatVec(x, beta), sigma), y)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.blanket[2]) < chunkedMinElems {
		t.Fatalf("beta's blanket has %d elements; the test needs a chunked one", len(m.blanket[2]))
	}
	state := make([]float64, nmc.Dim(m.Sites()))
	if err := m.Init(rng, state); err != nil {
		t.Fatal(err)
	}
	eval := func(workers int, serial bool) []float64 {
		sc := m.newScorer()
		sc.nworkers = workers
		var out []float64
		for i, st := range m.Sites() {
			g, h := make([]float64, st.Size), make([]float64, st.Size*st.Size)
			var f float64
			if serial {
				f = serialScore(sc, state, i, g, h)
			} else {
				f = sc.Score(state, i, g, h)
			}
			out = append(append(append(out, f), g...), h...)
			if serial {
				out = append(out, serialScore(sc, state, i, nil, nil))
			} else {
				out = append(out, sc.Score(state, i, nil, nil))
			}
		}
		return out
	}
	one, two, three, ref := eval(1, false), eval(2, false), eval(3, false), eval(1, true)
	for i := range one {
		if math.Float64bits(one[i]) != math.Float64bits(two[i]) || math.Float64bits(one[i]) != math.Float64bits(three[i]) {
			t.Fatalf("value %d: %v (1 worker), %v (2), %v (3)", i, one[i], two[i], three[i])
		}
		if d := math.Abs(one[i] - ref[i]); d > 1e-11*max(1, math.Abs(ref[i])) {
			t.Errorf("value %d: chunked %.15g, serial %.15g", i, one[i], ref[i])
		}
	}
}

// serialScore is Score without the chunked path: the blanket is scored in pieces
// too small to be chunked, each in one serial pass, and the pieces added.
func serialScore(s *scorer, x []float64, i int, grad, hess []float64) float64 {
	saved, groups := s.m.blanket[i], s.m.groups[i]
	defer func() { s.m.blanket[i], s.m.groups[i] = saved, groups }()
	deriv := grad != nil && hess != nil
	var g2, h2 []float64
	if deriv {
		clear(grad)
		clear(hess)
		g2, h2 = make([]float64, len(grad)), make([]float64, len(hess))
	}
	f := 0.0
	piece := chunkedMinElems - 1
	for lo := 0; lo < len(saved); lo += piece {
		s.m.blanket[i] = saved[lo:min(lo+piece, len(saved))]
		s.m.groups[i] = nil
		if lo == 0 {
			s.m.groups[i] = groups // factor groups once
		}
		f += s.Score(x, i, g2, h2)
		for p := range g2 {
			grad[p] += g2[p]
		}
		for p := range h2 {
			hess[p] += h2[p]
		}
	}
	return f
}
