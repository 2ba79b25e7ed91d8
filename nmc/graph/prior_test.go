package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/nmc"
)

// TestConstPriorsMatchGeneric checks that priors with constant parameters
// (priorElem) give the general chaining's scores, gradients and Hessians bit for
// bit: the same model built twice, one without them, at random states, for
// Dirichlet rows with concentrations by class (the explicit Dawid-Skene model), a
// plate of Student-t coefficients with fixed parameters beside a Normal likelihood,
// and a Dirichlet whose concentration is a latent (not constant: left to chaining).
func TestConstPriorsMatchGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	ds := makeDS(rng, 30, 4, 3, 3)
	studentT := func() *Model {
		b := New()
		beta := b.Latent("beta", StudentT(C(3), C(0.5), C(2)), 4)
		sigma := b.Latent("sigma", HalfNormal(C(1)))
		b.Observe("y", Normal(Index(beta, []int{0, 1, 2, 3, 1, 2}), sigma), []float64{0.3, -1, 2, 0.1, 0.4, -0.7})
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	latentConc := func() *Model {
		b := New()
		a := b.Latent("a", Gamma(C(2), C(1)))
		p := b.Latent("p", Dirichlet(Mul(Vec(1, 1, 1), a)), 2)
		b.ObserveInts("y", Categorical(Index(p, []int{0, 1, 1})), []int{0, 2, 1})
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	pairs := map[string][2]*Model{
		"dawid-skene":          {buildDS(t, ds, false), buildDS(t, ds, false)},
		"student-t":            {studentT(), studentT()},
		"latent concentration": {latentConc(), latentConc()},
	}
	for name, p := range pairs {
		fast, slow := p[0], p[1]
		if name != "latent concentration" && fast.constPrior == nil {
			t.Fatalf("%s: no prior compiled as constant", name)
		}
		slow.constPrior = nil
		sites := fast.Sites()
		x := make([]float64, nmc.Dim(sites))
		sf, ss := fast.NewScorer(), slow.NewScorer()
		for pt := range 5 {
			if err := fast.Init(rng, x); err != nil {
				t.Fatal(err)
			}
			if pt == 4 { // a coordinate outside the support
				x[0] = -x[0]
			}
			sameScores(t, fmt.Sprintf("%s point %d", name, pt), sf, ss, x, sites)
		}
	}
}

// sameScores reports an error for every continuous site whose score, gradient or
// Hessian from a differs from b's at x, bit for bit (derivatives only where the
// score is finite: elsewhere they are unspecified), and reports whether all agreed.
func sameScores(t *testing.T, what string, a, b nmc.Scorer, x []float64, sites []nmc.Site) bool {
	t.Helper()
	ok := true
	for i, s := range sites {
		if s.Support == nmc.Discrete {
			continue
		}
		k := s.Size
		ga, ha, gb, hb := make([]float64, k), make([]float64, k*k), make([]float64, k), make([]float64, k*k)
		fa, fb := a.Score(x, i, ga, ha), b.Score(x, i, gb, hb)
		if math.Float64bits(fa) != math.Float64bits(fb) {
			t.Errorf("%s site %s: score %v, want %v", what, s.Name, fa, fb)
			ok = false
		}
		if !(fa > math.Inf(-1)) {
			continue
		}
		for c := range ga {
			if math.Float64bits(ga[c]) != math.Float64bits(gb[c]) {
				t.Errorf("%s site %s: gradient[%d] %v, want %v", what, s.Name, c, ga[c], gb[c])
				ok = false
			}
		}
		for c := range ha {
			if math.Float64bits(ha[c]) != math.Float64bits(hb[c]) {
				t.Errorf("%s site %s: Hessian[%d] %v, want %v", what, s.Name, c, ha[c], hb[c])
				ok = false
			}
		}
	}
	return ok
}
