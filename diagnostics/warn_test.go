package diagnostics

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/draws"
)

// chainsDraws returns draws of one quantity in 4 chains of n, chain c's draws
// AR(1) with coefficient rho about mean shift·c.
func chainsDraws(t *testing.T, n int, rho, shift float64) *draws.Draws {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	d := &draws.Draws{Names: []string{"a"}}
	for c := range 4 {
		x, ch := 0.0, make([]float64, n)
		for i := range ch {
			x = rho*x + math.Sqrt(1-rho*rho)*rng.NormFloat64()
			ch[i] = x + shift*float64(c)
		}
		d.Chains = append(d.Chains, ch)
	}
	return d
}

func TestConvergenceWarnings(t *testing.T) {
	for _, c := range []struct {
		name       string
		rho, shift float64
		want       []string // the sentences' beginnings, in order
	}{
		{"mixed", 0, 0, nil},
		{"apart", 0, 1, []string{"R-hat of a is", "bulk ESS of a is"}},
		{"moderate", 0.5, 0, nil},
		// AR(0.9) chains of 1000: bulk ESS 198, R-hat 1.031 (rstan's 1.05 let it pass).
		{"slow", 0.9, 0, []string{"R-hat of a is", "bulk ESS of a is"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows, err := Convergence(chainsDraws(t, 1000, c.rho, c.shift), nil)
			if err != nil {
				t.Fatal(err)
			}
			got := ConvergenceWarnings(rows, 4)
			if len(got) != len(c.want) {
				t.Fatalf("warnings %q (R-hat %v, ESS %v), want %d", got, rows[0].RHat, rows[0].ESSBulk, len(c.want))
			}
			for i, w := range c.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("warning %q, want it to begin %q", got[i], w)
				}
			}
		})
	}
	// A constant quantity (NaN R-hat) is not a problem of its own.
	if got := ConvergenceWarnings([]ConvergenceRow{{"c", math.NaN(), math.NaN()}}, 4); got != nil {
		t.Errorf("constant: %q", got)
	}
	got := ConvergenceWarnings([]ConvergenceRow{{"x", 1.2, 500}, {"y", 1.5, 40}, {"z", 1.0, 1000}}, 4)
	if len(got) != 2 || !strings.Contains(got[0], "R-hat of y is 1.5 (want below 1.01; 2 of 3 quantities at or above it)") ||
		!strings.Contains(got[1], "bulk ESS of y is 40 (1 of 3 quantities below 400, 100 per chain)") {
		t.Errorf("%q", got)
	}
}
