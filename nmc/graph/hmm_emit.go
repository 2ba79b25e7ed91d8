package graph

import (
	"math"
	"slices"
)

// hmmColumns is the plan of an HMMMarginal whose log_omega is the common form
// Stack(LogDensity(d₀, y), …, LogDensity(d_{K−1}, y)): the same scalar data y in
// every column and distributions whose parameters have one element, shared by all
// steps (a rate per state). Then log ω_t(j) depends on t only through y_t, and the
// forward algorithm reads a table by distinct datum made once per score: each
// column's parameters are evaluated once, the family is called once per distinct
// datum (a few dozen for counts, instead of N), and ω = exp(log ω − max_j log ω)
// is taken per distinct datum too, so that a step costs no exponential.
type hmmColumns struct {
	cols  []*logDensityOp // per state
	uniq  []float64       // the distinct values of y, in order of first appearance
	which []int32         // per step t: the index of y_t in uniq
}

// planColumns returns the plan of log_omega, or nil when it does not have the
// common form.
func planColumns(lw *Node) *hmmColumns {
	if _, ok := lw.impl.(stackOp); !ok || lw.op != opCustom {
		return nil
	}
	pl := &hmmColumns{}
	for _, a := range lw.args {
		ld, ok := a.impl.(*logDensityOp)
		if !ok || a.op != opCustom || ld.vw != 1 || a.length != lw.length {
			return nil
		}
		for _, p := range ld.d.params {
			if p.length != 1 {
				return nil
			}
		}
		if len(pl.cols) > 0 && !slices.Equal(ld.values, pl.cols[0].values) {
			return nil
		}
		pl.cols = append(pl.cols, ld)
	}
	index := map[float64]int32{}
	pl.which = make([]int32, lw.length)
	for t, v := range pl.cols[0].values {
		u, ok := index[v]
		if !ok {
			u = int32(len(pl.uniq))
			index[v] = u
			pl.uniq = append(pl.uniq, v)
		}
		pl.which[t] = u
	}
	return pl
}

// emissionTable fills x.tab, x.omv, x.mu and x.tabLive for the plan pl at the
// scorer's state. It returns false and the log likelihood (NaN) when a log ω is NaN
// or +Inf.
func (x *hmmScratch) emissionTable(s *scorer, pl *hmmColumns, K int) (float64, bool) {
	nu := len(pl.uniq)
	if len(x.tab) < nu*K {
		x.tab = make([]jet, nu*K)
		x.omv = make([]float64, nu*K)
		x.mu = make([]float64, nu)
	}
	x.tabLive = false
	for j, col := range pl.cols {
		na := col.na
		top := s.top
		pj := s.push(na - 1)
		at := 0
		for _, p := range col.d.params {
			s.eval(p, 0, pj[at:at+p.width])
			at += p.width
		}
		args, argv, d1, d2 := s.ext.logDensity(na)
		live := false
		for c := range pj {
			args[1+c], argv[1+c] = pj[c], pj[c].v
			live = live || pj[c].kind != jConst
		}
		s.top = top
		x.tabLive = x.tabLive || live
		fam, k := col.d.fam, col.d.k
		for u, y := range pl.uniq {
			args[0], argv[0] = jet{v: y}, y
			t := &x.tab[u*K+j]
			if !live {
				*t = jet{v: col.checked(fam.LogProb(argv, k), argv)}
				continue
			}
			lp := fam.Derivs(argv, k, d1, d2)
			if math.IsInf(lp, 0) || math.IsNaN(lp) {
				*t = jet{v: col.checked(lp, argv)}
				continue
			}
			*t = s.chainJet(lp, args[1:], d1[1:], d2, na, 1)
		}
	}
	for u := 0; u < nu; u++ {
		row := x.tab[u*K : (u+1)*K]
		m := math.Inf(-1)
		for j := range row {
			v := row[j].v
			if math.IsNaN(v) || math.IsInf(v, 1) {
				return math.NaN(), false
			}
			m = max(m, v)
		}
		x.mu[u] = m
		for j := range row {
			x.omv[u*K+j] = math.Exp(row[j].v - m) // 0 for −Inf; NaN when m is −Inf (not read)
		}
	}
	return 0, true
}
