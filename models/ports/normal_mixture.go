package ports

import (
	"fmt"
	"math/rand/v2"

	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc/graph"
)

// NormalMixtureData is the data of normal_mixture: N observations y.
type NormalMixtureData struct {
	Y []float64
}

// StanVars returns the data as normal_mixture.stan declares them: N and y.
func (d NormalMixtureData) StanVars() []frames.StanVar {
	return []frames.StanVar{frames.StanInt("N", len(d.Y)), frames.StanReals("y", d.Y)}
}

// Size returns N.
func (d NormalMixtureData) Size() int { return len(d.Y) }

// Describe describes the data: "1000 observations".
func (d NormalMixtureData) Describe() string { return fmt.Sprintf("%d observations", len(d.Y)) }

// ReadNormalMixture takes normal_mixture's data from CmdStan JSON data: N ≥ 1 and
// N reals y.
func ReadNormalMixture(sd *frames.StanData) (NormalMixtureData, error) {
	n, err := stanInt(sd, "N", 1)
	if err != nil {
		return NormalMixtureData{}, err
	}
	y, err := stanFloats(sd, "y", n, "N")
	return NormalMixtureData{Y: y}, err
}

// NormalMixtureParams are the parameters of normal_mixture: the component means
// (increasing) and scales, and the weight Theta of the first component.
type NormalMixtureParams struct {
	Mu, Sigma [2]float64
	Theta     float64
}

// Named returns the parameters under their names in the draws.
func (p NormalMixtureParams) Named() ([]string, []float64) {
	return []string{"mu[0]", "mu[1]", "sigma[0]", "sigma[1]", "theta"},
		[]float64{p.Mu[0], p.Mu[1], p.Sigma[0], p.Sigma[1], p.Theta}
}

// The parameters of normal_mixture's generated data: components 20 standard
// deviations apart (NormalMixtureSeparated) or 2 apart (NormalMixtureOverlapping).
var (
	NormalMixtureSeparated   = NormalMixtureParams{Mu: [2]float64{-10, 10}, Sigma: [2]float64{1, 1}, Theta: 0.3}
	NormalMixtureOverlapping = NormalMixtureParams{Mu: [2]float64{-1, 1}, Sigma: [2]float64{1, 1}, Theta: 0.3}
)

// SimulateNormalMixture draws n observations: each from component 0 with
// probability theta, else from component 1.
func SimulateNormalMixture(rng *rand.Rand, n int, p NormalMixtureParams) NormalMixtureData {
	y := make([]float64, n)
	for i := range y {
		c := 1
		if rng.Float64() < p.Theta {
			c = 0
		}
		y[i] = p.Mu[c] + p.Sigma[c]*rng.NormFloat64()
	}
	return NormalMixtureData{Y: y}
}

// NormalMixture builds normal_mixture (stan/normal_mixture.stan) as a user porting
// the Stan program writes it:
//
//	mu ordered, mu[k] ~ N(0, 10²); sigma[k] ~ N(0, 2²) on (0, ∞); theta ~ Beta(5, 5);
//	y[n] ~ theta·N(mu[0], sigma[0]²) + (1 − theta)·N(mu[1], sigma[1]²),
//
// mu an Ordered latent (the sampler moves mu__raw: mu[0] and the gap) and the
// likelihood Stan's log_mix (LogMix of the components' LogDensity).
func NormalMixture(d NormalMixtureData) (*graph.Model, error) {
	if len(d.Y) == 0 {
		return nil, fmt.Errorf("ports: normal_mixture: no observations")
	}
	b := graph.New()
	mu := b.Ordered("mu", 2, graph.Normal(graph.C(0), graph.C(10)))
	sigma := b.Latent("sigma", graph.HalfNormal(graph.C(2)), 2)
	theta := b.Latent("theta", graph.Beta(graph.C(5), graph.C(5)))
	y := graph.Data(d.Y)
	component := func(k int) *graph.Node {
		return graph.LogDensity(graph.Normal(graph.Index(mu, []int{k}), graph.Index(sigma, []int{k})), y)
	}
	b.Factor("y", graph.LogMix(theta, component(0), component(1)))
	return built("normal_mixture", b)
}

func normalMixturePort(name string, truth NormalMixtureParams) *models.Port {
	return port(models.Spec{Name: name, DefaultN: 1000, SummaryVariables: []string{"mu", "sigma", "theta"}},
		"normal_mixture", "-n observations N [1000]",
		func(rng *rand.Rand, n, _ int) (NormalMixtureData, named, error) {
			return SimulateNormalMixture(rng, n, truth), truth, nil
		},
		ReadNormalMixture, NormalMixture)
}
