package models

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/nmc"
)

// BenchmarkPoissonHMMRun runs the two-state Poisson HMM (PoissonHMM) on N counts
// simulated with rates (2, 8), Gamma = [[0.9, 0.1], [0.2, 0.8]] and rho = (0.5, 0.5)
// (rand.NewPCG(42, N)): 4 chains × 1000 draws after the adaptive warm-up, seed 1,
// the states recorded. It reports the run's wall and CPU seconds, the least bulk
// ESS and the largest R-hat over the parameters and the rates (not the states), and
// ESS per CPU second:
//
//	go test -run '^$' -bench PoissonHMMRun -benchtime 1x ./models/
func BenchmarkPoissonHMMRun(b *testing.B) {
	for _, n := range []int{100, 2000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			p := PoissonHMMParams{Rates: []float64{2, 8}, Gamma: [][]float64{{0.9, 0.1}, {0.2, 0.8}}, Rho: []float64{0.5, 0.5}}
			y, _ := GeneratePoissonHMM(rand.New(rand.NewPCG(42, uint64(n))), n, p)
			built, err := PoissonHMM(y, 2)
			if err != nil {
				b.Fatal(err)
			}
			opts := &nmc.Options{Chains: 4, Draws: 1000, Warmup: nmc.AutoWarmup, Seed: 1}
			var wall, cpu time.Duration
			var res *nmc.Result
			b.ResetTimer()
			for range b.N {
				w0 := time.Now()
				if res, err = nmc.Sample(context.Background(), built.Model, opts); err != nil {
					b.Fatal(err)
				}
				wall += time.Since(w0)
				cpu += res.CPU
			}
			b.StopTimer()
			rows, err := diagnostics.Summarize(res.Draws, nil)
			if err != nil {
				b.Fatal(err)
			}
			minESS, maxRHat := math.Inf(1), 0.0
			for _, r := range rows {
				if strings.HasPrefix(r.Variable, "z[") {
					continue
				}
				minESS, maxRHat = math.Min(minESS, r.ESSBulk), math.Max(maxRHat, r.RHat)
			}
			perRun := cpu.Seconds() / float64(b.N)
			b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s")
			b.ReportMetric(perRun, "cpu-s")
			b.ReportMetric(minESS, "min-bulk-ESS")
			b.ReportMetric(maxRHat, "max-R-hat")
			b.ReportMetric(minESS/perRun, "ESS/cpu-s")
		})
	}
}
