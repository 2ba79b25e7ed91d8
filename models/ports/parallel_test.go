package ports

import (
	"context"
	"math"
	"testing"

	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc"
)

// TestChainsTogetherEqualChainsAlone: on every ported model (recursions on tapes,
// mixtures scored by rows, hidden Markov models, Gaussian processes with their
// cached Cholesky factors, a Go-function factor), four chains run together, each
// in its own goroutine over the one model, give bit for bit the draws of the same
// chains run one at a time (FirstChain), with the adaptive warm-up per chain. The
// chains' scorers share the compiled model, whose caches some fill on first use:
// a write to shared state there is a data race, which `go test -race` reports
// (CI runs this test with it) and which shows here as draws that differ from a
// lone chain's.
func TestChainsTogetherEqualChainsAlone(t *testing.T) {
	t.Parallel()
	const chains, draws = 4, 40
	for _, name := range portNames {
		t.Run(name, func(t *testing.T) {
			n, k := tinySizes[name][0], tinySizes[name][1]
			if n == 0 {
				n = 20
			}
			d, err := models.Generate(name, n, k, 3)
			if err != nil {
				t.Fatal(err)
			}
			sample := func(first, nc int) *nmc.Result {
				b, _, err := d.Build() // a fresh model: nothing cached by an earlier run
				if err != nil {
					t.Fatal(err)
				}
				r, err := nmc.Sample(context.Background(), b.Model, &nmc.Options{Chains: nc, FirstChain: first,
					Draws: draws, WarmupMax: 250, WarmupPerChain: true, Seed: 11})
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			together := sample(0, chains)
			for c := range chains {
				alone := sample(c, 1)
				x, y := together.Draws.Chains[c], alone.Draws.Chains[0]
				if len(x) == 0 || len(x) != len(y) {
					t.Fatalf("chain %d: %d values together, %d alone", c, len(x), len(y))
				}
				for i := range x {
					if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
						t.Fatalf("chain %d, value %d: %v together, %v alone", c, i, x[i], y[i])
					}
				}
			}
		})
	}
}
