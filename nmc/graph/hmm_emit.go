package graph

import (
	"fmt"
	"math"
	"slices"

	"github.com/nmc-go/nmc/internal/special"
)

// opScratch is a scorer's scratch for the nodeOps that keep their own.
type opScratch struct {
	// hmm: per HMMMarginal node, its forward recursion's buffers.
	hmm map[*Node]*hmmScratch
	// The emission table's arguments of one family call (emissionTable): the
	// jets, their values and the family's derivatives.
	args         []jet
	argv, d1, d2 []float64
}

// callScratch returns the emission table's scratch for na arguments.
func (x *opScratch) callScratch(na int) (args []jet, argv, d1, d2 []float64) {
	if len(x.argv) < na {
		x.args = make([]jet, na)
		x.argv = make([]float64, na)
		x.d1 = make([]float64, na)
		x.d2 = make([]float64, na*na)
	}
	return x.args[:na], x.argv[:na], x.d1[:na], x.d2[:na*na]
}

// hmmColumns is the plan of an HMMMarginal whose log_omega is the common form
// Stack(LogDensity(d₀, Data(y)), …, LogDensity(d_{K−1}, Data(y))): the same scalar
// data y in every column and distributions whose parameters have one element,
// shared by all steps (a rate per state). Then log ω_t(j) depends on t only through
// y_t, and the forward algorithm reads a table by distinct datum made once per
// score: each column's parameters are evaluated once, the family is called once
// per distinct datum (a few dozen for counts, instead of N), and ω = exp(log ω −
// max_j log ω) is taken per distinct datum too, so that a step costs no
// exponential.
type hmmColumns struct {
	cols  []*Dist   // per state: the distribution of y_t
	uniq  []float64 // the distinct values of y, in order of first appearance
	which []int32   // per step t: the index of y_t in uniq
}

// planColumns returns the plan of log_omega, or nil when it does not have the
// common form.
func planColumns(lw *Node) *hmmColumns {
	if _, ok := lw.impl.(stackOp); !ok || lw.op != opCustom {
		return nil
	}
	pl := &hmmColumns{}
	var y []float64
	for _, a := range lw.args {
		op, ok := a.impl.(densityOp)
		if !ok || a.op != opCustom || a.length != lw.length {
			return nil
		}
		x := a.args[0]
		if x.op != opConst || x.width != 1 || x.length != lw.length {
			return nil
		}
		for _, p := range op.d.params {
			if p.length != 1 {
				return nil
			}
		}
		if y == nil {
			y = x.vals
		} else if !slices.Equal(x.vals, y) {
			return nil
		}
		pl.cols = append(pl.cols, op.d)
	}
	index := map[float64]int32{}
	pl.which = make([]int32, len(y))
	for t, v := range y {
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

// checkData returns an error naming the column and the step of the first datum
// outside the support of a column's distribution: with the parameters' values
// when they are constants (C, Vec), else against the kind of support the family
// has for any parameters.
func (pl *hmmColumns) checkData() error {
	for j, d := range pl.cols {
		args := []float64{0}
		known := true
		for _, p := range d.params {
			for c := 0; c < p.width; c++ {
				if p.op == opConst {
					args = append(args, p.vals[c])
				} else {
					args, known = append(args, math.NaN()), false
				}
			}
		}
		if known {
			if err := d.fam.CheckParams(args[1:], d.k); err != nil {
				return fmt.Errorf("log_omega column %d: %w", j, err)
			}
		}
		kind, lo, hi, nv := d.fam.Support(args[1:], d.k)
		for u, y := range pl.uniq {
			args[0] = y
			ok := valueInKind(args[:1], kind, lo, hi, nv)
			if known {
				ok = d.fam.InSupport(args, d.k)
			}
			if !ok {
				t := slices.Index(pl.which, int32(u))
				return fmt.Errorf("log_omega column %d: datum %v (step %d) is outside the support of %s", j, y, t, d.fam.Name())
			}
		}
	}
	return nil
}

// emissionTable fills x.tab, x.omv, x.mu and x.tabLive for the plan pl at the
// scorer's state. A family value that is −Inf because the parameters are invalid
// (a negative rate) is NaN: the state is impossible, not the hidden state. It
// returns false and the log likelihood (NaN) when a log ω is NaN or +Inf.
func (x *hmmScratch) emissionTable(s *scorer, pl *hmmColumns, K int) (float64, bool) {
	nu := len(pl.uniq)
	if len(x.tab) < nu*K {
		x.tab = make([]jet, nu*K)
		x.omv = make([]float64, nu*K)
		x.mu = make([]float64, nu)
	}
	x.tabLive = false
	for j, d := range pl.cols {
		na := 1
		for _, p := range d.params {
			na += p.width
		}
		top := s.top
		pj := s.push(na - 1)
		at := 0
		for _, p := range d.params {
			s.eval(p, 0, pj[at:at+p.width])
			at += p.width
		}
		args, argv, d1, d2 := s.ext.callScratch(na)
		live := false
		for c := range pj {
			args[1+c], argv[1+c] = pj[c], pj[c].v
			live = live || pj[c].kind != jConst
		}
		s.top = top
		x.tabLive = x.tabLive || live
		fam, k := d.fam, d.k
		for u, y := range pl.uniq {
			args[0], argv[0] = jet{v: y}, y
			t := &x.tab[u*K+j]
			var lp float64
			if live {
				lp = fam.Derivs(argv, k, d1, d2)
			} else {
				lp = fam.LogProb(argv, k)
			}
			switch {
			case math.IsInf(lp, -1) && fam.CheckParams(argv[1:], k) != nil:
				*t = jet{v: math.NaN()}
			case !live || math.IsInf(lp, 0) || math.IsNaN(lp):
				*t = jet{v: lp}
			default:
				*t = s.ops.chainJet(lp, args, d1, d2)
			}
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

// rescale returns the emissions ω_t of a step of the forward algorithm and their
// scale m_t as given, unless the step's normaliser Σ_j S_j·ω_t(j) (S_j the
// predicted probability of state j, the values of the blocks of cur) would
// underflow: when the state of the largest emission, which sets m_t, has a zero or
// negligible predicted probability and every other state's emission lies more than
// ~708 nats below it. The likelihood is finite then, but exp(log ω − m_t) rounds to
// 0 wherever S_j > 0. Those steps are rescaled by the largest log S_j + log ω_t(j)
// of the states that can be reached, which makes that state's term 1 (its weight is
// capped at 2^1000, so a state of subnormal S_j may be counted short). The steps
// that do not underflow keep their arithmetic.
func (x *hmmScratch) rescale(cur []float64, om []jet, omv []float64, m float64, K, w int) ([]float64, float64) {
	c := 0.0
	for j := 0; j < K; j++ {
		c += cur[j*w] * omv[j]
	}
	if c >= 0x1p-1022 || math.IsNaN(c) {
		return omv, m
	}
	best := math.Inf(-1)
	for j := 0; j < K; j++ {
		if sj := cur[j*w]; sj > 0 && !math.IsInf(om[j].v, -1) {
			best = max(best, om[j].v+special.Log(sj))
		}
	}
	if math.IsInf(best, -1) {
		return omv, m // no state can be reached: the step's normaliser is 0
	}
	safe := x.omSafe[:K]
	for j := 0; j < K; j++ {
		if cur[j*w] > 0 {
			safe[j] = min(math.Exp(om[j].v-best), 0x1p1000)
		} else {
			safe[j] = 0
		}
	}
	return safe, best
}
