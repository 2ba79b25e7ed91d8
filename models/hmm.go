package models

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
	"github.com/nmc-go/nmc/sbc"
)

// The hyperparameters of PoissonHMM's prior: the lowest rate and each gap between
// consecutive rates are Gamma(PoissonHMMRateShape, rate PoissonHMMRateRate) (mean
// 4), the transition rows and the initial distribution Dirichlet(1, …, 1).
const (
	PoissonHMMRateShape = 2.0
	PoissonHMMRateRate  = 0.5
)

// PoissonHMM builds a hidden Markov model of counts with k states, written with the
// public graph API (issue 27's two-state HMM with Poisson emissions and ordered
// rates):
//
//	lambda0 ~ Gamma(2, rate 0.5); delta[j] ~ Gamma(2, rate 0.5), j < k−1;
//	rates λ_j = lambda0 + delta[0] + … + delta[j−1] (ordered, recorded as lambda[j]);
//	Gamma[i] ~ Dirichlet(1, …, 1), row i = P(z_{t+1} | z_t = i); rho ~ Dirichlet(1, …, 1);
//	z_0 ~ rho, z_t ~ Gamma[z_{t−1}], y_t ~ Poisson(λ_{z_t}).
//
// The states are summed out by the forward algorithm (graph.HiddenMarkov), and drawn
// by forward filtering, backward sampling at every recorded draw as z[t]. The
// ordered rates are lambda0 and positive gaps, a prior of their own (not Stan's
// positive_ordered with independent priors). y must hold at least one count, each
// ≥ 0, and k must be at least 2.
func PoissonHMM(y []int, k int) (*Built, error) {
	if len(y) == 0 {
		return nil, fmt.Errorf("models: poisson_hmm: no counts")
	}
	if k < 2 {
		return nil, fmt.Errorf("models: poisson_hmm: k = %d states, want at least 2", k)
	}
	for t, v := range y {
		if v < 0 {
			return nil, fmt.Errorf("models: poisson_hmm: count %d is %d, want ≥ 0", t, v)
		}
	}
	counts := make([]float64, len(y))
	for t, v := range y {
		counts[t] = float64(v)
	}
	ones := make([]float64, k)
	for j := range ones {
		ones[j] = 1
	}
	b := graph.New()
	prior := graph.Gamma(graph.C(PoissonHMMRateShape), graph.C(PoissonHMMRateRate))
	rate := b.Latent("lambda0", prior)
	delta := b.Latent("delta", prior, k-1)
	gamma := b.Latent("Gamma", graph.Dirichlet(graph.Vec(ones...)), k)
	rho := b.Latent("rho", graph.Dirichlet(graph.Vec(ones...)))
	rates := make([]*graph.Node, k)
	cols := make([]*graph.Node, k)
	for j := range cols {
		if j > 0 {
			rate = graph.Add(rate, graph.Index(delta, []int{j - 1}))
		}
		rates[j] = rate
		cols[j] = graph.LogDensity(graph.Poisson(rate), counts)
	}
	b.Deterministic("lambda", graph.Concat(rates...))
	b.HiddenMarkov("z", graph.Stack(cols...), gamma, rho)
	return build("poisson_hmm", b)
}

// PoissonHMMParams are the parameters of a k-state PoissonHMM.
type PoissonHMMParams struct {
	Rates []float64   // λ_j, increasing
	Gamma [][]float64 // k rows of k transition probabilities
	Rho   []float64   // the initial distribution
}

// DrawPoissonHMMParams draws the parameters of a k-state PoissonHMM from its prior.
func DrawPoissonHMMParams(rng *rand.Rand, k int) PoissonHMMParams {
	g := distuv.Gamma{Alpha: PoissonHMMRateShape, Beta: PoissonHMMRateRate, Src: rng}
	p := PoissonHMMParams{Rates: make([]float64, k), Gamma: make([][]float64, k)}
	p.Rates[0] = g.Rand()
	for j := 1; j < k; j++ {
		p.Rates[j] = p.Rates[j-1] + g.Rand()
	}
	flat := func() []float64 {
		v := make([]float64, k)
		s := 0.0
		for j := range v {
			v[j] = rng.ExpFloat64()
			s += v[j]
		}
		for j := range v {
			v[j] /= s
		}
		return v
	}
	for i := range p.Gamma {
		p.Gamma[i] = flat()
	}
	p.Rho = flat()
	return p
}

// GeneratePoissonHMM draws n states and counts of a PoissonHMM with parameters p.
func GeneratePoissonHMM(rng *rand.Rand, n int, p PoissonHMMParams) (y, z []int) {
	y, z = make([]int, n), make([]int, n)
	pick := func(w []float64) int {
		u := rng.Float64()
		for j, v := range w {
			if u < v {
				return j
			}
			u -= v
		}
		return len(w) - 1
	}
	for t := range z {
		if t == 0 {
			z[t] = pick(p.Rho)
		} else {
			z[t] = pick(p.Gamma[z[t-1]])
		}
		y[t] = int(distuv.Poisson{Lambda: p.Rates[z[t]], Src: rng}.Rand())
	}
	return y, z
}

// PoissonHMMSimulator returns the simulation-based calibration simulator of a
// k-state PoissonHMM of n counts: parameters from the prior, states and counts from
// the model. The truth holds lambda0, every delta[j], Gamma[i,j] and rho[j], and
// the states z[t] (the generated quantities).
func PoissonHMMSimulator(n, k int) sbc.Simulator {
	return func(rng *rand.Rand) (nmc.Model, map[string]float64, error) {
		p := DrawPoissonHMMParams(rng, k)
		y, z := GeneratePoissonHMM(rng, n, p)
		built, err := PoissonHMM(y, k)
		if err != nil {
			return nil, nil, err
		}
		truth := map[string]float64{"lambda0": p.Rates[0]}
		for j := 1; j < k; j++ {
			truth[fmt.Sprintf("delta[%d]", j-1)] = p.Rates[j] - p.Rates[j-1]
		}
		for i := range p.Gamma {
			for j, v := range p.Gamma[i] {
				truth[fmt.Sprintf("Gamma[%d,%d]", i, j)] = v
			}
		}
		for j, v := range p.Rho {
			truth[fmt.Sprintf("rho[%d]", j)] = v
		}
		for t, v := range z {
			truth[fmt.Sprintf("z[%d]", t)] = float64(v)
		}
		return built.Model, truth, nil
	}
}
