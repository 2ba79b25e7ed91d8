package models

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// userDawidSkene is the Dawid-Skene model as a user declares it with the public
// graph API, with the paper's prior (pi ~ Dirichlet(1/C), theta[l,m] ~
// Dirichlet(alpha_m)), the classes summed out when marginalise.
func userDawidSkene(train AnnotationData, marginalise bool) (*graph.Model, error) {
	c, l := train.NumClasses, train.NumLabelers
	cfg := AnnotationConfig{N: 2, Labelers: l, Classes: c, JLoc: 1, Gamma: 10, Rho: 0.5}
	conc := make([]float64, c)
	rows := make([][]float64, c)
	for m := range rows {
		conc[m] = 1 / float64(c)
		rows[m] = cfg.ConfusionPrior(m)
	}
	classOf := make([]int, l*c)
	for i := range classOf {
		classOf[i] = i % c
	}
	b := graph.New()
	pi := b.Latent("pi", graph.Dirichlet(graph.Vec(conc...)))
	z := b.Latent("z", graph.Categorical(pi), train.NumItems)
	theta := b.Latent("theta", graph.Dirichlet(graph.Index(graph.Rows(rows), classOf)), l, c)
	b.ObserveInts("y", graph.Categorical(graph.At(theta, graph.By(train.Labeler), graph.ByNode(graph.Index(z, train.Item)))), train.Label)
	if marginalise {
		b.Marginalise(z)
	}
	return b.Build()
}

// BenchmarkAnnotationSweep times one sweep (every site once, then the summed-out
// classes drawn) of the Dawid-Skene model at 5,000 train items, 100 labelers and 3
// classes (Generate("annotation", 10000, 100, 1)), with the classes explicit and
// summed out, for the built-in model (Annotation's Built.Model, the graph model in
// both forms) and a user's graph declaration of the same model (userDawidSkene:
// what a user gets from the public API; builtin and graph should take the same
// time). marginal over explicit is the cost of summing the classes out. One chain,
// 50 sweeps per iteration from the same majority-vote start; reports ns/sweep.
// Compare with benchstat:
//
//	go test -run '^$' -bench AnnotationSweep -count 5 ./models/
//
// Until the hand-written scorers were deleted, builtin was a hand-written model in
// the explicit form (the graph took 1.06–1.08× its time at the end) and, before
// that, in the summed-out one (1.20–1.23×); see BENCHMARKS.md.
func BenchmarkAnnotationSweep(b *testing.B) {
	d, err := Generate("annotation", 10000, 100, 1)
	if err != nil {
		b.Fatal(err)
	}
	train := *d.AnnotationTrain
	for _, form := range []struct {
		name     string
		marginal bool
	}{{"explicit", false}, {"marginal", true}} {
		built, err := Annotation(train, nil, &AnnotationPrior{ExplicitClasses: !form.marginal})
		if err != nil {
			b.Fatal(err)
		}
		user, err := userDawidSkene(train, form.marginal)
		if err != nil {
			b.Fatal(err)
		}
		start := make([]float64, nmc.Dim(built.Model.Sites()))
		if err := built.Model.Init(rand.New(rand.NewPCG(1, 0)), start); err != nil {
			b.Fatal(err)
		}
		for _, impl := range []struct {
			name string
			m    nmc.Model
		}{{"builtin", built.Model}, {"graph", user}} {
			b.Run(impl.name+"/"+form.name, func(b *testing.B) {
				const sweeps = 50
				opts := &nmc.Options{Warmup: nmc.NoWarmup, Chains: 1, Draws: sweeps, Seed: 3, Init: [][]float64{start}}
				b.ResetTimer()
				t0 := time.Now()
				for range b.N {
					if _, err := nmc.Sample(context.Background(), impl.m, opts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(time.Since(t0).Nanoseconds())/float64(b.N*sweeps), "ns/sweep")
			})
		}
	}
}
