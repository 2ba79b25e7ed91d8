package parallel

import (
	"sync/atomic"
	"testing"
)

// TestChunks checks that every chunk runs exactly once, on the worker the static
// assignment gives it, for worker counts below, at and above the chunk count.
func TestChunks(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 3, 7, 20} {
		const n = 7
		var runs [n]atomic.Int32
		var owner [n]atomic.Int32
		Chunks(n, workers, func(w, c int) {
			runs[c].Add(1)
			owner[c].Store(int32(w))
		})
		eff := max(1, min(workers, n))
		for c := range runs {
			if got := runs[c].Load(); got != 1 {
				t.Errorf("workers %d: chunk %d ran %d times", workers, c, got)
			}
			if got := int(owner[c].Load()); got != c%eff {
				t.Errorf("workers %d: chunk %d ran on worker %d, want %d", workers, c, got, c%eff)
			}
		}
	}
}

// TestChunksPanic checks that a panic in another worker reaches the caller.
func TestChunksPanic(t *testing.T) {
	defer func() {
		if r := recover(); r != "chunk 3" {
			t.Errorf("recovered %v, want the panic of chunk 3", r)
		}
	}()
	Chunks(4, 2, func(w, c int) {
		if c == 3 {
			panic("chunk 3")
		}
	})
	t.Error("Chunks returned without the panic")
}

// TestGroupReuse checks that a Group runs every chunk once on its static worker
// over many calls, with a panic in between, and that a warm call does not allocate.
func TestGroupReuse(t *testing.T) {
	var g Group
	const n = 9
	var runs [n]atomic.Int32
	var wrong atomic.Int32
	fn := func(w, c int) {
		runs[c].Add(1)
		if w != c%3 {
			wrong.Add(1)
		}
	}
	for call := 0; call < 50; call++ {
		g.Chunks(n, 3, fn)
		if call == 20 {
			func() {
				defer func() {
					if r := recover(); r != "boom" {
						t.Errorf("recovered %v, want boom", r)
					}
				}()
				g.Chunks(n, 3, func(w, c int) {
					if c == 4 {
						panic("boom")
					}
				})
			}()
		}
	}
	for c := range runs {
		if got := runs[c].Load(); got != 50 {
			t.Errorf("chunk %d ran %d times in 50 calls", c, got)
		}
	}
	if wrong.Load() != 0 {
		t.Errorf("%d chunks ran on another worker than the static assignment's", wrong.Load())
	}
	if a := testing.AllocsPerRun(100, func() { g.Chunks(n, 3, fn) }); a != 0 {
		t.Errorf("a warm Group allocates %v times per call", a)
	}
}

// TestGroupNested checks that a chunk may itself spread work over helpers (each
// with its Group): the helpers are shared, and none waits for another's share.
func TestGroupNested(t *testing.T) {
	var outer Group
	inner := make([]Group, 4)
	var total atomic.Int64
	outer.Chunks(4, 4, func(w, c int) {
		inner[c].Chunks(8, 4, func(_, d int) { total.Add(int64(d)) })
	})
	if got := total.Load(); got != 4*28 {
		t.Errorf("sum %d, want %d", got, 4*28)
	}
}
