package models

import (
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/nmc"
)

// benchOrbit times the hand-written regression's orbit score with derivatives of
// its "scale(alpha, beta)" group on 10,000 train rows, K = 40, against the score
// with gradient and Hessian of the beta site at the same state. With move, every
// call is at a new point of the orbit, so X·beta is recomputed as after a move.
func benchOrbit(b *testing.B, robust, move bool) {
	rng := rand.New(rand.NewPCG(1, 1))
	gen, build := GenerateLogistic, func(d RegressionData) (*Built, error) { return Logistic(d, nil, nil) }
	if robust {
		gen, build = GenerateRobust, func(d RegressionData) (*Built, error) { return Robust(d, nil, nil) }
	}
	train, _, _, err := gen(rng, 20000, 40)
	if err != nil {
		b.Fatal(err)
	}
	m, err := build(train)
	if err != nil {
		b.Fatal(err)
	}
	x := make([]float64, nmc.Dim(m.Model.Sites()))
	if err := m.Model.Init(rng, x); err != nil {
		b.Fatal(err)
	}
	y := make([]float64, len(x))
	grp := m.Model.(nmc.Grouper).Groups()[0]
	sc := m.Model.NewScorer().(nmc.OrbitScorer)
	var d [2]float64
	sc.ScoreOrbit(x, 0, &d)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := x
		if move {
			i++
			orbitAt(y, x, grp, 1e-3*float64(i%7+1))
			p = y
		}
		sc.ScoreOrbit(p, 0, &d)
	}
}

func BenchmarkLogisticOrbit10K(b *testing.B)      { benchOrbit(b, false, false) }
func BenchmarkLogisticOrbit10KMoved(b *testing.B) { benchOrbit(b, false, true) }
func BenchmarkRobustOrbit10K(b *testing.B)        { benchOrbit(b, true, false) }
