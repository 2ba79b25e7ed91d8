package ports

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc/dist"
	"github.com/nmc-go/nmc/nmc/graph"
)

// RoachesData is the data of roaches_negbin: per apartment the roach count y
// after treatment, the exposure (trap days, relative), the pre-treatment count
// roach1 (in hundreds) and the treatment and senior-building indicators.
type RoachesData struct {
	Y                                  []int
	Exposure2, Roach1, Senior, Treated []float64
}

// StanVars returns the data as roaches_negbin.stan declares them.
func (d RoachesData) StanVars() []frames.StanVar {
	return []frames.StanVar{frames.StanInt("N", len(d.Y)), frames.StanReals("exposure2", d.Exposure2),
		frames.StanReals("roach1", d.Roach1), frames.StanReals("senior", d.Senior),
		frames.StanReals("treatment", d.Treated), frames.StanInts("y", d.Y)}
}

// Size returns N.
func (d RoachesData) Size() int { return len(d.Y) }

// Describe describes the data: "262 apartments".
func (d RoachesData) Describe() string { return fmt.Sprintf("%d apartments", len(d.Y)) }

// ReadRoaches takes roaches_negbin's data from CmdStan JSON data: N ≥ 1, N
// positive exposures, N reals roach1, senior and treatment, N counts y ≥ 0.
func ReadRoaches(sd *frames.StanData) (RoachesData, error) {
	n, err := stanInt(sd, "N", 1)
	if err != nil {
		return RoachesData{}, err
	}
	var d RoachesData
	for _, v := range []struct {
		name string
		dst  *[]float64
	}{{"exposure2", &d.Exposure2}, {"roach1", &d.Roach1}, {"senior", &d.Senior}, {"treatment", &d.Treated}} {
		if *v.dst, err = stanFloats(sd, v.name, n, "N"); err != nil {
			return RoachesData{}, err
		}
	}
	for i, e := range d.Exposure2 {
		if !(e > 0) || math.IsInf(e, 1) {
			return RoachesData{}, stanErr(sd, "exposure2", "element [%d] is %g, want a finite value > 0", i, e)
		}
	}
	if d.Y, err = stanInts(sd, "y", n, "N", 0, -1); err != nil {
		return RoachesData{}, err
	}
	return d, nil
}

// RoachesParams are the parameters of roaches_negbin.
type RoachesParams struct {
	Beta [4]float64
	Phi  float64
}

// Named returns the parameters under their names in the draws.
func (p RoachesParams) Named() ([]string, []float64) {
	return append(indexed("beta", 4), "phi"), []float64{p.Beta[0], p.Beta[1], p.Beta[2], p.Beta[3], p.Phi}
}

// RoachesTruth are the parameters roaches_negbin's data are generated with, near
// the posterior means of the study's 262 apartments.
var RoachesTruth = RoachesParams{Beta: [4]float64{2.8, 1.3, -0.8, -0.4}, Phi: 0.27}

// SimulateRoaches draws n apartments: exposure2 ~ U(0.2, 1.6), roach1 ~
// Gamma(0.5, rate 1.5) (in hundreds; mean 1/3, many near 0), treatment ~
// Bernoulli(0.6), senior ~ Bernoulli(0.3), y ~ NegBinomial2Log(log exposure2 +
// β₀ + β₁·roach1 + β₂·treatment + β₃·senior, φ).
func SimulateRoaches(rng *rand.Rand, n int, p RoachesParams) RoachesData {
	d := RoachesData{Y: make([]int, n), Exposure2: make([]float64, n), Roach1: make([]float64, n),
		Senior: make([]float64, n), Treated: make([]float64, n)}
	var y [1]float64
	for i := range d.Y {
		d.Exposure2[i] = 0.2 + 1.4*rng.Float64()
		d.Roach1[i] = dist.RandGamma(rng, 0.5, 1.5)
		if rng.Float64() < 0.6 {
			d.Treated[i] = 1
		}
		if rng.Float64() < 0.3 {
			d.Senior[i] = 1
		}
		eta := math.Log(d.Exposure2[i]) + p.Beta[0] + p.Beta[1]*d.Roach1[i] + p.Beta[2]*d.Treated[i] + p.Beta[3]*d.Senior[i]
		dist.NegBinomial2Log{}.Rand(rng, []float64{eta, p.Phi}, 1, y[:])
		d.Y[i] = int(y[0])
	}
	return d
}

// Roaches builds roaches_negbin (stan/roaches_negbin.stan) as the Stan program
// reads, beta one Vector site of four coefficients over the design matrix
// [1 roach1 treatment senior], the log exposure an offset:
//
//	beta ~ N(0, 2.5²); phi ~ Exponential(1);
//	y ~ NegBinomial2Log(log exposure2 + β₀ + β₁·roach1 + β₂·treatment + β₃·senior, phi).
func Roaches(d RoachesData) (*graph.Model, error) {
	n := len(d.Y)
	if n == 0 || len(d.Exposure2) != n || len(d.Roach1) != n || len(d.Senior) != n || len(d.Treated) != n {
		return nil, fmt.Errorf("ports: roaches_negbin: %d counts and %d, %d, %d, %d values of exposure2, roach1, senior and treatment, want the same number, at least 1",
			n, len(d.Exposure2), len(d.Roach1), len(d.Senior), len(d.Treated))
	}
	x := mat.NewDense(n, 4, nil)
	offset := make([]float64, n)
	for i := range n {
		if !(d.Exposure2[i] > 0) || math.IsInf(d.Exposure2[i], 1) {
			return nil, fmt.Errorf("ports: roaches_negbin: exposure2[%d] = %g, want a finite value > 0", i, d.Exposure2[i])
		}
		offset[i] = math.Log(d.Exposure2[i])
		x.SetRow(i, []float64{1, d.Roach1[i], d.Treated[i], d.Senior[i]})
	}
	b := graph.New()
	beta := b.Vector("beta", 4, graph.Normal(graph.C(0), graph.C(2.5)))
	phi := b.Latent("phi", graph.Exponential(graph.C(1)))
	b.ObserveInts("y", graph.NegBinomial2Log(graph.Add(graph.Data(offset), graph.MatVec(x, beta)), phi), d.Y)
	return built("roaches_negbin", b)
}

func roachesPort() *models.Port {
	return port(models.Spec{Name: "roaches_negbin", DefaultN: 262, SummaryVariables: []string{"beta", "phi"}},
		"roaches_negbin", "-n apartments N [262]",
		func(rng *rand.Rand, n, _ int) (RoachesData, named, error) {
			if n < 1 {
				return RoachesData{}, nil, sizeErr("roaches_negbin", "n", n, "want at least 1 apartment")
			}
			return SimulateRoaches(rng, n, RoachesTruth), RoachesTruth, nil
		},
		ReadRoaches, Roaches)
}
