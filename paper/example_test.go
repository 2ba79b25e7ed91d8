package paper_test

import (
	"context"
	"fmt"
	"log"
	"math"

	"github.com/nmc-go/nmc/paper"
)

// Two of the paper's experiments at the quick sizes: the conjugate estimate
// against its exact posterior and the held-out predictive log-likelihood of robust
// regression.
func ExampleRun() {
	rep, err := paper.Run(context.Background(), paper.Config{
		Sizes:  paper.Quick,
		Models: []string{"robust", "beta_binomial"},
		Seed:   1,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range rep.Rows {
		fmt.Printf("%s: N = %d, %d×%d draws, max R-hat below 1.05: %v\n", r.Model, r.N, r.Chains, r.Draws, r.MaxRHat < 1.05)
	}
	for _, c := range rep.Conjugate {
		fmt.Printf("%s %s: exact mean %.4f, |z| < 4: %v\n", c.Model, c.Variable, c.ExactMean, math.Abs(c.Z) < 4)
	}
	fmt.Println("figures:", len(rep.Figures))
	// Output:
	// robust: N = 200, 4×1000 draws, max R-hat below 1.05: true
	// beta_binomial: N = 10, 4×100 draws, max R-hat below 1.05: true
	// beta_binomial p: exact mean 0.4244, |z| < 4: true
	// figures: 2
}
