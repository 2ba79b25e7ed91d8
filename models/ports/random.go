package ports

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// halfCauchy draws from Cauchy(0, scale) folded onto (0, ∞).
func halfCauchy(rng *rand.Rand, scale float64) float64 {
	return math.Abs(scale * math.Tan(math.Pi*(rng.Float64()-0.5)))
}

// gamma draws from Gamma(shape, rate).
func gamma(rng *rand.Rand, shape, rate float64) float64 {
	return distuv.Gamma{Alpha: shape, Beta: rate, Src: rng}.Rand()
}

// poisson draws from Poisson(rate).
func poisson(rng *rand.Rand, rate float64) int {
	return int(distuv.Poisson{Lambda: rate, Src: rng}.Rand())
}

// dirichletFlat draws from Dirichlet(1, …, 1) of dimension k.
func dirichletFlat(rng *rand.Rand, k int) []float64 {
	v := make([]float64, k)
	s := 0.0
	for j := range v {
		v[j] = rng.ExpFloat64()
		s += v[j]
	}
	for j := range v {
		v[j] /= s
	}
	return v
}

// pick draws an index with probabilities w (summing to 1).
func pick(rng *rand.Rand, w []float64) int {
	u := rng.Float64()
	for j, v := range w {
		if u < v {
			return j
		}
		u -= v
	}
	return len(w) - 1
}

// absNorm draws |z| for a standard normal z.
func absNorm(rng *rand.Rand) float64 { return math.Abs(rng.NormFloat64()) }
