package graph

// Orbit tapes. An orbit score (orbitSum: a group's move, or the pair and union
// scores of JointHessian, block.go) evaluates the union of its member sites'
// blankets in scalar mode along one direction: every coordinate of a member
// family is a dependent jet (x, ou, ow), every other one a constant. That walk
// is a tape as a site's score is (tape.go), compiled at the orbit's first score
// with the member families' coordinates as the active ones (tActive with sub 1
// reads ou and ow at every run, so one tape serves every direction), with the
// same arithmetic as the general path, operation for operation: an orbit tape's
// score and derivatives equal the general path's bit for bit
// (TestOrbitTapeMatchesGeneralPath, and FuzzModel's checkTapeScores). On a
// GARCH(1, 1) of 200 steps the pair score of JointHessian was most of a block
// Newton step's cost by the general path.
//
// Orbit tapes are kept per scorer (the orbits of JointHessian's blocks are
// compiled per scorer too), keyed by the orbit.

// orbitTape is an orbit's tape in one scorer and its slots; t nil: the orbit
// cannot be taped.
type orbitTape struct {
	t     *tape
	slots []tslot
	pre   bool // tapeRun.pre's
}

// orbitTapeScore returns orbit o's score by its tape (s set up by orbitSum, the
// derivatives added to s.grad[0] and s.hess[0] when deriv) and ok; ok is false
// when o has no tape or its score is not what the tape computes (the caller then
// takes the general path, s.grad and s.hess cleared).
func (s *scorer) orbitTapeScore(o *orbit, deriv bool) (float64, bool) {
	if s.tape.off || s.k != 1 || s.fixSite != 0 || len(o.lin) > 0 || len(o.marg) > 0 || len(o.groups) > 0 ||
		len(o.blanket) >= chunkedMinElems {
		return 0, false
	}
	tr := &s.tape
	ot, ok := tr.orbits[o]
	if !ok {
		if tr.orbits == nil {
			tr.orbits = map[*orbit]*orbitTape{}
		}
		ot = &orbitTape{t: compileOrbitTape(s.m, o)}
		if ot.t != nil {
			ot.slots = make([]tslot, ot.t.slots)
			for k, v := range ot.t.imm {
				ot.slots[k] = tslot{v: v}
			}
		}
		tr.orbits[o] = ot
	}
	t := ot.t
	if t == nil {
		return 0, false
	}
	tr.cur, tr.curPre = ot.slots, &ot.pre
	return s.runTapeScore(t, deriv)
}

// compileOrbitTape returns orbit o's tape, or nil where its blanket cannot be
// taped (as compileTape) or holds a factor scored by rows of a mixture
// (mixRun), which sumBlanket scores otherwise than element by element.
func compileOrbitTape(m *Model, o *orbit) *tape {
	for _, en := range o.blanket {
		if m.mixFor(en.f) != nil {
			return nil
		}
	}
	return compileBlanketTape(m, -1, o, o.blanket)
}
