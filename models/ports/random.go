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

// poisson draws from Poisson(rate).
func poisson(rng *rand.Rand, rate float64) int {
	return int(distuv.Poisson{Lambda: rate, Src: rng}.Rand())
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
