package nmc

// Group moves (generalised Gibbs steps along a one-parameter orbit; Liu and Sabatti
// 2000). A model that implements Grouper declares groups of coordinates that move
// together along an orbit x(t), x(0) = x. Each sweep then adds, after the site steps,
// one Metropolis-Hastings step per group: t′ is proposed from a one-dimensional
// Newton fit to h(t) = log p(x(t)) + t·Σ s (the log density along the orbit with its
// Jacobian, s summed over the dilated coordinates), and x′ = x(t′) is accepted with
//
//	log α = h(t′) − h(0) + log q_{x′}(−t′) − log q_x(t′),
//
// where q_{x′} is the Newton fit computed at x′ along the orbit through x′.

// OrbitKind says how a coordinate moves along a group's orbit.
type OrbitKind int

const (
	// Dilate moves a coordinate away from or towards its anchor a:
	// x(t) = a + e^{s·t}(x − a), with Jacobian factor e^{s·t}.
	Dilate OrbitKind = iota
	// Shift translates a coordinate: x(t) = x + b·t, with Jacobian factor 1.
	Shift
	// ShiftOver translates a coordinate at a rate divided by the value of its
	// anchor a, a coordinate outside the group with positive values:
	// x(t) = x + (b/a)·t, with Jacobian factor 1 (a stays, so the direction is the
	// same at every point of the orbit). The intercept b0 and the standardised
	// effects z of a non-centred hierarchical model, b0 + σ·z[g], move along
	// b0 + t, z − t/σ: Shift for b0 and ShiftOver about σ at rate −1 for z.
	ShiftOver
)

// String returns "dilate", "shift" or "shift-over".
func (k OrbitKind) String() string {
	switch k {
	case Dilate:
		return "dilate"
	case Shift:
		return "shift"
	case ShiftOver:
		return "shift-over"
	}
	return "OrbitKind(?)"
}

// OrbitCoord is one coordinate of a group and how it moves.
type OrbitCoord struct {
	// Coord is the coordinate's index in the state.
	Coord int
	// Kind is Dilate, Shift or ShiftOver.
	Kind OrbitKind
	// Rate is s of a dilation or b of a shift: finite and non-zero.
	Rate float64
	// Anchor, for a dilation, is the state index of the coordinate dilated about (a
	// coordinate outside the group, such as μ for θⱼ in a centred hierarchical model),
	// or −1 to dilate about 0; for ShiftOver, the state index of the coordinate
	// whose value divides the rate (outside the group, of a Positive site bounded
	// below by 0 or more). Shifts ignore it.
	Anchor int
}

// Group is a one-parameter orbit of the state along which a group move proposes.
type Group struct {
	// Name names the group in Result.Moves and summaries, e.g. "scale(alpha, beta)".
	Name string
	// Coords are the coordinates that move; each at most once.
	Coords []OrbitCoord
}

// Grouper is an optional interface of a Model that declares group moves. Every
// Scorer of such a model must implement OrbitScorer.
type Grouper interface {
	// Groups returns the model's groups; the same value on every call.
	Groups() []Group
}

// OrbitScorer is the optional interface of a Scorer that scores group orbits.
type OrbitScorer interface {
	// ScoreOrbit returns f(x), the log density at x up to a term that does not depend
	// on the coordinates of group g (for example the sum of the Markov-blanket terms
	// of the group's sites), or −Inf outside the support. When d is non-nil it also
	// writes d[0] = df/dt and d[1] = d²f/dt² at t = 0 along the orbit x(t) of group g
	// through x: with uᵢ = dxᵢ/dt and wᵢ = d²xᵢ/dt², d[0] = ∇f·u and
	// d[1] = uᵀ∇²f u + ∇f·w. The Jacobian term t·Σ s is not included (the sampler
	// adds it).
	ScoreOrbit(x []float64, g int, d *[2]float64) float64
}
