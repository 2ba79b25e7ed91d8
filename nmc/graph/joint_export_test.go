package graph

import "github.com/nmc-go/nmc/nmc"

// JointGradGeneral is JointGrad's general path (one score per site) for the
// external tests and benchmarks: sc must be a scorer of a graph model.
func JointGradGeneral(sc nmc.Scorer, x []float64, sites []int, grad []float64) float64 {
	return sc.(*scorer).jointGeneric(x, sites, grad)
}
