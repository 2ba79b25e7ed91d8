package graph_test

import (
	"math"

	"github.com/nmc-go/nmc/nmc/graph"
)

// sameBits reports whether a and b are the same float64, bit for bit, any NaN
// equal to any other.
func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

// checkTapeScores checks that every site's Score at x, with and without
// derivatives, is the same bit for bit whether the site's tape runs or the
// general path scores it (FuzzModel's random models).
func checkTapeScores(t fzT, model *graph.Model, x []float64, trace any) {
	t.Helper()
	withTape, without := model.NewScorer(), graph.NewScorerWithoutTape(model)
	for i, st := range model.Sites() {
		k := st.Size
		g1, h1 := make([]float64, k), make([]float64, k*k)
		g2, h2 := make([]float64, k), make([]float64, k*k)
		f1, f2 := withTape.Score(x, i, g1, h1), without.Score(x, i, g2, h2)
		same := sameBits(f1, f2)
		if !math.IsInf(f1, -1) && !math.IsNaN(f1) {
			for p := range g1 {
				same = same && sameBits(g1[p], g2[p])
			}
			for p := range h1 {
				same = same && sameBits(h1[p], h2[p])
			}
		}
		if !same {
			t.Fatalf("site %s at %v: with its tape (%v, %v, %v), by the general path (%v, %v, %v)\ntrace: %v", st.Name, x, f1, g1, h1, f2, g2, h2, trace)
		}
		if v1, v2 := withTape.Score(x, i, nil, nil), without.Score(x, i, nil, nil); !sameBits(v1, v2) {
			t.Fatalf("site %s at %v: without derivatives, with its tape %v, by the general path %v\ntrace: %v", st.Name, x, v1, v2, trace)
		}
	}
}
