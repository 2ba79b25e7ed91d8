package models

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// clippedPoissonMoments returns the exact mean and variance of min(max(J, 1), k) for
// J ~ Poisson(lambda).
func clippedPoissonMoments(lambda float64, k int) (mean, variance float64) {
	pois := distuv.Poisson{Lambda: lambda}
	var m1, m2, below float64
	for j := 0; j < k; j++ {
		p := pois.Prob(float64(j))
		below += p
		v := float64(max(j, 1))
		m1 += v * p
		m2 += v * v * p
	}
	tail := 1 - below // P(J ≥ k), clipped to k
	m1 += float64(k) * tail
	m2 += float64(k*k) * tail
	return m1, m2 - m1*m1
}

func TestGenerateAnnotation(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 1))
	cfg := DefaultAnnotationConfig(20001)
	train, test, truth, err := GenerateAnnotation(rng, cfg)
	if err != nil {
		t.Fatal(err)
	}
	K, C := cfg.Labelers, cfg.Classes
	if train.NumItems != 10000 || test.NumItems != 10001 {
		t.Fatalf("items: train %d, test %d; want 10000, 10001", train.NumItems, test.NumItems)
	}
	for _, d := range []AnnotationData{train, test} {
		if err := d.Validate(); err != nil {
			t.Fatal(err)
		}
		if d.NumLabelers != K || d.NumClasses != C || d.Item[0] != 0 {
			t.Fatalf("sizes %d, %d, first item %d", d.NumLabelers, d.NumClasses, d.Item[0])
		}
	}
	if len(truth.Pi) != C || len(truth.Theta) != K {
		t.Fatalf("truth sizes %d, %d", len(truth.Pi), len(truth.Theta))
	}

	var perItem []float64
	classCount := make([]float64, C)
	labelerCount := make([]float64, K)
	labelerVar := make([]float64, K)
	labelDiff, labelVar := make([]float64, C), make([]float64, C)
	for _, d := range []AnnotationData{train, test} {
		for _, z := range d.Z {
			classCount[z]++
		}
		prev := -1
		for r := 0; r < d.NumLabels(); {
			// Items in increasing order from 0 (every item has ≥ 1 label), each one's
			// rows contiguous, its labelers distinct.
			j := d.Item[r]
			if j != prev+1 {
				t.Fatalf("row %d: item %d follows item %d", r, j, prev)
			}
			prev = j
			seen := map[int]bool{}
			start := r
			for ; r < d.NumLabels() && d.Item[r] == j; r++ {
				l, y := d.Labeler[r], d.Label[r]
				if seen[l] {
					t.Fatalf("item %d labelled twice by labeler %d", j, l)
				}
				seen[l] = true
				labelerCount[l]++
				th := truth.Theta[l][d.Z[j]]
				for n := range C {
					labelDiff[n] += b2f(y == n) - th[n]
					labelVar[n] += th[n] * (1 - th[n])
				}
			}
			nj := float64(r - start)
			perItem = append(perItem, nj)
			for l := range labelerVar {
				labelerVar[l] += nj / float64(K) * (1 - nj/float64(K))
			}
		}
	}
	// Every item has at least one label here (clipped to ≥ 1), so perItem covers all items.
	if len(perItem) != cfg.N {
		t.Fatalf("%d items with labels, want %d", len(perItem), cfg.N)
	}
	mean, variance := clippedPoissonMoments(cfg.JLoc, K)
	checkMean(t, "labels per item", perItem, mean, math.Sqrt(variance))
	var ones []float64
	p1 := distuv.Poisson{Lambda: cfg.JLoc}.CDF(1) // P(J ≤ 1): clipped to one label
	for _, v := range perItem {
		ones = append(ones, b2f(v == 1))
	}
	checkMean(t, "share of items with one label", ones, p1, math.Sqrt(p1*(1-p1)))
	N := float64(cfg.N)
	for m, c := range classCount {
		p := truth.Pi[m]
		checkSum(t, "class "+string(rune('0'+m))+" count vs π", c-N*p, N*p*(1-p))
	}
	for n := range C {
		checkSum(t, "labels "+string(rune('0'+n))+" vs θ[l][z]", labelDiff[n], labelVar[n])
	}
	var total float64
	for _, v := range perItem {
		total += v
	}
	for l, c := range labelerCount {
		checkSum(t, "labeler count", c-total/float64(K), labelerVar[l])
	}
	// θ[l][m] ~ Dirichlet(α_m): the diagonal has mean ρ = 0.5 and variance
	// a(a0 − a)/(a0²(a0 + 1)) with a = γρ = 5, a0 = γ = 10; the next class has a = 2.5.
	var diag, next []float64
	for l := range truth.Theta {
		for m := range C {
			diag = append(diag, truth.Theta[l][m][m])
			next = append(next, truth.Theta[l][m][(m+1)%C])
			var s float64
			for _, v := range truth.Theta[l][m] {
				s += v
			}
			if math.Abs(s-1) > 1e-12 {
				t.Fatalf("θ[%d][%d] sums to %v", l, m, s)
			}
		}
	}
	checkMean(t, "θ diagonal", diag, 0.5, math.Sqrt(5*5/(100.0*11)))
	checkMean(t, "θ off-diagonal", next, 0.25, math.Sqrt(2.5*7.5/(100.0*11)))
}

// TestAnnotationPiPrior checks π ~ Dirichlet(1/C, …, 1/C) over many small data sets: each
// component has mean 1/C and variance (1/C)(1 − 1/C)/2.
func TestAnnotationPiPrior(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(22, 1))
	cfg := AnnotationConfig{N: 2, Labelers: 1, Classes: 3, JLoc: 1, Gamma: 10, Rho: 0.5}
	var p0, p2 []float64
	for range 4000 {
		_, _, truth, err := GenerateAnnotation(rng, cfg)
		if err != nil {
			t.Fatal(err)
		}
		p0 = append(p0, truth.Pi[0])
		p2 = append(p2, truth.Pi[2])
	}
	sd := math.Sqrt((1.0 / 3) * (2.0 / 3) / 2)
	checkMean(t, "π[0]", p0, 1.0/3, sd)
	checkMean(t, "π[2]", p2, 1.0/3, sd)
	checkVar(t, "π[0]", p0, 1.0/3, sd*sd)
}

func TestAnnotationConfigErrors(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	def := DefaultAnnotationConfig(10)
	mod := func(f func(c *AnnotationConfig)) AnnotationConfig { c := def; f(&c); return c }
	for _, c := range []struct {
		cfg  AnnotationConfig
		want string
	}{
		{mod(func(c *AnnotationConfig) { c.N = 1 }), "N = 1"},
		{mod(func(c *AnnotationConfig) { c.Labelers = 0 }), "Labelers = 0"},
		{mod(func(c *AnnotationConfig) { c.Classes = 1 }), "Classes = 1"},
		{mod(func(c *AnnotationConfig) { c.JLoc = math.NaN() }), "JLoc = NaN"},
		{mod(func(c *AnnotationConfig) { c.Gamma = -1 }), "Gamma = -1"},
		{mod(func(c *AnnotationConfig) { c.Rho = 1 }), "Rho = 1"},
	} {
		_, _, _, err := GenerateAnnotation(rng, c.cfg)
		if err == nil || !strings.HasPrefix(err.Error(), "models: annotation: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	if _, _, _, err := GenerateAnnotation(nil, def); err == nil {
		t.Error("nil rng: no error")
	}
	bad := AnnotationData{NumItems: 2, NumLabelers: 3, NumClasses: 2, Item: []int{0, 2}, Labeler: []int{0, 1}, Label: []int{0, 1}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "row 1: item 2 out of range [0, 2)") {
		t.Errorf("Validate: error %v", err)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
