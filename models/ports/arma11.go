package ports

import (
	"fmt"
	"math/rand/v2"

	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc/graph"
)

// ARMA11Data is the data of arma11: a time series y[0], …, y[T−1].
type ARMA11Data struct {
	Y []float64
}

// StanVars returns the data as arma11.stan declares them: T and y.
func (d ARMA11Data) StanVars() []frames.StanVar {
	return []frames.StanVar{frames.StanInt("T", len(d.Y)), frames.StanReals("y", d.Y)}
}

// Size returns T.
func (d ARMA11Data) Size() int { return len(d.Y) }

// Describe describes the data: "200 time steps".
func (d ARMA11Data) Describe() string { return fmt.Sprintf("%d time steps", len(d.Y)) }

// ReadARMA11 takes arma11's data from CmdStan JSON data: T ≥ 1 and T reals y.
func ReadARMA11(sd *frames.StanData) (ARMA11Data, error) {
	t, err := stanInt(sd, "T", 1)
	if err != nil {
		return ARMA11Data{}, err
	}
	y, err := stanFloats(sd, "y", t, "T")
	return ARMA11Data{Y: y}, err
}

// ARMA11Params are the parameters of arma11.
type ARMA11Params struct {
	Mu, Phi, Theta, Sigma float64
}

// Named returns the parameters under their names in the draws.
func (p ARMA11Params) Named() ([]string, []float64) {
	return []string{"mu", "phi", "theta", "sigma"}, []float64{p.Mu, p.Phi, p.Theta, p.Sigma}
}

// ARMA11Truth are the parameters arma11's data are generated with: a stationary,
// invertible process (|phi| < 1, |theta| < 1).
var ARMA11Truth = ARMA11Params{Mu: 0.5, Phi: 0.7, Theta: 0.3, Sigma: 0.8}

// SimulateARMA11 draws a series of t steps from arma11 with parameters p, by the
// model's own recursion: err[t] ~ N(0, sigma²) and y[t] = nu[t] + err[t], where
// nu[0] = mu + phi·mu and nu[t] = mu + phi·y[t−1] + theta·err[t−1].
func SimulateARMA11(rng *rand.Rand, t int, p ARMA11Params) ARMA11Data {
	y := make([]float64, t)
	prevErr := 0.0
	for i := range y {
		nu := p.Mu + p.Phi*p.Mu
		if i > 0 {
			nu = p.Mu + p.Phi*y[i-1] + p.Theta*prevErr
		}
		prevErr = p.Sigma * rng.NormFloat64()
		y[i] = nu + prevErr
	}
	return ARMA11Data{Y: y}
}

// DrawARMA11Params draws arma11's parameters from its prior: mu ~ N(0, 10²),
// phi, theta ~ N(0, 2²), sigma ~ Cauchy(0, 2.5) on (0, ∞).
func DrawARMA11Params(rng *rand.Rand) ARMA11Params {
	return ARMA11Params{
		Mu:    10 * rng.NormFloat64(),
		Phi:   2 * rng.NormFloat64(),
		Theta: 2 * rng.NormFloat64(),
		Sigma: halfCauchy(rng, 2.5),
	}
}

// ARMA11 builds arma11 (posteriordb's ARMA(1, 1), stan/arma11.stan) as a user
// porting the Stan program writes it, the recursion in a Go loop of scalar nodes:
//
//	mu ~ N(0, 10²); phi, theta ~ N(0, 2²); sigma ~ Cauchy(0, 2.5) on (0, ∞);
//	nu[0] = mu + phi·mu; err[0] = y[0] − nu[0];
//	nu[t] = mu + phi·y[t−1] + theta·err[t−1]; err[t] = y[t] − nu[t];
//	y[t] ~ N(nu[t], sigma²).
//
// Stan's err ~ normal(0, sigma) is y ~ normal(nu, sigma): err = y − nu has unit
// Jacobian. Without the engine's per-score memoisation each score of theta walks the
// recursion once per time step (quadratic in T).
func ARMA11(d ARMA11Data) (*graph.Model, error) {
	if len(d.Y) == 0 {
		return nil, fmt.Errorf("ports: arma11: no observations")
	}
	b := graph.New()
	mu := b.Latent("mu", graph.Normal(graph.C(0), graph.C(10)))
	phi := b.Latent("phi", graph.Normal(graph.C(0), graph.C(2)))
	theta := b.Latent("theta", graph.Normal(graph.C(0), graph.C(2)))
	sigma := b.Latent("sigma", graph.HalfCauchy(graph.C(2.5)))
	nu := make([]*graph.Node, len(d.Y))
	nu[0] = graph.Add(mu, graph.Mul(phi, mu))
	err := graph.Sub(graph.C(d.Y[0]), nu[0])
	for t := 1; t < len(d.Y); t++ {
		nu[t] = graph.Add(graph.Add(mu, graph.Mul(phi, graph.C(d.Y[t-1]))), graph.Mul(theta, err))
		err = graph.Sub(graph.C(d.Y[t]), nu[t])
	}
	b.Observe("y", graph.Normal(graph.Concat(nu...), sigma), d.Y)
	m, e := b.Build()
	if e != nil {
		return nil, fmt.Errorf("ports: arma11: %w", e)
	}
	return m, nil
}

func arma11Port() *models.Port {
	const name = "arma11"
	return port(models.Spec{Name: name, DefaultN: 200, SummaryVariables: []string{"mu", "phi", "theta", "sigma"}},
		"arma11", "-n time steps T [200]",
		func(rng *rand.Rand, n, _ int) (ARMA11Data, named, error) {
			return SimulateARMA11(rng, n, ARMA11Truth), ARMA11Truth, nil
		},
		ReadARMA11, ARMA11)
}
