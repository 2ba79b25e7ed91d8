package nmc

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/draws"
)

// gibbsPair is a standard bivariate normal of correlation rho as two scalar
// sites a and b. Each site's Newton proposal is its exact conditional (accepted
// always), so the site steps are a systematic-scan Gibbs sampler: a's draws are
// an AR(1) series of lag-one correlation rho², of ESS per sweep
// (1 − rho²) / (1 + rho²).
type gibbsPair struct{ rho float64 }

func (m gibbsPair) Sites() []Site {
	return []Site{{Name: "a", Size: 1, Support: Real}, {Name: "b", Size: 1, Support: Real}}
}
func (m gibbsPair) NewScorer() Scorer            { return m }
func (m gibbsPair) LogJoint(x []float64) float64 { return m.Score(x, 0, nil, nil) }
func (m gibbsPair) Init(rng *rand.Rand, x []float64) error {
	x[0], x[1] = rng.NormFloat64(), rng.NormFloat64()
	return nil
}

func (m gibbsPair) Score(x []float64, i int, grad, hess []float64) float64 {
	v := 1 - m.rho*m.rho
	if grad != nil {
		grad[0] = -(x[i] - m.rho*x[1-i]) / v
		hess[0] = -1 / v
	}
	return -0.5 * (x[0]*x[0] - 2*m.rho*x[0]*x[1] + x[1]*x[1]) / v
}

// gibbsSteps is the schedule of plain site steps: no block, so nothing follows
// the correlation.
var gibbsSteps = []Move{Defaults{NoBlocks: true, NoFitted: true}}

// TestAutoThin: on the Gibbs pair of correlation 0.95 (ESS 0.051 per sweep in
// theory, 0.037–0.045 by diagnostics.ESSBulk over 4 × 4000 sweeps of seeds 2–6) the
// chains choose together to keep one sweep in about 5 to 7 (ceil(0.25 / that);
// the pilot's 4 × 500 sweeps carry about 80 effective draws, and the accepted range
// allows their estimate to be off by a factor 2 either way), record exactly
// the draws of a run with that Thin given, and their draws carry at least 0.15
// effective draws each (0.25 expected; 0.05 without the thinning). Uncorrelated
// sites keep every sweep and record the draws of Thin = 1. At correlation 0.995
// the thinning stops at its most.
func TestAutoThin(t *testing.T) {
	t.Parallel()
	const rho = 0.95
	perSweep := (1 - rho*rho) / (1 + rho*rho)
	lo, hi := int(math.Ceil(autoThinTarget/(2*perSweep))), int(math.Ceil(2*autoThinTarget/perSweep))
	auto := sample(t, gibbsPair{rho}, &Options{Seed: 3, Moves: gibbsSteps})
	k := auto.Thin[0]
	for c, v := range auto.Thin {
		if v != k {
			t.Fatalf("chain %d thins by %d, chain 0 by %d: the chains that warmed up together choose one thinning", c, v, k)
		}
	}
	if k < lo || k > hi {
		t.Fatalf("thinning %d, want %d … %d (ESS %.3f per sweep)", k, lo, hi, perSweep)
	}
	fixed := sample(t, gibbsPair{rho}, &Options{Seed: 3, Moves: gibbsSteps, Thin: k})
	sameDraws(t, auto.Draws, fixed.Draws)
	ess := essOf(t, auto.Draws, "a")
	if n := float64(4 * 1000); ess < 0.15*n {
		t.Errorf("bulk ESS of a %.0f of %.0f draws thinned by %d, want at least %.0f", ess, n, k, 0.15*n)
	}
	t.Logf("thinning %d (range %d … %d), bulk ESS of a %.0f", k, lo, hi, ess)

	free := sample(t, gibbsPair{0}, &Options{Seed: 3, Moves: gibbsSteps})
	if !slices.Equal(free.Thin, []int{1, 1, 1, 1}) {
		t.Errorf("uncorrelated sites thin by %v, want 1", free.Thin)
	}
	sameDraws(t, free.Draws, sample(t, gibbsPair{0}, &Options{Seed: 3, Moves: gibbsSteps, Thin: 1}).Draws)

	// A pair that mixes at 0.005 effective draws per sweep in theory: the
	// thinning stops at its most, and PilotESS says what the pilot measured
	// (within a factor 3 of the theory: the pilot's 4 × 500 sweeps hold about
	// 10 effective draws).
	slow := sample(t, gibbsPair{0.995}, &Options{Seed: 3, Moves: gibbsSteps})
	if !slices.Equal(slow.Thin, []int{autoThinMax, autoThinMax, autoThinMax, autoThinMax}) {
		t.Errorf("correlation 0.995: thinning %v, want %d", slow.Thin, autoThinMax)
	}
	theory := (1 - 0.995*0.995) / (1 + 0.995*0.995)
	for c, e := range slow.PilotESS {
		if !(e > theory/3 && e < 3*theory) {
			t.Errorf("correlation 0.995: chain %d's pilot measured %.3g effective draws per sweep, want %.3g within a factor 3", c, e, theory)
		}
	}

	// A fixed warm-up keeps every sweep, as Thin says.
	if r := sample(t, gibbsPair{rho}, &Options{Seed: 3, Moves: gibbsSteps, Warmup: 100, Draws: 300}); !slices.Equal(r.Thin, []int{1, 1, 1, 1}) {
		t.Errorf("fixed warm-up: thinning %v, want 1", r.Thin)
	}
}

// TestAutoThinPerChain: with WarmupPerChain each chain chooses its own thinning
// from its own pilot, so chains 2 and 3 of a run split over tasks are those of the
// whole run, thinning included.
func TestAutoThinPerChain(t *testing.T) {
	t.Parallel()
	o := Options{Seed: 5, Moves: gibbsSteps, WarmupPerChain: true, Draws: 400}
	whole := sample(t, gibbsPair{0.95}, &o)
	o.Chains, o.FirstChain = 2, 2
	part := sample(t, gibbsPair{0.95}, &o)
	if !slices.Equal(part.Thin, whole.Thin[2:]) {
		t.Fatalf("split run thins by %v, the whole run's chains 2, 3 by %v", part.Thin, whole.Thin[2:])
	}
	for c := range 2 {
		if !slices.Equal(part.Draws.Chains[c], whole.Draws.Chains[2+c]) {
			t.Errorf("split run's chain %d differs from the whole run's chain %d", c, 2+c)
		}
	}
	if slices.Contains(whole.Thin, 1) {
		t.Errorf("thinning %v: every chain of a Gibbs pair of correlation 0.95 thins", whole.Thin)
	}
}

// TestAutoThinChainFails: a chain that panics in its pilot leaves the meeting at
// its end (with the draws it recorded, as a failed chain does); the other chains
// choose without it and record all their draws.
func TestAutoThinChainFails(t *testing.T) {
	t.Parallel()
	moves := append(slices.Clone(gibbsSteps), hookMove{sampling: true, fn: func(c *Chain, sweep int) {
		if c.local == 1 && sweep == 100 {
			panic("chain 1 fails")
		}
	}})
	done := make(chan struct{})
	var r *Result
	var err error
	go func() {
		r, err = Sample(context.Background(), gibbsPair{0.95}, &Options{Seed: 2, Draws: 300, Moves: moves})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("Sample did not return: the chains waited for the failed one at the pilot's end")
	}
	if err == nil || !strings.Contains(err.Error(), "chain 1 fails") {
		t.Fatalf("error %v, want chain 1's panic", err)
	}
	for c := range 4 {
		if n := r.Draws.NumDraws(c); (c == 1) != (n < 300) || (c != 1 && n != 300) {
			t.Errorf("chain %d has %d draws", c, n)
		}
	}
	if r.Thin[0] < 2 || r.Thin[0] != r.Thin[2] || r.Thin[0] != r.Thin[3] {
		t.Errorf("thinning %v: the chains left choose one, above 1", r.Thin)
	}
}

func sameDraws(t *testing.T, a, b *draws.Draws) {
	t.Helper()
	for c := range a.Chains {
		if !slices.Equal(a.Chains[c], b.Chains[c]) {
			t.Fatalf("chain %d's draws differ", c)
		}
	}
}

func essOf(t *testing.T, d *draws.Draws, name string) float64 {
	t.Helper()
	x, err := d.Param(name)
	if err != nil {
		t.Fatal(err)
	}
	ess, err := diagnostics.ESSBulk(x)
	if err != nil {
		t.Fatal(err)
	}
	return ess
}
