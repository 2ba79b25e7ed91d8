package nmc

import "fmt"

// Defaults is the rule that chooses a model's schedule from its declarations: the
// schedule of Options.Moves = nil, which is Defaults{}. DefaultMoves lists the
// moves it chooses for a model, in order:
//
//  1. SiteSteps: one NMC step of every site (not Marginalised, not augmented).
//  2. AutoBlocks: a block Newton step of each block of strongly coupled
//     continuous sites found from the curvature of the log joint (a Scorer that
//     implements JointHessianer).
//  3. GroupMoves: one step along the orbit of each group the model declares
//     (Grouper), then the moves the model declares of its own (ModelMover).
//  4. FittedSteps: after a warm-up, independence steps from Gaussians fitted to
//     the Real blocks (the groups' Real coordinates, the Real sites of two or more
//     coordinates).
//  5. AugmentRound, rounds − 1 times, for a model with augmented sites
//     (Augmenter): draws of the Marginalised sites, then steps of the augmented
//     sites given them.
//  6. HamiltonianMove: one static HMC move of the model's block (Hamiltonian).
//  7. LeadMoves: with a warm-up, random walks of the model's leads (Leader),
//     fitted to their warm-up draws (in warm-up from its first windows on),
//     unless the model declares a Hamiltonian block and Leads is nil.
//  8. AugmentRound: the last round, for a model with Marginalised sites (only
//     their draws when nothing is augmented).
//
// Its fields leave kinds of moves out or change the rules; a move's own settings
// (the Real proposal, the fitted steps' Every, the leapfrogs) are set on the
// list DefaultMoves returns, given as Options.Moves.
type Defaults struct {
	// NoGroupMoves leaves out the group moves, the fitted blocks of groups and the
	// automatic blocks (AutoBlocks): the sweeps are the paper's plain single-site
	// NMC.
	NoGroupMoves bool
	// NoBlocks leaves out the blocks of strongly coupled sites found from the
	// curvature (AutoBlocks).
	NoBlocks bool
	// NoFitted leaves out the fitted independence steps.
	NoFitted bool
	// NoAugment leaves out the augmentation: the augmented sites take their
	// summed-out steps among the site steps, and the last round only draws the
	// Marginalised sites.
	NoAugment bool
	// AugmentRounds is the number of augmentation rounds per sweep: 0 means 2
	// (measured on Dawid-Skene, see models.AnnotationPrior), or 1 when the
	// schedule has the model's Hamiltonian block. Must not be negative.
	AugmentRounds int
	// NoHamiltonian leaves out the Hamiltonian block's move; the rules that the
	// block changes (one augmentation round, no lead moves) then do not apply.
	NoHamiltonian bool
	// NoLeadMoves leaves out the lead-and-follow moves.
	NoLeadMoves bool
	// NoModelMoves leaves out the moves the model declares of its own
	// (ModelMover).
	NoModelMoves bool
	// Leads, when non-nil, names the lead sites instead of the model's (Leader);
	// the lead moves are then made also with a Hamiltonian block.
	Leads []string
}

// Plan plans the moves DefaultMoves chooses for the model, in order.
func (d Defaults) Plan(p *Planner) ([]Planned, error) {
	moves, err := defaultMoves(p.run.m, p.run.sites, d)
	if err != nil {
		return nil, err
	}
	var out []Planned
	for _, mv := range moves {
		ps, err := mv.Plan(p)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	return out, nil
}

// DefaultMoves returns the moves Defaults d chooses for m, in order (see
// Defaults): the schedule of Sample with Options.Moves = []Move{d}, as a list to
// print, to change the moves' settings in, or to extend, and to give as
// Options.Moves. A kind the model declares nothing for is left out (GroupMoves
// for a model without groups); FittedSteps and LeadMoves, which need a warm-up,
// plan nothing without one. Plan lists the moves of the schedule one by one (one
// per group, one per lead).
func DefaultMoves(m Model, d Defaults) ([]Move, error) {
	if m == nil {
		return nil, fmt.Errorf("nmc: nil model")
	}
	return defaultMoves(m, m.Sites(), d)
}

// defaultMoves is DefaultMoves for m with the given sites.
func defaultMoves(m Model, sites []Site, d Defaults) ([]Move, error) {
	if d.AugmentRounds < 0 {
		return nil, fmt.Errorf("nmc: Defaults.AugmentRounds = %d is negative", d.AugmentRounds)
	}
	// The declarations are checked even when their moves are left out.
	block, err := hamiltonianSites(m, sites)
	if err != nil {
		return nil, err
	}
	ham := len(block) > 0 && !d.NoHamiltonian
	augment := false
	if a, ok := m.(Augmenter); ok && !d.NoAugment {
		augment = len(a.AugmentedSites()) > 0
	}
	marginalised := false
	for _, s := range sites {
		marginalised = marginalised || s.Marginalised
	}
	rounds := d.AugmentRounds
	if rounds == 0 {
		rounds = defaultAugmentRounds
		if ham {
			rounds = 1
		}
	}
	moves := []Move{&SiteSteps{}}
	if !d.NoBlocks && !d.NoGroupMoves {
		if _, ok := m.NewScorer().(JointHessianer); ok {
			moves = append(moves, &AutoBlocks{})
		}
	}
	if g, ok := m.(Grouper); ok && !d.NoGroupMoves && len(g.Groups()) > 0 {
		moves = append(moves, &GroupMoves{})
	}
	if mm, ok := m.(ModelMover); ok && !d.NoModelMoves {
		moves = append(moves, mm.ModelMoves()...)
	}
	if !d.NoFitted {
		moves = append(moves, &FittedSteps{})
	}
	if augment {
		for range rounds - 1 {
			moves = append(moves, &AugmentRound{})
		}
	}
	if ham {
		moves = append(moves, &HamiltonianMove{})
	}
	_, leader := m.(Leader)
	if !d.NoLeadMoves && (d.Leads != nil || (leader && !ham)) {
		moves = append(moves, &LeadMoves{Leads: d.Leads})
	}
	if marginalised || augment {
		moves = append(moves, &AugmentRound{DrawOnly: !augment})
	}
	return moves, nil
}

// ModelMover is an optional interface of a Model that declares moves of its own,
// made by the default schedule after the group moves (Defaults): moves that
// only the model's own structure makes possible, as graph's move of a
// non-centred Gaussian process's length scale that carries its standardised
// values along.
type ModelMover interface {
	// ModelMoves returns the model's own moves, in order (nil: none).
	ModelMoves() []Move
}
