package ports

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc/graph"
)

// GARCH11Data is the data of garch11: a series y[0], …, y[T−1] and the scale
// sigma1 of its first step.
type GARCH11Data struct {
	Y      []float64
	Sigma1 float64
}

// StanVars returns the data as garch11.stan declares them: T, y and sigma1.
func (d GARCH11Data) StanVars() []frames.StanVar {
	return []frames.StanVar{frames.StanInt("T", len(d.Y)), frames.StanReals("y", d.Y), frames.StanReal("sigma1", d.Sigma1)}
}

// Size returns T.
func (d GARCH11Data) Size() int { return len(d.Y) }

// Describe describes the data: "200 time steps".
func (d GARCH11Data) Describe() string { return fmt.Sprintf("%d time steps", len(d.Y)) }

// ReadGARCH11 takes garch11's data from CmdStan JSON data: T ≥ 2, T reals y and
// sigma1 > 0.
func ReadGARCH11(sd *frames.StanData) (GARCH11Data, error) {
	t, err := stanInt(sd, "T", 2)
	if err != nil {
		return GARCH11Data{}, err
	}
	y, err := stanFloats(sd, "y", t, "T")
	if err != nil {
		return GARCH11Data{}, err
	}
	s, err := sd.Float("sigma1")
	if err != nil {
		return GARCH11Data{}, err
	}
	if !(s > 0) {
		return GARCH11Data{}, stanErr(sd, "sigma1", "is %g, want > 0", s)
	}
	return GARCH11Data{Y: y, Sigma1: s}, nil
}

// GARCH11Params are the parameters of garch11.
type GARCH11Params struct {
	Mu, Alpha0, Alpha1, Beta1 float64
}

// Named returns the parameters under their names in the draws.
func (p GARCH11Params) Named() ([]string, []float64) {
	return []string{"mu", "alpha0", "alpha1", "beta1"}, []float64{p.Mu, p.Alpha0, p.Alpha1, p.Beta1}
}

// GARCH11Truth are the parameters garch11's data are generated with, and
// GARCH11Sigma1 the scale of the first step.
var (
	GARCH11Truth  = GARCH11Params{Mu: 0.5, Alpha0: 0.2, Alpha1: 0.3, Beta1: 0.5}
	GARCH11Sigma1 = 1.0
)

// SimulateGARCH11 draws a series of t steps from garch11 with parameters p and
// first scale sigma1: y[t] ~ N(mu, sigma[t]²), sigma[0] = sigma1 and
// sigma[t]² = alpha0 + alpha1·(y[t−1] − mu)² + beta1·sigma[t−1]².
func SimulateGARCH11(rng *rand.Rand, t int, p GARCH11Params, sigma1 float64) GARCH11Data {
	y := make([]float64, t)
	v := sigma1 * sigma1
	for i := range y {
		if i > 0 {
			e := y[i-1] - p.Mu
			v = p.Alpha0 + p.Alpha1*e*e + p.Beta1*v
		}
		y[i] = p.Mu + math.Sqrt(v)*rng.NormFloat64()
	}
	return GARCH11Data{Y: y, Sigma1: sigma1}
}

// GARCH11 builds garch11 (posteriordb's GARCH(1, 1), stan/garch11.stan) as a user
// porting the Stan program writes it, the variance recursion in a Go loop:
//
//	mu flat; alpha0 > 0 flat; alpha1 ~ U(0, 1); beta1 flat on (0, 1 − alpha1);
//	sigma[0] = sigma1; sigma[t]² = alpha0 + alpha1·(y[t−1] − mu)² + beta1·sigma[t−1]²;
//	y[t] ~ N(mu, sigma[t]²).
//
// Stan's real<lower=0, upper=(1 − alpha1)> beta1 is a Bounded latent whose upper
// bound is a node (the sampler moves beta1__raw, the fraction of the interval, and
// records beta1).
func GARCH11(d GARCH11Data) (*graph.Model, error) {
	if len(d.Y) < 2 {
		return nil, fmt.Errorf("ports: garch11: %d observations, want at least 2", len(d.Y))
	}
	if !(d.Sigma1 > 0) {
		return nil, fmt.Errorf("ports: garch11: sigma1 = %g, want > 0", d.Sigma1)
	}
	b := graph.New()
	mu := b.Latent("mu", graph.Flat())
	alpha0 := b.Latent("alpha0", graph.HalfFlat())
	alpha1 := b.Latent("alpha1", graph.Uniform(graph.C(0), graph.C(1)))
	beta1 := b.Bounded("beta1", graph.C(0), graph.Sub(graph.C(1), alpha1), graph.Flat())
	v := graph.C(d.Sigma1 * d.Sigma1)
	sigma := make([]*graph.Node, len(d.Y))
	sigma[0] = graph.C(d.Sigma1)
	for t := 1; t < len(d.Y); t++ {
		e := graph.Sub(graph.C(d.Y[t-1]), mu)
		v = graph.Add(graph.Add(alpha0, graph.Mul(alpha1, graph.Mul(e, e))), graph.Mul(beta1, v))
		sigma[t] = graph.Sqrt(v)
	}
	b.Observe("y", graph.Normal(mu, graph.Concat(sigma...)), d.Y)
	return built("garch11", b)
}

func garch11Port() *models.Port {
	return port(models.Spec{Name: "garch11", DefaultN: 200, SummaryVariables: []string{"mu", "alpha0", "alpha1", "beta1"}},
		"garch11", "-n time steps T [200]",
		func(rng *rand.Rand, n, _ int) (GARCH11Data, named, error) {
			if n < 2 {
				return GARCH11Data{}, nil, sizeErr("garch11", "n", n, "want at least 2 time steps")
			}
			return SimulateGARCH11(rng, n, GARCH11Truth, GARCH11Sigma1), GARCH11Truth, nil
		},
		ReadGARCH11, GARCH11)
}
