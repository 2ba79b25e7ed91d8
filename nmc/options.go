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
	// Warmup is the warm-up before recording: 0 (the default) or AutoWarmup asks
	// for the adaptive warm-up, NoWarmup for none (the paper's runs: recording
	// from the first sweep), a positive value for exactly that many sweeps.
	//
	// The adaptive warm-up runs in windows of 50 sweeps. At the end of every
	// window each chain re-applies start refinement (see InitRefine), moves a
	// continuous site whose steps accepted none of the window's proposals to a
	// draw of its own proposal (unless the draw lowers its score by more than a
	// Gaussian draw would, see dislodgeDrop), restarts from a fresh start (see Start) when a
	// site is frozen: it moved by at most a few spacings of float64 in the window, and
	// so does a draw of its proposal (a proposal spread below the spacing of float64,
	// where the curvature explodes; at most 3 times per chain, Result.Restarts) — any of these restarts the chain's stationary period — and
	// runs its own test: at least 200 sweeps (300 with a Hamiltonian block, see
	// HamiltonianMove), and the means of its log joint over the last two windows
	// (both after the stationary period began) differ by at most one standard
	// deviation of the later window. Then the chains meet: the warm-up ends, for
	// all of them together, at the first window end where every chain has passed
	// its own test since its stationary period began and the chains agree — the rank-normalised split R-hat of their log
	// joints over their last two windows is below 1.05 — or after WarmupMax
	// sweeps, when Result.WarmupCheck and Result.Warnings name the chains that
	// disagree and the nats between them. With WarmupPerChain (or one chain) each
	// chain ends on its own test alone. Result.WarmupSweeps records each chain's
	// length. Must be 0, AutoWarmup, NoWarmup or positive.
	Warmup int
	// WarmupMax bounds the adaptive warm-up (default 1000 sweeps); it is ignored
	// unless the warm-up is adaptive. Must not be negative.
	WarmupMax int
	// WarmupPerChain makes each chain end its adaptive warm-up on its own test,
	// without meeting the other chains: a chain's draws then depend on its own
	// random stream only. A run split over machines with FirstChain must set it on
	// every task, and on the single run it is compared with, for the chains to be
	// bit-identical (with the meetings, chain c's warm-up length depends on the
	// chains it runs with).
	WarmupPerChain bool
	// Thin keeps every Thin-th sweep after warm-up. 0 (the default) chooses it
	// after the adaptive warm-up, and means 1 otherwise: the chains record their
	// first 500 sweeps (fewer if Draws is smaller), measure the least ESS per
	// sweep of their continuous coordinates on them (on the unconstrained scale)
	// and, where it is below 0.25, keep one sweep in ceil(0.25 / that), at most
	// 10, of those and of the sweeps that follow, so that each recorded draw
	// carries about a quarter of an effective draw; draws that mix at least that
	// well keep every sweep. The chains that warmed up together choose one
	// thinning from all their pilots, each chain alone with WarmupPerChain (see
	// thin.go). Result.Thin records it. Must not be negative.
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
	// chain draws its own start by the Start rule.
	Init [][]float64
	// Start is the rule by which a chain draws its start when Init is nil, and a
	// fresh start when the adaptive warm-up restarts it: DefaultStart (the zero
	// value, PriorStart), PriorStart or UniformStart (Stan's rule).
	Start StartRule
	// StartCandidates is the number of starts a chain draws by the Start rule
	// (default DefaultStartCandidates, 8); it keeps the first whose log joint lies
	// within 10·max(|L|, dimension) of the highest L among them, passing over
	// starts orders of magnitude below the others, where the model explodes. 1
	// keeps the first draw (the former rule).
	StartCandidates int
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
	// Moves is the schedule of a sweep: its entries in the order every sweep makes
	// them, each a move or a rule that chooses moves from the model's
	// declarations (see Move). Nil means []Move{Defaults{}}, the schedule the model
	// declares (see Defaults and DefaultMoves); Plan lists the moves a schedule
	// makes for a model. Each move's settings are on its own type (SiteSteps.Real,
	// FittedSteps.Every, HamiltonianMove.Leapfrogs, …).
	Moves []Move
	// HeldOut, when non-nil, is evaluated at every recorded draw; the pointwise
	// log-likelihoods go to Result.HeldOut.
	HeldOut HeldOut
	// Progress, when non-nil, is called from the chain goroutines (so it must be safe
	// for concurrent use) at most about every 50 ms per chain, and once per chain at
	// its end.
	Progress func(Progress)
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
	}{{"Chains", e.Chains}, {"FirstChain", e.FirstChain}, {"Draws", e.Draws}, {"Warmup", e.Warmup}, {"WarmupMax", e.WarmupMax}, {"Thin", e.Thin}, {"InitRetries", e.InitRetries}, {"StartCandidates", e.StartCandidates}} {
		if f.name == "Warmup" && (f.v == AutoWarmup || f.v == NoWarmup) {
			continue
		}
		if f.v < 0 {
			return e, fmt.Errorf("nmc: Options.%s = %d is negative", f.name, f.v)
		}
	}
	if e.Warmup == 0 {
		e.Warmup = AutoWarmup
	}
	if e.Start < DefaultStart || e.Start > UniformStart {
		return e, fmt.Errorf("nmc: Options.Start = %d is not a start rule", int(e.Start))
	}
	if e.Chains == 0 {
		e.Chains = 4
	}
	if e.Draws == 0 {
		e.Draws = 1000
	}
	if e.InitRetries == 0 {
		e.InitRetries = 100
	}
	if e.WarmupMax == 0 {
		e.WarmupMax = DefaultWarmupMax
	}
	if e.StartCandidates == 0 {
		e.StartCandidates = DefaultStartCandidates
	}
	if e.InitRefine == 0 {
		e.InitRefine = 50
	}
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

// adaptive reports whether the warm-up is the adaptive one.
func (o *Options) adaptive() bool { return o.Warmup == AutoWarmup }

// noWarmup reports whether there is no warm-up (NoWarmup, or a fixed one of no
// sweeps, which withDefaults does not produce).
func (o *Options) noWarmup() bool { return o.Warmup == NoWarmup }

// fixedWarmup returns the number of sweeps of a fixed warm-up: Warmup, 0 for
// NoWarmup and for the adaptive warm-up.
func (o *Options) fixedWarmup() int { return max(o.Warmup, 0) }

// moves returns the schedule's entries: Moves, or the default rule.
func (o *Options) moves() []Move {
	if o.Moves == nil {
		return []Move{Defaults{}}
	}
	return o.Moves
}
