package graph

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// TestDotShortMatchesBlas checks dotShortOf against blas64.Dot for every length up
// to dotShort, on vectors of mixed magnitudes and signs (where the order of the
// additions shows) and with signed zeros: bit for bit on amd64, whose assembly
// dotShortOf follows, and to 1e-15 of Σ|a_i b_i| elsewhere (gonum's Go dot adds in
// order there).
func TestDotShortMatchesBlas(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	exact := runtime.GOARCH == "amd64"
	for n := 0; n <= dotShort; n++ {
		for trial := 0; trial < 200; trial++ {
			a, b := make([]float64, n), make([]float64, n+trial%3)
			for i := range a {
				a[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(17)-8))
				if trial%50 == 0 {
					a[i] = math.Copysign(0, -1)
				}
			}
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			got := dotShortOf(a, b)
			want := blas64.Dot(blas64.Vector{N: n, Data: a, Inc: 1}, blas64.Vector{N: n, Data: b, Inc: 1})
			if exact {
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("n %d: dotShortOf %v (%x), blas64.Dot %v (%x)", n, got, math.Float64bits(got), want, math.Float64bits(want))
				}
				continue
			}
			abs := 0.0
			for i := range a {
				abs += math.Abs(a[i] * b[i])
			}
			if math.Abs(got-want) > 1e-15*abs {
				t.Fatalf("n %d: dotShortOf %v, blas64.Dot %v", n, got, want)
			}
		}
	}
}
