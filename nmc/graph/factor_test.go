package graph_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// studentModels returns y ~ StudentT(ν, μ, σ) with μ ~ N(0, 10), σ ~ HalfNormal(5) and
// the group (shift μ, dilate σ), once with the built-in StudentT and once as a Factor
// holding the t log density written out.
func studentModels(t *testing.T, y []float64, nu float64) (builtin, factor *graph.Model) {
	t.Helper()
	build := func(useFactor bool) *graph.Model {
		b := graph.New()
		mu := b.Latent("mu", graph.Normal(graph.C(0), graph.C(10)))
		sigma := b.Latent("sigma", graph.HalfNormal(graph.C(5)))
		if useFactor {
			lg := func(v float64) float64 { l, _ := math.Lgamma(v); return l }
			c := lg((nu+1)/2) - lg(nu/2) - 0.5*math.Log(nu*math.Pi)
			z := graph.Div(graph.Sub(graph.Data(y), mu), sigma)
			logp := graph.Sub(graph.Sub(graph.C(c), graph.Log(sigma)),
				graph.Mul(graph.C((nu+1)/2), graph.Log1p(graph.Div(graph.Mul(z, z), graph.C(nu)))))
			b.Factor("y", logp)
		} else {
			b.Observe("y", graph.StudentT(graph.C(nu), mu, sigma), y)
		}
		b.Group("locscale", graph.Shift(mu, 1), graph.Dilate(sigma, 1))
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	return build(false), build(true)
}

func studentData() []float64 {
	rng := rand.New(rand.NewPCG(16, 3))
	y := make([]float64, 40)
	for i := range y {
		// t with 4 degrees of freedom: N / √(χ²₄/4)
		c := 0.0
		for range 4 {
			n := rng.NormFloat64()
			c += n * n
		}
		y[i] = 1.5 + 0.8*rng.NormFloat64()/math.Sqrt(c/4)
	}
	return y
}

func relClose(a, b, tol float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// TestFactorStudentTScores: at random states, the site scores (value, gradient,
// Hessian), the log joint up to a constant and the orbit scores (with derivatives) of
// the Factor model equal the built-in StudentT model's to 1e-12.
func TestFactorStudentTScores(t *testing.T) {
	y := studentData()
	mb, mf := studentModels(t, y, 4)
	sb, sf := mb.NewScorer(), mf.NewScorer()
	ob, okb := sb.(nmc.OrbitScorer)
	of, okf := sf.(nmc.OrbitScorer)
	if !okb || !okf {
		t.Fatal("scorers are not OrbitScorers")
	}
	rng := rand.New(rand.NewPCG(5, 5))
	gb, hb, gf, hf := []float64{0}, []float64{0}, []float64{0}, []float64{0}
	for range 50 {
		x := []float64{3 * rng.NormFloat64(), math.Exp(2 * rng.NormFloat64())}
		for i := range 2 {
			fb := sb.Score(x, i, gb, hb)
			ff := sf.Score(x, i, gf, hf)
			if !relClose(fb, ff, 1e-12) || !relClose(gb[0], gf[0], 1e-12) || !relClose(hb[0], hf[0], 1e-12) {
				t.Errorf("x = %v, site %d: builtin (%.17g, %.17g, %.17g), factor (%.17g, %.17g, %.17g)", x, i, fb, gb[0], hb[0], ff, gf[0], hf[0])
			}
		}
		if lb, lf := sb.LogJoint(x), sf.LogJoint(x); !relClose(lb, lf, 1e-12) {
			t.Errorf("x = %v: log joint %.17g vs %.17g", x, lb, lf)
		}
		var db, df [2]float64
		fb, ff := ob.ScoreOrbit(x, 0, &db), of.ScoreOrbit(x, 0, &df)
		if !relClose(fb, ff, 1e-12) || !relClose(db[0], df[0], 1e-12) || !relClose(db[1], df[1], 1e-12) {
			t.Errorf("x = %v: orbit builtin (%.17g, %v), factor (%.17g, %v)", x, fb, db, ff, df)
		}
	}
}

// TestFactorStudentTPosterior: the Factor model's posterior means and sds agree with
// the built-in StudentT model's within 4 combined MCSE (same seed).
func TestFactorStudentTPosterior(t *testing.T) {
	y := studentData()
	mb, mf := studentModels(t, y, 4)
	rb := sampleSummaries(t, mb, 21, "mu", "sigma")
	rf := sampleSummaries(t, mf, 21, "mu", "sigma")
	for i := range rb {
		b, f := rb[i], rf[i]
		zm := (f.Mean - b.Mean) / math.Hypot(f.MCSEMean, b.MCSEMean)
		zs := (f.SD - b.SD) / math.Hypot(f.MCSESD, b.MCSESD)
		t.Logf("%s: mean %.5g vs %.5g (z %.2f), sd %.4g vs %.4g (z %.2f), ess %.0f / %.0f", b.Variable, f.Mean, b.Mean, zm, f.SD, b.SD, zs, f.ESSBulk, b.ESSBulk)
		if math.Abs(zm) > 4 || math.Abs(zs) > 4 {
			t.Errorf("%s: z mean %.2f, z sd %.2f", b.Variable, zm, zs)
		}
	}
}

// TestFactorBadInput: Build reports a bad Factor naming it.
func TestFactorBadInput(t *testing.T) {
	cases := map[string]func(b *graph.Builder, mu *graph.Node){
		"nil node":  func(b *graph.Builder, _ *graph.Node) { b.Factor("f", nil) },
		"width":     func(b *graph.Builder, _ *graph.Node) { b.Factor("f", graph.Rows([][]float64{{1, 2}})) },
		"NaN":       func(b *graph.Builder, _ *graph.Node) { b.Factor("f", graph.C(math.NaN())) },
		"+Inf":      func(b *graph.Builder, mu *graph.Node) { b.Factor("f", graph.Add(mu, graph.C(math.Inf(1)))) },
		"duplicate": func(b *graph.Builder, mu *graph.Node) { b.Factor("mu", mu) },
	}
	for what, decl := range cases {
		b := graph.New()
		mu := b.Latent("mu", graph.Normal(graph.C(0), graph.C(1)))
		decl(b, mu)
		_, err := b.Build()
		name := `"f"`
		if what == "duplicate" {
			name = `"mu"`
		}
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v, want one naming %s", what, err, name)
		}
	}
}
