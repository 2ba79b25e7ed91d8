package viz_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/nmc-go/nmc/viz"
)

// exampleRanks returns 200 uniform ranks in 0 … 99, as simulation-based
// calibration gives for a calibrated sampler.
func exampleRanks() []int {
	rng := rand.New(rand.NewPCG(1, 2))
	ranks := make([]int, 200)
	for i := range ranks {
		ranks[i] = rng.IntN(100)
	}
	return ranks
}

func ExampleRankHistogram() {
	p, err := viz.RankHistogram("mu", exampleRanks(), 99, 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Title.Text)
	// Output:
	// SBC ranks of mu (χ² p = 0.76)
}

func ExampleECDFDiff() {
	p, err := viz.ECDFDiff("mu", exampleRanks(), 99, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Title.Text)
	// Output:
	// SBC ECDF difference of mu (95% band; inside the band)
}
