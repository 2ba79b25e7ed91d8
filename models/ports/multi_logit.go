package ports

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc/graph"
)

// MultiLogitData is the data of multi_logit: N rows of D predictors X and the
// category y of each, 0 … K − 1 here (1 … K in the Stan data).
type MultiLogitData struct {
	K int
	Y []int
	X *mat.Dense
}

// StanVars returns the data as multi_logit.stan declares them: K, N, D, y
// (1-based) and x.
func (d MultiLogitData) StanVars() []frames.StanVar {
	return categoryStanVars(d.K, d.Y, d.X, "D")
}

// Size returns N.
func (d MultiLogitData) Size() int { return len(d.Y) }

// Describe returns a line naming the data's sizes.
func (d MultiLogitData) Describe() string {
	return describeCategories(d.K, d.Y, d.X)
}

// ReadMultiLogit reads multi_logit's data from CmdStan JSON: K ≥ 2, N, D ≥ 1,
// y (1 … K) and the N × D matrix x.
func ReadMultiLogit(sd *frames.StanData) (MultiLogitData, error) {
	var d MultiLogitData
	var err error
	d.K, d.Y, d.X, err = readCategories(sd, "D")
	return d, err
}

// MultiLogitParams is beta, D rows of K − 1 columns: column k holds the
// coefficients of category k + 1's logit.
type MultiLogitParams struct {
	Beta [][]float64
}

// Named returns beta[d,k], row by row.
func (p MultiLogitParams) Named() ([]string, []float64) {
	var names []string
	var vals []float64
	for d, row := range p.Beta {
		for k, v := range row {
			names = append(names, fmt.Sprintf("beta[%d,%d]", d, k))
			vals = append(vals, v)
		}
	}
	return names, vals
}

// MultiLogitTruth is the generating beta of `nmc gen -model multi_logit`: 3
// predictors, 4 categories.
var MultiLogitTruth = MultiLogitParams{Beta: [][]float64{{0.5, -0.4, 0.3}, {-0.3, 0.8, 0.3}, {0.2, 0.1, -0.6}}}

// SimulateMultiLogit draws n rows: x ~ N(0, 1) and y from the softmax of
// (0, x·beta).
func SimulateMultiLogit(rng *rand.Rand, n int, p MultiLogitParams) MultiLogitData {
	dims, k := len(p.Beta), len(p.Beta[0])+1
	d := MultiLogitData{K: k, Y: make([]int, n), X: mat.NewDense(n, dims, nil)}
	w := make([]float64, k)
	for i := range d.Y {
		for j := range dims {
			d.X.Set(i, j, rng.NormFloat64())
		}
		total := 1.0
		w[0] = 1
		for c := 1; c < k; c++ {
			eta := 0.0
			for j := range dims {
				eta += d.X.At(i, j) * p.Beta[j][c-1]
			}
			w[c] = math.Exp(eta)
			total += w[c]
		}
		u := rng.Float64() * total
		d.Y[i] = k - 1
		for c := range w {
			if u -= w[c]; u < 0 {
				d.Y[i] = c
				break
			}
		}
	}
	return d
}

// MultiLogit declares multi_logit.stan: beta's K − 1 columns as Vector sites
// beta_1 … beta_{K−1} (each N(0, 5²)), y ~ CategoricalLogits(Stack(0, X·beta_1,
// …)); beta is recorded as beta[d,k].
func MultiLogit(d MultiLogitData) (*graph.Model, error) {
	p, err := categoryShape("multi_logit", d.K, d.Y, d.X, "D")
	if err != nil {
		return nil, err
	}
	b := graph.New()
	logits, cols := []*graph.Node{graph.C(0)}, []*graph.Node{}
	for c := 1; c < d.K; c++ {
		beta := b.Vector(fmt.Sprintf("beta_%d", c), p, graph.Normal(graph.C(0), graph.C(5)))
		cols = append(cols, beta)
		logits = append(logits, graph.MatVec(d.X, beta))
	}
	b.ObserveInts("y", graph.CategoricalLogits(graph.Stack(logits...)), d.Y)
	b.Deterministic("beta", graph.Stack(cols...))
	return built("multi_logit", b)
}

func multiLogitPort() *models.Port {
	return port(models.Spec{Name: "multi_logit", DefaultN: 500, SummaryVariables: []string{"beta"}},
		"multi_logit", "-n rows N [500]",
		func(rng *rand.Rand, n, _ int) (MultiLogitData, named, error) {
			if n < 1 {
				return MultiLogitData{}, nil, sizeErr("multi_logit", "n", n, "want at least 1 row")
			}
			return SimulateMultiLogit(rng, n, MultiLogitTruth), MultiLogitTruth, nil
		},
		ReadMultiLogit, MultiLogit)
}
