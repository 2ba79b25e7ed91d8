package main

import (
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/nmc-go/nmc/nmc"
)

// showProgress reports whether a progress bar belongs on w: only when w is a
// terminal and the environment variable CI is not set (progressbar redraws with
// '\r' whatever w is, which would fill a log file).
func showProgress(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("CI") != "" {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}

// progress is one terminal bar for the total sweeps of all chains of a run, fed
// by nmc's Options.Progress.
type progress struct {
	mu          sync.Mutex
	done, total []int // sweeps done and to do per chain
	bar         *progressbar.ProgressBar
}

// newProgress returns a bar for chains × sweeps steps on w, described by desc, or
// nil when w is not a terminal or CI is set (see showProgress).
func newProgress(w io.Writer, desc string, chains, sweeps int) *progress {
	if !showProgress(w) || chains*sweeps == 0 {
		return nil
	}
	return &progress{
		done:  make([]int, chains),
		total: make([]int, chains),
		bar: progressbar.NewOptions(chains*sweeps,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionShowCount(),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		),
	}
}

// update records a chain's progress; it is safe for concurrent use. A nil
// *progress ignores it.
func (p *progress) update(pr nmc.Progress) {
	if p == nil || pr.Chain < 0 || pr.Chain >= len(p.done) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done[pr.Chain] = pr.Done
	if pr.Total != p.total[pr.Chain] {
		// The chain's total changes when its warm-up ends (its length, and the
		// thinning it chose): the bar's end moves with it.
		p.total[pr.Chain] = pr.Total
		if !slices.Contains(p.total, 0) {
			p.bar.ChangeMax(sum(p.total))
		}
	}
	p.bar.Set(sum(p.done))
}

func sum(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
}

// callback returns the Options.Progress function of p: nil for a nil p, so that
// the sampler does no progress work at all.
func (p *progress) callback() func(nmc.Progress) {
	if p == nil {
		return nil
	}
	return p.update
}

// finish clears the bar.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bar.Finish()
	p.bar.Clear()
}
