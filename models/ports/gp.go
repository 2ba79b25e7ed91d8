package ports

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc/graph"
)

// GPPoisData is the data of gp_pois_regr: counts K at points X.
type GPPoisData struct {
	X []float64
	K []int
}

// StanVars returns the data as gp_pois_regr.stan declares them: N, x and k.
func (d GPPoisData) StanVars() []frames.StanVar {
	return []frames.StanVar{frames.StanInt("N", len(d.X)), frames.StanReals("x", d.X), frames.StanInts("k", d.K)}
}

// Size returns N.
func (d GPPoisData) Size() int { return len(d.X) }

// Describe describes the data: "11 points".
func (d GPPoisData) Describe() string { return fmt.Sprintf("%d points", len(d.X)) }

// ReadGPPois takes gp_pois_regr's data from CmdStan JSON data: N ≥ 1, N reals x
// and N counts k ≥ 0.
func ReadGPPois(sd *frames.StanData) (GPPoisData, error) {
	n, err := stanInt(sd, "N", 1)
	if err != nil {
		return GPPoisData{}, err
	}
	x, err := stanFloats(sd, "x", n, "N")
	if err != nil {
		return GPPoisData{}, err
	}
	k, err := stanInts(sd, "k", n, "N", 0, -1)
	return GPPoisData{X: x, K: k}, err
}

// GPParams are the parameters of the Gaussian process models: length scale Rho,
// amplitude Alpha, and either the latent values F (gp_pois_regr) or the noise scale
// Sigma (gp_regr).
type GPParams struct {
	Rho, Alpha, Sigma float64
	F                 []float64
}

// Named returns the parameters under their names in the draws: rho, alpha and f[i]
// (gp_pois_regr) or sigma (gp_regr).
func (p GPParams) Named() ([]string, []float64) {
	if p.F != nil {
		return append([]string{"rho", "alpha"}, indexed("f", len(p.F))...), append([]float64{p.Rho, p.Alpha}, p.F...)
	}
	return []string{"rho", "alpha", "sigma"}, []float64{p.Rho, p.Alpha, p.Sigma}
}

// GPPoisTruth and GPRegrTruth are the hyperparameters the Gaussian process models'
// data are generated with (gp_pois_regr's latent values are drawn from the
// process).
var (
	GPPoisTruth = GPParams{Rho: 6, Alpha: 2}
	GPRegrTruth = GPParams{Rho: 5, Alpha: 1.5, Sigma: 0.5}
)

// GPPoisPoints returns posteriordb's gp_pois_regr points, x = −10, −8, …, 10.
func GPPoisPoints() []float64 {
	x := make([]float64, 11)
	for i := range x {
		x[i] = -10 + 2*float64(i)
	}
	return x
}

// expQuadCov returns K[i, j] = α² exp(−(x_i − x_j)²/(2ρ²)) + jitter·δ_ij.
func expQuadCov(x []float64, alpha, rho, jitter float64) *mat.SymDense {
	k := mat.NewSymDense(len(x), nil)
	for i := range x {
		for j := i; j < len(x); j++ {
			d := x[i] - x[j]
			v := alpha * alpha * math.Exp(-d*d/(2*rho*rho))
			if i == j {
				v += jitter
			}
			k.SetSym(i, j, v)
		}
	}
	return k
}

// drawMVN draws from N(0, k).
func drawMVN(rng *rand.Rand, k *mat.SymDense) ([]float64, error) {
	var ch mat.Cholesky
	if !ch.Factorize(k) {
		return nil, errors.New("covariance not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	n := k.SymmetricDim()
	z := mat.NewVecDense(n, nil)
	for i := range n {
		z.SetVec(i, rng.NormFloat64())
	}
	var f mat.VecDense
	f.MulVec(&l, z)
	return slices.Clone(f.RawVector().Data), nil
}

// SimulateGPPois draws gp_pois_regr's data at the points x: f ~ N(0, K + 1e−10·I)
// with the hyperparameters of p, k[i] ~ Poisson(exp(f[i])). It returns the data and
// p with the latent values drawn.
func SimulateGPPois(rng *rand.Rand, x []float64, p GPParams) (GPPoisData, GPParams, error) {
	f, err := drawMVN(rng, expQuadCov(x, p.Alpha, p.Rho, 1e-10))
	if err != nil {
		return GPPoisData{}, p, err
	}
	p.F = f
	d := GPPoisData{X: slices.Clone(x), K: make([]int, len(x))}
	for i, v := range f {
		d.K[i] = poisson(rng, math.Exp(v))
	}
	return d, p, nil
}

// GPPois builds gp_pois_regr (stan/gp_pois_regr.stan) as a user porting the Stan
// program writes it, f one site of N coordinates:
//
//	rho ~ Gamma(25, rate 4); alpha ~ N(0, 2²) on (0, ∞);
//	f ~ N(0, K(x; alpha, rho) + 1e−10·I); k[i] ~ Poisson(exp(f[i])).
func GPPois(d GPPoisData) (*graph.Model, error) {
	if len(d.X) == 0 || len(d.K) != len(d.X) {
		return nil, fmt.Errorf("ports: gp_pois_regr: %d points and %d counts, want the same number, at least 1", len(d.X), len(d.K))
	}
	b := graph.New()
	rho := b.Latent("rho", graph.Gamma(graph.C(25), graph.C(4)))
	alpha := b.Latent("alpha", graph.HalfNormal(graph.C(2)))
	cov := graph.AddDiag(graph.ExpQuadCov(graph.Data(d.X), alpha, rho), graph.C(1e-10))
	f := b.Latent("f", graph.MultivariateNormalCov(graph.C(0), cov))
	b.ObserveInts("k", graph.PoissonLog(graph.Components(f)), d.K)
	return built("gp_pois_regr", b)
}

// GPPoisNC builds gp_pois_regr in the non-centred form
// (stan/gp_pois_regr_nc.stan), as a user writes the Stan program's
// cholesky_decompose(K) * eta, eta one site of N coordinates:
//
//	rho ~ Gamma(25, rate 4); alpha ~ N(0, 2²) on (0, ∞); eta[i] ~ N(0, 1);
//	f = L·eta, L L' = K(x; alpha, rho) + 1e−10·I; k[i] ~ Poisson(exp(f[i])),
//
// with f recorded as a derived quantity. Given eta the counts pin alpha and rho;
// the graph engine's rules AutoScale (alpha dilated, eta contracted) and
// AutoKernelCarry (alpha and rho moved with eta carried along) move them by their
// law given f.
func GPPoisNC(d GPPoisData) (*graph.Model, error) {
	if len(d.X) == 0 || len(d.K) != len(d.X) {
		return nil, fmt.Errorf("ports: gp_pois_regr_nc: %d points and %d counts, want the same number, at least 1", len(d.X), len(d.K))
	}
	b := graph.New()
	rho := b.Latent("rho", graph.Gamma(graph.C(25), graph.C(4)))
	alpha := b.Latent("alpha", graph.HalfNormal(graph.C(2)))
	eta := b.Vector("eta", len(d.X), graph.Normal(graph.C(0), graph.C(1)))
	cov := graph.AddDiag(graph.ExpQuadCov(graph.Data(d.X), alpha, rho), graph.C(1e-10))
	f := graph.CholeskyMul(cov, eta)
	b.Deterministic("f", f)
	b.ObserveInts("k", graph.PoissonLog(f), d.K)
	return built("gp_pois_regr_nc", b)
}

// GPRegrData is the data of gp_regr: observations Y at points X.
type GPRegrData struct {
	X, Y []float64
}

// StanVars returns the data as gp_regr.stan declares them: N, x and y.
func (d GPRegrData) StanVars() []frames.StanVar {
	return []frames.StanVar{frames.StanInt("N", len(d.X)), frames.StanReals("x", d.X), frames.StanReals("y", d.Y)}
}

// Size returns N.
func (d GPRegrData) Size() int { return len(d.X) }

// Describe describes the data: "40 points".
func (d GPRegrData) Describe() string { return fmt.Sprintf("%d points", len(d.X)) }

// ReadGPRegr takes gp_regr's data from CmdStan JSON data: N ≥ 1, N reals x and y.
func ReadGPRegr(sd *frames.StanData) (GPRegrData, error) {
	n, err := stanInt(sd, "N", 1)
	if err != nil {
		return GPRegrData{}, err
	}
	x, err := stanFloats(sd, "x", n, "N")
	if err != nil {
		return GPRegrData{}, err
	}
	y, err := stanFloats(sd, "y", n, "N")
	return GPRegrData{X: x, Y: y}, err
}

// SimulateGPRegr draws gp_regr's data: n points x uniform on (−10, 10), sorted, and
// y ~ N(0, K(x; alpha, rho) + sigma²·I).
func SimulateGPRegr(rng *rand.Rand, n int, p GPParams) (GPRegrData, error) {
	x := make([]float64, n)
	for i := range x {
		x[i] = -10 + 20*rng.Float64()
	}
	slices.Sort(x)
	y, err := drawMVN(rng, expQuadCov(x, p.Alpha, p.Rho, p.Sigma*p.Sigma))
	return GPRegrData{X: x, Y: y}, err
}

// GPRegr builds gp_regr (stan/gp_regr.stan), the marginal likelihood of a Gaussian
// process regression, as a user porting the Stan program writes it:
//
//	rho ~ Gamma(25, rate 4); alpha ~ N(0, 2²), sigma ~ N(0, 1) on (0, ∞);
//	y ~ N(0, K(x; alpha, rho) + sigma²·I).
func GPRegr(d GPRegrData) (*graph.Model, error) {
	if len(d.X) == 0 || len(d.Y) != len(d.X) {
		return nil, fmt.Errorf("ports: gp_regr: %d points and %d observations, want the same number, at least 1", len(d.X), len(d.Y))
	}
	b := graph.New()
	rho := b.Latent("rho", graph.Gamma(graph.C(25), graph.C(4)))
	alpha := b.Latent("alpha", graph.HalfNormal(graph.C(2)))
	sigma := b.Latent("sigma", graph.HalfNormal(graph.C(1)))
	cov := graph.AddDiag(graph.ExpQuadCov(graph.Data(d.X), alpha, rho), graph.Mul(sigma, sigma))
	b.Observe("y", graph.MultivariateNormalCov(graph.C(0), cov), d.Y)
	return built("gp_regr", b)
}

func gpPoisPort() *models.Port { return gpPoisPortOf("gp_pois_regr", GPPois) }

// gpPoisPortOf is gp_pois_regr's port under the name of a form of it, built by build
// (the data and their generator are the same).
func gpPoisPortOf(name string, build func(GPPoisData) (*graph.Model, error)) *models.Port {
	return port(models.Spec{Name: name, DefaultN: 11, SummaryVariables: []string{"rho", "alpha", "f"}},
		name, "-n points N [11]: x = −10, −8, …, 10 for 11, else N points evenly spaced on [−10, 10]",
		func(rng *rand.Rand, n, _ int) (GPPoisData, named, error) {
			x := GPPoisPoints()
			if n != len(x) {
				if n < 2 {
					return GPPoisData{}, nil, sizeErr(name, "n", n, "want at least 2 points")
				}
				x = make([]float64, n)
				for i := range x {
					x[i] = -10 + 20*float64(i)/float64(n-1)
				}
			}
			d, p, err := SimulateGPPois(rng, x, GPPoisTruth)
			return d, p, err
		},
		ReadGPPois, build)
}

func gpRegrPort() *models.Port {
	return port(models.Spec{Name: "gp_regr", DefaultN: 40, SummaryVariables: []string{"rho", "alpha", "sigma"}},
		"gp_regr", "-n points N [40]",
		func(rng *rand.Rand, n, _ int) (GPRegrData, named, error) {
			d, err := SimulateGPRegr(rng, n, GPRegrTruth)
			return d, GPRegrTruth, err
		},
		ReadGPRegr, GPRegr)
}
