package graph_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// scaleData returns n draws of N(0, sd) from a fixed seed.
func scaleData(n int, sd float64) []float64 {
	rng := rand.New(rand.NewPCG(16, 1))
	y := make([]float64, n)
	for i := range y {
		y[i] = sd * rng.NormFloat64()
	}
	return y
}

// exactScaleMoments returns the posterior mean and sd of σ for y ~ N(0, σ), σ ~ Uniform(0, w),
// by quadrature of σ^−n exp(−S/(2σ²)) over log σ (composite Simpson's rule on a fine grid
// spanning the mass, truncated at w).
func exactScaleMoments(y []float64, w float64) (mean, sd float64) {
	n := float64(len(y))
	s := 0.0
	for _, v := range y {
		s += v * v
	}
	// log density of t = log σ: −(n−1)t − S/2·e^{−2t}; its mode is at σ² = S/(n−1).
	mode := 0.5 * math.Log(s/(n-1))
	lo, hi := mode-3, math.Min(mode+3, math.Log(w))
	const m = 20000
	h := (hi - lo) / m
	logf := func(t float64) float64 { return -(n-1)*t - 0.5*s*math.Exp(-2*t) }
	ref := logf(mode)
	var z, m1, m2 float64
	for i := 0; i <= m; i++ {
		t := lo + float64(i)*h
		c := 2.0
		if i == 0 || i == m {
			c = 1
		} else if i%2 == 1 {
			c = 4
		}
		f := c * math.Exp(logf(t)-ref)
		sig := math.Exp(t)
		z += f
		m1 += f * sig
		m2 += f * sig * sig
	}
	mean = m1 / z
	return mean, math.Sqrt(m2/z - mean*mean)
}

func sampleSummary(t *testing.T, m nmc.Model, seed uint64, v string) diagnostics.SummaryRow {
	t.Helper()
	return sampleSummaries(t, m, seed, v)[0]
}

// sampleSummaries samples m (4 × 1000 draws, auto warm-up) and summarises the
// variables vs.
func sampleSummaries(t *testing.T, m nmc.Model, seed uint64, vs ...string) []diagnostics.SummaryRow {
	t.Helper()
	return sampleSummariesWarmup(t, m, seed, nmc.AutoWarmup, vs...)
}

// sampleSummariesWarmup is sampleSummaries with the given Options.Warmup.
func sampleSummariesWarmup(t *testing.T, m nmc.Model, seed uint64, warmup int, vs ...string) []diagnostics.SummaryRow {
	t.Helper()
	r, err := nmc.Sample(context.Background(), m, &nmc.Options{Chains: 4, Draws: 1000, Warmup: warmup, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := diagnostics.Summarize(r.Draws, &diagnostics.SummaryOptions{Variables: vs})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestIntervalScaleAnyWidth: σ ~ Uniform(0, 10^k), k = 0 … 6, y (50 rows) ~ N(0, σ):
// with the adaptive warm-up, the mean and sd of σ are within 4 MCSE of the exact
// posterior and the bulk ESS is at least 1000 of 4 × 1000 draws. Without warm-up (the
// default; no choice of proposal kind, the Beta with its fallbacks) mean and sd must
// still be within 4 MCSE.
func TestIntervalScaleAnyWidth(t *testing.T) {
	y := scaleData(50, 1)
	for k := 0; k <= 6; k++ {
		w := math.Pow(10, float64(k))
		b := graph.New()
		sigma := b.Latent("sigma", graph.Uniform(graph.C(0), graph.C(w)))
		b.Observe("y", graph.Normal(graph.C(0), sigma), y)
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		mean, sd := exactScaleMoments(y, w)
		for _, warmup := range []int{nmc.AutoWarmup, 0} {
			row := sampleSummariesWarmup(t, m, 7, warmup, "sigma")[0]
			zm := (row.Mean - mean) / row.MCSEMean
			zs := (row.SD - sd) / row.MCSESD
			t.Logf("k=%d, warmup %d: mean %.5g (exact %.5g, z %.2f), sd %.4g (exact %.4g, z %.2f), ess_bulk %.0f", k, warmup, row.Mean, mean, zm, row.SD, sd, zs, row.ESSBulk)
			if math.Abs(zm) > 4 || math.Abs(zs) > 4 || (warmup != 0 && !(row.ESSBulk >= 1000)) {
				t.Errorf("σ ~ Uniform(0, %g), warmup %d: %s", w, warmup, fmt.Sprintf("z mean %.2f, z sd %.2f, ess %.0f", zm, zs, row.ESSBulk))
			}
		}
	}
}

// TestIntervalProbabilityNearBoundary: p ~ Uniform(0, 1) with 2 successes in 2000
// trials, and with 1998: the posteriors Beta(3, 1999) and Beta(1999, 3).
func TestIntervalProbabilityNearBoundary(t *testing.T) {
	for _, s := range []int{2, 1998} {
		b := graph.New()
		p := b.Latent("p", graph.Uniform(graph.C(0), graph.C(1)))
		b.Observe("s", graph.Binomial(graph.C(2000), p), []float64{float64(s)})
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		row := sampleSummary(t, m, 11, "p")
		a, bb := float64(s+1), float64(2000-s+1)
		mean := a / (a + bb)
		sd := math.Sqrt(a * bb / ((a + bb) * (a + bb) * (a + bb + 1)))
		zm := (row.Mean - mean) / row.MCSEMean
		zs := (row.SD - sd) / row.MCSESD
		t.Logf("s=%d: mean %.5g (exact %.5g, z %.2f), sd %.4g (exact %.4g, z %.2f), ess_bulk %.0f", s, row.Mean, mean, zm, row.SD, sd, zs, row.ESSBulk)
		if math.Abs(zm) > 4 || math.Abs(zs) > 4 || !(row.ESSBulk >= 1000) {
			t.Errorf("%d of 2000: z mean %.2f, z sd %.2f, ess %.0f", s, zm, zs, row.ESSBulk)
		}
	}
}
