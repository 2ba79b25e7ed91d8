package viz_test

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/nmc-go/nmc/viz"
)

// exampleData returns 50 observations from N(0, 1) and 200 replicated data sets
// from N(0, 0.8²), a model slightly too narrow.
func exampleData() ([]float64, [][]float64) {
	rng := rand.New(rand.NewPCG(5, 6))
	y := make([]float64, 50)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	yrep := make([][]float64, 200)
	for s := range yrep {
		yrep[s] = make([]float64, len(y))
		for i := range y {
			yrep[s][i] = 0.8 * rng.NormFloat64()
		}
	}
	return y, yrep
}

func ExamplePPCDensity() {
	y, yrep := exampleData()
	p, err := viz.PPCDensity(y, yrep, &viz.PPCDensityOptions{Replicates: 30})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Title.Text)
	// Output:
	// Posterior predictive check
}

func ExamplePPCStat() {
	y, yrep := exampleData()
	p, err := viz.PPCStat(y, yrep, slices.Max[[]float64], "max")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Title.Text)
	// Output:
	// Predictive check of max: P(T(yrep) ≥ T(y)) = 0.045
}

func ExampleParetoK() {
	p, err := viz.ParetoK([]float64{0.1, 0.3, -0.2, 0.75, 0.4, 1.2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Title.Text)
	// Output:
	// PSIS diagnostic: 2 of 6 observations with k̂ > 0.7
}

func ExampleLOOPIT() {
	y, yrep := exampleData()
	// nil log weights: the plain posterior predictive PIT; pass diagnostics.PSIS
	// weights per observation for leave-one-out.
	p, err := viz.LOOPIT(y, yrep, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Title.Text)
	// Output:
	// LOO-PIT (n = 50; 7 of 201 grid points outside the band)
}
