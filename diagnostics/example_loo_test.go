package diagnostics_test

import (
	"fmt"
	"math"

	"github.com/nmc-go/nmc/diagnostics"
)

// normalLogLik returns the pointwise log-likelihood of y under N(μ, σ²) at
// draws of μ spread evenly over N(ȳ, σ²/n): 2 chains of 500 draws.
func normalLogLik(y []float64, sigma float64) diagnostics.LogLik {
	var ybar float64
	for _, v := range y {
		ybar += v / float64(len(y))
	}
	ll := diagnostics.LogLik{N: len(y)}
	const chains, draws = 2, 500
	for c := range chains {
		ch := make([]float64, 0, draws*len(y))
		for d := range draws {
			// a deterministic stand-in for posterior draws of μ
			u := (float64((c*draws+d)*389%(chains*draws)) + 0.5) / (chains * draws)
			mu := ybar + sigma/math.Sqrt(float64(len(y)))*math.Sqrt2*math.Erfinv(2*u-1)
			for _, v := range y {
				z := (v - mu) / sigma
				ch = append(ch, -0.5*z*z-math.Log(sigma)-0.5*math.Log(2*math.Pi))
			}
		}
		ll.Chains = append(ll.Chains, ch)
	}
	return ll
}

// ExampleLOO compares a normal model with σ = 1 and one with σ = 3 on data
// with an outlier by PSIS-LOO, as R's loo and loo_compare do. The outlier's
// k̂ flags it as hard to predict under σ = 1; the wider model is preferred,
// but with ten observations the difference is within its standard error.
func ExampleLOO() {
	y := []float64{-0.8, 0.3, 1.1, -0.2, 0.5, -1.3, 0.9, 0.1, -0.4, 6}
	narrow, err := diagnostics.LOO(normalLogLik(y, 1))
	if err != nil {
		fmt.Println(err)
		return
	}
	wide, err := diagnostics.LOO(normalLogLik(y, 3))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("elpd_loo %.2f (SE %.2f), p_loo %.2f, k of the outlier %.2f\n",
		narrow.ELPD.Estimate, narrow.ELPD.SE, narrow.P.Estimate, narrow.Pointwise[9].ParetoK)
	for _, band := range narrow.ParetoKTable() {
		fmt.Printf("%-12s %-9s %d\n", band.Interval, band.Label, band.Count)
	}
	rows, err := diagnostics.Compare([]diagnostics.ModelELPD{narrow.ModelELPD("sigma1"), wide.ModelELPD("sigma3")})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rows {
		fmt.Printf("%s: elpd_diff %.2f, se_diff %.2f\n", r.Model, r.ELPDDiff, r.SEDiff)
	}
	// Output:
	// elpd_loo -30.25 (SE 15.66), p_loo 3.73, k of the outlier 0.64
	// (-Inf, 0.5]  good      9
	// (0.5, 0.7]   ok        1
	// (0.7, 1]     bad       0
	// (1, Inf)     very bad  0
	// sigma3: elpd_diff 0.00, se_diff 0.00
	// sigma1: elpd_diff -7.26, se_diff 13.91
}
