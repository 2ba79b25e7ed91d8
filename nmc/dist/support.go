package dist

import "fmt"

// Support says where the coordinates of a site live. It picks the site's proposer in package nmc.
type Support int

const (
	// Real: every coordinate in (-∞, ∞). Proposer: Newton-centred Gaussian.
	Real Support = iota
	// Positive: every coordinate in (Lower, ∞). Proposer: Gamma fitted to x − Lower.
	Positive
	// Interval: every coordinate in (Lower, Upper). Proposer: Beta on the rescaled
	// coordinate, as the 2-simplex.
	Interval
	// Simplex: coordinates positive and summing to 1. Proposer: Dirichlet.
	Simplex
	// Discrete: one coordinate holding an integer (stored as float64). With NumValues > 0
	// the values are 0 … NumValues−1 and the exact conditional is enumerated; with
	// NumValues == 0 the values are 0, 1, 2, … and a discrete Metropolis-Hastings
	// proposal is used.
	Discrete
)

// String returns the support's name.
func (s Support) String() string {
	switch s {
	case Real:
		return "real"
	case Positive:
		return "positive"
	case Interval:
		return "interval"
	case Simplex:
		return "simplex"
	case Discrete:
		return "discrete"
	}
	return fmt.Sprintf("Support(%d)", int(s))
}
