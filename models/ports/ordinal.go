package ports

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc/dist"
	"github.com/nmc-go/nmc/nmc/graph"
)

// OrdinalData is the data of ordinal_regr: N rows of P predictors X and the
// category y of each, 0 … K − 1 here (1 … K in the Stan data).
type OrdinalData struct {
	K int
	Y []int
	X *mat.Dense
}

// StanVars returns the data as ordinal_regr.stan declares them: K, N, P, y
// (1-based) and x.
func (d OrdinalData) StanVars() []frames.StanVar {
	return categoryStanVars(d.K, d.Y, d.X, "P")
}

// Size returns N.
func (d OrdinalData) Size() int { return len(d.Y) }

// Describe describes the data: "500 rows, 3 predictors, 4 categories".
func (d OrdinalData) Describe() string {
	return describeCategories(d.K, d.Y, d.X)
}

// ReadOrdinal takes ordinal_regr's data from CmdStan JSON data: K ≥ 2, N ≥ 1,
// P ≥ 1, N categories y in 1…K and the N × P matrix x.
func ReadOrdinal(sd *frames.StanData) (OrdinalData, error) {
	var d OrdinalData
	var err error
	d.K, d.Y, d.X, err = readCategories(sd, "P")
	return d, err
}

// OrdinalParams are the parameters of ordinal_regr.
type OrdinalParams struct {
	Beta, C []float64
}

// Named returns the parameters under their names in the draws.
func (p OrdinalParams) Named() ([]string, []float64) {
	return append(indexed("beta", len(p.Beta)), indexed("c", len(p.C))...), append(append([]float64(nil), p.Beta...), p.C...)
}

// OrdinalTruth are the parameters ordinal_regr's data are generated with: three
// predictors and four categories.
var OrdinalTruth = OrdinalParams{Beta: []float64{0.8, -0.5, 0.3}, C: []float64{-1.5, 0, 1.2}}

// SimulateOrdinal draws n rows: x ~ N(0, 1) per entry, y ~
// OrderedLogistic(x·beta, c).
func SimulateOrdinal(rng *rand.Rand, n int, p OrdinalParams) OrdinalData {
	k := len(p.C) + 1
	d := OrdinalData{K: k, Y: make([]int, n), X: mat.NewDense(n, len(p.Beta), nil)}
	args := make([]float64, k)
	copy(args[1:], p.C)
	var y [1]float64
	for i := range d.Y {
		args[0] = 0
		for j, b := range p.Beta {
			v := rng.NormFloat64()
			d.X.Set(i, j, v)
			args[0] += b * v
		}
		dist.OrderedLogistic{}.Rand(rng, args, k, y[:])
		d.Y[i] = int(y[0])
	}
	return d
}

// Ordinal builds ordinal_regr (stan/ordinal_regr.stan) as the Stan program reads,
// beta one Vector site, c an Ordered latent:
//
//	beta ~ N(0, 2.5²); c ~ N(0, 5²) (ordered); y ~ OrderedLogistic(x·beta, c).
func Ordinal(d OrdinalData) (*graph.Model, error) {
	p, err := categoryShape("ordinal_regr", d.K, d.Y, d.X, "P")
	if err != nil {
		return nil, err
	}
	b := graph.New()
	beta := b.Vector("beta", p, graph.Normal(graph.C(0), graph.C(2.5)))
	c := b.Ordered("c", d.K-1, graph.Normal(graph.C(0), graph.C(5)))
	b.ObserveInts("y", graph.OrderedLogistic(graph.MatVec(d.X, beta), c), d.Y)
	return built("ordinal_regr", b)
}

func ordinalPort() *models.Port {
	return port(models.Spec{Name: "ordinal_regr", DefaultN: 500, SummaryVariables: []string{"beta", "c"}},
		"ordinal_regr", "-n rows N [500]",
		func(rng *rand.Rand, n, _ int) (OrdinalData, named, error) {
			if n < 1 {
				return OrdinalData{}, nil, sizeErr("ordinal_regr", "n", n, "want at least 1 row")
			}
			return SimulateOrdinal(rng, n, OrdinalTruth), OrdinalTruth, nil
		},
		ReadOrdinal, Ordinal)
}
