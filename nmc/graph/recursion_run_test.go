package graph

import (
	"context"
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/nmc"
)

// processCPU returns the CPU time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestRecursionRun samples ARMA(1,1) and GARCH(1,1) of T = 200 steps declared
// one node per step — 4 chains of 1,000 draws after the default adaptive warm-up —
// from starts inside the region where the recursions are stable (ARMA's
// err_t = y_t − nu_t grows like θᵗ for |θ| > 1, and prior draws of θ ~ N(0, 2)
// often start there: from prior starts one chain of seed 1 stays at θ ≈ −1.57,
// σ ≈ 8·10¹¹), and logs the wall and CPU times, the least bulk ESS and the largest
// R-hat. Single-site steps mix slowly on these posteriors (ARMA's φ against μ and
// θ, GARCH's α₀ against β₁: bulk ESS 100–250 of 4,000 draws at seed 1), so it
// checks that the chains agree to R-hat ≤ 1.1 with a bulk ESS of at least 50, and
// that the true parameters lie within 5 posterior standard deviations of the
// posterior means.
func TestRecursionRun(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs of 4 chains")
	}
	const T = 200
	rng := rand.New(rand.NewPCG(27, 200))
	ya := armaSeries(rng, T, 1, 0.6, 0.3, 0.8)
	yg := garchSeries(rng, T, 0.5, 0.2, 0.3, 0.5, 1)
	ma, err := armaModel(ya, false)
	if err != nil {
		t.Fatal(err)
	}
	mg, err := garchModel(yg, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	mean := func(y []float64) float64 {
		s := 0.0
		for _, v := range y {
			s += v
		}
		return s / float64(len(y))
	}
	cases := []struct {
		name  string
		m     *Model
		truth map[string]float64
		start func(c int) []float64
	}{
		{"arma", ma, map[string]float64{"mu": 1, "phi": 0.6, "theta": 0.3, "sigma": 0.8},
			func(c int) []float64 { return []float64{mean(ya), 0.1 * float64(c), -0.1 * float64(c), 1} }},
		{"garch", mg, map[string]float64{"mu": 0.5, "alpha0": 0.2, "alpha1": 0.3, "beta1": 0.5},
			func(c int) []float64 { return []float64{mean(yg), 0.5, 0.2 + 0.1*float64(c), 0.5} }},
	}
	for _, c := range cases {
		init := make([][]float64, 4)
		for ch := range init {
			init[ch] = c.start(ch)
		}
		wall, cpu := time.Now(), processCPU()
		res, err := nmc.Sample(context.Background(), c.m, &nmc.Options{Chains: 4, Draws: 1000, Warmup: nmc.AutoWarmup, Seed: 1, Init: init})
		if err != nil {
			t.Fatal(err)
		}
		elapsed, used := time.Since(wall), processCPU()-cpu
		rows, err := diagnostics.Summarize(res.Draws, nil)
		if err != nil {
			t.Fatal(err)
		}
		minESS, maxRHat := math.Inf(1), 0.0
		for _, r := range rows {
			minESS, maxRHat = min(minESS, r.ESSBulk), max(maxRHat, r.RHat)
			t.Logf("%s %s: mean %.4f sd %.4f ess_bulk %.0f r_hat %.4f", c.name, r.Variable, r.Mean, r.SD, r.ESSBulk, r.RHat)
			if want, ok := c.truth[r.Variable]; ok && math.Abs(r.Mean-want) > 5*r.SD {
				t.Errorf("%s %s: posterior mean %.4f (sd %.4f), true value %v", c.name, r.Variable, r.Mean, r.SD, want)
			}
		}
		t.Logf("%s: wall %v, CPU %v, warm-up sweeps %v, least bulk ESS %.0f, largest R-hat %.4f", c.name, elapsed.Round(time.Millisecond), used.Round(time.Millisecond), res.WarmupSweeps, minESS, maxRHat)
		if !(maxRHat <= 1.1) || !(minESS >= 50) {
			t.Errorf("%s: largest R-hat %.4f, least bulk ESS %.0f", c.name, maxRHat, minESS)
		}
	}
}
