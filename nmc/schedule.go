package nmc

import (
	"errors"
	"fmt"
	"strings"
)

// sampling is what the chains of one run share, read only once they start: the
// model, its sites, the effective options and the planned schedule.
type sampling struct {
	m     Model
	sites []Site
	off   []int
	opts  *Options
	// dependents[j] lists the sites whose score reads site j (Neighborer), nil
	// without; tracked, broad and bumps split them for the caches (cacheTracking).
	dependents    [][]int
	tracked       [][]int
	broad, bumps  []bool
	schedule      Schedule
	siteProposers []string     // per site: its proposer's name in Result.Sites
	marg          []int        // the Marginalised sites, in state order
	real          RealProposal // the proposal of Real sites (SiteSteps.Real)
	// groups is the number of the model's groups whose orbits moves use (0 when
	// none does); groupNames name them for panic messages.
	groups     int
	groupNames []string
	minWarmup  int // the fewest sweeps of the adaptive warm-up
	// meet is where the chains meet in the adaptive warm-up; nil when they warm
	// up alone (see warmup_chains.go).
	meet *warmupMeeting
	// thinMeet is where they choose their thinning together (see thin.go); nil
	// when each chooses its own, or none does.
	thinMeet *thinMeeting
	// The recorded columns: ncols per draw, the generated quantities from genAt;
	// deriver and gen are nil when the model records none.
	ncols, nHeld, genAt int
	deriver             Deriver
	gen                 Generator
}

// Planner is what a Move plans against (Move.Plan): the model, its sites, the
// run's options, and which sites the moves planned so far take over from
// SiteSteps.
type Planner struct {
	run   *sampling
	taken []bool
	// planned are the moves planned so far, in order (all of them in finish).
	planned Schedule
	realSet bool
}

// Model returns the model being planned.
func (p *Planner) Model() Model { return p.run.m }

// Sites returns the model's sites, in state order (not to be modified).
func (p *Planner) Sites() []Site { return p.run.sites }

// Offset returns the index in the state of site i's first coordinate.
func (p *Planner) Offset(i int) int { return p.run.off[i] }

// Options returns the run's effective options (defaults filled in, Moves
// excluded): a move that fits to warm-up draws plans nothing without a warm-up.
func (p *Planner) Options() Options {
	o := *p.run.opts
	o.Moves = nil
	return o
}

// Site returns the index of the site named name, or an error saying there is none.
func (p *Planner) Site(name string) (int, error) {
	for i, s := range p.run.sites {
		if s.Name == name {
			return i, nil
		}
	}
	return -1, fmt.Errorf("nmc: the model has no site %q", name)
}

// Take says that the move being planned makes the steps of site i, so that
// SiteSteps leaves it out of the sweep (several moves may take one site: the
// rounds of an AugmentRound).
func (p *Planner) Take(i int) error {
	if i < 0 || i >= len(p.taken) {
		return fmt.Errorf("nmc: Take(%d): the model has sites 0 … %d", i, len(p.taken)-1)
	}
	p.taken[i] = true
	return nil
}

// setReal sets the proposal of Real sites (SiteSteps.Real), once per schedule.
func (p *Planner) setReal(r RealProposal) error {
	if p.realSet && !sameReal(p.run.real, r) {
		return errors.New("nmc: two SiteSteps of the schedule set different Real proposals (the proposal of Real sites is one per run)")
	}
	p.run.real, p.realSet = r, true
	return nil
}

// sameReal reports whether a and b are the same proposal settings.
func sameReal(a, b RealProposal) bool {
	return a.Cauchy == b.Cauchy && a.Robust == b.Robust && a.Step == b.Step
}

// useOrbits sizes the chains' orbit states (Chain.orbit) for the model's groups,
// named (for panic messages), which moves step along or score by.
func (p *Planner) useOrbits(names []string) {
	p.run.groups, p.run.groupNames = len(names), names
}

// Plan returns the schedule Sample would run for m with opts (nil: all defaults):
// every move of a sweep, in order, as Options.Moves plans it for the model (see
// Move and Defaults). Print it to see what a sweep does. It returns the errors
// Sample returns for an invalid model description or invalid options.
func Plan(m Model, opts *Options) (Schedule, error) {
	run, err := newSampling(m, opts)
	if err != nil {
		return nil, err
	}
	return run.schedule, nil
}

// newSampling checks m and opts and returns the run's shared part with its
// schedule planned.
func newSampling(m Model, opts *Options) (*sampling, error) {
	if m == nil {
		return nil, errors.New("nmc: nil model")
	}
	sites := m.Sites()
	if err := checkSites(sites); err != nil {
		return nil, err
	}
	eff, err := opts.withDefaults(Dim(sites))
	if err != nil {
		return nil, err
	}
	dependents, err := neighborhoods(m, len(sites))
	if err != nil {
		return nil, err
	}
	run := &sampling{m: m, sites: sites, off: Offsets(sites), opts: &eff, dependents: dependents}
	if dependents != nil {
		run.tracked, run.broad, run.bumps = cacheTracking(dependents)
	}
	if err := plan(run, eff.moves()); err != nil {
		return nil, err
	}
	return run, nil
}

// plan plans the schedule of run (see Options.Moves): every entry of moves, in
// order, then the entries that complete their plan once all are known
// (finisher), dropping those left with nothing to do.
func plan(run *sampling, moves []Move) error {
	p := &Planner{run: run, taken: make([]bool, len(run.sites))}
	for k, mv := range moves {
		if mv == nil {
			return fmt.Errorf("nmc: Options.Moves[%d] is nil", k)
		}
		ps, err := mv.Plan(p)
		if err != nil {
			return err
		}
		p.planned = append(p.planned, ps...)
	}
	run.schedule = nil
	for _, pm := range p.planned {
		if f, ok := pm.(finisher); ok {
			keep, err := f.finish(p)
			if err != nil {
				return err
			}
			if !keep {
				continue
			}
		}
		run.schedule = append(run.schedule, pm)
	}
	run.minWarmup = autoMinWarmup
	run.siteProposers = make([]string, len(run.sites))
	for i, s := range run.sites {
		run.siteProposers[i] = proposerName(s, run.real)
		if s.Marginalised {
			run.marg = append(run.marg, i)
		}
	}
	for _, pm := range run.schedule {
		if w, ok := pm.(warmupMinimum); ok {
			run.minWarmup = max(run.minWarmup, w.minWarmup())
		}
		if n, ok := pm.(siteNamer); ok {
			n.nameSites(run.siteProposers)
		}
	}
	return nil
}

// String lists the schedule's moves, one a line, with what each does.
func (s Schedule) String() string {
	var b strings.Builder
	for _, p := range s {
		if d, ok := p.(fmt.Stringer); ok {
			b.WriteString(d.String())
		} else {
			b.WriteString(p.Name())
		}
		b.WriteByte('\n')
	}
	return b.String()
}
