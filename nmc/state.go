package nmc

import (
	"math"

	"github.com/nmc-go/nmc/internal/special"
)

// The layout of the state: which site each coordinate belongs to, and a
// continuous site's unconstrained coordinates (log, logit, additive log-ratio),
// which the lead-and-follow moves and the Hamiltonian block move in.

// coordIndex maps the state's coordinates to their sites and names.
type coordIndex struct {
	site  []int    // site of each coordinate
	names []string // "site coordinate" names, as in results
}

func newCoordIndex(sites []Site) coordIndex {
	var ci coordIndex
	for i, s := range sites {
		for _, n := range s.Coords() {
			ci.site = append(ci.site, i)
			ci.names = append(ci.names, n)
		}
	}
	return ci
}

// freeDim returns the number of unconstrained coordinates of a continuous site.
func freeDim(s Site) int {
	if s.Support == Simplex {
		return s.Size - 1
	}
	return s.Size
}

// toFree writes the unconstrained coordinates of site s at x into u.
func toFree(s Site, x, u []float64) {
	switch s.Support {
	case Real:
		copy(u, x)
	case Positive:
		for i, v := range x {
			u[i] = math.Log(v - s.Lower)
		}
	case Interval:
		for i, v := range x {
			u[i] = math.Log(v-s.Lower) - math.Log(s.Upper-v)
		}
	case Simplex:
		last := math.Log(x[len(x)-1])
		for i := range u[:len(x)-1] {
			u[i] = math.Log(x[i]) - last
		}
	}
}

// fromFree writes the coordinates of site s with unconstrained coordinates u into x
// and returns log|det ∂x/∂u| (over the first k − 1 coordinates for a simplex).
func fromFree(s Site, u, x []float64) float64 {
	lj := 0.0
	switch s.Support {
	case Real:
		copy(x, u)
	case Positive:
		for i, v := range u {
			x[i] = s.Lower + math.Exp(v)
			lj += v
		}
	case Interval:
		w := s.Upper - s.Lower
		for i, v := range u {
			// σ(v) and 1 − σ(v) without cancellation.
			lo, hi := special.Logistic(v), special.Logistic(-v)
			x[i] = s.Lower + w*lo
			if x[i] >= s.Upper {
				x[i] = s.Upper - w*hi
			}
			lj += math.Log(w) + math.Log(lo) + math.Log(hi)
		}
	case Simplex:
		k := len(x)
		top := 0.0
		for _, v := range u[:k-1] {
			top = max(top, v)
		}
		sum := math.Exp(-top)
		for i, v := range u[:k-1] {
			x[i] = math.Exp(v - top)
			sum += x[i]
		}
		x[k-1] = math.Exp(-top)
		for i := range x {
			x[i] /= sum
			lj += math.Log(x[i])
		}
	}
	return lj
}

// logJacobianAt returns log|det ∂x/∂u| of site s at its coordinates x.
func logJacobianAt(s Site, x []float64) float64 {
	lj := 0.0
	switch s.Support {
	case Positive:
		for _, v := range x {
			lj += math.Log(v - s.Lower)
		}
	case Interval:
		for _, v := range x {
			lj += math.Log(v-s.Lower) + math.Log(s.Upper-v) - math.Log(s.Upper-s.Lower)
		}
	case Simplex:
		for _, v := range x {
			lj += math.Log(v)
		}
	}
	return lj
}
