package graph

import (
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/nmc"
)

// BenchmarkMarginalScores times the scores of a Dawid-Skene model with the classes
// summed out (5,000 items, 100 labelers, 3 classes, 3 labels per item by
// different labelers) as the
// default run makes them: "lead", the weights' score without derivatives at a new
// weight each time (a lead move); "pi", the weights' score with derivatives; "theta",
// a confusion row's score with derivatives at the current state and at a proposal,
// accepted 19 times in 20 (a site step). Reports ns per score.
//
//	go test -run '^$' -bench MarginalScores -count 5 ./nmc/graph/
func BenchmarkMarginalScores(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 1))
	ds := makeDS(rng, 5000, 100, 3, 3)
	for i := 0; i < len(ds.labeler); i += 3 {
		// Three different labelers per item, as in the paper's data.
		for ds.labeler[i+1] == ds.labeler[i] {
			ds.labeler[i+1] = rng.IntN(ds.labelers)
		}
		for ds.labeler[i+2] == ds.labeler[i] || ds.labeler[i+2] == ds.labeler[i+1] {
			ds.labeler[i+2] = rng.IntN(ds.labelers)
		}
	}
	m := buildDS(b, ds, true)
	sites := m.Sites()
	off := nmc.Offsets(sites)
	x := make([]float64, nmc.Dim(sites))
	if err := m.Init(rng, x); err != nil {
		b.Fatal(err)
	}
	var pi int
	var theta []int
	for i, s := range sites {
		switch {
		case s.Name == "pi":
			pi = i
		case s.Support == nmc.Simplex:
			theta = append(theta, i)
		}
	}
	sc := m.NewScorer()
	g, h := make([]float64, 3), make([]float64, 9)
	piX := x[off[pi] : off[pi]+3]
	piSite := sites[pi]
	b.Run("lead", func(b *testing.B) {
		for range b.N {
			perturb(rng, piSite, piX, 0.01)
			sc.Score(x, pi, nil, nil)
		}
	})
	b.Run("pi", func(b *testing.B) {
		for range b.N {
			perturb(rng, piSite, piX, 0.01)
			sc.Score(x, pi, g, h)
		}
	})
	b.Run("theta", func(b *testing.B) {
		saved := make([]float64, 3)
		for n := range b.N {
			i := theta[n%len(theta)]
			xi := x[off[i] : off[i]+3]
			copy(saved, xi)
			sc.Score(x, i, g, h)
			perturb(rng, sites[i], xi, 0.1)
			sc.Score(x, i, g, h)
			if rng.IntN(20) == 0 {
				copy(xi, saved)
			}
		}
	})
}

// BenchmarkMarginalRecompute times margRecomputeAll, the product cache formed anew
// (with its bounds) as after an augmentation round has drawn every confusion row,
// on a Dawid-Skene model with the classes summed out: 5,000 items with 1 to 4
// labels each from 100 labelers, 3 classes. Reports ns per recompute.
//
//	go test -run '^$' -bench MarginalRecompute -count 5 ./nmc/graph/
func BenchmarkMarginalRecompute(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := dsData{items: 5000, labelers: 100, classes: 3}
	for i := range d.items {
		for range 1 + rng.IntN(4) {
			d.item = append(d.item, i)
			d.labeler = append(d.labeler, rng.IntN(d.labelers))
			d.label = append(d.label, rng.IntN(d.classes))
		}
	}
	m := buildDS(b, d, true)
	x := make([]float64, nmc.Dim(m.Sites()))
	if err := m.Init(rng, x); err != nil {
		b.Fatal(err)
	}
	sc := m.newScorer()
	sc.x = x
	sc.margSync()
	for b.Loop() {
		sc.margRecomputeAll()
	}
}

// BenchmarkWeighValues times WeighValues over every summed-out class of a
// Dawid-Skene model (5,000 items with 2 labels each, 100 labelers, 3 classes), as
// each augmentation round calls it. Reports ns per call.
//
//	go test -run '^$' -bench WeighValues -count 5 ./nmc/graph/
func BenchmarkWeighValues(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := buildDS(b, makeDS(rng, 5000, 100, 3, 2), true)
	x := make([]float64, nmc.Dim(m.Sites()))
	if err := m.Init(rng, x); err != nil {
		b.Fatal(err)
	}
	var zs []int
	for i, s := range m.Sites() {
		if s.Marginalised {
			zs = append(zs, i)
		}
	}
	sc := m.newScorer()
	w, ok := make([]float64, 3*len(zs)), make([]bool, len(zs))
	for b.Loop() {
		sc.WeighValues(x, zs, w, ok)
	}
}
