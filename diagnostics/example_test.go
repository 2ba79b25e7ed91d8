package diagnostics_test

import (
	"fmt"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/draws"
)

// chains are 4 chains × 20 draws of an AR(1) process (spec example W1).
var chains = [][]float64{
	{-0.63, -0.23, -0.81, 0.79, 0.74, -0.21, 0.26, 0.75, 0.91, 0.30, 1.39, 1.15, 0.19, -1.66, -0.09, -0.09, -0.07, 0.71, 1.09, 1.13},
	{0.92, 1.18, 0.77, -1.13, -0.18, -0.15, -0.22, -1.31, -1.17, -0.37, 0.87, 0.44, 0.57, 0.30, -0.92, -0.88, -0.85, -0.56, 0.55, 0.94},
	{-0.16, -0.30, 0.38, 0.67, -0.15, -0.65, -0.10, 0.55, 0.24, 0.85, 0.83, 0.01, 0.28, -0.74, 0.70, 2.01, 0.91, -0.29, 0.28, 0.06},
	{2.40, 1.41, 1.40, 0.86, -0.08, 0.10, -1.38, 0.34, 0.33, 1.94, 1.54, 0.36, 0.70, -0.33, -1.20, -0.49, -0.65, -0.39, -0.17, -0.58},
}

func ExampleRHat() {
	r, err := diagnostics.RHat(chains)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("rhat = %.4f\n", r)
	// Output: rhat = 1.0132
}

func ExampleESSBulk() {
	bulk, err := diagnostics.ESSBulk(chains)
	if err != nil {
		fmt.Println(err)
		return
	}
	tail, _ := diagnostics.ESSTail(chains)
	fmt.Printf("ess_bulk = %.2f, ess_tail = %.2f\n", bulk, tail)
	// Output: ess_bulk = 46.20, ess_tail = 83.49
}

func ExampleSummarize() {
	// Two quantities, mu and s = 1 + mu², stored row-major per chain.
	d := &draws.Draws{Names: []string{"mu", "s"}}
	for _, ch := range chains {
		var rows []float64
		for _, v := range ch {
			rows = append(rows, v, 1+v*v)
		}
		d.Chains = append(d.Chains, rows)
	}
	rows, err := diagnostics.Summarize(d, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(diagnostics.FormatSummary(rows))
	// Output:
	// variable   mean  median     sd    mad     q5   q95  rhat  ess_bulk  ess_tail  mcse_mean  mcse_sd
	// mu        0.199   0.250  0.823  0.808  -1.17  1.42  1.01      46.2      83.5      0.121   0.0621
	// s          1.71    1.41  0.995  0.526   1.01  3.39  1.13      66.2      88.3      0.130    0.202
}

func ExampleConvergence() {
	// The same two quantities as ExampleSummarize: R-hat and bulk ESS only.
	d := &draws.Draws{Names: []string{"mu", "s"}}
	for _, ch := range chains {
		var rows []float64
		for _, v := range ch {
			rows = append(rows, v, 1+v*v)
		}
		d.Chains = append(d.Chains, rows)
	}
	rows, err := diagnostics.Convergence(d, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rows {
		fmt.Printf("%s: rhat %.2f, ess_bulk %.1f\n", r.Variable, r.RHat, r.ESSBulk)
	}
	// Output:
	// mu: rhat 1.01, ess_bulk 46.2
	// s: rhat 1.13, ess_bulk 66.2
}

func ExampleSamplesToConvergence() {
	// Log predictive densities of 3 held-out points under 16 draws (spec W10).
	L := [][]float64{
		{-1.07, -1.21, -0.47}, {-0.28, -1.18, -0.82}, {-1.37, -1.78, -0.72}, {-0.75, -1.46, -0.97},
		{-0.96, -0.51, -1.32}, {-1.83, -0.49, -0.68}, {-1.19, -1.40, -1.52}, {-0.65, -1.42, -1.86},
		{-1.27, -0.69, -1.02}, {-1.74, -0.98, -0.84}, {-0.77, -0.83, 0.04}, {-1.38, -1.54, -1.69},
		{-1.12, -1.04, -1.37}, {-1.82, -0.75, -0.57}, {-0.47, -1.43, -1.76}, {-1.20, -1.20, -0.42},
	}
	curve, err := diagnostics.PLLCurve(L)
	if err != nil {
		fmt.Println(err)
		return
	}
	n, err := diagnostics.SamplesToConvergence(curve)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("final pll %.3f, converged after %d of %d draws\n", curve[len(curve)-1], n, len(curve))
	// Output: final pll -2.931, converged after 12 of 16 draws
}
