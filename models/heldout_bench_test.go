package models

import (
	"math/rand/v2"
	"testing"
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
