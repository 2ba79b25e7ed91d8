package graph

import "github.com/nmc-go/nmc/nmc"

// JointGradGeneral is JointGrad's general path (one score per site) for the
// external tests and benchmarks: sc must be a scorer of a graph model.
func JointGradGeneral(sc nmc.Scorer, x []float64, sites []int, grad []float64) float64 {
	return sc.(*scorer).jointGeneric(x, sites, grad)
}

// JointGradFast runs JointGrad's fast path alone, without the value, and reports
// whether it applied.
func JointGradFast(sc nmc.Scorer, x []float64, sites []int, grad []float64) bool {
	s := sc.(*scorer)
	p := s.m.jointPlan()
	if !p.fast {
		return false
	}
	_, ok := s.jointFast(p, x, sites, grad, false)
	return ok
}
