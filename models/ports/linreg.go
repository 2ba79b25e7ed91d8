package ports

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc/graph"
)

// LinRegData is the data of linreg_2scalar and linreg_vector: N pairs (x, y).
type LinRegData struct {
	X, Y []float64
}

// StanVars returns the data as linreg.stan declares them: N, x and y.
func (d LinRegData) StanVars() []frames.StanVar {
	return []frames.StanVar{frames.StanInt("N", len(d.Y)), frames.StanReals("x", d.X), frames.StanReals("y", d.Y)}
}

// Size returns N.
func (d LinRegData) Size() int { return len(d.Y) }

// Describe describes the data: "100 rows".
func (d LinRegData) Describe() string { return fmt.Sprintf("%d rows", len(d.Y)) }

// ReadLinReg takes linreg's data from CmdStan JSON data: N ≥ 1, N reals x and y.
func ReadLinReg(sd *frames.StanData) (LinRegData, error) {
	n, err := stanInt(sd, "N", 1)
	if err != nil {
		return LinRegData{}, err
	}
	x, err := stanFloats(sd, "x", n, "N")
	if err != nil {
		return LinRegData{}, err
	}
	y, err := stanFloats(sd, "y", n, "N")
	return LinRegData{X: x, Y: y}, err
}

// LinRegParams are the parameters of linreg.
type LinRegParams struct {
	Alpha, Beta, Sigma float64
}

// Named returns the parameters under their names in the draws.
func (p LinRegParams) Named() ([]string, []float64) {
	return []string{"alpha", "beta", "sigma"}, []float64{p.Alpha, p.Beta, p.Sigma}
}

// LinRegTruth are the parameters linreg's data are generated with; the predictor
// is x ~ N(LinRegXMean, 1), uncentred, so that alpha and beta are correlated about
// −0.9995 a posteriori.
var LinRegTruth = LinRegParams{Alpha: 2, Beta: 0.5, Sigma: 1}

// LinRegXMean is the mean of the generated predictor.
const LinRegXMean = 30.0

// SimulateLinReg draws n rows: x ~ N(LinRegXMean, 1), y ~ N(alpha + beta·x, sigma²).
func SimulateLinReg(rng *rand.Rand, n int, p LinRegParams) LinRegData {
	d := LinRegData{X: make([]float64, n), Y: make([]float64, n)}
	for i := range d.X {
		d.X[i] = LinRegXMean + rng.NormFloat64()
		d.Y[i] = p.Alpha + p.Beta*d.X[i] + p.Sigma*rng.NormFloat64()
	}
	return d
}

// DrawLinRegParams draws linreg's parameters from its prior: alpha ~ N(0, 100²),
// beta ~ N(0, 10²), sigma ~ N(0, 10²) on (0, ∞).
func DrawLinRegParams(rng *rand.Rand) LinRegParams {
	return LinRegParams{Alpha: 100 * rng.NormFloat64(), Beta: 10 * rng.NormFloat64(), Sigma: 10 * absNorm(rng)}
}

// LinReg2Scalar builds linreg (stan/linreg.stan) as the Stan program reads, alpha
// and beta two scalar latents:
//
//	alpha ~ N(0, 100²); beta ~ N(0, 10²); sigma ~ N(0, 10²) on (0, ∞);
//	y ~ N(alpha + beta·x, sigma²).
func LinReg2Scalar(d LinRegData) (*graph.Model, error) {
	if err := d.check("linreg_2scalar"); err != nil {
		return nil, err
	}
	b := graph.New()
	alpha := b.Latent("alpha", graph.Normal(graph.C(0), graph.C(100)))
	beta := b.Latent("beta", graph.Normal(graph.C(0), graph.C(10)))
	sigma := b.Latent("sigma", graph.HalfNormal(graph.C(10)))
	b.Observe("y", graph.Normal(graph.Add(alpha, graph.Mul(beta, graph.Data(d.X))), sigma), d.Y)
	return built("linreg_2scalar", b)
}

// LinRegVector builds the same model with (alpha, beta) as one 2-d Vector site
// coef moved by joint Newton steps, the design matrix [1 x] times coef; alpha and
// beta are recorded as derived quantities under the Stan program's names.
func LinRegVector(d LinRegData) (*graph.Model, error) {
	if err := d.check("linreg_vector"); err != nil {
		return nil, err
	}
	x := mat.NewDense(len(d.X), 2, nil)
	for i, v := range d.X {
		x.Set(i, 0, 1)
		x.Set(i, 1, v)
	}
	b := graph.New()
	coef := b.Vector("coef", 2, graph.Normal(graph.C(0), graph.Data([]float64{100, 10})))
	sigma := b.Latent("sigma", graph.HalfNormal(graph.C(10)))
	b.Deterministic("alpha", graph.Index(coef, []int{0}))
	b.Deterministic("beta", graph.Index(coef, []int{1}))
	b.Observe("y", graph.Normal(graph.MatVec(x, coef), sigma), d.Y)
	return built("linreg_vector", b)
}

func (d LinRegData) check(model string) error {
	if len(d.Y) == 0 || len(d.X) != len(d.Y) {
		return fmt.Errorf("ports: %s: %d values of x and %d of y, want the same number, at least 1", model, len(d.X), len(d.Y))
	}
	return nil
}

func linRegPort(name string, build func(LinRegData) (*graph.Model, error)) *models.Port {
	return port(models.Spec{Name: name, DefaultN: 100, SummaryVariables: []string{"alpha", "beta", "sigma"}},
		"linreg", "-n rows N [100]",
		func(rng *rand.Rand, n, _ int) (LinRegData, named, error) {
			return SimulateLinReg(rng, n, LinRegTruth), LinRegTruth, nil
		},
		ReadLinReg, build)
}
