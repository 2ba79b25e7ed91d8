package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nmc-go/nmc/nmc"
)

// TestCatSelMatchesGeneric checks that the compiled Categorical selections give
// the generic jet evaluation's scores, gradients, Hessians and log joints bit for
// bit (the same model built twice, one with its selections switched off; the
// Dawid-Skene scores to 1e-12: counts and products against sums of logs), at
// random states, with some class indices made invalid, for the Dawid-Skene model
// (classes explicit and summed out) and Categorical(Index(p, group)); and that
// ScoreValues gives Score's value at every value of a discrete site, bit for bit.
func TestCatSelMatchesGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 1))
	ds := makeDS(rng, 15, 3, 3, 3)
	group := []int{0, 1, 1, 0, 2, 2, 1}
	indexModel := func() *Model {
		b := New()
		p := b.Latent("p", Dirichlet(Vec(1, 2, 3)), 3)
		b.ObserveInts("y", Categorical(Index(p, group)), []int{0, 2, 1, 1, 0, 2, 2})
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	pairs := map[string][2]*Model{
		"explicit": {buildDS(t, ds, false), buildDS(t, ds, false)},
		"marginal": {buildDS(t, ds, true), buildDS(t, ds, true)},
		"index":    {indexModel(), indexModel()},
	}
	for name, p := range pairs {
		fast, slow := p[0], p[1]
		n := 0
		for _, s := range fast.sels {
			if s != nil {
				n++
			}
		}
		if n == 0 {
			t.Fatalf("%s: no factor compiled as a selection", name)
		}
		slow.sels = nil
		for gi := range slow.marg {
			slow.marg[gi].prod, slow.marg[gi].simple = nil, false
		}
		// The summed-out groups of selections are scored as products of
		// probabilities (margProduct), the observed selections of a continuous site
		// through their counts (selRun): equal to rounding. Everything else is the
		// same bit for bit.
		same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
		if name != "index" {
			same = func(a, b float64) bool { return a == b || close(a, b, 1e-12) }
		}
		sites := fast.Sites()
		off := nmc.Offsets(sites)
		x := make([]float64, nmc.Dim(sites))
		sf, ss := fast.NewScorer(), slow.NewScorer()
		for pt := range 6 {
			if err := fast.Init(rng, x); err != nil {
				t.Fatal(err)
			}
			if pt >= 4 { // a class index out of range, then not an integer
				for i, s := range sites {
					if s.Support == nmc.Discrete {
						x[off[i]] = []float64{7, 0.5}[pt-4]
						break
					}
				}
			}
			if a, b := sf.LogJoint(x), ss.LogJoint(x); !same(a, b) {
				t.Errorf("%s point %d: log joint %v, generic %v", name, pt, a, b)
			}
			for i, s := range sites {
				k := s.Size
				ga, ha, gb, hb := make([]float64, k), make([]float64, k*k), make([]float64, k), make([]float64, k*k)
				if s.Support == nmc.Discrete {
					ga, ha, gb, hb = nil, nil, nil, nil
				}
				if s.Support == nmc.Discrete {
					// ScoreValues against Score at every value, of both scorers.
					vals := make([]float64, s.NumValues)
					old := x[off[i]]
					for _, sc := range []nmc.Scorer{sf, ss} {
						sc.(nmc.ValuesScorer).ScoreValues(x, i, vals)
						for v := range vals {
							x[off[i]] = float64(v)
							want := sc.Score(x, i, nil, nil)
							x[off[i]] = old
							if math.Float64bits(vals[v]) != math.Float64bits(want) && !(math.IsNaN(vals[v]) && math.IsInf(want, -1)) {
								t.Errorf("%s point %d site %s: ScoreValues[%d] = %v, Score %v", name, pt, s.Name, v, vals[v], want)
							}
						}
						if x[off[i]] != old {
							t.Fatalf("ScoreValues changed the state")
						}
					}
				}
				a, b := sf.Score(x, i, ga, ha), ss.Score(x, i, gb, hb)
				if pt >= 4 && math.IsInf(b, -1) && math.IsInf(ss.LogJoint(x), -1) {
					// The generic path scores an impossible state −Inf wherever the
					// blanket reads the out-of-range class (constElem); the
					// selection's fast path leaves out elements that do not depend
					// on the active site. The sampler never visits such a state.
					continue
				}
				if !same(a, b) {
					t.Errorf("%s point %d site %s: score %v, generic %v", name, pt, s.Name, a, b)
				}
				if a > math.Inf(-1) {
					for c := range ga {
						if !same(ga[c], gb[c]) {
							t.Errorf("%s point %d site %s: gradient[%d] %v, generic %v", name, pt, s.Name, c, ga[c], gb[c])
						}
					}
					for c := range ha {
						if !same(ha[c], hb[c]) {
							t.Errorf("%s point %d site %s: Hessian[%d] %v, generic %v", name, pt, s.Name, c, ha[c], hb[c])
						}
					}
				}
			}
		}
	}
}

// TestScoreValuesLargeBlanket checks ScoreValues against Score at every value, bit
// for bit, for a discrete site whose blanket Score sums in chunks: a changepoint
// among 20,000 observations.
func TestScoreValuesLargeBlanket(t *testing.T) {
	const n = 20000
	rng := rand.New(rand.NewPCG(31, 1))
	y := make([]float64, n)
	side := make([]int, n)
	for i := range y {
		side[i] = i * 4 / n // four segments; the latent picks which mean each uses
		y[i] = rng.NormFloat64() + float64(side[i]%2)
	}
	b := New()
	mu := b.Latent("mu", Normal(C(0), C(5)), 2)
	k := b.Latent("k", Categorical(Vec(0.5, 0.5)))
	b.Observe("y", Normal(At(mu, ByNode(k)), C(1)), y)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.blanket[2]) < chunkedMinElems {
		t.Fatalf("blanket of k has %d elements, want at least %d", len(m.blanket[2]), chunkedMinElems)
	}
	x := make([]float64, nmc.Dim(m.Sites()))
	if err := m.Init(rng, x); err != nil {
		t.Fatal(err)
	}
	sc := m.NewScorer()
	vals := make([]float64, 2)
	sc.(nmc.ValuesScorer).ScoreValues(x, 2, vals)
	old := x[2]
	for v := range vals {
		x[2] = float64(v)
		if want := sc.Score(x, 2, nil, nil); math.Float64bits(vals[v]) != math.Float64bits(want) {
			t.Errorf("ScoreValues[%d] = %v, Score %v", v, vals[v], want)
		}
	}
	x[2] = old
}

// TestSelPacksMatchUnpacked checks selRun's packed loop (compileSelPacks) against
// its loop over the factor's arrays: the scores, gradients and Hessians of every
// continuous site of the Dawid-Skene model with explicit classes, bit for bit, at
// random points and with a class index out of range.
func TestSelPacksMatchUnpacked(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 3))
	ds := makeDS(rng, 40, 4, 3, 3)
	packed, plain := buildDS(t, ds, false), buildDS(t, ds, false)
	if packed.selPacks == nil {
		t.Fatal("no blanket packed for selRun")
	}
	plain.selPacks = nil
	sites := packed.Sites()
	off := nmc.Offsets(sites)
	x := make([]float64, nmc.Dim(sites))
	sa, sb := packed.NewScorer(), plain.NewScorer()
	for pt := range 5 {
		if err := packed.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		if pt == 4 {
			for i, s := range sites {
				if s.Support == nmc.Discrete {
					x[off[i]] = 7
					break
				}
			}
		}
		sameScores(t, fmt.Sprintf("point %d (unpacked: want)", pt), sa, sb, x, sites)
	}
}

// TestScoreValuesInvalidProbabilities checks ScoreValues against the generic Score
// (no compiled selections) at every value of every class site when a probability
// it reads is 0, negative, +Inf or NaN, after the same coordinate held a valid value
// (the log cache must not keep it): equal bit for bit, or NaN for −Inf.
func TestScoreValuesInvalidProbabilities(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 4))
	ds := makeDS(rng, 12, 3, 3, 3)
	fast, slow := buildDS(t, ds, false), buildDS(t, ds, false)
	slow.sels = nil
	sites := fast.Sites()
	off := nmc.Offsets(sites)
	x := make([]float64, nmc.Dim(sites))
	if err := fast.Init(rng, x); err != nil {
		t.Fatal(err)
	}
	sf, ss := fast.NewScorer(), slow.NewScorer()
	check := func(what string) {
		for i, s := range sites {
			if s.Support != nmc.Discrete {
				continue
			}
			vals := make([]float64, s.NumValues)
			sf.(nmc.ValuesScorer).ScoreValues(x, i, vals)
			old := x[off[i]]
			for v := range vals {
				x[off[i]] = float64(v)
				want := ss.Score(x, i, nil, nil)
				x[off[i]] = old
				if math.Float64bits(vals[v]) != math.Float64bits(want) && !(math.IsNaN(vals[v]) && math.IsInf(want, -1)) {
					t.Errorf("%s: site %s ScoreValues[%d] = %v, generic Score %v", what, s.Name, v, vals[v], want)
				}
			}
		}
	}
	check("valid")
	for i, s := range sites {
		if s.Support != nmc.Simplex {
			continue
		}
		for c := 0; c < s.Size; c++ {
			j := off[i] + c
			keep := x[j]
			for _, bad := range []float64{0, -0.25, math.Inf(1), math.NaN()} {
				x[j] = bad
				check(fmt.Sprintf("%s[%d] = %v", s.Name, c, bad))
			}
			x[j] = keep
			check(fmt.Sprintf("%s[%d] restored", s.Name, c))
		}
	}
}
