package models

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/nmc-go/nmc/nmc"
)

// BenchmarkAnnotationRun times the default Dawid-Skene run's sweeps (classes summed
// out, the lead moves of pi after warm-up) at 5,000 train items, 100 labelers and 3
// classes (Generate("annotation", 10000, 100, 1)): one chain, 100 warm-up sweeps and
// 100 recorded sweeps (ten lead moves each) from the majority-vote start; reports
// ns/sweep over all 200. Compare two versions with benchstat:
//
//	go test -run '^$' -bench AnnotationRun -count 5 ./models/
func BenchmarkAnnotationRun(b *testing.B) {
	d, err := Generate("annotation", 10000, 100, 1)
	if err != nil {
		b.Fatal(err)
	}
	built, err := Annotation(*d.AnnotationTrain, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	start := make([]float64, nmc.Dim(built.Model.Sites()))
	if err := built.Model.Init(rand.New(rand.NewPCG(1, 0)), start); err != nil {
		b.Fatal(err)
	}
	const warmup, draws = 100, 100
	opts := &nmc.Options{Chains: 1, Warmup: warmup, Draws: draws, Seed: 3, Init: [][]float64{start}}
	b.ResetTimer()
	t0 := time.Now()
	for range b.N {
		if _, err := nmc.Sample(context.Background(), built.Model, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(t0).Nanoseconds())/float64(b.N*(warmup+draws)), "ns/sweep")
}
