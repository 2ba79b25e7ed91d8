package graph_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc/graph"
)

// TestFlatRegressionClosedForm: y = Xβ + ε, ε ~ N(0, σ²), β ~ Flat, σ ~ HalfFlat. With
// m = n − K and SSR the least-squares residual sum of squares, p(σ | y) ∝
// σ^{−m} exp(−SSR/(2σ²)) (σ² | y is scaled inverse χ² with ν = m − 1 degrees of
// freedom and scale SSR/ν), so E σʳ = (SSR/2)^{r/2} Γ((ν−r)/2)/Γ(ν/2); β | y is
// multivariate t with ν degrees of freedom, location β̂ and covariance
// SSR/(ν−2)·(XᵀX)⁻¹. Every mean and sd must be within 4 MCSE of these.
func TestFlatRegressionClosedForm(t *testing.T) {
	const n, k = 30, 3
	rng := rand.New(rand.NewPCG(16, 4))
	x := mat.NewDense(n, k, nil)
	y := make([]float64, n)
	for i := range n {
		x.Set(i, 0, 1)
		x.Set(i, 1, rng.NormFloat64())
		x.Set(i, 2, 0.6*x.At(i, 1)+0.8*rng.NormFloat64())
		y[i] = 1 + 2*x.At(i, 1) - 0.5*x.At(i, 2) + 0.7*rng.NormFloat64()
	}
	var xtx mat.SymDense
	xtx.SymOuterK(1, x.T())
	var chol mat.Cholesky
	if !chol.Factorize(&xtx) {
		t.Fatal("XᵀX not positive definite")
	}
	var xty, bhat mat.VecDense
	xty.MulVec(x.T(), mat.NewVecDense(n, y))
	if err := chol.SolveVecTo(&bhat, &xty); err != nil {
		t.Fatal(err)
	}
	ssr := 0.0
	for i := range n {
		r := y[i] - mat.Dot(x.RowView(i), &bhat)
		ssr += r * r
	}
	nu := float64(n - k - 1)
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		t.Fatal(err)
	}
	lg := func(v float64) float64 { l, _ := math.Lgamma(v); return l }
	moment := func(r float64) float64 { return math.Exp(r/2*math.Log(ssr/2) + lg((nu-r)/2) - lg(nu/2)) }
	names := []string{"beta[0]", "beta[1]", "beta[2]", "sigma"}
	var mean, sd []float64
	for j := range k {
		mean = append(mean, bhat.AtVec(j))
		sd = append(sd, math.Sqrt(ssr/(nu-2)*inv.At(j, j)))
	}
	m1 := moment(1)
	mean = append(mean, m1)
	sd = append(sd, math.Sqrt(moment(2)-m1*m1))

	b := graph.New()
	beta := b.Vector("beta", k, graph.Flat())
	sigma := b.Latent("sigma", graph.HalfFlat())
	b.Observe("y", graph.Normal(graph.MatVec(x, beta), sigma), y)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range sampleSummaries(t, m, 3, names...) {
		name := names[i]
		zm := (row.Mean - mean[i]) / row.MCSEMean
		zs := (row.SD - sd[i]) / row.MCSESD
		t.Logf("%s: mean %.5g (exact %.5g, z %.2f), sd %.4g (exact %.4g, z %.2f), ess_bulk %.0f", name, row.Mean, mean[i], zm, row.SD, sd[i], zs, row.ESSBulk)
		if math.Abs(zm) > 4 || math.Abs(zs) > 4 {
			t.Errorf("%s: z mean %.2f, z sd %.2f", name, zm, zs)
		}
	}
}

// TestFlatStartRule: Init starts a Flat latent in (−2, 2) and a HalfFlat one in
// (e⁻², e²), and different seeds give different starts.
func TestFlatStartRule(t *testing.T) {
	b := graph.New()
	b.Latent("a", graph.Flat(), 50)
	b.Latent("s", graph.HalfFlat(), 50)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, 100)
	if err := m.Init(rand.New(rand.NewPCG(1, 2)), x); err != nil {
		t.Fatal(err)
	}
	distinct := map[float64]bool{}
	for i, v := range x {
		lo, hi := -2.0, 2.0
		if i >= 50 {
			lo, hi = math.Exp(-2), math.Exp(2)
		}
		if !(v > lo && v < hi) {
			t.Errorf("start %d = %g, want in (%g, %g)", i, v, lo, hi)
		}
		distinct[v] = true
	}
	if len(distinct) != 100 {
		t.Errorf("%d distinct starts of 100", len(distinct))
	}
}

// TestHalfStudentTBadInput: bad HalfStudentT parameters are Build errors naming the
// variable.
func TestHalfStudentTBadInput(t *testing.T) {
	for _, c := range []struct{ nu, s float64 }{{-1, 1}, {3, 0}, {math.NaN(), 1}, {3, math.Inf(1)}} {
		b := graph.New()
		b.Latent("tau", graph.HalfStudentT(graph.C(c.nu), graph.C(c.s)))
		_, err := b.Build()
		if err == nil || !strings.Contains(err.Error(), `"tau"`) {
			t.Errorf("HalfStudentT(%g, %g): error %v, want one naming \"tau\"", c.nu, c.s, err)
		}
	}
}
