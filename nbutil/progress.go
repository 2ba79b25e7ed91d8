package nbutil

import (
	"fmt"
	"html"
	"strings"
	"sync"
	"time"

	"github.com/janpfeifer/gonb/gonbui"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/viz"
)

// ProgressHTML returns one line of HTML showing the progress of a sampler run: the
// title, one <progress> bar per chain with its done/total sweeps, and the elapsed
// time in seconds. done and total hold one entry per chain; a chain whose total is
// 0 has not reported yet and is shown as an empty bar.
func ProgressHTML(title string, done, total []int, elapsed time.Duration) string {
	var b strings.Builder
	b.WriteString(`<div style="font-family:monospace;font-size:12px">`)
	b.WriteString(html.EscapeString(title))
	var d, t int
	for c := range done {
		tot := 0
		if c < len(total) {
			tot = total[c]
		}
		d += done[c]
		t += tot
		fmt.Fprintf(&b, ` &nbsp;chain %d <progress value="%d" max="%d" style="width:90px"></progress> %d/%d`,
			c, done[c], max(tot, 1), done[c], tot)
	}
	state := "running"
	if t > 0 && d >= t {
		state = "done"
	}
	fmt.Fprintf(&b, ` &nbsp;%s, %.1f s</div>`, state, elapsed.Seconds())
	return b.String()
}

// Progress keeps a one-line HTML progress display of a sampler run up to date in a
// GoNB notebook. Pass its Update method as nmc.Options.Progress. Outside a notebook
// it displays nothing. It is safe for concurrent use.
type Progress struct {
	title string
	id    string
	start time.Time
	every time.Duration
	show  func(id, html string) // gonbui.UpdateHTML, or a test's recorder

	mu          sync.Mutex
	done, total []int
	last        time.Time
}

// NewProgress returns a progress display for a run of the given number of chains,
// labelled by title. It redraws at most every 200 ms, and whenever a chain
// finishes.
func NewProgress(title string, chains int) *Progress {
	p := &Progress{
		title: title,
		start: time.Now(),
		every: 200 * time.Millisecond,
		done:  make([]int, max(chains, 0)),
		total: make([]int, max(chains, 0)),
	}
	if viz.InNotebook() {
		p.id = gonbui.UniqueId()
		p.show = gonbui.UpdateHTML
	}
	return p
}

// Update records the progress of one chain and redraws the line when it is due.
// A chain number outside the range given to NewProgress grows the display.
func (p *Progress) Update(pr nmc.Progress) {
	if pr.Chain < 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for pr.Chain >= len(p.done) {
		p.done = append(p.done, 0)
		p.total = append(p.total, 0)
	}
	p.done[pr.Chain], p.total[pr.Chain] = pr.Done, pr.Total
	now := time.Now()
	if pr.Done < pr.Total && now.Sub(p.last) < p.every {
		return
	}
	p.last = now
	p.draw(now)
}

// Finish redraws the line with the final counts; call it after nmc.Sample returns.
func (p *Progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw(time.Now())
}

// draw shows the current state; p.mu must be held.
func (p *Progress) draw(now time.Time) {
	if p.show != nil {
		p.show(p.id, ProgressHTML(p.title, p.done, p.total, now.Sub(p.start)))
	}
}
