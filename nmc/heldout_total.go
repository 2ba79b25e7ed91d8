package nmc

import "sync"

// HeldOutTotal returns a HeldOut of length 1 whose value at a draw is the sum of h's
// pointwise log-likelihoods, Σ_j log p(y_j | θ): all the joint predictive
// log-likelihood curve needs. Use it when storing every point at every draw would
// not fit in memory (a million held-out rows × 1000 draws is 8 GB; the totals are
// 8 kB). The result is safe for concurrent use; it keeps one scratch vector per
// goroutine that is evaluating it.
func HeldOutTotal(h HeldOut) HeldOut {
	n := h.Len()
	return &heldOutTotal{h: h, pool: sync.Pool{New: func() any { s := make([]float64, n); return &s }}}
}

type heldOutTotal struct {
	h    HeldOut
	pool sync.Pool
}

// Len is 1: one total per draw.
func (t *heldOutTotal) Len() int { return 1 }

// LogLik writes Σ_j log p(y_j | x) into dst[0].
func (t *heldOutTotal) LogLik(x []float64, dst []float64) {
	buf := t.pool.Get().(*[]float64)
	t.h.LogLik(x, *buf)
	total := 0.0
	for _, v := range *buf {
		total += v
	}
	dst[0] = total
	t.pool.Put(buf)
}
