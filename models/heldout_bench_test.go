package models

import (
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/nmc"
)

// sinkErr defeats dead-code elimination in the benchmarks.
var sinkErr error

// benchLinear times the regression pointwise functions on a paper-sized test set:
// n/2 test rows, k predictors.
func benchLinear(b *testing.B, robust bool, n, k int) {
	rng := rand.New(rand.NewPCG(1, 1))
	gen := GenerateLogistic
	if robust {
		gen = GenerateRobust
	}
	_, test, truth, err := gen(rng, n, k)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]float64, len(test.Y))
	b.ReportAllocs()
	for b.Loop() {
		if robust {
			sinkErr = RobustPointwise(test, truth.Nu, truth.Sigma, truth.Alpha, truth.Beta, dst)
		} else {
			sinkErr = LogisticPointwise(test, truth.Alpha, truth.Beta, dst)
		}
	}
	b.ReportMetric(float64(len(dst))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkLogisticPointwise_N20000_K40(b *testing.B) { benchLinear(b, false, 20000, 40) }
func BenchmarkRobustPointwise_N20000_K40(b *testing.B)   { benchLinear(b, true, 20000, 40) }

func BenchmarkAnnotationPointwiseFlat_N10000(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	_, test, truth, err := GenerateAnnotation(rng, DefaultAnnotationConfig(10000))
	if err != nil {
		b.Fatal(err)
	}
	flat := flatTheta(truth.Theta)
	dst := make([]float64, test.NumItems)
	b.ReportAllocs()
	for b.Loop() {
		sinkErr = AnnotationPointwiseFlat(test, truth.Pi, flat, dst)
	}
	b.ReportMetric(float64(test.NumLabels())*float64(b.N)/b.Elapsed().Seconds(), "labels/s")
}

// BenchmarkAnnotationHeldOut times the annotation model's held-out likelihood at
// the paper's default size (10,000 items, half held out) at the generating state:
// annotationProductHeldOut, which Annotation returns, against annotationHeldOut
// (AnnotationPointwiseFlat's log-sum-exp), which it falls back on.
func BenchmarkAnnotationHeldOut(b *testing.B) {
	train, test, truth, err := GenerateAnnotation(rand.New(rand.NewPCG(1, 1)), DefaultAnnotationConfig(10000))
	if err != nil {
		b.Fatal(err)
	}
	built, err := Annotation(train, &test, nil)
	if err != nil {
		b.Fatal(err)
	}
	slow, err := newAnnotationHeldOut(built.Graph, test)
	if err != nil {
		b.Fatal(err)
	}
	x := make([]float64, nmc.Dim(built.Model.Sites()))
	copy(x[slow.pi:], truth.Pi)
	copy(x[slow.theta:], flatTheta(truth.Theta))
	dst := make([]float64, test.NumItems)
	for _, h := range []struct {
		name string
		h    nmc.HeldOut
	}{{"products", built.HeldOut}, {"logsumexp", slow}} {
		b.Run(h.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				h.h.LogLik(x, dst)
			}
		})
	}
}
