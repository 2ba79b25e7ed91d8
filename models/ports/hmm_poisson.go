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

// HMMPoisson builds hmm_poisson (stan/hmm_poisson.stan) for two states with the
// expressions the builder has today:
//
//	Gamma[i] ~ Dirichlet(1, 1); rho ~ Dirichlet(1, 1);
//	lambda ordered, lambda[k] ~ Gamma(2, rate 0.2);
//	log p(y) by the forward algorithm over the two states.
//
// Until the builder has positive_ordered latents, lambda[0] = lambda_lo and
// lambda[1] = lambda_lo + lambda_gap (a unit Jacobian) with lambda[1]'s prior added
// as a factor; until it has a hidden Markov marginal (graph.HiddenMarkov), the
// forward algorithm is written in nodes, a two-term log-sum-exp as
// a + Softplus(b − a). Without per-score memoisation each forward variable is
// re-evaluated along every path that reads it: the cost doubles with each time
// step, so this builder serves chains of a few steps only.
func HMMPoisson(d HMMPoissonData) (*graph.Model, error) {
	if len(d.Y) == 0 {
		return nil, fmt.Errorf("ports: hmm_poisson: no counts")
	}
	if d.K != 2 {
		return nil, fmt.Errorf("ports: hmm_poisson: K = %d states; the builder has two", d.K)
	}
	for t, v := range d.Y {
		if v < 0 {
			return nil, fmt.Errorf("ports: hmm_poisson: count %d is %d, want ≥ 0", t, v)
		}
	}
	b := graph.New()
	flat := graph.Dirichlet(graph.Vec(1, 1))
	gamma := b.Latent("Gamma", flat, 2)
	rho := b.Latent("rho", flat)
	lo := b.Latent("lambda_lo", graph.Gamma(graph.C(2), graph.C(0.2)))
	gap := b.Latent("lambda_gap", graph.HalfFlat())
	hi := graph.Add(lo, gap)
	b.Factor("lambda_hi_prior", graph.Sub(graph.Log(hi), graph.Mul(graph.C(0.2), hi)))
	b.Deterministic("lambda", graph.Concat(lo, hi))
	lambda := []*graph.Node{lo, hi}
	logGamma := [2][2]*graph.Node{}
	for i := range 2 {
		row := graph.Components(graph.Index(gamma, []int{i}))
		for j := range 2 {
			logGamma[i][j] = graph.Log(graph.Index(row, []int{j}))
		}
	}
	rhoK := graph.Components(rho)
	emit := func(t, k int) *graph.Node { // log Poisson(y[t] | lambda[k]) + log y[t]!
		return graph.Sub(graph.Mul(graph.C(float64(d.Y[t])), graph.Log(lambda[k])), lambda[k])
	}
	lse := func(a, c *graph.Node) *graph.Node { return graph.Add(a, graph.Softplus(graph.Sub(c, a))) }
	var la [2]*graph.Node
	for k := range 2 {
		la[k] = graph.Add(graph.Log(graph.Index(rhoK, []int{k})), emit(0, k))
	}
	for t := 1; t < len(d.Y); t++ {
		var next [2]*graph.Node
		for k := range 2 {
			next[k] = graph.Add(lse(graph.Add(la[0], logGamma[0][k]), graph.Add(la[1], logGamma[1][k])), emit(t, k))
		}
		la = next
	}
	b.Factor("y", lse(la[0], la[1]))
	m, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("ports: hmm_poisson: %w", err)
	}
	return m, nil
}

func hmmPoissonPort(name string, truth HMMPoissonParams) *models.Port {
	return port(models.Spec{Name: name, DefaultN: 100, SummaryVariables: []string{"Gamma", "rho", "lambda"}},
		"hmm_poisson", "-n counts N [100]",
		func(rng *rand.Rand, n, _ int) (HMMPoissonData, named, error) {
			d, _ := SimulateHMMPoisson(rng, n, truth)
			return d, truth, nil
		},
		ReadHMMPoisson, HMMPoisson)
}
