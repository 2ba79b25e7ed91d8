package ports

import (
	"fmt"
	"math/rand/v2"

	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc/graph"
)

// HMMPoissonData is the data of hmm_poisson: N counts y from a hidden Markov chain
// of K states.
type HMMPoissonData struct {
	K int
	Y []int
}

// StanVars returns the data as hmm_poisson.stan declares them: N, K and y.
func (d HMMPoissonData) StanVars() []frames.StanVar {
	return []frames.StanVar{frames.StanInt("N", len(d.Y)), frames.StanInt("K", d.K), frames.StanInts("y", d.Y)}
}

// Size returns N.
func (d HMMPoissonData) Size() int { return len(d.Y) }

// Describe describes the data: "100 counts, 2 states".
func (d HMMPoissonData) Describe() string { return fmt.Sprintf("%d counts, %d states", len(d.Y), d.K) }

// ReadHMMPoisson takes hmm_poisson's data from CmdStan JSON data: N ≥ 1, K ≥ 1 and
// N counts y ≥ 0.
func ReadHMMPoisson(sd *frames.StanData) (HMMPoissonData, error) {
	var d HMMPoissonData
	n, err := stanInt(sd, "N", 1)
	if err != nil {
		return d, err
	}
	if d.K, err = stanInt(sd, "K", 1); err != nil {
		return d, err
	}
	d.Y, err = stanInts(sd, "y", n, "N", 0, -1)
	return d, err
}

// HMMPoissonParams are the parameters of hmm_poisson: the transition rows Gamma[i]
// (P(z[t+1] = j | z[t] = i)), the initial distribution Rho and the increasing
// rates Lambda.
type HMMPoissonParams struct {
	Gamma       [][]float64
	Rho, Lambda []float64
}

// Named returns the parameters under their names in the draws.
func (p HMMPoissonParams) Named() ([]string, []float64) {
	var names []string
	var vals []float64
	for i, row := range p.Gamma {
		for j, v := range row {
			names, vals = append(names, fmt.Sprintf("Gamma[%d,%d]", i, j)), append(vals, v)
		}
	}
	names, vals = append(names, indexed("rho", len(p.Rho))...), append(vals, p.Rho...)
	return append(names, indexed("lambda", len(p.Lambda))...), append(vals, p.Lambda...)
}

// The parameters of hmm_poisson's generated data: two persistent states with rates
// far apart (HMMPoissonSeparated, 2 and 12) or close (HMMPoissonOverlapping, 4 and
// 7).
var (
	HMMPoissonSeparated = HMMPoissonParams{
		Gamma: [][]float64{{0.9, 0.1}, {0.2, 0.8}}, Rho: []float64{0.5, 0.5}, Lambda: []float64{2, 12}}
	HMMPoissonOverlapping = HMMPoissonParams{
		Gamma: [][]float64{{0.9, 0.1}, {0.2, 0.8}}, Rho: []float64{0.5, 0.5}, Lambda: []float64{4, 7}}
)

// SimulateHMMPoisson draws n states of the chain (z[0] ~ Rho, z[t] ~ Gamma[z[t−1]])
// and a count y[t] ~ Poisson(Lambda[z[t]]) at each; it returns the counts and the
// states.
func SimulateHMMPoisson(rng *rand.Rand, n int, p HMMPoissonParams) (HMMPoissonData, []int) {
	d := HMMPoissonData{K: len(p.Lambda), Y: make([]int, n)}
	z := make([]int, n)
	for t := range z {
		if t == 0 {
			z[t] = pick(rng, p.Rho)
		} else {
			z[t] = pick(rng, p.Gamma[z[t-1]])
		}
		d.Y[t] = poisson(rng, p.Lambda[z[t]])
	}
	return d, z
}

// HMMPoisson builds hmm_poisson (stan/hmm_poisson.stan) as a user porting the Stan
// program writes it with the engine's hidden Markov model (Stan's hmm_marginal,
// which Stan 2.21 lacks, so the Stan program runs the forward algorithm by hand):
//
//	Gamma[i] ~ Dirichlet(1, …, 1); rho ~ Dirichlet(1, …, 1);
//	lambda positive_ordered, lambda[k] ~ Gamma(2, rate 0.2);
//	log p(y) = log Σ_z rho[z[0]] Π_t Gamma[z[t−1]][z[t]] Π_t Poisson(y[t] | lambda[z[t]]),
//
// lambda a PositiveOrdered latent (the sampler moves lambda__raw: lambda[0] and the
// gaps), the emission log-likelihoods LogDensity columns, one per state, and the
// states summed out by Builder.HiddenMarkov, which also records them as z[t] (drawn
// by forward filtering, backward sampling at every draw).
func HMMPoisson(d HMMPoissonData) (*graph.Model, error) {
	if len(d.Y) == 0 {
		return nil, fmt.Errorf("ports: hmm_poisson: no counts")
	}
	if d.K < 2 {
		return nil, fmt.Errorf("ports: hmm_poisson: K = %d states, want at least 2", d.K)
	}
	for t, v := range d.Y {
		if v < 0 {
			return nil, fmt.Errorf("ports: hmm_poisson: count %d is %d, want ≥ 0", t, v)
		}
	}
	ones := make([]float64, d.K)
	for j := range ones {
		ones[j] = 1
	}
	y := make([]float64, len(d.Y))
	for t, v := range d.Y {
		y[t] = float64(v)
	}
	b := graph.New()
	flat := graph.Dirichlet(graph.Vec(ones...))
	gamma := b.Latent("Gamma", flat, d.K)
	rho := b.Latent("rho", flat)
	lambda := b.PositiveOrdered("lambda", d.K, graph.Gamma(graph.C(2), graph.C(0.2)))
	emit := make([]*graph.Node, d.K) // column j: log Poisson(y[t] | lambda[j])
	for j := range emit {
		emit[j] = graph.LogDensity(graph.Poisson(graph.Index(lambda, []int{j})), graph.Data(y))
	}
	b.HiddenMarkov("z", graph.Stack(emit...), gamma, rho)
	return built("hmm_poisson", b)
}

func hmmPoissonPort(name string, truth HMMPoissonParams) *models.Port {
	return port(models.Spec{Name: name, DefaultN: 100, SummaryVariables: []string{"Gamma", "rho", "lambda"}},
		"hmm_poisson", "-n counts N [100]",
		func(rng *rand.Rand, n, _ int) (HMMPoissonData, named, error) {
			d, z := SimulateHMMPoisson(rng, n, truth)
			return d, hmmTruth{truth, z}, nil
		},
		ReadHMMPoisson, HMMPoisson)
}

// hmmTruth is the generating values of hmm_poisson's data: the parameters and the
// states, recorded as z[t].
type hmmTruth struct {
	p HMMPoissonParams
	z []int
}

func (h hmmTruth) Named() ([]string, []float64) {
	names, vals := h.p.Named()
	for t, v := range h.z {
		names, vals = append(names, fmt.Sprintf("z[%d]", t)), append(vals, float64(v))
	}
	return names, vals
}
