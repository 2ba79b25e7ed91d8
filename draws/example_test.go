package draws_test

import (
	"fmt"

	"github.com/nmc-go/nmc/draws"
)

func exampleDraws() *draws.Draws {
	return &draws.Draws{
		Names: []string{"mu", "beta[0]", "beta[1]"},
		Chains: [][]float64{
			{0.5, 1e-7, -2, 0.25, 2e-7, -1.5},
			{0.75, -3e-7, -2.5, 1, 0, -1},
		},
	}
}

func ExampleSelect() {
	d, err := draws.Select(exampleDraws(), "beta")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Names, d.Chains[0])
	_, err = draws.Select(exampleDraws(), "gamma")
	fmt.Println(err)
	// Output:
	// [beta[0] beta[1]] [1e-07 -2 2e-07 -1.5]
	// draws: no parameter matches "gamma"
}
