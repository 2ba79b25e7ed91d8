//go:build amd64 && !purego && !(openblas && cgo)

package gram

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAddWeightedGramAVX512 runs the assembly kernel with the AVX2 tiles and with
// the AVX-512 ones on the inputs of TestAddWeightedGram (scattered rows with
// repeats, and consecutive rows read in place): both within the rounding tolerance
// of the reference, and bit for bit the same (each element of h accumulated by the
// same fused multiply-adds in the same order).
// Without AVX-512 only the AVX2 tiles exist, and TestAddWeightedGram covers them.
func TestAddWeightedGramAVX512(t *testing.T) {
	if !useGramAsm || !cpuHasAVX512 {
		t.Skip("no AVX-512 on this CPU: only the AVX2 tiles run")
	}
	defer func(v bool) { useGramAVX512 = v }(useGramAVX512)
	rng := rand.New(rand.NewPCG(41, 6))
	for _, k := range []int{1, 3, 7, 8, 9, 15, 16, 17, 24, 31, 40, 41, 64, 101} {
		nb := max(gramBlockBytes/(16*k), 4)
		for _, n := range []int{1, 2, 5, nb - 1, nb + 1, 2*nb + 3, 1 + rng.IntN(300)} {
			c := newGramCase(rng, k, 1+rng.IntN(2*n+5), n)
			if rng.IntN(2) == 0 {
				c = newGramCase(rng, k, n+rng.IntN(3), n)
				for i := range c.rows {
					c.rows[i] = i
				}
			}
			var out [2][]float64
			for i, avx512 := range []bool{false, true} {
				useGramAVX512 = avx512
				name := map[bool]string{false: "AVX2 tiles", true: "AVX-512 tiles"}[avx512]
				c.check(t, name, addWeightedGramAsm)
				out[i] = append([]float64(nil), c.h0...)
				addWeightedGramAsm(out[i], k, *c.m, c.rows, c.w)
			}
			for e := range out[0] {
				if math.Float64bits(out[0][e]) != math.Float64bits(out[1][e]) {
					t.Fatalf("k=%d n=%d: element %d: AVX2 %v, AVX-512 %v", k, n, e, out[0][e], out[1][e])
				}
			}
		}
	}
}
