package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// recursionCase is a time-series model declared with a Go loop over nodes and the
// hand-written scorer of its log density.
type recursionCase struct {
	name  string
	m     *Model
	hand  func(x []float64, i int) (f, g, h float64)
	state func(rng *rand.Rand) []float64 // a random state inside the support
}

// recursionCases returns ARMA(1,1) and GARCH(1,1) of T steps, each with one
// observation per step and with the steps joined by Concat.
func recursionCases(tb testing.TB, T int) []recursionCase {
	tb.Helper()
	rng := rand.New(rand.NewPCG(27, uint64(T)))
	ya := armaSeries(rng, T, 1, 0.6, 0.3, 0.8)
	yg := garchSeries(rng, T, 0.5, 0.2, 0.3, 0.5, 1)
	var cases []recursionCase
	for _, concat := range []bool{false, true} {
		how := map[bool]string{false: "steps", true: "concat"}[concat]
		ma, err := armaModel(ya, concat)
		if err != nil {
			tb.Fatal(err)
		}
		mg, err := garchModel(yg, 1, concat)
		if err != nil {
			tb.Fatal(err)
		}
		cases = append(cases,
			recursionCase{name: fmt.Sprintf("arma/T=%d/%s", T, how), m: ma, hand: armaScorer{ya}.score,
				state: func(rng *rand.Rand) []float64 {
					return []float64{2 * rng.NormFloat64(), 2*rng.Float64() - 1, 1.8*rng.Float64() - 0.9, math.Exp(2*rng.Float64() - 1)}
				}},
			recursionCase{name: fmt.Sprintf("garch/T=%d/%s", T, how), m: mg, hand: garchScorer{yg, 1}.score,
				state: func(rng *rand.Rand) []float64 {
					return []float64{0.5 + 0.5*rng.NormFloat64(), math.Exp(-2 * rng.Float64()), 0.05 + 0.9*rng.Float64(), 0.05 + 0.9*rng.Float64()}
				}})
	}
	return cases
}

// relClose reports whether a and b agree to tol relative to max(1, |a|, |b|).
func relClose(a, b, tol float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= tol*max(1, math.Abs(a), math.Abs(b))
}

// TestRecursionScores checks the scores, gradients and Hessians of every site of
// ARMA(1,1) and GARCH(1,1), declared one node per time step, against the
// hand-written scorers at random states, to 1e-10, through the sites' tapes.
func TestRecursionScores(t *testing.T) {
	for _, T := range []int{10, 200} {
		for _, c := range recursionCases(t, T) {
			t.Run(c.name, func(t *testing.T) {
				sc := c.m.NewScorer()
				rng := rand.New(rand.NewPCG(1, 2))
				g, h := make([]float64, 1), make([]float64, 1)
				for range 20 {
					x := c.state(rng)
					for i := range c.m.Sites() {
						f := sc.Score(x, i, g, h)
						wf, wg, wh := c.hand(x, i)
						if !relClose(f, wf, 1e-10) || !relClose(g[0], wg, 1e-10) || !relClose(h[0], wh, 1e-10) {
							t.Fatalf("site %d at %v: graph (%v, %v, %v), by hand (%v, %v, %v)", i, x, f, g[0], h[0], wf, wg, wh)
						}
						if fv := sc.Score(x, i, nil, nil); !relClose(fv, f, 1e-12) {
							t.Fatalf("site %d at %v: score without derivatives %v, with %v", i, x, fv, f)
						}
					}
				}
				// Every score ran the site's tape (tape.go).
				if runs, want := sc.(*scorer).tape.runs, uint64(20*2*len(c.m.Sites())); runs != want {
					t.Errorf("%d of %d scores ran a tape", runs, want)
				}
			})
		}
	}
}

// threadCPU returns the CPU time the calling OS thread has used (Linux
// RUSAGE_THREAD), or 0 where it cannot be read.
func threadCPU() time.Duration {
	const rusageThread = 1
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuLoop runs f b.N times on one locked OS thread and reports its CPU time per
// call as cpu-ns/op besides the wall time (on a loaded machine the wall time
// counts the time the thread waited for a core).
func cpuLoop(b *testing.B, f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU()
	n := 0
	for b.Loop() {
		f()
		n++
	}
	if n > 0 {
		b.ReportMetric(float64(threadCPU()-start)/float64(n), "cpu-ns/op")
	}
}

// BenchmarkRecursionScore measures one score with derivatives of each site in turn
// (ns/op is per site score) of ARMA(1,1) and GARCH(1,1) declared one node per step,
// through the graph and by the hand-written scorer.
func BenchmarkRecursionScore(b *testing.B) {
	for _, T := range []int{10, 200} {
		for _, c := range recursionCases(b, T) {
			x := c.state(rand.New(rand.NewPCG(5, 6)))
			n := len(c.m.Sites())
			b.Run(c.name+"/graph", func(b *testing.B) {
				sc := c.m.NewScorer()
				g, h := make([]float64, 1), make([]float64, 1)
				b.ReportAllocs()
				i := 0
				cpuLoop(b, func() {
					sinkF += sc.Score(x, i, g, h)
					i++
					if i == n {
						i = 0
					}
				})
			})
			if c.name[len(c.name)-6:] == "concat" {
				continue // the hand-written scorer does not depend on the declaration
			}
			b.Run(c.name+"/hand", func(b *testing.B) {
				i := 0
				cpuLoop(b, func() {
					f, g, h := c.hand(x, i)
					sinkF += f + g + h
					i++
					if i == n {
						i = 0
					}
				})
			})
		}
	}
}

// BenchmarkRecursionSweep measures one score with derivatives (ns/op is per score)
// in the order a sweep of single-site steps scores: for each site in turn at the
// current state, then at a proposal of that site, which is accepted (the next
// site's current state differs from its last score in one coordinate). A site's
// values that do not depend on it (its tape's pre) are computed again at its
// current state and kept at its proposal; BenchmarkRecursionScore, at one state
// throughout, keeps them at every score.
func BenchmarkRecursionSweep(b *testing.B) {
	for _, c := range recursionCases(b, 200)[:2] {
		x0 := c.state(rand.New(rand.NewPCG(5, 6)))
		n := len(c.m.Sites())
		run := func(b *testing.B, score func(x []float64, i int) float64) {
			x := append([]float64(nil), x0...)
			k := 0 // score k: site k/2 % n, at its proposal when k is odd
			cpuLoop(b, func() {
				i := k / 2 % n
				if k%2 == 1 { // a proposal, accepted: 1% up or down in turn
					x[i] *= 1 + 0.01*float64(1-2*(k/(2*n)%2))
				}
				sinkF += score(x, i)
				k++
			})
		}
		b.Run(c.name+"/graph", func(b *testing.B) {
			sc := c.m.NewScorer()
			g, h := make([]float64, 1), make([]float64, 1)
			run(b, func(x []float64, i int) float64 { return sc.Score(x, i, g, h) })
		})
		b.Run(c.name+"/hand", func(b *testing.B) {
			run(b, func(x []float64, i int) float64 { f, g, h := c.hand(x, i); return f + g + h })
		})
	}
}
