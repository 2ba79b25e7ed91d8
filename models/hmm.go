package models

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
	"github.com/nmc-go/nmc/sbc"
)

// The hyperparameters of PoissonHMM's prior: each rate is Gamma(PoissonHMMRateShape,
// rate PoissonHMMRateRate) (mean 4) on the ordered set, the transition rows and the
// initial distribution Dirichlet(1, …, 1).
const (
	PoissonHMMRateShape = 2.0
	PoissonHMMRateRate  = 0.5
)

// PoissonHMM builds a hidden Markov model of counts with k states, written with the
// public graph API as Stan's
//
//	positive_ordered[k] lambda; array[k] simplex[k] Gamma; simplex[k] rho;
//	lambda ~ gamma(2, 0.5); Gamma[i] ~ dirichlet(1); rho ~ dirichlet(1);
//	target += hmm_marginal(log_omega, Gamma', rho);  // log_omega[j, t] = poisson_lpmf(y[t] | lambda[j])
//
// (Stan's Gamma rows are P(z_{t+1} | z_t = i) as here). The states are summed out
// by the forward algorithm (graph.HiddenMarkov) and drawn by forward filtering,
// backward sampling at every recorded draw as z[t]. The draws hold the sites
// lambda__raw[j] (lambda[0] and the gaps), Gamma[i,j] and rho[j], then lambda[j]
// and z[t]. y must hold at least one count, each ≥ 0, and k must be at least 2.
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
	lambda := b.PositiveOrdered("lambda", k, graph.Gamma(graph.C(PoissonHMMRateShape), graph.C(PoissonHMMRateRate)))
	gamma := b.Latent("Gamma", graph.Dirichlet(graph.Vec(ones...)), k)
	rho := b.Latent("rho", graph.Dirichlet(graph.Vec(ones...)))
	data := graph.Data(counts)
	cols := make([]*graph.Node, k)
	for j := range cols {
		cols[j] = graph.LogDensity(graph.Poisson(graph.Index(lambda, []int{j})), data)
	}
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
	for j := range p.Rates {
		p.Rates[j] = g.Rand()
	}
	slices.Sort(p.Rates) // independent gammas on the ordered set: their order statistics
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
// the model. The truth holds every lambda[j], Gamma[i,j] and rho[j], and the
// states z[t] (the generated quantities).
func PoissonHMMSimulator(n, k int) sbc.Simulator {
	return func(rng *rand.Rand) (nmc.Model, map[string]float64, error) {
		p := DrawPoissonHMMParams(rng, k)
		y, z := GeneratePoissonHMM(rng, n, p)
		built, err := PoissonHMM(y, k)
		if err != nil {
			return nil, nil, err
		}
		truth := map[string]float64{}
		for j, v := range p.Rates {
			truth[fmt.Sprintf("lambda[%d]", j)] = v
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
