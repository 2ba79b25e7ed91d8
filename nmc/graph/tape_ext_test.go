package graph_test

import (
	"math"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// sameBits reports whether a and b are the same float64, bit for bit, any NaN
// equal to any other.
func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

// sameScore reports whether two scores agree bit for bit, and their gradients and
// Hessians too where the score is finite.
func sameScore(f1 float64, g1, h1 []float64, f2 float64, g2, h2 []float64) bool {
	if !sameBits(f1, f2) {
		return false
	}
	if math.IsInf(f1, -1) || math.IsNaN(f1) {
		return true
	}
	for p := range g1 {
		if !sameBits(g1[p], g2[p]) {
			return false
		}
	}
	for p := range h1 {
		if !sameBits(h1[p], h2[p]) {
			return false
		}
	}
	return true
}

// checkTapeScores checks that every site's Score at x, with and without
// derivatives, is the same bit for bit whether the site's tape runs or the
// general path scores it (FuzzModel's random models), and so are the
// JointHessian of every pair of the first 6 continuous sites (site tapes and
// orbit tapes, tape_orbit.go) and every group's ScoreOrbit.
func checkTapeScores(t fzT, model *graph.Model, x []float64, trace any) {
	t.Helper()
	withTape, without := model.NewScorer(), graph.NewScorerWithoutTape(model)
	for i, st := range model.Sites() {
		k := st.Size
		g1, h1 := make([]float64, k), make([]float64, k*k)
		g2, h2 := make([]float64, k), make([]float64, k*k)
		f1, f2 := withTape.Score(x, i, g1, h1), without.Score(x, i, g2, h2)
		if !sameScore(f1, g1, h1, f2, g2, h2) {
			t.Fatalf("site %s at %v: with its tape (%v, %v, %v), by the general path (%v, %v, %v)\ntrace: %v", st.Name, x, f1, g1, h1, f2, g2, h2, trace)
		}
		if v1, v2 := withTape.Score(x, i, nil, nil), without.Score(x, i, nil, nil); !sameBits(v1, v2) {
			t.Fatalf("site %s at %v: without derivatives, with its tape %v, by the general path %v\ntrace: %v", st.Name, x, v1, v2, trace)
		}
	}
	var cont []int
	for i, st := range model.Sites() {
		if st.Support != nmc.Discrete && !st.Marginalised && len(cont) < 6 {
			cont = append(cont, i)
		}
	}
	jw, jo := withTape.(nmc.JointHessianer), without.(nmc.JointHessianer)
	sites := model.Sites()
	for a := range cont {
		for b := a + 1; b < len(cont); b++ {
			pair := []int{cont[a], cont[b]}
			n := sites[cont[a]].Size + sites[cont[b]].Size
			g1, h1 := make([]float64, n), make([]float64, n*n)
			g2, h2 := make([]float64, n), make([]float64, n*n)
			f1, f2 := jw.JointHessian(x, pair, g1, h1), jo.JointHessian(x, pair, g2, h2)
			if !sameScore(f1, g1, h1, f2, g2, h2) {
				t.Fatalf("JointHessian of sites %v at %v: with tapes (%v, %v, %v), by the general path (%v, %v, %v)\ntrace: %v", pair, x, f1, g1, h1, f2, g2, h2, trace)
			}
			if v1, v2 := jw.JointHessian(x, pair, nil, nil), jo.JointHessian(x, pair, nil, nil); !sameBits(v1, v2) {
				t.Fatalf("JointHessian of sites %v at %v without derivatives: with tapes %v, by the general path %v\ntrace: %v", pair, x, v1, v2, trace)
			}
		}
	}
	ow, oo := withTape.(nmc.OrbitScorer), without.(nmc.OrbitScorer)
	for g := range model.Groups() {
		var d1, d2 [2]float64
		f1, f2 := ow.ScoreOrbit(x, g, &d1), oo.ScoreOrbit(x, g, &d2)
		if !sameBits(f1, f2) || !math.IsInf(f1, -1) && !math.IsNaN(f1) && (!sameBits(d1[0], d2[0]) || !sameBits(d1[1], d2[1])) {
			t.Fatalf("group %d at %v: with tapes (%v, %v), by the general path (%v, %v)\ntrace: %v", g, x, f1, d1, f2, d2, trace)
		}
	}
}
