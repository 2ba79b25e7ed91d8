package models

import (
	"math/rand/v2"

	"github.com/nmc-go/nmc/nmc/dist"
	"github.com/nmc-go/nmc/nmc/graph"
)

// annotationStart is the annotation model with the start Dawid-Skene's EM
// traditionally uses: every item's class is the majority vote of its labels (ties
// broken at random), then pi and each theta[l,m] are drawn from their conditional
// Dirichlet given those classes. A draw from the prior instead puts the classes at
// random, and single-site moves from there can settle in a labelling with two
// classes merged or permuted.
type annotationStart struct {
	*graph.Model
	train        AnnotationData
	conc         []float64
	rows         [][]float64
	pi, z, theta int
}

func newAnnotationStart(m *graph.Model, train AnnotationData, conc []float64, rows [][]float64) (*annotationStart, error) {
	a := &annotationStart{Model: m, train: train, conc: conc, rows: rows}
	var err error
	if a.pi, _, err = m.Offset("pi"); err != nil {
		return nil, err
	}
	if a.z, _, err = m.Offset("z"); err != nil {
		return nil, err
	}
	if a.theta, _, err = m.Offset("theta"); err != nil {
		return nil, err
	}
	return a, nil
}

// Init writes the majority-vote start into x.
func (a *annotationStart) Init(rng *rand.Rand, x []float64) error {
	if err := a.Model.Init(rng, x); err != nil {
		return err
	}
	d := a.train
	c, l := d.NumClasses, d.NumLabelers
	votes := make([]int, d.NumItems*c)
	for r, it := range d.Item {
		votes[it*c+d.Label[r]]++
	}
	for i := 0; i < d.NumItems; i++ {
		v := votes[i*c : (i+1)*c]
		best, ties := -1, 0
		for m, n := range v {
			switch {
			case n > best:
				best, ties = n, 1
				x[a.z+i] = float64(m)
			case n == best:
				ties++
				if rng.IntN(ties) == 0 {
					x[a.z+i] = float64(m)
				}
			}
		}
	}
	alpha := make([]float64, c)
	for m := range alpha {
		alpha[m] = a.conc[m]
	}
	for i := 0; i < d.NumItems; i++ {
		alpha[int(x[a.z+i])]++
	}
	var dir dist.Dirichlet
	dir.Rand(rng, alpha, c, x[a.pi:a.pi+c])
	counts := make([]float64, l*c*c)
	for r, it := range d.Item {
		m := int(x[a.z+it])
		counts[(d.Labeler[r]*c+m)*c+d.Label[r]]++
	}
	for lab := 0; lab < l; lab++ {
		for m := 0; m < c; m++ {
			base := (lab*c + m) * c
			for n := 0; n < c; n++ {
				alpha[n] = a.rows[m][n] + counts[base+n]
			}
			dir.Rand(rng, alpha, c, x[a.theta+base:a.theta+base+c])
		}
	}
	return nil
}
