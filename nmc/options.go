package nmc

import (
	"fmt"
	"math"
)

// Progress reports how far a chain has got: Done of Total sweeps (warm-up included).
// Chain is the chain's local index 0 … Options.Chains−1 (its index in Result.Draws);
// its global number is Options.FirstChain + Chain.
type Progress struct {
	Chain, Done, Total int
}

// Options configures Sample. The zero value of every field is its documented default;
// a nil *Options means all defaults.
type Options struct {
	// Chains is the number of chains (default 4). Must not be negative.
	Chains int
	// Draws is the number of recorded draws per chain (default 1000). Must not be
	// negative.
	Draws int
	// Warmup is the number of sweeps per chain run before recording (default 0), or
	// AutoWarmup for the adaptive warm-up: each chain then warms up in windows of 50
	// sweeps, re-applies start refinement (see InitRefine) at the end of every window,
	// moves a continuous site whose steps accepted none of the window's proposals to
	// a draw of its own proposal (a move restarts the stationary period, as a
	// refinement move does), and stops at the first window end after at least 200 sweeps (300 with a
	// Hamiltonian block, see HamiltonianOptions) where the means of
	// its log joint over the last two windows (both after its last refinement move)
	// differ by at most one standard deviation of the later window, or after
	// WarmupMax sweeps. Result.WarmupSweeps records each chain's length. An explicit
	// value runs exactly that many sweeps. Must be AutoWarmup or not negative.
	Warmup int
	// WarmupMax bounds the adaptive warm-up (default 1000 sweeps); it is ignored
	// unless Warmup is AutoWarmup. Must not be negative.
	WarmupMax int
	// Thin keeps every Thin-th sweep after warm-up (default 1). Must not be negative.
	Thin int
	// Seed seeds every chain: the chain with global number g (see FirstChain) draws all
	// its random numbers, its start from m.Init included, from
	// rand.New(rand.NewPCG(Seed, g)).
	Seed uint64
	// FirstChain is the global number of the run's first chain (default 0); the run's
	// chains are FirstChain, FirstChain+1, …, FirstChain+Chains−1. A run split over
	// machines (one task of a Slurm job array or a Kubernetes indexed job per chain or
	// per few chains) gives, with the same Seed and other options, chains
	// bit-identical to the chains with the same numbers of one local run. Result.Draws
	// still numbers the run's chains from 0 (its chain c is global chain
	// FirstChain + c), as do Init and Progress. Must not be negative.
	FirstChain int
	// Init, when non-nil, gives the starting states: either one state per chain,
	// indexed by the local chain index 0 … Chains−1 (not by the global number), or
	// one state used by every chain, each of length Dim(m.Sites()). Nil means each
	// chain draws its own start with m.Init.
	Init [][]float64
	// InitRetries is the number of m.Init attempts per chain before giving up
	// (default 100). Must not be negative.
	InitRetries int
	// InitRefine is the most sweeps of start refinement applied to each chain's start
	// (drawn by m.Init or given in Init): each continuous site whose point is
	// atypical under its own fitted proposal — log q(centre) − log q(x) above the
	// 0.9999 quantile of ½χ²_k — is moved towards the proposal's centre (the Newton
	// point, or the Gamma/Beta/Dirichlet mode) while that raises its score. Starts that
	// are already typical, such as prior draws of a model without data, are left as
	// they are. 0 means the default 50; a negative value disables refinement (and so
	// starts a chain exactly at its Init state).
	InitRefine int
	// Real configures the proposal of Real sites; the zero value is the paper's
	// Newton–Gaussian proposal with the full Newton step.
	Real RealProposal
	// NoGroupMoves turns off the group moves of a model that declares groups
	// (Grouper): the sweeps are then the paper's plain single-site NMC. The default
	// (false) makes one group move per group and sweep, warm-up included.
	NoGroupMoves bool
	// NoAugment turns off the data-augmentation steps of a model that declares
	// augmented sites (Augmenter): those sites then take their summed-out steps in
	// the sweep. The default (false) steps them given the drawn Marginalised sites
	// after every sweep, warm-up included.
	NoAugment bool
	// AugmentRounds is the number of augmentation rounds per sweep of a model with
	// augmented sites: each draws the Marginalised sites and steps every augmented
	// site given them. The last round ends the sweep; the others come before the
	// lead-and-follow moves, so that the leads move between fresh values of the
	// augmented sites. 0 means the default, 2 (measured on Dawid-Skene, see
	// models.AnnotationPrior), or 1 when the model's Hamiltonian block is on (see
	// Hamiltonian); it must not be negative.
	AugmentRounds int
	// Fitted configures the fitted independence step: after a warm-up, each chain
	// fits a Gaussian to the warm-up draws of its fitted blocks (the Real coordinates
	// of each group, and each Real site with at least two coordinates outside
	// groups) and adds independence Metropolis-Hastings steps from it (see
	// FittedStep); a block whose local steps (its sites' Newton steps and its group
	// move) accepted at least 90% of their warm-up proposals is left to them, and
	// a group's block whose step would accept at least 25% (estimated at the end
	// of warm-up) steps its sites only on every 8th sweep (FittedStep.KeepSiteSteps
	// keeps them in every sweep). The
	// zero value is on; it takes effect only after a warm-up with
	// enough draws (from the second half of an explicit warm-up, at least 20), so a
	// run without warm-up is unchanged.
	Fitted FittedStep
	// Joint configures the lead-and-follow moves (see JointMoves): after a warm-up,
	// each sweep adds random-walk moves of every lead site (declared by the model,
	// see Leader, or named in Joint.Leads) in its unconstrained coordinates, with
	// the sites fitted to it following from their own NMC proposals. The zero value
	// is on for the model's leads; Joint.Off turns the moves off.
	Joint JointMoves
	// Hamiltonian configures the Hamiltonian block's move of a model that declares
	// a block (see the Hamiltonian interface and HamiltonianOptions): one static
	// Hamiltonian Monte Carlo move of all the block's sites per sweep, warm-up
	// included. The zero value is on, with 32 leapfrog steps; the step size and a
	// diagonal mass matrix are adapted in warm-up (without a warm-up the step size
	// stays 0.1 and the mass matrix the identity). When the block is on
	// it changes two defaults: AugmentRounds 0 means 1 (not 2), and the
	// lead-and-follow moves are off unless Joint.Leads or Joint.Steps is set (the
	// effective Options then have Joint.Off set).
	Hamiltonian HamiltonianOptions
	// HeldOut, when non-nil, is evaluated at every recorded draw; the pointwise
	// log-likelihoods go to Result.HeldOut.
	HeldOut HeldOut
	// Progress, when non-nil, is called from the chain goroutines (so it must be safe
	// for concurrent use) at most about every 50 ms per chain, and once per chain at
	// its end.
	Progress func(Progress)

	// groupsOnly, a test hook, makes every sweep skip the site steps: only the group
	// moves and the draws of Marginalised sites remain.
	groupsOnly bool
	// fittedOnly, a test hook, makes every sweep after warm-up skip the site steps
	// and the group moves: only the fitted independence steps (and the draws of
	// Marginalised sites) remain.
	fittedOnly bool
	// jointOnly, a test hook, makes every sweep after warm-up skip everything but
	// the lead-and-follow moves (and the draws of Marginalised sites).
	jointOnly bool
	// hamiltonianOnly, a test hook, makes every sweep, warm-up included, skip the
	// site steps, the group moves, the fitted steps and the lead-and-follow moves:
	// only the Hamiltonian block's move (and the augmentation rounds) remain.
	hamiltonianOnly bool
	// hamSites are the sites of the Hamiltonian block (set by Sample; nil when the
	// model declares none or Hamiltonian.Off is set).
	hamSites []int
	// jointLeads are the lead sites (set by Sample).
	jointLeads []int
	// augSites are the augmented sites (Augmenter; set by Sample).
	augSites []int
}

// withDefaults validates o and returns a copy with the defaults filled in. dim is the
// number of coordinates of the model.
func (o *Options) withDefaults(dim int) (Options, error) {
	var e Options
	if o != nil {
		e = *o
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"Chains", e.Chains}, {"FirstChain", e.FirstChain}, {"Draws", e.Draws}, {"Warmup", e.Warmup}, {"WarmupMax", e.WarmupMax}, {"Thin", e.Thin}, {"InitRetries", e.InitRetries}, {"AugmentRounds", e.AugmentRounds}} {
		if f.name == "Warmup" && f.v == AutoWarmup {
			continue
		}
		if f.v < 0 {
			return e, fmt.Errorf("nmc: Options.%s = %d is negative", f.name, f.v)
		}
	}
	if e.Chains == 0 {
		e.Chains = 4
	}
	if e.Draws == 0 {
		e.Draws = 1000
	}
	if e.Thin == 0 {
		e.Thin = 1
	}
	if e.InitRetries == 0 {
		e.InitRetries = 100
	}
	if e.WarmupMax == 0 {
		e.WarmupMax = DefaultWarmupMax
	}
	if e.AugmentRounds == 0 {
		e.AugmentRounds = defaultAugmentRounds
	}
	fitted, err := e.Fitted.withDefaults()
	if err != nil {
		return e, err
	}
	e.Fitted = fitted
	joint, err := e.Joint.withDefaults()
	if err != nil {
		return e, err
	}
	e.Joint = joint
	ham, err := e.Hamiltonian.withDefaults()
	if err != nil {
		return e, err
	}
	e.Hamiltonian = ham
	if e.InitRefine == 0 {
		e.InitRefine = 50
	}
	real, err := e.Real.withDefaults()
	if err != nil {
		return e, err
	}
	e.Real = real
	if e.Init != nil {
		if len(e.Init) != 1 && len(e.Init) != e.Chains {
			return e, fmt.Errorf("nmc: Options.Init has %d states, want 1 or %d (one per chain)", len(e.Init), e.Chains)
		}
		for c, st := range e.Init {
			if len(st) != dim {
				return e, fmt.Errorf("nmc: Options.Init[%d] has %d values, want %d", c, len(st), dim)
			}
			for j, v := range st {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return e, fmt.Errorf("nmc: Options.Init[%d][%d] = %g is not finite", c, j, v)
				}
			}
		}
	}
	return e, nil
}
