package models

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/nmc"
)

// drawsCSV samples b with the given seed and GOMAXPROCS and returns the draws as CSV.
func drawsCSV(t *testing.T, b *Built, seed uint64, procs int) []byte {
	t.Helper()
	old := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(old)
	res := sample(t, b, &nmc.Options{Chains: 4, Draws: 100, Warmup: 20, Seed: seed})
	var buf bytes.Buffer
	if err := frames.WriteCSV(&buf, res.Draws); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSampleDeterminism checks, for the annotation model (discrete classes and
// simplex sites, with its majority-vote start) and robust regression (Gamma,
// Exponential and Newton sites; one with its likelihood split over goroutines), that the same seed gives byte-identical draws CSV
// with GOMAXPROCS 1 and 2, and that another seed gives different draws (so the
// comparison can fail). It changes GOMAXPROCS, so it does not run in parallel.
func TestSampleDeterminism(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 1))
	ann, _, _, err := GenerateAnnotation(rng, DefaultAnnotationConfig(600))
	if err != nil {
		t.Fatal(err)
	}
	annotation, err := Annotation(ann, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	reg, _, _, err := GenerateRobust(rng, 800, 5)
	if err != nil {
		t.Fatal(err)
	}
	robust, err := Robust(reg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 10,000 training rows: three chunks of rows, summed by one goroutine or two.
	big, _, _, err := GenerateRobust(rng, 20000, 5)
	if err != nil {
		t.Fatal(err)
	}
	robustBig, err := Robust(big, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []*Built{annotation, robust, robustBig} {
		one := drawsCSV(t, b, 9, 1)
		two := drawsCSV(t, b, 9, 2)
		if !bytes.Equal(one, two) {
			i := 0
			for i < len(one) && i < len(two) && one[i] == two[i] {
				i++
			}
			t.Errorf("%s: draws CSV differs between GOMAXPROCS 1 and 2 (%d and %d bytes, first difference at byte %d)",
				b.Name, len(one), len(two), i)
		}
		if other := drawsCSV(t, b, 10, 2); bytes.Equal(one, other) {
			t.Errorf("%s: seeds 9 and 10 give identical draws", b.Name)
		}
		if n := bytes.Count(one, []byte("\n")); n != 1+4*100 {
			t.Errorf("%s: draws CSV has %d lines, want 401", b.Name, n)
		}
	}
}
