package nmc_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/nmc-go/nmc/diagnostics"
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
	res, err := nmc.Sample(context.Background(), m, &nmc.Options{Warmup: nmc.NoWarmup, Chains: 4, Draws: 2000, Seed: 1})
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

// logRateModel is θ ~ N(0, 1) with Poisson counts y_i ~ Poisson(e^θ): one Real site.
type logRateModel struct{ counts []float64 }

func (m logRateModel) Sites() []nmc.Site {
	return []nmc.Site{{Name: "theta", Size: 1, Support: nmc.Real}}
}

func (m logRateModel) NewScorer() nmc.Scorer { return m }

func (m logRateModel) Init(rng *rand.Rand, x []float64) error {
	x[0] = rng.NormFloat64()
	return nil
}

func (m logRateModel) LogJoint(x []float64) float64 { return m.Score(x, 0, nil, nil) }

// Score is log p(θ) + Σ log p(y_i | θ), constants dropped, with its derivatives.
func (m logRateModel) Score(x []float64, _ int, grad, hess []float64) float64 {
	th := x[0]
	sum, n := 0.0, float64(len(m.counts))
	for _, y := range m.counts {
		sum += y
	}
	if grad != nil {
		grad[0] = sum - n*math.Exp(th) - th
		hess[0] = -n*math.Exp(th) - 1
	}
	return sum*th - n*math.Exp(th) - th*th/2
}

// The Real proposal is one value: here Cauchy tails with the Newton–Crank–Nicolson
// step, its γ adapted per site during warm-up and reported per chain.
func ExampleRealProposal() {
	m := logRateModel{counts: []float64{3, 5, 4, 6, 2}}
	res, err := nmc.Sample(context.Background(), m, &nmc.Options{
		Chains: 2, Draws: 1000, Warmup: 500, Seed: 1,
		Moves: []nmc.Move{nmc.SiteSteps{Real: nmc.RealProposal{Cauchy: true, Step: nmc.CrankNicolson{Gamma: 0.5, Adapt: true}}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("proposer", res.Sites[0].Proposer)
	for c, g := range res.CrankNicolsonGammas {
		fmt.Printf("chain %d: γ in (0, 1]: %v\n", c, g[0] > 0 && g[0] <= 1)
	}
	// Output:
	// proposer newton-cauchy
	// chain 0: γ in (0, 1]: true
	// chain 1: γ in (0, 1]: true
}

// A run split over machines: each task runs its own chains, numbered globally from
// FirstChain, and gets the draws those chains have in one local run with the same seed.
func ExampleOptions_firstChain() {
	m := logRateModel{counts: []float64{3, 5, 4, 6, 2}}
	local, err := nmc.Sample(context.Background(), m, &nmc.Options{Chains: 4, Draws: 200, Warmup: 100, Seed: 7})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The task that runs chains 2 and 3 of the same run (in a Slurm job array:
	// FirstChain: 2 * task id).
	task, err := nmc.Sample(context.Background(), m, &nmc.Options{FirstChain: 2, Chains: 2, Draws: 200, Warmup: 100, Seed: 7})
	if err != nil {
		fmt.Println(err)
		return
	}
	for c := range task.Draws.Chains {
		same := slices.Equal(task.Draws.Chains[c], local.Draws.Chains[task.FirstChain+c])
		fmt.Printf("task chain %d is chain %d of the local run: %v\n", c, task.FirstChain+c, same)
	}
	// Output:
	// task chain 0 is chain 2 of the local run: true
	// task chain 1 is chain 3 of the local run: true
}

// funnel is Neal's funnel, z ~ N(0, 3²) and x ~ N(0, (e^{z/2})²), with the group move
// that shifts z by 2t and dilates x by e^t (so x/e^{z/2} stays fixed): along it the
// log density is exactly quadratic in t, and the orbit step draws z from its law.
type funnel struct{}

func (funnel) Sites() []nmc.Site {
	return []nmc.Site{{Name: "z", Size: 1, Support: nmc.Real}, {Name: "x", Size: 1, Support: nmc.Real}}
}
func (funnel) NewScorer() nmc.Scorer { return funnel{} }
func (funnel) Init(rng *rand.Rand, x []float64) error {
	x[0], x[1] = rng.NormFloat64(), rng.NormFloat64()
	return nil
}
func (f funnel) LogJoint(x []float64) float64 { return f.Score(x, 0, nil, nil) }

// Score is the log joint density (for either site), with the site's derivatives.
func (funnel) Score(x []float64, i int, grad, hess []float64) float64 {
	z, v := x[0], x[1]
	e := math.Exp(-z)
	if grad != nil && i == 0 {
		grad[0], hess[0] = -z/9-0.5+0.5*v*v*e, -1.0/9-0.5*v*v*e
	} else if grad != nil {
		grad[0], hess[0] = -v*e, -e
	}
	return -z*z/18 - z/2 - 0.5*v*v*e
}

// Groups declares the orbit (z + 2t, e^t·x).
func (funnel) Groups() []nmc.Group {
	return []nmc.Group{{Name: "neck", Coords: []nmc.OrbitCoord{
		{Coord: 0, Kind: nmc.Shift, Rate: 2, Anchor: -1},
		{Coord: 1, Kind: nmc.Dilate, Rate: 1, Anchor: -1},
	}}}
}

// ScoreOrbit gives the log density with its derivatives along the orbit at t = 0:
// with u = (2, x) and w = (0, x), d[0] = ∇f·u and d[1] = uᵀ∇²f u + ∇f·w.
func (f funnel) ScoreOrbit(x []float64, _ int, d *[2]float64) float64 {
	z, v := x[0], x[1]
	e := math.Exp(-z)
	if d != nil {
		gz, gx := -z/9-0.5+0.5*v*v*e, -v*e
		hzz, hzx, hxx := -1.0/9-0.5*v*v*e, v*e, -e
		d[0] = 2*gz + v*gx
		d[1] = 4*hzz + 4*v*hzx + v*v*hxx + v*gx
	}
	return f.LogJoint(x)
}

// With the group move the funnel's z mixes at about one effective draw per draw
// (bulk ESS about 20,000 of 4 × 5000 draws); without it, about 600.
func ExampleGrouper() {
	for _, off := range []bool{true, false} {
		res, err := nmc.Sample(context.Background(), funnel{}, &nmc.Options{Warmup: nmc.NoWarmup, Chains: 4, Draws: 5000, Seed: 1, Moves: []nmc.Move{nmc.Defaults{NoGroupMoves: off}}})
		if err != nil {
			fmt.Println(err)
			return
		}
		z, _ := res.Draws.Param("z")
		ess, _ := diagnostics.ESSBulk(z)
		if off {
			fmt.Printf("plain NMC:   bulk ESS of z over 5000: %v\n", ess > 5000)
			continue
		}
		g := res.Moves[0]
		fmt.Printf("group moves: bulk ESS of z over 5000: %v; %s: %s, acceptance %.2f\n", ess > 5000, g.Name, g.Proposer, g.AcceptRate())
	}
	// Output:
	// plain NMC:   bulk ESS of z over 5000: false
	// group moves: bulk ESS of z over 5000: true; neck: orbit-newton, acceptance 1.00
}

// blockRateModel is rateModel with λ declared as a Hamiltonian block (a real
// block holds many sites that move together; one shows the interfaces).
type blockRateModel struct{ rateModel }

func (m blockRateModel) NewScorer() nmc.Scorer { return m }

// HamiltonianSites lists the block: site 0, λ.
func (m blockRateModel) HamiltonianSites() []int { return []int{0} }

// JointGrad gives the gradient of the log joint with respect to the block's sites
// in one pass (here λ's alone), and the log joint itself.
func (m blockRateModel) JointGrad(x []float64, sites []int, grad []float64, value bool) float64 {
	l := x[0]
	if !(l > 0) {
		return math.Inf(-1)
	}
	a, b := 2.0, 1.0
	for _, y := range m.counts {
		a += y
		b++
	}
	grad[0] = (a-1)/l - b
	return (a-1)*math.Log(l) - b*l
}

func ExampleHamiltonian() {
	m := blockRateModel{rateModel{counts: []float64{3, 5, 4, 6, 2}}}
	res, err := nmc.Sample(context.Background(), m, &nmc.Options{Chains: 4, Draws: 2000, Warmup: 200, Seed: 1})
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
	h := res.Moves[0]
	fmt.Printf("posterior mean %.1f (exact %.1f)\n", sum/float64(n), 22.0/6)
	fmt.Printf("%s (%s): %d moves, more than half accepted: %v\n", h.Name, h.Proposer, h.Proposals, h.AcceptRate() > 0.5)
	fmt.Print(res.Schedule)
	// Output:
	// posterior mean 3.7 (exact 3.7)
	// hamiltonian (hmc): 8000 moves, more than half accepted: true
	// sites: an NMC step of lambda
	// hamiltonian: one static HMC move of the 1 sites of the block, 32 leapfrog steps, step size adapted in warm-up to a mean acceptance of 0.8
}
