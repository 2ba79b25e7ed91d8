package graph_test

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/nmc-go/nmc/nmc/graph"
)

// varyingData is a varying-intercept regression's data: rows with a group and a
// predictor, and the outcome.
type varyingData struct {
	groups int
	g      []int
	x, y   []float64
}

// radonSizes returns n group sizes summing to rows, skewed like the 85 counties
// of the radon data (Gelman and Hill 2007): a few groups of 50–120 rows, many of
// 1–5. Sizes are exp of evenly spaced normal quantiles (median e^1.4 ≈ 4, log sd
// 1.2), scaled to the total, at least 1 each, sorted largest first.
func radonSizes(n, rows int) []int {
	w := make([]float64, n)
	tot := 0.0
	for j := range w {
		p := (float64(j) + 0.5) / float64(n)
		w[j] = math.Exp(1.4 + 1.2*math.Sqrt2*math.Erfinv(2*p-1))
		tot += w[j]
	}
	sizes := make([]int, n)
	left := rows
	for j := range sizes {
		sizes[j] = max(1, int(math.Floor(w[j]/tot*float64(rows))))
		left -= sizes[j]
	}
	// Hand the rows left over to the largest groups, one each, in turn.
	for j := n - 1; left > 0; j-- {
		if j < 0 {
			j = n - 1
		}
		sizes[j]++
		left--
	}
	slices.Sort(sizes)
	slices.Reverse(sizes)
	return sizes
}

// simulateVarying draws a varying-intercept regression's data:
// a_j ~ N(mu, sigmaA), y_i ~ N(a[g_i] + b·x_i, sigmaY), with group sizes sizes
// and the predictor from xOf (given the row's group and the stream).
func simulateVarying(rng *rand.Rand, sizes []int, mu, sigmaA, b, sigmaY float64, xOf func(j int, rng *rand.Rand) float64) varyingData {
	d := varyingData{groups: len(sizes)}
	a := make([]float64, len(sizes))
	for j := range a {
		a[j] = mu + sigmaA*rng.NormFloat64()
	}
	for j, n := range sizes {
		for range n {
			x := xOf(j, rng)
			d.g = append(d.g, j)
			d.x = append(d.x, x)
			d.y = append(d.y, a[j]+b*x+sigmaY*rng.NormFloat64())
		}
	}
	return d
}

// radonLike is the case: 919 rows in 85 groups sized like radon's
// counties, x a floor indicator (1 in 17% of rows, as radon's first-floor
// measurements), mu 1.5, sigma_a 0.3, b −0.7, sigma_y 0.75 (radon's estimates).
func radonLike(seed uint64) varyingData {
	rng := rand.New(rand.NewPCG(seed, 29))
	return simulateVarying(rng, radonSizes(85, 919), 1.5, 0.3, -0.7, 0.75, func(_ int, rng *rand.Rand) float64 {
		if rng.Float64() < 0.17 {
			return 1
		}
		return 0
	})
}

// varyingModel is the varying-intercept regression as a user writes it, with
// weakly informative priors: mu_a ~ N(0, 5), sigma_a ~ HalfNormal(2),
// a_j ~ N(mu_a, sigma_a) (a plate), b ~ N(0, 5), sigma_y ~ HalfNormal(2),
// y_i ~ N(a[g_i] + b·x_i, sigma_y).
func varyingModel(d varyingData) *graph.Builder {
	b := graph.New()
	mu := b.Latent("mu_a", graph.Normal(graph.C(0), graph.C(5)))
	sa := b.Latent("sigma_a", graph.HalfNormal(graph.C(2)))
	a := b.Latent("a", graph.Normal(mu, sa), d.groups)
	coef := b.Latent("b", graph.Normal(graph.C(0), graph.C(5)))
	sy := b.Latent("sigma_y", graph.HalfNormal(graph.C(2)))
	b.Observe("y", graph.Normal(graph.Add(graph.Index(a, d.g), graph.Mul(coef, graph.Data(d.x))), sy), d.y)
	return b
}

// uncentredLike is radonLike with a continuous predictor far from centred,
// x ~ N(3, 1) in every row, so that b and the intercepts pin each other: given
// the a's, b's information is Σ x_i², about 10 per row, against its posterior's
// within-group Σ (x_i − x̄_j)², about 1 per row.
func uncentredLike(seed uint64) varyingData {
	rng := rand.New(rand.NewPCG(seed, 31))
	return simulateVarying(rng, radonSizes(85, 919), 1.5, 0.3, -0.7, 0.75, func(_ int, rng *rand.Rand) float64 {
		return 3 + rng.NormFloat64()
	})
}
