package graph

import (
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
			for i, s := range sites {
				if s.Support == nmc.Discrete {
					continue
				}
				k := s.Size
				ga, ha, gb, hb := make([]float64, k), make([]float64, k*k), make([]float64, k), make([]float64, k*k)
				a, b := sf.Score(x, i, ga, ha), ss.Score(x, i, gb, hb)
				if math.Float64bits(a) != math.Float64bits(b) {
					t.Errorf("%s point %d site %s: score %v, generic %v", name, pt, s.Name, a, b)
				}
				if !(a > math.Inf(-1)) {
					continue
				}
				for c := range ga {
					if math.Float64bits(ga[c]) != math.Float64bits(gb[c]) {
						t.Errorf("%s point %d site %s: gradient[%d] %v, generic %v", name, pt, s.Name, c, ga[c], gb[c])
					}
				}
				for c := range ha {
					if math.Float64bits(ha[c]) != math.Float64bits(hb[c]) {
						t.Errorf("%s point %d site %s: Hessian[%d] %v, generic %v", name, pt, s.Name, c, ha[c], hb[c])
					}
				}
			}
		}
	}
}
