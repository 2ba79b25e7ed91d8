package nmc

// JointGradienter is an optional interface of a Scorer that gives the gradient of
// the log joint with respect to the coordinates of several continuous sites at once,
// the input of the Hamiltonian block (see Hamiltonian). A model whose sites share
// one expensive blanket (a mixture's summed-out classes read by its weights and by
// every component's parameters) computes the gradients of all of them in one pass
// instead of one Markov-blanket score per site.
type JointGradienter interface {
	// JointGrad writes into grad, for the continuous sites listed (their coordinates
	// one site after another, in the order given: len(grad) is the sum of their
	// Sizes), the gradient of LogJoint at x with respect to their coordinates, in
	// the coordinates Score uses: all k coordinates of a Simplex site, each taken
	// as free (the homogeneous form; only the derivative along the simplex
	// matters, so any multiple of (1, …, 1) may be added to a simplex's part).
	// Marginalised sites are summed out, as in LogJoint. When value is true it
	// returns LogJoint(x); when false it may skip that work and return any finite
	// number. Outside the support it returns −Inf (grad unspecified); a
	// non-finite gradient may also be reported by a NaN or ±Inf return. It may
	// also decline a point where it cannot give the gradient to full precision
	// (a summed-out product out of floating-point range) by returning NaN: the
	// Hamiltonian move then rejects the trajectory, as a divergent one, which
	// keeps it exact (a trajectory and its reverse pass through the same points,
	// so both are rejected). It leaves x unchanged.
	JointGrad(x []float64, sites []int, grad []float64, value bool) float64
}

// Hamiltonian is an optional interface of a Model that declares a block of
// continuous sites moved jointly by Hamiltonian Monte Carlo once per sweep, with
// the gradient of its Scorer's JointGradienter (or, when the Scorer does not
// implement it, with the per-site gradients of Score: the gradient of the log
// joint with respect to a site's coordinates is that of the site's score).
type Hamiltonian interface {
	// HamiltonianSites returns the indices of the sites of the block: continuous
	// and not Marginalised, each at most once; the same value on every call.
	// Empty: no block.
	HamiltonianSites() []int
}
