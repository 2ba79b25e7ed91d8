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
