package dist_test

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/nmc/dist"
)

// ExampleNormal evaluates a normal log density with its gradient and Hessian with
// respect to (x, mu, sigma).
func ExampleNormal() {
	f := dist.Normal{}
	args := []float64{1.5, 1, 0.5} // x, mu, sigma
	grad, hess := make([]float64, 3), make([]float64, 9)
	lp := f.Derivs(args, 1, grad, hess)
	fmt.Printf("log p = %.4f\n", lp)
	fmt.Printf("grad = [%.2f %.2f %.2f]\n", grad[0], grad[1], grad[2])
	fmt.Printf("d²/dx² = %.2f, d²/dx dsigma = %.2f\n", hess[0], hess[2])
	// Output:
	// log p = -0.7258
	// grad = [-2.00 2.00 0.00]
	// d²/dx² = -4.00, d²/dx dsigma = 8.00
}

// ExampleCategorical shows the paper's homogeneous form: log probs[y], not divided by
// the sum, and the error CheckParams gives for probabilities off the simplex.
func ExampleCategorical() {
	f := dist.Categorical{}
	fmt.Printf("%.4f\n", f.LogProb([]float64{2, 0.2, 0.3, 0.5}, 3))
	fmt.Println(f.CheckParams([]float64{0.2, 0.3, 0.4}, 3))
	// Output:
	// -0.6931
	// dist: Categorical parameter probs = 0.9 is the sum of the elements, which must be 1 (within 1e-09)
}

// ExampleNewMultivariateNormal builds a bivariate normal with a fixed covariance and
// evaluates it at its mean.
func ExampleNewMultivariateNormal() {
	cov := mat.NewSymDense(2, []float64{1, 0.8, 0.8, 1})
	f, err := dist.NewMultivariateNormal(cov)
	if err != nil {
		fmt.Println(err)
		return
	}
	args := []float64{1, 1, 1, 1} // x = (1, 1), mean = (1, 1)
	fmt.Printf("log p = %.4f\n", f.LogProb(args, 2))
	_, err = dist.NewMultivariateNormal(mat.NewSymDense(2, []float64{1, 2, 2, 1}))
	fmt.Println(err)
	// Output:
	// log p = -1.3271
	// dist: MultivariateNormal: covariance is not positive definite (Cholesky factorization failed)
}

// ExampleGamma draws from a Gamma with a tiny shape, whose draws would underflow
// without the log-scale sampler, and checks they are in the support.
func ExampleGamma() {
	rng := rand.New(rand.NewPCG(1, 2))
	f := dist.Gamma{}
	params := []float64{0.001, 1} // alpha (shape), beta (rate)
	x := make([]float64, 1)
	ok := true
	for range 1000 {
		f.Rand(rng, params, 2, x)
		ok = ok && f.InSupport(x, 1)
	}
	fmt.Println("all draws in the support:", ok)
	// Output:
	// all draws in the support: true
}
