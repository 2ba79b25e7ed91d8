package graph

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/sbc"
)

// armaSBCModel is armaModel's ARMA(1,1) (one observation per step, the steps'
// nodes built in a Go loop) with priors mostly inside the stationary and
// invertible region — mu ~ N(0, 1), phi, theta ~ N(0, 0.3), sigma ~ half-normal(1)
// — so that the simulated series stay moderate (posteriordb's N(0, 2) gives
// explosive ones), and the likelihood's scale multiplied by scale (1: the model
// the data come from).
func armaSBCModel(y []float64, scale float64) (*Model, error) {
	b := New()
	mu := b.Latent("mu", Normal(C(0), C(1)))
	phi := b.Latent("phi", Normal(C(0), C(0.3)))
	theta := b.Latent("theta", Normal(C(0), C(0.3)))
	sigma := b.Latent("sigma", HalfNormal(C(1)))
	s := sigma
	if scale != 1 {
		s = Mul(sigma, C(scale))
	}
	nu := Add(mu, Mul(phi, mu))
	for t := range y {
		if t > 0 {
			nu = Add(Add(mu, Mul(phi, C(y[t-1]))), Mul(theta, Sub(C(y[t-1]), nu)))
		}
		b.Observe(fmt.Sprintf("y%d", t), Normal(nu, s), y[t:t+1])
	}
	return b.Build()
}

// armaSBCSimulator draws armaSBCModel's parameters from its prior and T
// observations from its likelihood, and returns the model fitted with the
// likelihood's scale times scale.
func armaSBCSimulator(T int, scale float64) sbc.Simulator {
	return func(rng *rand.Rand) (nmc.Model, map[string]float64, error) {
		mu, phi, theta := rng.NormFloat64(), 0.3*rng.NormFloat64(), 0.3*rng.NormFloat64()
		sigma := math.Abs(rng.NormFloat64())
		y := make([]float64, T)
		var err float64
		for t := range y {
			nu := mu + phi*mu
			if t > 0 {
				nu = mu + phi*y[t-1] + theta*err
			}
			err = sigma * rng.NormFloat64()
			y[t] = nu + err
		}
		m, e := armaSBCModel(y, scale)
		return m, map[string]float64{"mu": mu, "phi": phi, "theta": theta, "sigma": sigma}, e
	}
}

// TestARMASimulationCalibrated runs simulation-based calibration of ARMA(1,1) of
// T = 50 steps declared with a Go loop over scalar nodes (200 simulations, 99
// thinned draws each, χ² on 10 bins: a correct sampler of the right posterior
// fails a parameter with probability 0.001), and checks that the same test
// rejects a wrong likelihood, the observations' scale taken 1.25 times too large,
// in 40 simulations.
func TestARMASimulationCalibrated(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation-based calibration: 400 sampler runs")
	}
	const bins, threshold = 10, 0.001
	for _, scale := range []float64{1, 1.25} {
		sims := 200
		if scale != 1 {
			sims = 40 // enough: the wrong scale gives p ≈ 1e-180 at 200
		}
		res, err := sbc.Run(context.Background(), sbc.Config{Simulator: armaSBCSimulator(50, scale), Sims: sims, Seed: 27})
		if err != nil {
			t.Fatal(err)
		}
		tests, err := res.Uniformity(bins)
		if err != nil {
			t.Fatal(err)
		}
		worst := 1.0
		for v, u := range tests {
			t.Logf("scale %v: %s χ² = %.1f, p = %.3g, counts %v", scale, res.Variables[v], u.ChiSquare, u.PValue, u.Counts)
			worst = min(worst, u.PValue)
			if scale == 1 && !(u.PValue > threshold) {
				t.Errorf("ranks of %s are not uniform: p = %.3g; counts %v", res.Variables[v], u.PValue, u.Counts)
			}
		}
		if scale != 1 && !(worst < threshold) {
			t.Errorf("the likelihood with its scale times %v passed: smallest p = %.3g", scale, worst)
		}
	}
}
