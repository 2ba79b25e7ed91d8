// Package parallel spreads fixed chunks of work over goroutines. The chunks are
// fixed by the caller, and each writes only its own partial results, so a result
// assembled in chunk order does not depend on GOMAXPROCS or on scheduling.
package parallel

import "sync"

// Chunks calls fn(w, c) for every chunk c = 0 … n−1, on min(workers, n) goroutines:
// worker w (the calling goroutine is worker 0) takes chunks w, w + workers, … A panic
// in any worker is re-raised in the calling goroutine once every worker has ended, so
// the caller's recovery (the sampler's, naming chain and site) sees it.
func Chunks(n, workers int, fn func(w, c int)) {
	workers = min(workers, n)
	if workers <= 1 {
		for c := 0; c < n; c++ {
			fn(0, c)
		}
		return
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var panicked any
	run := func(w int) {
		defer func() {
			if r := recover(); r != nil {
				mu.Lock()
				panicked = r
				mu.Unlock()
			}
		}()
		for c := w; c < n; c += workers {
			fn(w, c)
		}
	}
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(w)
		}()
	}
	run(0)
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
}
