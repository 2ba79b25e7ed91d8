package graph_test

import (
	"context"
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
		name string
		data varyingData
		off  []graph.AutoRule
	}{
		{"eight schools written without groups, no auto groups", varyingData{}, nil},
		{"eight schools written without groups, auto groups", varyingData{}, []graph.AutoRule{0}},
		{"radon-like, no auto groups", radonLike(1), nil},
		{"radon-like, auto groups", radonLike(1), []graph.AutoRule{0}},
		{"radon-like, auto groups at rate 1", radonLike(1), []graph.AutoRule{graph.AutoPartialRates}},
		{"uncentred x, no auto groups", uncentredLike(1), nil},
		{"uncentred x, auto groups", uncentredLike(1), []graph.AutoRule{0}},
		{"uncentred x, auto groups but the coefficient's", uncentredLike(1), []graph.AutoRule{graph.AutoCoefficient}},
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
		if v.data.groups > 0 {
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
			runVarying(t, v.name, m, nmc.Options{Seed: seed})
		}
	}
}
