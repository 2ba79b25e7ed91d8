package nmc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
)

// weighedModel has one real site mu ~ N(0, 1) and Marginalised sites z[k] with three
// values and fixed conditional weights w[k] (a weight 0 included); its scorer
// implements ValuesWeigher, except for the sites listed in refuse, which it leaves
// to the sampler's enumeration.
type weighedModel struct {
	w      [][3]float64
	refuse map[int]bool
	broken map[int][3]float64 // weights the weigher gives with ok, breaking the contract
	weigh  bool               // whether the scorer implements ValuesWeigher
	calls  *atomic.Int64      // WeighValues calls (chains run concurrently)
}

func (m *weighedModel) Sites() []Site {
	s := []Site{{Name: "mu", Size: 1, Support: Real}}
	for k := range m.w {
		s = append(s, Site{Name: fmt.Sprintf("z[%d]", k), Size: 1, Support: Discrete, NumValues: 3, Marginalised: true})
	}
	return s
}

func (m *weighedModel) Init(_ *rand.Rand, x []float64) error { clear(x); return nil }

func (m *weighedModel) NewScorer() Scorer {
	base := &weighedScorer{m: m}
	if m.weigh {
		return &weighingScorer{base}
	}
	return base
}

type weighedScorer struct{ m *weighedModel }

func (s *weighedScorer) Score(x []float64, i int, grad, hess []float64) float64 {
	if i == 0 {
		if grad != nil {
			grad[0], hess[0] = -x[0], -1
		}
		return -x[0] * x[0] / 2
	}
	return math.Log(s.m.w[i-1][int(x[i])])
}

func (s *weighedScorer) LogJoint(x []float64) float64 {
	lj := -x[0] * x[0] / 2
	for k := range s.m.w {
		lj += s.Score(x, k+1, nil, nil)
	}
	return lj
}

type weighingScorer struct{ *weighedScorer }

func (s *weighingScorer) WeighValues(x []float64, sites []int, dst []float64, ok []bool) {
	s.m.calls.Add(1)
	for n, i := range sites {
		ok[n] = !s.m.refuse[i]
		if b, bad := s.m.broken[i]; bad {
			copy(dst[3*n:3*n+3], b[:])
		} else if ok[n] {
			copy(dst[3*n:3*n+3], s.m.w[i-1][:])
		} else {
			dst[3*n] = math.NaN() // unspecified: must not be read
		}
	}
}

// TestValuesWeigherDraws: Marginalised sites drawn from a ValuesWeigher's weights
// follow their conditional (every value's frequency within 4.5 standard errors of
// its probability over 8000 independent draws; a weight-0 value never drawn), a site
// the weigher refuses, or gives weights that break the contract (all 0, NaN,
// negative), is enumerated instead, WeighValues is called once per sweep, and the
// draws are those of the enumeration from the scores log w.
func TestValuesWeigherDraws(t *testing.T) {
	t.Parallel()
	w := [][3]float64{{1, 2, 3}, {0.05, 0, 0.95}, {1e-3, 0.5, 0.4995}, {2, 2, 2}, {1, 4, 5}, {3, 1, 1}, {1, 1, 8}}
	var calls atomic.Int64
	broken := map[int][3]float64{5: {0, 0, 0}, 6: {1, math.NaN(), 1}, 7: {-1, 2, 3}}
	weighed := &weighedModel{w: w, refuse: map[int]bool{4: true}, broken: broken, weigh: true, calls: &calls}
	opts := &Options{Chains: 2, Draws: 4000, Warmup: 10, Seed: 5}
	res, err := Sample(context.Background(), weighed, opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(2 * (4000 + 10)); calls.Load() != want {
		t.Errorf("WeighValues called %d times, want %d (once per sweep)", calls.Load(), want)
	}
	for k, wk := range w {
		col := res.Draws.Column(1 + k)
		var count [3]float64
		n := 0.0
		for _, ch := range col {
			for _, v := range ch {
				count[int(v)]++
				n++
			}
		}
		total := wk[0] + wk[1] + wk[2]
		for v := range 3 {
			p := wk[v] / total
			se := math.Sqrt(p * (1 - p) / n)
			if f := count[v] / n; math.Abs(f-p) > 4.5*se || (p == 0 && count[v] != 0) {
				t.Errorf("z[%d] = %d: frequency %.4f, want %.4f (se %.4f)", k, v, f, p, se)
			}
		}
	}
	plain := &weighedModel{w: w}
	ref, err := Sample(context.Background(), plain, opts)
	if err != nil {
		t.Fatal(err)
	}
	for p := range 1 + len(w) {
		a, b := res.Draws.Column(p), ref.Draws.Column(p)
		for c := range a {
			if !slices.Equal(a[c], b[c]) {
				t.Fatalf("column %d chain %d: draws from the weights differ from the enumeration's", p, c)
			}
		}
	}
}

// TestDrawWeighted3MatchesDrawWeighted: drawWeighted3, drawWeighted unrolled for
// three values, draws the same value from the same uniform and refuses the same
// weights as drawWeighted (weights 0, −0, ties, tiny and huge, negative, NaN, +Inf,
// all 0), leaving the same normalised weights and statistics.
func TestDrawWeighted3MatchesDrawWeighted(t *testing.T) {
	newChain := func() *Chain {
		return &Chain{run: &sampling{off: []int{0}}, rng: rand.New(rand.NewPCG(5, 6)), x: []float64{-1}, sites: make([]siteState, 1)}
	}
	a, b := newChain(), newChain()
	pick := []float64{0, math.Copysign(0, -1), 1, 1, 0.3, 1e-300, 1e300, math.MaxFloat64, 5e-324, -1, math.NaN(), math.Inf(1)}
	rng := rand.New(rand.NewPCG(7, 8))
	drawn := map[float64]int{}
	refused := 0
	for trial := range 20000 {
		var w [3]float64
		for v := range w {
			if trial%4 == 0 {
				w[v] = pick[rng.IntN(len(pick))]
			} else {
				w[v] = rng.Float64() * float64(rng.IntN(3))
			}
		}
		wa, wb := w, w
		okA, okB := a.drawWeighted3(0, wa[:]), b.drawWeighted(0, wb[:])
		if okA != okB || math.Float64bits(a.x[0]) != math.Float64bits(b.x[0]) || a.sites[0].stats != b.sites[0].stats {
			t.Fatalf("weights %v: drawWeighted3 %v drew %v (stats %+v), drawWeighted %v drew %v (stats %+v)", w, okA, a.x[0], a.sites[0].stats, okB, b.x[0], b.sites[0].stats)
		}
		for v := range wa {
			if math.Float64bits(wa[v]) != math.Float64bits(wb[v]) {
				t.Fatalf("weights %v: normalised %v, drawWeighted %v", w, wa, wb)
			}
		}
		if !okA {
			refused++
		}
		drawn[a.x[0]]++
	}
	if refused == 0 || len(drawn) < 3 {
		t.Fatalf("%d refusals, values drawn %v; want refusals and every value", refused, drawn)
	}
}
