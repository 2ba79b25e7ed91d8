package graph

import "github.com/nmc-go/nmc/nmc"

var _ nmc.StateKeeper = (*scorer)(nil)

// Keep marks the values the scorer keeps for state x — each linear factor's X·v
// (mvCache) and rows' terms (rowTerms) — as the most recently used, so that the
// next state scored replaces the other slot (nmc.StateKeeper). A step that makes
// several proposals from one state, and scores none of them twice, would otherwise
// have the current state's values replaced by its second proposal's: the fitted
// independence step's three proposals in a row left logistic regression's next
// group step to recompute X·β and every row's exponential and logarithm at the
// current state in about a third of the sweeps. Keep changes no value: a slot only
// ever holds values computed at its key.
func (s *scorer) Keep(x []float64) {
	if len(x) != s.m.dim {
		return
	}
	for li := range s.m.linear {
		lf := &s.m.linear[li]
		for _, tm := range lf.terms {
			if f := tm.fam; tm.idx == nil {
				s.mv[tm.node.id].keep(x[f.offset : f.offset+f.length])
			}
		}
		if s.lin == nil || s.lin[li] == nil {
			continue
		}
		ls := s.lin[li]
		ls.keepKey, ls.keepVal = s.rowTermsKey(li, x, ls.keepKey[:0], ls.keepVal)
		for i := range ls.terms {
			if sl := &ls.terms[i]; sl.ok && sameBits(sl.key, ls.keepKey) {
				ls.tclock++
				sl.used = ls.tclock
			}
		}
	}
}

// keep marks the slot of X·v, if any, as the most recently used.
func (c *mvCache) keep(v []float64) {
	for i := range c.slots {
		if sl := &c.slots[i]; sl.ok && sameBits(sl.src, v) {
			c.clock++
			sl.used = c.clock
			return
		}
	}
}

// rowTermsKey appends to key the key of linear factor li's rows' terms at state x,
// as pickRowTerms builds it: the values of the factor's arguments other than the
// value (η's shared part S in η's place), then the MatVec terms' vectors and the
// column terms' coefficients times their signs. one is
// scratch for a node's values; both are returned for reuse.
func (s *scorer) rowTermsKey(li int, x, key, one []float64) (_, _ []float64) {
	lf := &s.m.linear[li]
	d := s.m.factors[lf.f].d
	saved := s.x
	s.x = x
	for a, p := range argNodes(d.params) {
		if a == lf.eta {
			S := 0.0
			for j, q := range lf.shared {
				one = s.values(q, 0, one[:0])
				S = 1*S + lf.signs[j]*one[0] // as linearSum's jet sum (ops.lin)
			}
			key = append(key, S)
			continue
		}
		one = s.values(p, 0, one[:0])
		key = append(key, one...)
	}
	s.x = saved
	s.newContext()
	for _, tm := range lf.terms {
		f := tm.fam
		key = append(key, x[f.offset:f.offset+f.length]...)
	}
	saved = s.x
	s.x = x
	for _, c := range lf.cols {
		one = s.values(c.coef, 0, one[:0])
		key = append(key, c.sign*one[0]) // as colJets's jet (ops.scale)
	}
	for _, c := range lf.cols {
		if f := c.plate; f != nil {
			key = append(key, x[f.offset:f.offset+f.length]...)
		}
	}
	s.x = saved
	s.newContext()
	return key, one
}
