package nmc

import (
	"fmt"
	"math"
	"strings"
)

// Validation of the groups a model declares (Grouper).

// checkGroups validates the groups declared by a model with the given sites and
// returns them ready for stepping. A group must have a name (unique) and coordinates;
// each coordinate must be in the state, at most once in its group, with a finite
// non-zero Rate; a dilation's anchor must be −1 or a coordinate of a continuous,
// non-Marginalised site outside the group, a ShiftOver's a coordinate of a Positive
// site with Lower ≥ 0 outside the group; and the orbit must stay in the support of
// every site it moves: shifts and dilations of Real coordinates, dilations about 0 of
// Positive coordinates with Lower 0, nothing else.
func checkGroups(sites []Site, groups []Group) ([]groupPlan, error) {
	ci := newCoordIndex(sites)
	dim := len(ci.site)
	plans := make([]groupPlan, len(groups))
	names := make(map[string]int, len(groups))
	for gi, g := range groups {
		where := fmt.Sprintf("nmc: group %d %q", gi, g.Name)
		if g.Name == "" {
			return nil, fmt.Errorf("nmc: group %d has an empty name", gi)
		}
		if j, ok := names[g.Name]; ok {
			return nil, fmt.Errorf("nmc: group name %q is used by groups %d and %d", g.Name, j, gi)
		}
		names[g.Name] = gi
		if len(g.Coords) == 0 {
			return nil, fmt.Errorf("%s has no coordinates", where)
		}
		in := make(map[int]int, len(g.Coords)) // coordinate → its entry in the group
		for k, oc := range g.Coords {
			if oc.Coord < 0 || oc.Coord >= dim {
				return nil, fmt.Errorf("%s, entry %d: coordinate %d is not in the state (0 … %d)", where, k, oc.Coord, dim-1)
			}
			if k0, ok := in[oc.Coord]; ok {
				return nil, fmt.Errorf("%s: coordinate %d (%s) is in the group twice, entries %d and %d", where, oc.Coord, ci.names[oc.Coord], k0, k)
			}
			in[oc.Coord] = k
		}
		plan := groupPlan{index: gi, name: g.Name, coords: append([]OrbitCoord(nil), g.Coords...)}
		for k, oc := range g.Coords {
			name := ci.names[oc.Coord]
			s := sites[ci.site[oc.Coord]]
			at := fmt.Sprintf("%s, entry %d (%s)", where, k, name)
			if oc.Kind != Dilate && oc.Kind != Shift && oc.Kind != ShiftOver {
				return nil, fmt.Errorf("%s: unknown Kind %d", at, int(oc.Kind))
			}
			if !isFinite(oc.Rate) || oc.Rate == 0 {
				return nil, fmt.Errorf("%s: Rate = %g, want finite and non-zero", at, oc.Rate)
			}
			plan.maxC = max(plan.maxC, maxCPerRate*math.Abs(oc.Rate))
			if oc.Kind == Dilate {
				plan.rate += oc.Rate
				plan.scale++ // the count of dilated coordinates, for now
				if a := oc.Anchor; a != -1 {
					if a < 0 || a >= dim {
						return nil, fmt.Errorf("%s: Anchor %d is not −1 or a coordinate of the state (0 … %d)", at, a, dim-1)
					}
					if k0, ok := in[a]; ok {
						return nil, fmt.Errorf("%s: Anchor %d (%s) is in the group itself (entry %d); an anchor must stay fixed", at, a, ci.names[a], k0)
					}
					if as := sites[ci.site[a]]; as.Support == Discrete {
						return nil, fmt.Errorf("%s: Anchor %d (%s) is a coordinate of the discrete site %q", at, a, ci.names[a], as.Name)
					}
				}
			}
			if oc.Kind == ShiftOver {
				a := oc.Anchor
				if a < 0 || a >= dim {
					return nil, fmt.Errorf("%s: Anchor %d of a ShiftOver is not a coordinate of the state (0 … %d)", at, a, dim-1)
				}
				if k0, ok := in[a]; ok {
					return nil, fmt.Errorf("%s: Anchor %d (%s) is in the group itself (entry %d); the coordinate a ShiftOver's rate is divided by must stay fixed", at, a, ci.names[a], k0)
				}
				if as := sites[ci.site[a]]; as.Support != Positive || !(as.Lower >= 0) {
					return nil, fmt.Errorf("%s: Anchor %d (%s) of a ShiftOver is a coordinate of site %q, which is not Positive with Lower ≥ 0: its value must be positive", at, a, ci.names[a], as.Name)
				}
			}
			if msg := orbitLeavesSupport(s, oc); msg != "" {
				return nil, fmt.Errorf("%s: %s", at, msg)
			}
			if n := len(plan.sites); n == 0 || plan.sites[n-1] != ci.site[oc.Coord] {
				plan.sites = append(plan.sites, ci.site[oc.Coord])
			}
		}
		plan.sites = sortedUnique(plan.sites)
		if plan.scale > 0 {
			plan.scale = plan.rate / plan.scale
		}
		plans[gi] = plan
	}
	return plans, nil
}

// orbitLeavesSupport returns "" if moving a coordinate of site s as oc keeps it in
// the site's support for every t, else why not.
func orbitLeavesSupport(s Site, oc OrbitCoord) string {
	site := fmt.Sprintf("site %q", s.Name)
	switch s.Support {
	case Real:
		return ""
	case Positive:
		switch {
		case oc.Kind != Dilate:
			return site + " is Positive: a shift leaves (Lower, ∞); dilate it about 0 instead"
		case s.Lower != 0:
			return fmt.Sprintf("%s is Positive with Lower = %g: a dilation about 0 leaves (Lower, ∞)", site, s.Lower)
		case oc.Anchor != -1:
			return site + " is Positive: a dilation about an anchor can leave (0, ∞); dilate it about 0 (Anchor −1)"
		}
		return ""
	case Interval:
		return site + " is an Interval: an orbit leaves (Lower, Upper)"
	case Simplex:
		return site + " is a Simplex: an orbit leaves the simplex"
	case Discrete:
		if s.Marginalised {
			return site + " is Marginalised (summed out of the scores): it cannot move in a group"
		}
		return site + " is Discrete: an orbit leaves its values"
	}
	return fmt.Sprintf("%s has unknown Support %d", site, int(s.Support))
}

// modelGroups returns the validated groups of m, or nil when m declares none. It
// checks that m's Scorer implements OrbitScorer by making one (a panic in
// NewScorer is returned as an error).
func modelGroups(m Model, sites []Site) (plans []groupPlan, err error) {
	gr, ok := m.(Grouper)
	if !ok {
		return nil, nil
	}
	plans, err = checkGroups(sites, gr.Groups())
	if err != nil || len(plans) == 0 {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			plans, err = nil, fmt.Errorf("nmc: NewScorer: panic: %v", r)
		}
	}()
	if sc := m.NewScorer(); sc == nil {
		return nil, fmt.Errorf("nmc: NewScorer returned nil")
	} else if _, ok := sc.(OrbitScorer); !ok {
		var names []string
		for _, p := range plans {
			names = append(names, fmt.Sprintf("%q", p.name))
		}
		return nil, fmt.Errorf("nmc: the model declares groups (%s) but its Scorer %T does not implement OrbitScorer (leave GroupMoves out of the schedule, Defaults.NoGroupMoves, to sample without them)", strings.Join(names, ", "), sc)
	}
	return plans, nil
}
