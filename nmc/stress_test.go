package nmc_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/nmc"
)

// brokenDerivs is a hand-written model of two sites with known posteriors,
// x ~ N(1, 1) (Real) and s ~ Gamma(3, rate 2) (Positive), whose derivatives are
// broken on part of the space, as hand-derived gradients often are: the gradient
// of x is NaN where x > 1.5 and the Hessian of s is +Inf where s < 0.8. The score
// itself stays right, so the sampler must take a fallback step there, count it,
// and still sample the right distribution.
type brokenDerivs struct{}

func (brokenDerivs) Sites() []nmc.Site {
	return []nmc.Site{{Name: "x", Size: 1, Support: nmc.Real}, {Name: "s", Size: 1, Support: nmc.Positive}}
}

func (brokenDerivs) NewScorer() nmc.Scorer { return brokenScorer{} }

func (brokenDerivs) Init(rng *rand.Rand, x []float64) error {
	x[0], x[1] = 1+rng.NormFloat64(), 0.5+rng.ExpFloat64()
	return nil
}

type brokenScorer struct{}

func (brokenScorer) Score(x []float64, i int, grad, hess []float64) float64 {
	if i == 0 {
		v := x[0]
		if grad != nil {
			grad[0], hess[0] = -(v - 1), -1
			if v > 1.5 {
				grad[0] = math.NaN()
			}
		}
		return -0.5 * (v - 1) * (v - 1)
	}
	s := x[1]
	if !(s > 0) {
		return math.Inf(-1)
	}
	if grad != nil {
		grad[0], hess[0] = 2/s-2, -2/(s*s)
		if s < 0.8 {
			hess[0] = math.Inf(1)
		}
	}
	return 2*math.Log(s) - 2*s
}

func (b brokenScorer) LogJoint(x []float64) float64 {
	return b.Score(x, 0, nil, nil) + b.Score(x, 1, nil, nil)
}

// TestStressBrokenDerivatives checks that steps from points with non-finite
// derivatives are fallbacks, counted per site (about P(x > 1.5) = 0.31 and
// P(s < 0.8) = 0.22 of the steps), that no NaN enters a draw, and that the
// posterior means are still right within 4.5 MCSE.
func TestStressBrokenDerivatives(t *testing.T) {
	const chains, draws = 4, 2000
	res, err := nmc.Sample(context.Background(), brokenDerivs{}, &nmc.Options{Warmup: nmc.NoWarmup, Chains: chains, Draws: draws, Seed: 31})
	if err != nil {
		t.Fatal(err)
	}
	// P(N(1,1) > 1.5) = 0.3085; P(Gamma(3, 2) < 0.8) = P(Poisson(1.6) ≥ 3) = 0.2166.
	wantFrac := []float64{0.3085, 0.2166}
	truth := []float64{1, 1.5}
	for i, s := range res.Sites {
		frac := float64(s.Fallbacks) / float64(s.Proposals)
		t.Logf("site %s: %d proposals, %d accepted, %d fallbacks (%.3f)", s.Name, s.Proposals, s.Accepted, s.Fallbacks, frac)
		if s.Proposals != chains*draws {
			t.Errorf("site %s: %d proposals, want %d", s.Name, s.Proposals, chains*draws)
		}
		// The fraction is a mean over a correlated chain; the bound is wide but
		// excludes "never counted" and "always counted".
		if math.Abs(frac-wantFrac[i]) > 0.08 {
			t.Errorf("site %s: fallback fraction %.3f, want about %.3f", s.Name, frac, wantFrac[i])
		}
		x := make([][]float64, chains)
		for c, ch := range res.Draws.Chains {
			for r := i; r < len(ch); r += 2 {
				if math.IsNaN(ch[r]) || math.IsInf(ch[r], 0) {
					t.Fatalf("chain %d draw %d: %s = %v", c, r/2, s.Name, ch[r])
				}
				x[c] = append(x[c], ch[r])
			}
		}
		mean, _ := diagnostics.Mean(x)
		mcse, err := diagnostics.MCSEMean(x)
		if err != nil {
			t.Fatal(err)
		}
		if z := (mean - truth[i]) / mcse; !(math.Abs(z) < 4.5) {
			t.Errorf("site %s: posterior mean %.4f, want %.4f (mcse %.3g, z = %.1f)", s.Name, mean, truth[i], mcse, z)
		}
		if rhat, _ := diagnostics.RHat(x); !(rhat < 1.05) {
			t.Errorf("site %s: R-hat %.3f", s.Name, rhat)
		}
	}
}
