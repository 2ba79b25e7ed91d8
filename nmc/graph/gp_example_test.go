package graph_test

import (
	"fmt"
	"log"
	"math"

	"github.com/nmc-go/nmc/nmc/graph"
)

// A Gaussian-process regression with the marginal likelihood: y ~ MVN(0, K + σ²I),
// K the exponentiated quadratic kernel of amplitude alpha and length scale rho. Each
// hyperparameter is a site whose score factorises K + σ²I once.
func ExampleMultivariateNormalCov() {
	x := []float64{0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = math.Sin(2*v) + 0.1*math.Cos(7*v)
	}
	b := graph.New()
	rho := b.Latent("rho", graph.InverseGamma(graph.C(5), graph.C(5)))
	alpha := b.Latent("alpha", graph.HalfNormal(graph.C(1)))
	sigma := b.Latent("sigma", graph.HalfNormal(graph.C(1)))
	K := graph.AddDiag(graph.ExpQuadCov(graph.Data(x), alpha, rho), graph.Mul(sigma, sigma))
	b.Observe("y", graph.MultivariateNormalCov(graph.C(0), K), y)
	m, err := b.Build()
	if err != nil {
		log.Fatal(err)
	}
	// The log joint at a state, and each site's score with its gradient and
	// Hessian (one Cholesky factor of K + σ²I each).
	state := []float64{1.2, 0.8, 0.3} // rho, alpha, sigma
	sc := m.NewScorer()
	fmt.Printf("log joint %.4f\n", sc.LogJoint(state))
	g, h := make([]float64, 1), make([]float64, 1)
	for i, s := range m.Sites() {
		f := sc.Score(state, i, g, h)
		fmt.Printf("%-5s score %.4f, gradient %.4f, Hessian %.4f\n", s.Name, f, g[0], h[0])
	}
	// Output:
	// log joint -10.9989
	// rho   score -10.1823, gradient -12.7228, Hessian -12.4485
	// alpha score -10.3367, gradient 3.2851, Hessian -13.7691
	// sigma score -10.0617, gradient 2.4765, Hessian -48.2367
}

// The non-centred form of a latent GP, f = L·eta with L the Cholesky factor of the
// covariance and eta ~ N(0, 1): f's values at a state, recorded with every draw.
func ExampleCholeskyMul() {
	x := []float64{0, 1, 2}
	b := graph.New()
	alpha := b.Latent("alpha", graph.HalfNormal(graph.C(1)))
	eta := b.Vector("eta", 3, graph.Normal(graph.C(0), graph.C(1)))
	K := graph.AddDiag(graph.ExpQuadCov(graph.Data(x), alpha, graph.C(1)), graph.C(1e-9))
	b.Deterministic("f", graph.CholeskyMul(K, eta))
	m, err := b.Build()
	if err != nil {
		log.Fatal(err)
	}
	state := []float64{2, 1, 0, 0} // alpha = 2, eta = (1, 0, 0): f = 2·(1, e^{−1/2}, e^{−2})
	f := make([]float64, 3)
	m.Derive(state, f)
	fmt.Printf("%v = %.4f\n", m.DerivedNames(), f)
	// Output:
	// [f[0] f[1] f[2]] = [2.0000 1.2131 0.2707]
}
