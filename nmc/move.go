package nmc

import "github.com/nmc-go/nmc/draws"

// A Move is an entry of a sweep's schedule (Options.Moves): one kind of update of
// the state, or a rule that chooses such updates from the model's declarations
// (Defaults, GroupMoves). Sample plans every entry once, before the chains start:
// Plan checks it against the model and returns the moves it makes in each sweep,
// in order. Each planned move then gets a state of its own in every chain
// (Planned.Start), which steps at its place in the sweep (Stepper.Step), adapts
// during warm-up if it implements Adapter, and reports its statistics under its
// own name (Stepper.Stats).
//
// The built-in moves are SiteSteps (the NMC step of every site), GroupMoves (steps
// along the orbits of the model's groups), FittedSteps (independence steps from
// Gaussians fitted in warm-up), AugmentRound (draws of the Marginalised sites and
// steps of the augmented sites given them), HamiltonianMove (static HMC of the
// model's Hamiltonian block) and LeadMoves (lead-and-follow random walks). A
// user's own move implements the three small interfaces Move, Planned and Stepper
// (the example below: a random-walk Metropolis-Hastings step of one site).
type Move interface {
	// Plan returns the moves this entry makes in every sweep of the model p
	// describes, in order — none when the model declares nothing the entry moves —
	// or an error naming what is wrong with the entry for this model.
	Plan(p *Planner) ([]Planned, error)
}

// Planned is a move planned for one model: an entry of the Schedule. It is shared
// by the chains and must not change once Plan returned it.
type Planned interface {
	// Name names the move in the schedule and in its statistics, e.g.
	// "orbit(scale)" or "hamiltonian".
	Name() string
	// Start returns the move's state in chain c (its buffers and adaptation),
	// called once per chain, in the chain's goroutine, after the chain has its
	// Scorer and its starting state and before its first sweep. An error stops
	// the chain.
	Start(c *Chain) (Stepper, error)
}

// Stepper is a planned move's state in one chain.
type Stepper interface {
	// Step makes the move once at the chain's current state, with the chain's
	// random stream (Chain.Rand); it reports every change of the state to the
	// chain (Chain.Changed).
	Step(c *Chain)
	// Stats returns the move's statistics in this chain, each entry named (Name,
	// Proposer, Sites), the same entries in every chain: the acceptance table's
	// rows (Result.Moves). Nil for a move that keeps none.
	Stats() []draws.SiteStats
}

// Adapter is an optional interface of a Stepper that learns from the warm-up:
// a step size, a proposal fitted to the warm-up draws. What it learns must be
// frozen at EndWarmup, so that the recorded draws come from a fixed kernel.
type Adapter interface {
	// Adapt is called after every warm-up sweep.
	Adapt(c *Chain, w Warmup)
	// EndWarmup is called once after the last warm-up sweep, before the first
	// recorded one (also after a warm-up of no sweeps).
	EndWarmup(c *Chain, w Warmup)
}

// Warmup describes a chain's warm-up to the moves that adapt (Adapter).
type Warmup struct {
	// Sweep is the number of warm-up sweeps made so far (1 after the first).
	Sweep int
	// Adaptive reports the adaptive warm-up (Options.Warmup = AutoWarmup); the
	// warm-up's length is then chosen by the chain, at most Options.WarmupMax.
	Adaptive bool
	// Stationary is the number of sweeps after which the chain's current
	// stationary period began: Options.Warmup/2 for a fixed warm-up (its second
	// half), and, for the adaptive warm-up, 0 or the end of the last window
	// where it moved the state (start refinement or dislodging, see
	// Options.Warmup). A move that fits to warm-up draws uses those after it.
	Stationary int
}

// Schedule is the list of moves of a sweep, planned for one model: what the
// sampler runs (see Plan). Its String lists them, one a line.
type Schedule []Planned

// Internal hooks of the built-in moves. A move implements the ones it needs; the
// chain and the planner call them generically, without knowing the move's type.
type (
	// finisher is a Planned that completes its plan once every entry of the
	// schedule is planned (the sites no other move took, the orbits moved);
	// keep false drops it from the schedule.
	finisher interface {
		finish(p *Planner) (keep bool, err error)
	}
	// warmupMinimum is a Planned that needs an adaptive warm-up of at least
	// minWarmup sweeps.
	warmupMinimum interface{ minWarmup() int }
	// restarter is a Stepper that forgets what it collected when the adaptive
	// warm-up's stationary period restarts.
	restarter interface{ restart() }
	// reporter is a Stepper that reports more than its statistics into the
	// result of chain c (a step size, the sites it replaced).
	reporter interface{ report(r *Result, c int) }
	// orbitMover is a Planned that moves along the orbit of one of the model's
	// groups: its index in Groups() (−1: none) and its coordinates.
	orbitMover interface {
		orbitGroup() (index int, coords []OrbitCoord)
	}
	// siteNamer is a Planned that steps sites under a proposer name of its own
	// (the augmented steps), which it writes into names (per site).
	siteNamer interface{ nameSites(names []string) }
)
