package sbc_test

import (
	"context"
	"fmt"

	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/sbc"
)

// Simulation-based calibration of the sampler on the gamma–Poisson model: 100
// simulated data sets, each posterior sampled for 49 draws kept every 5 sweeps.
func ExampleRun() {
	sim, err := models.Simulator("gamma_poisson", 0, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := sbc.Run(context.Background(), sbc.Config{Simulator: sim, Sims: 100, Seed: 1, MaxRank: 49, Thin: 5})
	if err != nil {
		fmt.Println(err)
		return
	}
	tests, err := res.Uniformity(5)
	if err != nil {
		fmt.Println(err)
		return
	}
	for v, u := range tests {
		fmt.Printf("%s: ranks 0 … %d, χ² = %.2f on %d df, uniform at p > 0.001: %v\n",
			res.Variables[v], res.MaxRank, u.ChiSquare, u.DF, u.PValue > 0.001)
	}
	// Output:
	// lambda: ranks 0 … 49, χ² = 1.20 on 4 df, uniform at p > 0.001: true
}
