package nmc_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nmc-go/nmc/nmc"
)

// rateModel is λ ~ Gamma(2, 1) (shape, rate) with Poisson counts y_i ~ Poisson(λ),
// written by hand. The posterior is Gamma(2 + Σy, 1 + n).
type rateModel struct{ counts []float64 }

func (m rateModel) Sites() []nmc.Site {
	return []nmc.Site{{Name: "lambda", Size: 1, Support: nmc.Positive}}
}

func (m rateModel) NewScorer() nmc.Scorer { return m }

func (m rateModel) Init(rng *rand.Rand, x []float64) error {
	x[0] = rng.ExpFloat64()
	return nil
}

func (m rateModel) LogJoint(x []float64) float64 { return m.Score(x, 0, nil, nil) }

// Score is log p(λ) + Σ log p(y_i | λ), constants dropped, with its derivatives.
func (m rateModel) Score(x []float64, _ int, grad, hess []float64) float64 {
	l := x[0]
	if !(l > 0) {
		return math.Inf(-1)
	}
	a, b := 2.0, 1.0
	for _, y := range m.counts {
		a += y
		b++
	}
	if grad != nil {
		grad[0] = (a-1)/l - b
		hess[0] = -(a - 1) / (l * l)
	}
	return (a-1)*math.Log(l) - b*l
}

func ExampleSample() {
	m := rateModel{counts: []float64{3, 5, 4, 6, 2}}
	res, err := nmc.Sample(context.Background(), m, &nmc.Options{Chains: 4, Draws: 2000, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	lambda, _ := res.Draws.Param("lambda")
	sum, n := 0.0, 0
	for _, chain := range lambda {
		for _, v := range chain {
			sum += v
			n++
		}
	}
	rate, _ := res.AcceptRate("lambda")
	fmt.Printf("proposer %s, acceptance %.2f\n", res.Sites[0].Proposer, rate)
	fmt.Printf("posterior mean %.1f (exact 22/6 = %.1f)\n", sum/float64(n), 22.0/6)
	// Output:
	// proposer gamma, acceptance 1.00
	// posterior mean 3.7 (exact 22/6 = 3.7)
}
