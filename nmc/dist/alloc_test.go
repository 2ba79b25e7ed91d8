package dist

import (
	"math/rand/v2"
	"testing"
)

// TestDerivsNoAlloc checks that the Derivs the model-graph engine calls once per
// observation per step do not allocate (nor LogProb, nor MultivariateNormal's Rand).
func TestDerivsNoAlloc(t *testing.T) {
	mvn := testMVN(t)
	cases := []struct {
		fam  Family
		k    int
		args []float64
	}{
		{Normal{}, 1, []float64{0.3, -0.2, 1.5}},
		{BernoulliLogit{}, 1, []float64{1, 0.7}},
		{StudentT{}, 1, []float64{0.4, 3.5, -0.1, 1.3}},
		{Gamma{}, 1, []float64{1.3, 2.5, 0.7}},
		{Beta{}, 1, []float64{0.3, 2, 5}},
		{Poisson{}, 1, []float64{3, 2.5}},
		{PoissonLog{}, 1, []float64{3, 0.9}},
		{BinomialLogit{}, 1, []float64{3, 10, 0.2}},
		{Categorical{}, 3, []float64{1, 0.2, 0.3, 0.5}},
		{CategoricalLogits{}, 3, []float64{1, 0.2, 0.3, 0.5}},
		{Dirichlet{}, 3, []float64{0.2, 0.3, 0.5, 1, 2, 3}},
		{mvn, 3, []float64{0.1, -0.3, 2, 0, 0, 0}},
		{NegBinomial2Log{}, 1, []float64{3, 0.9, 1.5}},
		{Weibull{}, 1, []float64{1.3, 2.5, 0.7}},
		{Logistic{}, 1, []float64{0.3, -0.2, 1.5}},
		{OrderedLogistic{}, 4, []float64{1, 0.5, -1, 0.3, 2}},
	}
	for _, c := range cases {
		n := len(c.args)
		grad, hess := make([]float64, n), make([]float64, n*n)
		if a := testing.AllocsPerRun(100, func() { c.fam.Derivs(c.args, c.k, grad, hess) }); a != 0 {
			t.Errorf("%s.Derivs allocates %v times per call", c.fam.Name(), a)
		}
		if a := testing.AllocsPerRun(100, func() { c.fam.LogProb(c.args, c.k) }); a != 0 {
			t.Errorf("%s.LogProb allocates %v times per call", c.fam.Name(), a)
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	dst := make([]float64, 3)
	mean := []float64{0, 1, 2}
	if a := testing.AllocsPerRun(100, func() { mvn.Rand(rng, mean, 3, dst) }); a != 0 {
		t.Errorf("MultivariateNormal.Rand allocates %v times per call", a)
	}
}

var sink float64

func benchDerivs(b *testing.B, f Family, k int, args []float64) {
	n := len(args)
	grad, hess := make([]float64, n), make([]float64, n*n)
	b.ReportAllocs()
	for b.Loop() {
		sink += f.Derivs(args, k, grad, hess)
	}
}

func BenchmarkDerivsNormal(b *testing.B) { benchDerivs(b, Normal{}, 1, []float64{0.3, -0.2, 1.5}) }
func BenchmarkDerivsBernoulliLogit(b *testing.B) {
	benchDerivs(b, BernoulliLogit{}, 1, []float64{1, 0.7})
}
func BenchmarkDerivsStudentT(b *testing.B) {
	benchDerivs(b, StudentT{}, 1, []float64{0.4, 3.5, -0.1, 1.3})
}
