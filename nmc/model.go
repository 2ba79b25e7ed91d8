package nmc

import (
	"fmt"
	"math/rand/v2"

	"github.com/nmc-go/nmc/nmc/dist"
)

// Support says where the coordinates of a site live; it picks the site's proposer.
// It is defined in package dist, beside the distributions that report it.
type Support = dist.Support

// The supports (see dist.Support).
const (
	Real     = dist.Real
	Positive = dist.Positive
	Interval = dist.Interval
	Simplex  = dist.Simplex
	Discrete = dist.Discrete
)

// Site describes one latent site: a block of coordinates updated by one
// Metropolis-Hastings step.
type Site struct {
	// Name is the site's name, e.g. "beta" or "theta[2,1]" (0-based indices).
	Name string
	// Size is the number of coordinates k (at least 1; exactly 1 for Discrete).
	Size int
	// Support is where the coordinates live.
	Support Support
	// Lower is the lower bound for Positive and Interval sites.
	Lower float64
	// Upper is the upper bound for Interval sites.
	Upper float64
	// NumValues is the number of values of a finite Discrete site (0 = unbounded).
	NumValues int
	// Marginalised, for a finite Discrete site, says that the model sums the site out
	// of every other site's score: the Scorer's scores of the other sites, its
	// LogJoint and its orbit scores (OrbitScorer) do not depend on the site's value.
	// The sampler then takes the site out of the sweep and, after each sweep, draws
	// it from its exact conditional given the rest (by enumeration, as any finite
	// Discrete site, or from the weights of a ValuesWeigher), so it is still
	// recorded in every draw.
	Marginalised bool
	// CoordNames names the scalar coordinates, as they appear in results:
	// "beta[0]", …, or just Name when Size is 1. Nil means the defaults Name (Size 1)
	// and Name[i] (Size > 1).
	CoordNames []string
}

// Coords returns the names of the site's scalar coordinates.
func (s Site) Coords() []string {
	if len(s.CoordNames) == s.Size {
		return s.CoordNames
	}
	if s.Size == 1 {
		return []string{s.Name}
	}
	out := make([]string, s.Size)
	for i := range out {
		out[i] = fmt.Sprintf("%s[%d]", s.Name, i)
	}
	return out
}

// Model is an unnormalised joint log density over latent sites, with exact per-site
// derivatives. The state of a model is one flat []float64 holding the coordinates of
// every site in the order of Sites(); site i occupies Size_i consecutive entries.
//
// Hand-written models implement Model directly; package graph builds one from a
// declarative description.
type Model interface {
	// Sites lists the latent sites in state order.
	Sites() []Site
	// NewScorer returns an evaluator for one chain. A Scorer may keep scratch buffers
	// and is used from one goroutine at a time; different Scorers of one Model are used
	// concurrently.
	NewScorer() Scorer
	// Init writes a starting state into x (length = total coordinates), typically drawn
	// from the prior. It returns an error if it cannot.
	Init(rng *rand.Rand, x []float64) error
}

// Scorer evaluates the Markov-blanket score of a site.
type Scorer interface {
	// Score returns f(x): the log density of site i's own prior plus the log densities
	// of everything that depends on site i, evaluated at the full state x. It differs
	// from the log joint by a quantity that does not depend on site i's coordinates.
	// When grad and hess are non-nil, Score also writes ∇f (length k) and ∇²f (k×k,
	// row-major, both triangles) with respect to site i's coordinates. Outside the
	// support Score returns −Inf; grad and hess are then unspecified. Discrete sites are
	// only evaluated with nil grad and hess.
	Score(x []float64, i int, grad, hess []float64) float64
	// LogJoint returns the full unnormalised log joint density at x.
	LogJoint(x []float64) float64
}

// ValuesScorer is an optional interface of a Scorer for models with finite Discrete
// sites. The sampler enumerates such a site's exact conditional by scoring every
// value; a model whose scores of all values share work (one pass over the site's
// Markov blanket instead of one per value) implements ScoreValues.
type ValuesScorer interface {
	// ScoreValues writes into dst[v], for v = 0 … len(dst)−1, the Score of the finite
	// Discrete site i with its coordinate set to v and the rest of x as given. It
	// leaves x unchanged. len(dst) is the site's NumValues.
	ScoreValues(x []float64, i int, dst []float64)
}

// ValuesWeigher is an optional interface of a Scorer for models with Marginalised
// sites (Site.Marginalised). After every sweep the sampler draws each such site from
// its exact conditional; a model that already holds that conditional's unnormalised
// probabilities (the graph engine keeps, for a summed-out latent, the product of its
// blanket's probabilities at each value) hands them over in one call instead of the
// sampler scoring every value of every site.
type ValuesWeigher interface {
	// WeighValues writes, for each Marginalised site sites[n] (in the order given),
	// its NumValues weights into dst, one site after another: w_v proportional to
	// exp(Score of the site at value v) with the rest of x as given, every w_v finite
	// and ≥ 0 and at least one > 0. It sets ok[n] to whether it wrote site n's (when
	// false, that site's part of dst is unspecified and the sampler scores its
	// values). It leaves x unchanged.
	WeighValues(x []float64, sites []int, dst []float64, ok []bool)
}

// DiscreteWatcher is an optional interface of a Scorer that keeps statistics of the
// values of Discrete sites from one call to the next (the graph engine counts, per
// row of a Dirichlet plate, the observations that a discrete index selects into it)
// instead of recomputing them at every score. The sampler calls Watch with its
// chain's state before it scores it, then Changed(i) after every write of the value
// of the Discrete site i in that state (Changed(−1) after writing the state
// wholesale), before its next Scorer call; Marginalised sites, which no other score
// reads, are not reported. A Scorer uses such statistics only for the watched
// state, so Score and ScoreValues stay functions of their arguments for any other
// x; reporting a site that did not change costs a comparison.
type DiscreteWatcher interface {
	// Watch tells the Scorer that x is the state the sampler reports changes of.
	Watch(x []float64)
	// Changed reports that the Discrete site i (every site when i < 0) may have a
	// new value in the watched state.
	Changed(i int)
}

// StateKeeper is an optional interface of a Scorer that keeps values computed at
// the last few states it scored (the graph engine keeps a regression's X·β and its
// rows' logarithms at the last two). After a rejected proposal the sampler calls
// Keep with the state it has gone back to, so that the Scorer drops the rejected
// proposal's values before that state's: a step that makes several proposals from
// one state (the fitted independence step) then still finds the current state's
// values for the steps after it. Keep must not change any score.
type StateKeeper interface {
	// Keep tells the Scorer that x is the chain's state again.
	Keep(x []float64)
}

// Deriver is implemented by models that record derived (deterministic) quantities with
// every draw, such as theta = mu + tau·theta_raw in a non-centred model.
type Deriver interface {
	// DerivedNames names the derived scalar quantities.
	DerivedNames() []string
	// Derive writes the derived quantities at state x into dst (length len(DerivedNames())).
	// It must be safe for concurrent use.
	Derive(x []float64, dst []float64)
}

// Generator is an optional interface of a Model whose draws carry quantities drawn
// at random given the state, as Stan's generated quantities with an _rng function:
// the hidden states of a hidden Markov model whose score sums them out, drawn jointly
// by forward filtering, backward sampling. At every recorded draw, after the sites
// and the derived quantities (Deriver), the sampler calls Generate with a random
// stream of the chain's own, rand.New(rand.NewPCG(Seed^GeneratedSeed, g)) for chain g,
// apart from the stream the chain moves with: declaring generated quantities changes
// no other column of the draws.
type Generator interface {
	// GeneratedNames names the generated scalar quantities (none: Generate is not
	// called).
	GeneratedNames() []string
	// Generate writes a draw of the generated quantities at state x into dst
	// (length len(GeneratedNames())), drawing from rng. It must be safe for
	// concurrent use with distinct rng and dst.
	Generate(rng *rand.Rand, x []float64, dst []float64)
}

// GeneratedSeed is mixed into Options.Seed for the random streams of generated
// quantities (Generator).
const GeneratedSeed = 0x3c6ef372fe94f82b

// HeldOut computes the pointwise log-likelihood of held-out data at a state, the input
// of the predictive log-likelihood curve.
type HeldOut interface {
	// Len is the number of held-out points.
	Len() int
	// LogLik writes log p(y_j | x) for every held-out point j into dst (length Len()).
	// It must be safe for concurrent use.
	LogLik(x []float64, dst []float64)
}

// Dim returns the total number of coordinates of the sites.
func Dim(sites []Site) int {
	n := 0
	for _, s := range sites {
		n += s.Size
	}
	return n
}

// Offsets returns the index in the state of each site's first coordinate.
func Offsets(sites []Site) []int {
	off := make([]int, len(sites))
	n := 0
	for i, s := range sites {
		off[i] = n
		n += s.Size
	}
	return off
}
