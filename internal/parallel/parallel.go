// Package parallel spreads fixed chunks of work over goroutines. The chunks are
// fixed by the caller, and each writes only its own partial results, so a result
// assembled in chunk order does not depend on GOMAXPROCS or on scheduling.
//
// The helper goroutines are not started per call: they stay parked between calls,
// shared by every caller, and a call hands them its chunks through a channel, so a
// call of Group.Chunks does not allocate (a new helper is started only when every
// parked one is busy, which stops once the pool has as many as the callers use at
// once).
package parallel

import "sync"

// Chunks calls fn(w, c) for every chunk c = 0 … n−1, on min(workers, n) goroutines:
// worker w (the calling goroutine is worker 0) takes chunks w, w + workers, … A panic
// in any worker is re-raised in the calling goroutine once every worker has ended, so
// the caller's recovery (the sampler's, naming chain and site) sees it.
//
// Chunks takes its Group from a pool; a caller on a hot path keeps a Group of its
// own and a fn made once (a closure made per call allocates), and calls
// Group.Chunks.
func Chunks(n, workers int, fn func(w, c int)) {
	if min(workers, n) <= 1 {
		for c := 0; c < n; c++ {
			fn(0, c)
		}
		return
	}
	g := groups.Get().(*Group)
	defer groups.Put(g)
	g.Chunks(n, workers, fn)
}

var groups = sync.Pool{New: func() any { return new(Group) }}

// A Group runs the chunks of one call of Chunks at a time (the zero value is ready
// to use); its caller must not call Chunks on it again before a call returns, as
// from fn. A warm Group's call does not allocate.
type Group struct {
	wg       sync.WaitGroup
	fn       func(w, c int)
	n        int
	workers  int
	mu       sync.Mutex
	panicked any
}

// job is a helper's share of a call: worker w of group g.
type job struct {
	g *Group
	w int
}

// jobs hands a call's shares to the parked helpers (unbuffered: a send succeeds
// only when a helper is waiting for it).
var jobs = make(chan job)

// Chunks calls fn(w, c) for every chunk c = 0 … n−1 as the package's Chunks does.
func (g *Group) Chunks(n, workers int, fn func(w, c int)) {
	workers = min(workers, n)
	if workers <= 1 {
		for c := 0; c < n; c++ {
			fn(0, c)
		}
		return
	}
	g.fn, g.n, g.workers, g.panicked = fn, n, workers, nil
	g.wg.Add(workers - 1)
	for w := 1; w < workers; w++ {
		select {
		case jobs <- job{g, w}:
		default:
			go helper(job{g, w}) // every helper is busy: one more
		}
	}
	g.run(0)
	g.wg.Wait()
	g.fn = nil
	if p := g.panicked; p != nil {
		g.panicked = nil
		panic(p)
	}
}

// helper runs its share j, then waits for the next one, for ever.
func helper(j job) {
	for {
		j.g.run(j.w)
		j.g.wg.Done()
		j = <-jobs
	}
}

// run calls fn for worker w's chunks w, w + workers, …, recording a panic.
func (g *Group) run(w int) {
	defer func() {
		if r := recover(); r != nil {
			g.mu.Lock()
			g.panicked = r
			g.mu.Unlock()
		}
	}()
	for c := w; c < g.n; c += g.workers {
		g.fn(w, c)
	}
}
