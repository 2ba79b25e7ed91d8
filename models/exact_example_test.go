package models_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/nmc-go/nmc/models"
	"gonum.org/v1/gonum/mat"
)

// Beta(2, 2) prior and 5 successes in 5 trials give Beta(7, 2): mean 7/9, standard
// deviation √(14/810).
func ExampleBetaBinomialPosterior() {
	post, err := models.BetaBinomialPosterior([]int{5}, []int{5}, 2, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, _ := post.Marginal("p")
	fmt.Printf("%s(%g, %g) mean %.4f sd %.4f\n", m.Family, m.Par1, m.Par2, m.Mean(), m.SD())
	// Output:
	// beta(7, 2) mean 0.7778 sd 0.1315
}

func ExampleGenerateLogistic() {
	rng := rand.New(rand.NewPCG(1, 2))
	train, test, truth, err := models.GenerateLogistic(rng, 1000, 40)
	if err != nil {
		fmt.Println(err)
		return
	}
	n, k := train.Dims()
	m, _ := test.Dims()
	fmt.Println(n, k, m, len(truth.Beta))
	// Output:
	// 500 40 500 40
}

// At η = 0 both outcomes have probability ½.
func ExampleLogisticPointwise() {
	test := models.RegressionData{X: mat.NewDense(2, 1, []float64{3, -1}), Y: []float64{1, 0}}
	dst := make([]float64, 2)
	if err := models.LogisticPointwise(test, 0, []float64{0}, dst); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4f %.4f\n", dst[0], dst[1])
	// Output:
	// -0.6931 -0.6931
}
