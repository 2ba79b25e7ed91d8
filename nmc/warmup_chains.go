package nmc

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/nmc-go/nmc/diagnostics"
)

// The adaptive warm-up across chains (Options.Warmup adaptive, Options.WarmupPerChain
// false, two chains or more). A chain's own test (warmup.go) sees whether its log
// joint still trends, not whether it sits where the others do: on a two-state HMM,
// chains in a local mode 67 nats below the main one passed it after 200–300
// sweeps, and the run ended with an R-hat of 1.57 and no word of it. So the
// chains meet at the end of every window (a barrier), and the warm-up of all of
// them ends at the first meeting where every chain's own test passes and the
// chains agree: the rank-normalised split R-hat (diagnostics.RHat) of their log
// joints over their last two windows is below agreeRHat. Otherwise it ends after
// Options.WarmupMax sweeps, and Result.WarmupCheck (and Result.Warnings) names
// the chains that disagree and the nats between them. Every chain then has the
// same warm-up length.
//
// A chain that stops — cancelled, failed — leaves the meetings, and the others
// decide without it; a chain waiting at a meeting returns when the run is
// cancelled. A chain's draws depend on the other chains' (through the warm-up's
// length), so runs split with FirstChain must use the per-chain rule
// (Options.WarmupPerChain) to stay bit-identical to one run of all the chains.

// agreeRHat is the R-hat of the chains' log joint over their last two windows
// below which they agree.
const agreeRHat = 1.05

// warmupMeeting is where the chains of a run meet at the end of every window of
// the adaptive warm-up.
type warmupMeeting struct {
	mu      sync.Mutex
	seats   []meetingSeat
	round   *meetingRound
	warmMax int
	check   *WarmupCheck // the last meeting's check, once it ended the warm-up
}

// meetingSeat is one chain's place at the meetings.
type meetingSeat struct {
	present bool      // the chain is in its warm-up: not ended, failed or cancelled
	arrived bool      // the chain waits at the current meeting
	own     bool      // its own test passed at its last window end
	lj      []float64 // its log joint over its last sweeps, oldest first
}

// meetingRound is one meeting, after n sweeps: done is closed once the decision
// is made.
type meetingRound struct {
	done chan struct{}
	n    int
	end  bool
}

// newWarmupMeeting returns the meeting of a run of chains chains, or nil when
// the chains warm up alone (no adaptive warm-up, WarmupPerChain, one chain).
func newWarmupMeeting(o *Options) *warmupMeeting {
	if !o.adaptive() || o.WarmupPerChain || o.Chains < 2 {
		return nil
	}
	m := &warmupMeeting{seats: make([]meetingSeat, o.Chains), round: newRound(), warmMax: o.WarmupMax}
	for i := range m.seats {
		m.seats[i] = meetingSeat{present: true, lj: make([]float64, 0, 2*autoWindow)}
	}
	return m
}

func newRound() *meetingRound { return &meetingRound{done: make(chan struct{})} }

// meet takes chain c, after n warm-up sweeps, to the current meeting with own,
// whether its own test passes, and its recent log joints; it waits for the other
// chains and returns whether the warm-up ends. stopped reports that the run was
// cancelled while it waited.
func (c *Chain) meet(n int, own bool) (end, stopped bool) {
	m := c.run.meet
	m.mu.Lock()
	s := &m.seats[c.local]
	s.arrived, s.own = true, own
	s.lj = c.warm.recentLogJoints(n, s.lj[:0])
	r := m.round
	r.n = n
	if m.allArrived() {
		m.decide()
		m.mu.Unlock()
		return r.end, false
	}
	m.mu.Unlock()
	select {
	case <-r.done:
		return r.end, false
	case <-c.warm.done:
		c.warm.stopped = true
		return false, true
	}
}

// leaveMeetings takes chain c out of the meetings (its warm-up ended, it failed
// or it was cancelled); the chains waiting at the current meeting decide without
// it. It may be called more than once.
func (c *Chain) leaveMeetings() {
	m := c.run.meet
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := &m.seats[c.local]
	if !s.present {
		return
	}
	s.present, s.arrived = false, false
	if m.anyArrived() && m.allArrived() {
		m.decide()
	}
}

// allArrived reports whether every present chain waits at the meeting.
func (m *warmupMeeting) allArrived() bool {
	for _, s := range m.seats {
		if s.present && !s.arrived {
			return false
		}
	}
	return true
}

func (m *warmupMeeting) anyArrived() bool {
	for _, s := range m.seats {
		if s.present && s.arrived {
			return true
		}
	}
	return false
}

// decide makes the current meeting's decision, releases the chains waiting at
// it and opens the next one. The caller holds m.mu.
func (m *warmupMeeting) decide() {
	r := m.round
	n := r.n
	chk := m.checkAt(n)
	r.end = (chk.agreed() && chk.allOwn()) || n >= m.warmMax
	if r.end {
		m.check = chk
	}
	for i := range m.seats {
		m.seats[i].arrived = false
	}
	m.round = newRound()
	close(r.done)
}

// checkAt returns the check of the present chains after n sweeps.
func (m *warmupMeeting) checkAt(n int) *WarmupCheck {
	chk := &WarmupCheck{Sweeps: n, RHat: math.NaN()}
	var series [][]float64
	for i, s := range m.seats {
		if !s.present {
			continue
		}
		chk.Chains = append(chk.Chains, i)
		if !s.own {
			chk.Trending = append(chk.Trending, i)
		}
		chk.MeanLogJoint = append(chk.MeanLogJoint, meanOf(s.lj))
		chk.SDLogJoint = append(chk.SDLogJoint, sdOf(s.lj))
		series = append(series, s.lj)
	}
	if len(series) >= 2 && len(series[0]) >= 4 {
		chk.Window = len(series[0])
		// An error (chains of different lengths) cannot happen: every present
		// chain made n sweeps. A NaN R-hat (a constant log joint) does not agree.
		chk.RHat, _ = diagnostics.RHat(series)
	}
	return chk
}

// WarmupCheck is the cross-chain check of the adaptive warm-up at its end (see
// Options.WarmupPerChain): whether the chains' log joints agreed.
type WarmupCheck struct {
	// Sweeps is the warm-up's length, the same for every chain.
	Sweeps int
	// Window is the number of last warm-up sweeps compared (two windows of 50,
	// fewer only for a WarmupMax below 100).
	Window int
	// RHat is the rank-normalised split R-hat (diagnostics.RHat) of the chains'
	// log joint over those sweeps; the chains agree when it is below 1.05 (NaN
	// with fewer than two chains).
	RHat float64
	// Chains are the chains that took part (0-based, as in Result.Draws: those
	// that had not stopped), and MeanLogJoint and SDLogJoint the mean and
	// standard deviation of each one's log joint over the compared sweeps.
	Chains                   []int
	MeanLogJoint, SDLogJoint []float64
	// Trending are the chains whose own test (the log joint's trend) did not pass
	// at their last window end.
	Trending []int
}

// agreed reports whether the chains agree (R-hat below agreeRHat); a run left
// with one chain agrees with itself.
func (w *WarmupCheck) agreed() bool {
	return len(w.Chains) < 2 || w.RHat < agreeRHat
}

func (w *WarmupCheck) allOwn() bool { return len(w.Trending) == 0 }

// Agreed reports whether the warm-up ended with the chains in agreement and
// every chain's own test passed; false means it ended at Options.WarmupMax
// without (Warning says how).
func (w *WarmupCheck) Agreed() bool { return w.agreed() && w.allOwn() }

// Warning describes a warm-up that ended without agreement: the chains whose
// mean log joint lies below the highest, by how many nats, and those still
// trending; "" when the chains agreed.
func (w *WarmupCheck) Warning() string {
	if w.Agreed() {
		return ""
	}
	msg := fmt.Sprintf("the adaptive warm-up reached its limit of %d sweeps", w.Sweeps)
	if !w.agreed() {
		msg += fmt.Sprintf(" without the chains agreeing (R-hat of the log joint over their last %d warm-up sweeps %.3g, want below %.3g)", w.Window, w.RHat, agreeRHat)
		msg += ": " + w.describeLevels()
	}
	if !w.allOwn() {
		if w.agreed() {
			msg += " before the log joint of " + chainList(w.Trending) + " had stopped trending (or the warm-up reached its minimum length)"
		} else {
			msg += "; the log joint of " + chainList(w.Trending) + " had not stopped trending"
		}
	}
	return msg + "; their draws may not come from one distribution (a local mode, or a chain still climbing): try a longer warm-up (Options.WarmupMax, nmc sample -warmup-max)"
}

// describeLevels names the chains at the highest mean log joint — within two
// standard deviations (the larger of the two chains') of the highest — and how
// far below it each other chain lies; when every chain is that close, the
// chain with the highest and how far below it each other one lies.
func (w *WarmupCheck) describeLevels() string {
	order := make([]int, len(w.Chains))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(w.MeanLogJoint[b], w.MeanLogJoint[a]) })
	best := order[0]
	var top, below []int
	for _, k := range order {
		gap := w.MeanLogJoint[best] - w.MeanLogJoint[k]
		if gap <= 2*max(w.SDLogJoint[k], w.SDLogJoint[best]) {
			top = append(top, k)
		} else {
			below = append(below, k)
		}
	}
	if len(below) == 0 {
		top, below = order[:1], order[1:]
	}
	names := make([]int, len(top))
	for i, k := range top {
		names[i] = w.Chains[k]
	}
	slices.Sort(names)
	parts := []string{fmt.Sprintf("mean log joint %.6g in %s", w.MeanLogJoint[best], chainList(names))}
	for _, k := range below {
		parts = append(parts, fmt.Sprintf("chain %d %.3g nats below", w.Chains[k], w.MeanLogJoint[best]-w.MeanLogJoint[k]))
	}
	return strings.Join(parts, ", ")
}

// chainList names chains: "chain 2" or "chains 0, 1".
func chainList(cs []int) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = strconv.Itoa(c)
	}
	if len(s) == 1 {
		return "chain " + s[0]
	}
	return "chains " + strings.Join(s, ", ")
}

func meanOf(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func sdOf(v []float64) float64 {
	m, s := meanOf(v), 0.0
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(v)-1))
}
