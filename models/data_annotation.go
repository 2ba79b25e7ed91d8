package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"
)

// AnnotationData holds crowd-sourced labels, one entry per label given: labeler
// Labeler[r] gave item Item[r] the label Label[r]. Ids are 0-based (items
// 0 … NumItems−1, labelers 0 … NumLabelers−1, labels and classes 0 … NumClasses−1);
// the CSV files hold them 1-based. Rows of one item are contiguous (the generators and
// the files keep items in increasing order). Z holds the true class of every item, for
// evaluation only; it may be nil.
type AnnotationData struct {
	NumItems, NumLabelers, NumClasses int
	Item, Labeler, Label              []int
	Z                                 []int
}

// NumLabels returns the number of labels (rows).
func (d AnnotationData) NumLabels() int { return len(d.Item) }

// Validate checks the sizes, that Item, Labeler and Label have the same length, that every
// id is in range, and that Z, when present, has one class in range per item. The error
// names the row (0-based) and the value.
func (d AnnotationData) Validate() error {
	if d.NumItems < 0 || d.NumLabelers < 1 || d.NumClasses < 2 {
		return fmt.Errorf("models: annotation data: %d items, %d labelers, %d classes; want ≥ 0, ≥ 1, ≥ 2",
			d.NumItems, d.NumLabelers, d.NumClasses)
	}
	if len(d.Labeler) != len(d.Item) || len(d.Label) != len(d.Item) {
		return fmt.Errorf("models: annotation data: %d items, %d labelers, %d labels in the rows; want equal lengths",
			len(d.Item), len(d.Labeler), len(d.Label))
	}
	for r := range d.Item {
		if v := d.Item[r]; v < 0 || v >= d.NumItems {
			return fmt.Errorf("models: annotation data: row %d: item %d out of range [0, %d)", r, v, d.NumItems)
		}
		if v := d.Labeler[r]; v < 0 || v >= d.NumLabelers {
			return fmt.Errorf("models: annotation data: row %d: labeler %d out of range [0, %d)", r, v, d.NumLabelers)
		}
		if v := d.Label[r]; v < 0 || v >= d.NumClasses {
			return fmt.Errorf("models: annotation data: row %d: label %d out of range [0, %d)", r, v, d.NumClasses)
		}
	}
	if d.Z != nil {
		if len(d.Z) != d.NumItems {
			return fmt.Errorf("models: annotation data: Z has %d classes, want one per item (%d)", len(d.Z), d.NumItems)
		}
		for i, z := range d.Z {
			if z < 0 || z >= d.NumClasses {
				return fmt.Errorf("models: annotation data: Z[%d] = %d out of range [0, %d)", i, z, d.NumClasses)
			}
		}
	}
	return nil
}

// AnnotationConfig sets the size and hyperparameters of a generated annotation data set.
// N is the number of items (half train, half test), Labelers the number of labelers K,
// Classes the number of classes C, JLoc the Poisson mean of the number of labels per
// item, Gamma the concentration and Rho the diagonal share of each labeler's confusion
// matrix prior.
type AnnotationConfig struct {
	N, Labelers, Classes int
	JLoc, Gamma, Rho     float64
}

// DefaultAnnotationConfig returns the paper's configuration for n items: K = 100
// labelers, C = 3 classes, J_loc = 2.5, γ = 10, ρ = 0.5. The paper uses n = 10,000.
func DefaultAnnotationConfig(n int) AnnotationConfig {
	return AnnotationConfig{N: n, Labelers: 100, Classes: 3, JLoc: 2.5, Gamma: 10, Rho: 0.5}
}

// Validate checks that N ≥ 2, Labelers ≥ 1, Classes ≥ 2, JLoc > 0, Gamma > 0 and
// 0 < Rho < 1, all finite.
func (c AnnotationConfig) Validate() error {
	switch {
	case c.N < 2:
		return fmt.Errorf("models: annotation: N = %d items, want at least 2 (half train, half test)", c.N)
	case c.Labelers < 1:
		return fmt.Errorf("models: annotation: Labelers = %d, want at least 1", c.Labelers)
	case c.Classes < 2:
		return fmt.Errorf("models: annotation: Classes = %d, want at least 2", c.Classes)
	case !(c.JLoc > 0) || math.IsInf(c.JLoc, 0):
		return fmt.Errorf("models: annotation: JLoc = %v, want a finite value > 0", c.JLoc)
	case !(c.Gamma > 0) || math.IsInf(c.Gamma, 0):
		return fmt.Errorf("models: annotation: Gamma = %v, want a finite value > 0", c.Gamma)
	case !(c.Rho > 0 && c.Rho < 1):
		return fmt.Errorf("models: annotation: Rho = %v, want a value in (0, 1)", c.Rho)
	}
	return nil
}

// ConfusionPrior returns the Dirichlet parameters α_m of the confusion row for true
// class m: α_mn = γρ if n = m, else γ(1−ρ)/(C−1).
func (c AnnotationConfig) ConfusionPrior(m int) []float64 {
	a := make([]float64, c.Classes)
	for n := range a {
		if n == m {
			a[n] = c.Gamma * c.Rho
		} else {
			a[n] = c.Gamma * (1 - c.Rho) / float64(c.Classes-1)
		}
	}
	return a
}

// AnnotationTruth holds the generating parameters of an annotation data set: the class
// prevalences Pi (length C, on the simplex) and the confusion matrices Theta[l][m][n],
// the probability that labeler l gives label n to an item of true class m.
type AnnotationTruth struct {
	Pi    []float64
	Theta [][][]float64
}

// Named returns the parameters as 0-based scalar names ("pi[m]", then "theta[l,m,n]"
// with n varying fastest) and their values.
func (t AnnotationTruth) Named() (names []string, values []float64) {
	for m, p := range t.Pi {
		names = append(names, "pi["+strconv.Itoa(m)+"]")
		values = append(values, p)
	}
	for l, tl := range t.Theta {
		for m, tlm := range tl {
			for n, v := range tlm {
				names = append(names, fmt.Sprintf("theta[%d,%d,%d]", l, m, n))
				values = append(values, v)
			}
		}
	}
	return names, values
}

// GenerateAnnotation draws an annotation data set from the paper's generative process
// (a Dawid-Skene variant): π ~ Dirichlet(1/C, …, 1/C); θ[l][m] ~ Dirichlet(α_m) (see
// ConfusionPrior) for every labeler l and class m; then for each item i in order
// z_i ~ Categorical(π), |J_i| ~ Poisson(J_loc) clipped to 1 … K, the labelers J_i drawn
// uniformly without replacement, and y_il ~ Categorical(θ[l][z_i]) for l in J_i.
//
// Items 0 … N/2−1 (N/2 rounded down) form train and the others form test, renumbered
// from 0; both carry their true classes in Z. It returns an error when cfg is invalid
// or rng is nil.
func GenerateAnnotation(rng *rand.Rand, cfg AnnotationConfig) (train, test AnnotationData, truth AnnotationTruth, err error) {
	if rng == nil {
		return train, test, truth, fmt.Errorf("models: annotation: nil random generator")
	}
	if err := cfg.Validate(); err != nil {
		return train, test, truth, err
	}
	C, K := cfg.Classes, cfg.Labelers
	truth.Pi = make([]float64, C)
	piAlpha := make([]float64, C)
	for m := range piAlpha {
		piAlpha[m] = 1 / float64(C)
	}
	drawDirichlet(rng, piAlpha, truth.Pi)
	truth.Theta = make([][][]float64, K)
	flat := make([]float64, K*C*C)
	alphas := make([][]float64, C)
	for m := range alphas {
		alphas[m] = cfg.ConfusionPrior(m)
	}
	for l := range truth.Theta {
		truth.Theta[l] = make([][]float64, C)
		for m := range truth.Theta[l] {
			row := flat[(l*C+m)*C : (l*C+m+1)*C : (l*C+m+1)*C]
			drawDirichlet(rng, alphas[m], row)
			truth.Theta[l][m] = row
		}
	}

	half := cfg.N / 2
	train = AnnotationData{NumItems: half, NumLabelers: K, NumClasses: C, Z: make([]int, half)}
	test = AnnotationData{NumItems: cfg.N - half, NumLabelers: K, NumClasses: C, Z: make([]int, cfg.N-half)}
	pois := distuv.Poisson{Lambda: cfg.JLoc, Src: rng}
	perm := make([]int, K)
	for l := range perm {
		perm[l] = l
	}
	for i := 0; i < cfg.N; i++ {
		d, id := &train, i
		if i >= half {
			d, id = &test, i-half
		}
		z := drawCategorical(rng, truth.Pi)
		d.Z[id] = z
		j := int(min(max(pois.Rand(), 1), float64(K)))
		// Partial Fisher-Yates: perm[:j] becomes a uniform draw without replacement.
		for t := 0; t < j; t++ {
			s := t + rng.IntN(K-t)
			perm[t], perm[s] = perm[s], perm[t]
			l := perm[t]
			d.Item = append(d.Item, id)
			d.Labeler = append(d.Labeler, l)
			d.Label = append(d.Label, drawCategorical(rng, truth.Theta[l][z]))
		}
	}
	return train, test, truth, nil
}

// drawDirichlet writes a Dirichlet(alpha) draw into dst by normalising independent
// Gamma(α_i, 1) draws.
func drawDirichlet(rng *rand.Rand, alpha, dst []float64) {
	var sum float64
	for i, a := range alpha {
		g := distuv.Gamma{Alpha: a, Beta: 1, Src: rng}.Rand()
		dst[i] = g
		sum += g
	}
	for i := range dst {
		dst[i] /= sum
	}
}

// drawCategorical returns i with probability p[i]; p must sum to 1 up to rounding.
func drawCategorical(rng *rand.Rand, p []float64) int {
	u := rng.Float64()
	last := 0
	for i, pi := range p {
		if pi > 0 {
			last = i
		}
		u -= pi
		if u < 0 {
			return i
		}
	}
	return last // rounding left u ≥ 0: the last class with positive probability
}
