package graph_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// runSummary is what runVarying measured.
type runSummary struct {
	minESS, maxRhat float64
	minName         string
	cpu             float64 // seconds (Result.CPU)
}

// runVarying samples m with 4 chains of 1000 draws after the adaptive warm-up
// and logs the bulk ESS of every quantity whose name has no index, the smallest
// of all, the largest R-hat, the CPU time (Result.CPU) and the moves' acceptance.
func runVarying(t *testing.T, name string, m nmc.Model, o nmc.Options) runSummary {
	t.Helper()
	o.Chains, o.Draws, o.Warmup = 4, 1000, nmc.AutoWarmup
	r, err := nmc.Sample(context.Background(), m, &o)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := diagnostics.Summarize(r.Draws, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := runSummary{minESS: math.Inf(1), cpu: r.CPU.Seconds()}
	for _, row := range rows {
		if row.ESSBulk < s.minESS {
			s.minESS, s.minName = row.ESSBulk, row.Variable
		}
		s.maxRhat = max(s.maxRhat, row.RHat)
		if !strings.Contains(row.Variable, "[") {
			t.Logf("%s %s: mean %.4g sd %.4g ess_bulk %.0f rhat %.4f", name, row.Variable, row.Mean, row.SD, row.ESSBulk, row.RHat)
		}
	}
	for _, st := range r.Moves {
		t.Logf("%s %s (%s): accepted %d/%d, fallbacks %d %s", name, st.Name, st.Proposer, st.Accepted, st.Proposals, st.Fallbacks, st.Unused)
	}
	t.Logf("%s: warm-up sweeps %v; min bulk ESS %.0f (%s), max R-hat %.4f; CPU %.2f s, ESS per CPU second %.0f; wall %.2f s",
		name, r.WarmupSweeps, s.minESS, s.minName, s.maxRhat, s.cpu, s.minESS/s.cpu, r.Wall.Seconds())
	return s
}

// TestVaryingRuns samples the radon-like varying-intercept regression with 4 ×
// 1000 draws after the adaptive warm-up and logs ESS, R-hat and times (set
// NMC_VARYING_RUNS=1; the numbers of the report).
func TestVaryingRuns(t *testing.T) {
	if os.Getenv("NMC_VARYING_RUNS") == "" {
		t.Skip("set NMC_VARYING_RUNS=1 to run")
	}
	variants := []struct {
		name     string
		data     varyingData
		off      []graph.AutoRule
		noFitted bool // the default schedule without the fitted steps
	}{
		{"eight schools written without groups, no auto groups", varyingData{}, nil, false},
		{"eight schools written without groups, auto groups", varyingData{}, []graph.AutoRule{0}, false},
		{"radon-like, no auto groups", radonLike(1), nil, false},
		{"radon-like, Stan's priors, no auto groups", radonLike(1), nil, false},
		{"radon-like, Stan's priors, auto groups", radonLike(1), []graph.AutoRule{0}, false},
		{"radon-like, Stan's priors, auto groups, no fitted steps", radonLike(1), []graph.AutoRule{0}, true},
		{"radon-like, auto groups", radonLike(1), []graph.AutoRule{0}, false},
		{"radon-like, auto groups at rate 1", radonLike(1), []graph.AutoRule{graph.AutoPartialRates}, false},
		{"uncentred x, no auto groups", uncentredLike(1), nil, false},
		{"uncentred x, auto groups", uncentredLike(1), []graph.AutoRule{0}, false},
		{"uncentred x, auto groups but the coefficient's", uncentredLike(1), []graph.AutoRule{graph.AutoCoefficient}, false},
	}
	seeds := uint64(2)
	if n, err := strconv.Atoi(os.Getenv("NMC_VARYING_SEEDS")); err == nil {
		seeds = uint64(n)
	}
	for _, v := range variants {
		if w := os.Getenv("NMC_VARYING_VARIANT"); w != "" && !strings.Contains(v.name, w) {
			continue
		}
		b := centredEightSchools(false)
		switch {
		case strings.Contains(v.name, "Stan's priors"):
			b = stanVaryingModel(v.data)
		case v.data.groups > 0:
			b = varyingModel(v.data)
		}
		if v.off == nil {
			b.NoAutoGroups()
		} else {
			b.NoAutoGroups(v.off...)
		}
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(1); seed <= seeds; seed++ {
			o := nmc.Options{Seed: seed}
			if v.noFitted {
				o.Moves = []nmc.Move{nmc.Defaults{NoFitted: true}}
			}
			runVarying(t, v.name, m, o)
		}
	}
}

// stanVaryingModel is the varying-intercept regression with the priors of the
// Stan program of the comparison (BENCHMARKS.md): mu_a, b ~ N(0, 10),
// sigma_a, sigma_y ~ HalfNormal(1), a_j ~ N(mu_a, sigma_a) (a plate),
// y_i ~ N(a[g_i] + b·x_i, sigma_y).
//
//	data { int<lower=1> N; int<lower=1> J; int<lower=1, upper=J> group[N]; vector[N] x; vector[N] y; }
//	parameters { vector[J] a; real b; real mu_a; real<lower=0> sigma_a; real<lower=0> sigma_y; }
//	model {
//	  mu_a ~ normal(0, 10); b ~ normal(0, 10); sigma_a ~ normal(0, 1); sigma_y ~ normal(0, 1);
//	  a ~ normal(mu_a, sigma_a); y ~ normal(a[group] + b * x, sigma_y);
//	}
func stanVaryingModel(d varyingData) *graph.Builder {
	b := graph.New()
	mu := b.Latent("mu_a", graph.Normal(graph.C(0), graph.C(10)))
	sa := b.Latent("sigma_a", graph.HalfNormal(graph.C(1)))
	a := b.Latent("a", graph.Normal(mu, sa), d.groups)
	coef := b.Latent("b", graph.Normal(graph.C(0), graph.C(10)))
	sy := b.Latent("sigma_y", graph.HalfNormal(graph.C(1)))
	b.Observe("y", graph.Normal(graph.Add(graph.Index(a, d.g), graph.Mul(coef, graph.Data(d.x))), sy), d.y)
	return b
}

// TestVaryingStanData writes the radon-like data (seed 1) as CmdStan JSON data
// (N, J, group 1-based, x, y) to the file NMC_VARYING_JSON names, for the Stan
// run of the comparison.
func TestVaryingStanData(t *testing.T) {
	path := os.Getenv("NMC_VARYING_JSON")
	if path == "" {
		t.Skip("set NMC_VARYING_JSON=FILE to write the data")
	}
	d := radonLike(1)
	g := make([]int, len(d.g))
	for i, j := range d.g {
		g[i] = j + 1
	}
	out, err := json.Marshal(map[string]any{"N": len(d.y), "J": d.groups, "group": g, "x": d.x, "y": d.y})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}
