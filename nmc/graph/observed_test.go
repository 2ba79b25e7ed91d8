package graph

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPointwiseLogLikPartitionsLogJoint checks, for every test model at states drawn
// from the prior, that the pointwise log-likelihood of the observed elements plus
// the other terms (latent priors, Factor terms) is LogJoint.
func TestPointwiseLogLikPartitionsLogJoint(t *testing.T) {
	for name, m := range testModels(t) {
		rng := rand.New(rand.NewPCG(3, 4))
		h := m.LogLik()
		if h.Len() != m.NumObserved() || len(m.ObservedNames()) != h.Len() {
			t.Fatalf("%s: Len %d, NumObserved %d, %d names", name, h.Len(), m.NumObserved(), len(m.ObservedNames()))
		}
		x := make([]float64, m.dim)
		pw := make([]float64, h.Len())
		sc := m.newScorer()
		checked := 0
		for rep := 0; rep < 5; rep++ {
			if err := m.Init(rng, x); err != nil {
				t.Fatalf("%s: Init: %v", name, err)
			}
			lj := sc.LogJoint(x)
			if math.IsInf(lj, -1) {
				continue
			}
			h.LogLik(x, pw)
			obs := 0.0
			for _, v := range pw {
				obs += v
			}
			other := 0.0
			sc.x, sc.active = x, -1
			sc.newCall()
			for fi, fc := range m.factors {
				_, isFactor := fc.d.fam.(exprFactor)
				if fc.fam != nil || isFactor {
					for e := 0; e < fc.length; e++ {
						other += sc.factorElem(fi, e, false, false)
					}
				}
			}
			if d := math.Abs(obs + other - lj); d > 1e-10*math.Max(1, math.Abs(lj)) {
				t.Errorf("%s: pointwise %v + other %v = %v, LogJoint %v", name, obs, other, obs+other, lj)
			}
			checked++
		}
		if checked == 0 {
			t.Errorf("%s: no prior draw with a finite LogJoint", name)
		}
	}
}

func normLogPdf(y, mu, sd float64) float64 {
	z := (y - mu) / sd
	return -0.5*z*z - math.Log(sd) - 0.5*math.Log(2*math.Pi)
}

// TestPointwiseLogLikClosedForm compares the pointwise values with densities
// computed here, in declaration order, with a Factor term left out.
func TestPointwiseLogLikClosedForm(t *testing.T) {
	xs := []float64{-1, 0.5, 2}
	ys := []float64{0.3, -0.2, 4}
	counts := []int{0, 3}
	b := New()
	a := b.Latent("a", Normal(C(0), C(1)))
	s := b.Latent("s", Exponential(C(1)))
	b.Observe("y", Normal(Mul(a, Data(xs)), s), ys)
	b.Factor("pen", Mul(C(-2), Mul(a, a)))
	b.ObserveInts("n", Poisson(s), counts)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if m.NumObserved() != 5 {
		t.Fatalf("NumObserved = %d, want 5", m.NumObserved())
	}
	wantNames := []string{"y[0]", "y[1]", "y[2]", "n[0]", "n[1]"}
	for i, n := range m.ObservedNames() {
		if n != wantNames[i] {
			t.Fatalf("names %v, want %v", m.ObservedNames(), wantNames)
		}
	}
	ao, so := m.mustOffset(t, "a"), m.mustOffset(t, "s")
	x := make([]float64, m.dim)
	dst := make([]float64, 5)
	rng := rand.New(rand.NewPCG(1, 2))
	for rep := 0; rep < 10; rep++ {
		x[ao], x[so] = rng.NormFloat64(), 0.1+3*rng.Float64()
		m.PointwiseLogLik(x, dst)
		for i := range xs {
			if want := normLogPdf(ys[i], x[ao]*xs[i], x[so]); math.Abs(dst[i]-want) > 1e-12 {
				t.Errorf("y[%d]: %v, want %v", i, dst[i], want)
			}
		}
		for i, c := range counts {
			lg, _ := math.Lgamma(float64(c) + 1)
			want := float64(c)*math.Log(x[so]) - x[so] - lg
			if math.Abs(dst[3+i]-want) > 1e-12 {
				t.Errorf("n[%d]: %v, want %v", i, dst[3+i], want)
			}
		}
	}
}

func (m *Model) mustOffset(t *testing.T, name string) int {
	t.Helper()
	off, _, err := m.Offset(name)
	if err != nil {
		t.Fatal(err)
	}
	return off
}

// TestReplicate checks the replicated data's names, integer values for a count
// observation, and means within 5 Monte Carlo standard errors of the distributions'.
func TestReplicate(t *testing.T) {
	b := New()
	mu := b.Latent("mu", Normal(C(0), C(1)))
	lam := b.Latent("lam", Exponential(C(1)))
	b.Observe("y", Normal(Add(mu, Data([]float64{0, 10})), C(2)), []float64{1, 2})
	b.ObserveInts("n", Poisson(lam), []int{4})
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	names := m.ReplicatedNames("y_rep")
	if len(names) != 3 || names[0] != "y_rep[0]" || names[2] != "y_rep[2]" {
		t.Fatalf("names %v", names)
	}
	x := make([]float64, m.dim)
	x[m.mustOffset(t, "mu")], x[m.mustOffset(t, "lam")] = 1.5, 3
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 20000
	var sum [3]float64
	dst := make([]float64, 3)
	for i := 0; i < n; i++ {
		if err := m.Replicate(rng, x, dst); err != nil {
			t.Fatal(err)
		}
		if dst[2] != math.Trunc(dst[2]) || dst[2] < 0 {
			t.Fatalf("Poisson replicate %v", dst[2])
		}
		for j := range sum {
			sum[j] += dst[j]
		}
	}
	want := [3]float64{1.5, 11.5, 3}
	sd := [3]float64{2, 2, math.Sqrt(3)}
	for j := range sum {
		if mean, se := sum[j]/n, sd[j]/math.Sqrt(n); math.Abs(mean-want[j]) > 5*se {
			t.Errorf("replicate %d: mean %v, want %v ± %v", j, mean, want[j], 5*se)
		}
	}
	if err := m.Replicate(rng, x, dst[:2]); err == nil {
		t.Error("Replicate with a short dst: no error")
	}
	x[m.mustOffset(t, "lam")] = -1
	if err := m.Replicate(rng, x, dst); err == nil {
		t.Error("Replicate with a negative Poisson rate: no error")
	}
}

// TestPriorPredictive: mu ~ N(2, 1), y ~ N(mu, 1) has prior predictive N(2, √2);
// the mean and variance of 20000 draws are within 5 standard errors.
func TestPriorPredictive(t *testing.T) {
	b := New()
	mu := b.Latent("mu", Normal(C(2), C(1)))
	b.Observe("y", Normal(mu, C(1)), []float64{-30})
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 9))
	const n = 20000
	x, y := make([]float64, m.dim), make([]float64, 1)
	var s, ss float64
	for i := 0; i < n; i++ {
		if err := m.PriorPredictive(rng, x, y); err != nil {
			t.Fatal(err)
		}
		s += y[0]
		ss += (y[0] - 2) * (y[0] - 2)
	}
	if mean, se := s/n, math.Sqrt(2.0/n); math.Abs(mean-2) > 5*se {
		t.Errorf("prior predictive mean %v, want 2 ± %v", mean, 5*se)
	}
	// Var of (y−2)² is 2·σ⁴ = 8 for σ² = 2.
	if v, se := ss/n, math.Sqrt(8.0/n); math.Abs(v-2) > 5*se {
		t.Errorf("prior predictive variance %v, want 2 ± %v", v, 5*se)
	}
}
