package graph

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/nmc"
)

// regressionData simulates y = 1 + 0.5·x + N(0, 1) at n points with uncentred x
// (mean 100, sd 3): the posterior correlation of intercept and slope is about
// −0.9995.
func regressionData(n int, seed uint64) (xs, ys []float64) {
	rng := rand.New(rand.NewPCG(seed, 2))
	xs, ys = make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i] = 100 + 3*rng.NormFloat64()
		ys[i] = 1 + 0.5*xs[i] + rng.NormFloat64()
	}
	return xs, ys
}

// regressionModel declares y ~ Normal(alpha + beta·x, sigma), alpha and beta as
// two scalar latents or (vector) as one 2-coordinate Vector site "ab".
func regressionModel(t testing.TB, xs, ys []float64, vector bool) *Model {
	t.Helper()
	b := New()
	var mu *Node
	if vector {
		ab := b.Vector("ab", 2, Normal(C(0), C(100)))
		mu = Add(Index(ab, []int{0}), Mul(Index(ab, []int{1}), Data(xs)))
	} else {
		alpha := b.Latent("alpha", Normal(C(0), C(100)))
		beta := b.Latent("beta", Normal(C(0), C(100)))
		mu = Add(alpha, Mul(beta, Data(xs)))
	}
	sigma := b.Latent("sigma", HalfNormal(C(5)))
	b.Observe("y", Normal(mu, sigma), ys)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// runSummary returns the least bulk ESS and the largest R-hat over the columns.
func runSummary(t *testing.T, r *nmc.Result, cols []string) (minESS, maxRhat float64) {
	t.Helper()
	minESS = math.Inf(1)
	for _, name := range cols {
		c, err := r.Draws.Param(name)
		if err != nil {
			t.Fatal(err)
		}
		e, err := diagnostics.ESSBulk(c)
		if err != nil {
			t.Fatal(err)
		}
		rh, err := diagnostics.RHat(c)
		if err != nil {
			t.Fatal(err)
		}
		minESS, maxRhat = min(minESS, e), max(maxRhat, rh)
	}
	return minESS, maxRhat
}

// TestAutoBlocksScalarRegression samples the regression of two scalar latents
// with uncentred x (100 points) with the default schedule and the adaptive
// warm-up, 4 × 1000 draws: Defaults finds the block (alpha, beta) from the
// curvature, and every R-hat is below 1.01 with a bulk ESS of at least 1000. With
// the automatic blocks off (Defaults without Blocks) the single-site steps do not mix
// (R-hat above 1.01 or a bulk ESS below 1000). The same model declared with one
// Vector site is sampled too; the CPU times of both are logged (compared by
// BenchmarkScalarRegression, not here).
func TestAutoBlocksScalarRegression(t *testing.T) {
	if testing.Short() {
		t.Skip("three runs of 4 chains")
	}
	xs, ys := regressionData(100, 1)
	scalar := regressionModel(t, xs, ys, false)
	opts := &nmc.Options{Seed: 1, Chains: 4, Draws: 1000, Warmup: nmc.AutoWarmup, Moves: []nmc.Move{nmc.Defaults{}}}
	sched, err := nmc.Plan(scalar, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("schedule:\n%s", sched)
	if !strings.Contains(sched.String(), "block(alpha, beta)") {
		t.Fatalf("no block of alpha and beta in the schedule:\n%s", sched)
	}
	r, err := nmc.Sample(context.Background(), scalar, opts)
	if err != nil {
		t.Fatal(err)
	}
	ess, rhat := runSummary(t, r, []string{"alpha", "beta", "sigma"})
	t.Logf("scalar, blocks: min bulk ESS %.0f, max R-hat %.4f, CPU %v", ess, rhat, r.CPU)
	if ess < 1000 || rhat >= 1.01 {
		t.Errorf("scalar latents with the automatic block: min bulk ESS %.0f, max R-hat %.4f; want ≥ 1000 and < 1.01", ess, rhat)
	}

	off := *opts
	off.Moves = []nmc.Move{nmc.Defaults{NoBlocks: true}}
	r0, err := nmc.Sample(context.Background(), scalar, &off)
	if err != nil {
		t.Fatal(err)
	}
	ess0, rhat0 := runSummary(t, r0, []string{"alpha", "beta", "sigma"})
	t.Logf("scalar, no blocks: min bulk ESS %.0f, max R-hat %.4f, CPU %v", ess0, rhat0, r0.CPU)
	if ess0 >= 1000 && rhat0 < 1.01 {
		t.Errorf("without blocks the single-site steps mixed (min bulk ESS %.0f, max R-hat %.4f): the test does not test the blocks", ess0, rhat0)
	}

	vector := regressionModel(t, xs, ys, true)
	rv, err := nmc.Sample(context.Background(), vector, opts)
	if err != nil {
		t.Fatal(err)
	}
	essv, rhatv := runSummary(t, rv, []string{"ab[0]", "ab[1]", "sigma"})
	t.Logf("vector: min bulk ESS %.0f, max R-hat %.4f, CPU %v", essv, rhatv, rv.CPU)
}

// mmData simulates Michaelis-Menten rates over a baseline, v = b + Vm·S/(Km + S)
// (b = 0.5, Vm = 10, Km = 4), at 7 substrate concentrations S, 4 replicates each,
// with normal noise of sd 0.3: b, Vm and Km are correlated.
func mmData(seed uint64) (conc, rate []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	for _, s := range []float64{0.5, 1, 2, 4, 8, 16, 32} {
		for range 4 {
			conc = append(conc, s)
			rate = append(rate, 0.5+10*s/(4+s)+0.3*rng.NormFloat64())
		}
	}
	return conc, rate
}

// pkModel declares the Michaelis-Menten model (noise sd 0.3 known) with
// k = (b, Vm, Km) one three-coordinate Positive site with LogNormal(1, 1) priors,
// or (logScale) by hand on the log scale: u = log k one Real site with Normal(1, 1)
// priors and k = exp(u).
func pkModel(t testing.TB, conc, rate []float64, logScale bool) *Model {
	t.Helper()
	b := New()
	var k *Node
	if logScale {
		k = Exp(b.Vector("u", 3, Normal(C(1), C(1))))
	} else {
		k = b.Vector("k", 3, LogNormal(C(1), C(1)))
	}
	base, vm, km := Index(k, []int{0}), Index(k, []int{1}), Index(k, []int{2})
	s := Data(conc)
	b.Observe("v", Normal(Add(base, Div(Mul(vm, s), Add(km, s))), C(0.3)), rate)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAutoBlocksPositiveSite samples the Michaelis-Menten model with its three
// parameters one Positive site (a pharmacokinetic-like posterior: Vm and Km
// correlated), with the default schedule and the adaptive warm-up (4 × 1000), on
// the data and sampler seeds 1 to 6: Defaults blocks the site (its coordinates are
// coupled: the Gamma fit per coordinate of its site step ignores that), every
// R-hat is below 1.01, and the least bulk ESS is at least that of the same model
// declared on the log scale by hand (a Real site, whose Newton step is the
// block's proposal, with the fitted steps of a Real block), as the issue asks, on
// every seed. Both record every sweep (Thin 1): the automatic thinning would
// give the two declarations runs of different lengths (the hand-written one,
// mixing less per sweep, is thinned on some seeds), and the issue compares their
// mixing. The least bulk ESS with the automatic blocks off (Gamma steps per
// coordinate) is logged for seed 1.
func TestAutoBlocksPositiveSite(t *testing.T) {
	if testing.Short() {
		t.Skip("13 runs of 4 chains")
	}
	cols := []string{"k[0]", "k[1]", "k[2]"}
	for seed := uint64(1); seed <= 6; seed++ {
		conc, rate := mmData(seed)
		pos, logm := pkModel(t, conc, rate, false), pkModel(t, conc, rate, true)
		opts := &nmc.Options{Seed: seed, Chains: 4, Draws: 1000, Warmup: nmc.AutoWarmup, Thin: 1, Moves: []nmc.Move{nmc.Defaults{}}}
		sched, err := nmc.Plan(pos, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(sched.String(), "block(k)") {
			t.Fatalf("seed %d: the Positive site is not blocked:\n%s", seed, sched)
		}
		r, err := nmc.Sample(context.Background(), pos, opts)
		if err != nil {
			t.Fatal(err)
		}
		ess, rhat := runSummary(t, r, cols)
		rl, err := nmc.Sample(context.Background(), logm, opts)
		if err != nil {
			t.Fatal(err)
		}
		essl, rhatl := runSummary(t, rl, []string{"u[0]", "u[1]", "u[2]"})
		t.Logf("seed %d: Positive site, block: min bulk ESS %.0f, max R-hat %.4f, CPU %v; log scale by hand: %.0f, %.4f, CPU %v", seed, ess, rhat, r.CPU, essl, rhatl, rl.CPU)
		if rhat >= 1.01 || ess < essl {
			t.Errorf("seed %d: Positive site with the block: min bulk ESS %.0f, max R-hat %.4f; want R-hat < 1.01 and ESS ≥ %.0f (log scale by hand)", seed, ess, rhat, essl)
		}
		if seed == 1 {
			off := *opts
			off.Moves = []nmc.Move{nmc.Defaults{NoBlocks: true}}
			r0, err := nmc.Sample(context.Background(), pos, &off)
			if err != nil {
				t.Fatal(err)
			}
			ess0, rhat0 := runSummary(t, r0, cols)
			t.Logf("seed 1: Positive site, Gamma steps: min bulk ESS %.0f, max R-hat %.4f, CPU %v", ess0, rhat0, r0.CPU)
		}
	}
}

// BenchmarkScalarRegression times whole runs (planning included: the automatic
// blocks' pilot chains) of the regression of TestAutoBlocksScalarRegression, 4 ×
// 1000 draws after the adaptive warm-up, declared as two scalar latents (the block
// found from the curvature) and as one Vector site, and reports the process's CPU
// time per run (cpu-ns/op) and the least bulk ESS (min-ess).
func BenchmarkScalarRegression(b *testing.B) {
	xs, ys := regressionData(100, 1)
	for _, tc := range []struct {
		name string
		cols []string
	}{{"scalar", []string{"alpha", "beta", "sigma"}}, {"vector", []string{"ab[0]", "ab[1]", "sigma"}}} {
		b.Run(tc.name, func(b *testing.B) {
			m := regressionModel(b, xs, ys, tc.name == "vector")
			var cpu time.Duration
			ess := math.Inf(1)
			for i := 0; b.Loop(); i++ {
				c0 := processCPU()
				r, err := nmc.Sample(context.Background(), m, &nmc.Options{Seed: uint64(i + 1), Chains: 4, Draws: 1000, Warmup: nmc.AutoWarmup, Moves: []nmc.Move{nmc.Defaults{NoBlocks: tc.name != "scalar"}}})
				cpu += processCPU() - c0
				if err != nil {
					b.Fatal(err)
				}
				for _, name := range tc.cols {
					c, _ := r.Draws.Param(name)
					e, _ := diagnostics.ESSBulk(c)
					ess = min(ess, e)
				}
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			b.ReportMetric(ess, "min-ess")
		})
	}
}
