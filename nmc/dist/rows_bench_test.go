package dist

import (
	"math"
	"math/rand/v2"
	"testing"
)

// benchRows times one call of a row-terms family over 10,000 rows with values
// drawn from the family at each row's argument (as a fitted model's data): filling the terms with the value only (a fitted step's
// proposal), and reusing them with derivatives in the varying argument (a site's
// step at the state just scored) or computing both (a proposal with derivatives).
func benchRows(b *testing.B, fam RowTermsDeriver, vary, wrt int, args []float64, x func(*rand.Rand, float64) float64, mode string) {
	const n = 10000
	rng := rand.New(rand.NewPCG(61, 62))
	xs, v := make([]float64, n), make([]float64, n)
	for r := range xs {
		v[r] = 3 * rng.NormFloat64()
		xs[r] = x(rng, v[r])
	}
	terms := make([]float64, n*fam.RowTerms())
	d1, d2 := make([]float64, n), make([]float64, n)
	fam.DerivsRowsTerms(xs, v, args, 1, vary, wrt, d1, d2, nil, terms, false)
	b.ResetTimer()
	for b.Loop() {
		switch mode {
		case "value":
			fam.DerivsRowsTerms(xs, v, args, 1, vary, -1, nil, nil, nil, terms, false)
		case "reuse":
			fam.DerivsRowsTerms(xs, v, args, 1, vary, wrt, d1, d2, nil, terms, true)
		case "derivs":
			fam.DerivsRowsTerms(xs, v, args, 1, vary, wrt, d1, d2, nil, terms, false)
		}
	}
}

func bernoulliRows(b *testing.B, mode string) {
	benchRows(b, BernoulliLogit{}, 1, 1, []float64{0, 0}, func(r *rand.Rand, l float64) float64 {
		if r.Float64()*(1+math.Exp(-l)) < 1 { // probability σ(l)
			return 1
		}
		return 0
	}, mode)
}

func studentTRows(b *testing.B, mode string) {
	benchRows(b, StudentT{}, 2, 2, []float64{0, 8, 0, 1.5}, func(r *rand.Rand, mu float64) float64 { return mu + 1.5*r.NormFloat64() }, mode)
}

func BenchmarkRowsBernoulliLogitValue(b *testing.B)  { bernoulliRows(b, "value") }
func BenchmarkRowsBernoulliLogitReuse(b *testing.B)  { bernoulliRows(b, "reuse") }
func BenchmarkRowsBernoulliLogitDerivs(b *testing.B) { bernoulliRows(b, "derivs") }
func BenchmarkRowsStudentTValue(b *testing.B)        { studentTRows(b, "value") }
func BenchmarkRowsStudentTReuse(b *testing.B)        { studentTRows(b, "reuse") }
func BenchmarkRowsStudentTDerivs(b *testing.B)       { studentTRows(b, "derivs") }
