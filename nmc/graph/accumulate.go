package graph

import "github.com/nmc-go/nmc/internal/gram"

// rowBatch accumulates gradient and Hessian weights for rows of one data matrix:
// ∇ += Σ wg_r a_r and ∇² += Σ wh_r a_r a_rᵀ, applied at the end by one rank-k update.
type rowBatch struct {
	m       *dataMatrix
	wg, wh  []float64
	touched []int
	mark    []bool
	kept    []int // rows whose Hessian term is not negligible (flushBatches)
}

func (s *scorer) batch(m *dataMatrix) *rowBatch {
	for _, b := range s.batches {
		if b.m == m {
			return b
		}
	}
	b := &rowBatch{m: m, wg: make([]float64, m.rows), wh: make([]float64, m.rows), mark: make([]bool, m.rows)}
	s.batches = append(s.batches, b)
	return b
}

func (b *rowBatch) touch(r int) {
	if !b.mark[r] {
		b.mark[r] = true
		b.touched = append(b.touched, r)
	}
}

func (s *scorer) addGrad(w float64, j *jet) {
	switch j.kind {
	case jUnit:
		s.grad[j.i] += w * j.gc
	case jRow:
		b := s.batch(j.m)
		b.touch(j.i)
		b.wg[j.i] += w * j.gc
	case jDense:
		for p, g := range j.g {
			s.grad[p] += w * g
		}
	}
}

func (s *scorer) addHess(w float64, j *jet) {
	switch j.kind {
	case jUnit:
		s.hess[j.i*s.k+j.i] += w * j.hc
	case jRow:
		if j.hc != 0 {
			b := s.batch(j.m)
			b.touch(j.i)
			b.wh[j.i] += w * j.hc
		}
	case jDense:
		for p, h := range j.h {
			s.hess[p] += w * h
		}
	}
}

// addOuter adds w·∇a ∇bᵀ to the Hessian.
func (s *scorer) addOuter(w float64, a, b *jet) {
	k := s.k
	if a.kind == jUnit && b.kind == jUnit {
		s.hess[a.i*k+b.i] += w * a.gc * b.gc
		return
	}
	if a.kind == jRow && sameBase(a, b) {
		bt := s.batch(a.m)
		bt.touch(a.i)
		bt.wh[a.i] += w * a.gc * b.gc
		return
	}
	ga, gb := s.ops.gradient(a), s.ops.gradient(b)
	for p := 0; p < k; p++ {
		if ga[p] == 0 {
			continue
		}
		hp := s.hess[p*k : p*k+k]
		c := w * ga[p]
		for q := 0; q < k; q++ {
			hp[q] += c * gb[q]
		}
	}
}

func (s *scorer) resetBatches() {
	for _, b := range s.batches {
		for _, r := range b.touched {
			b.wg[r], b.wh[r], b.mark[r] = 0, 0, false
		}
		b.touched = b.touched[:0]
	}
}

// flushBatches applies the row weights: ∇ += Σ wg_r a_r and ∇² += Aᵀ diag(wh) A.
func (s *scorer) flushBatches() {
	k := s.k
	for _, b := range s.batches {
		if len(b.touched) == 0 {
			continue
		}
		if b.m.cols != k {
			panic("graph: row jet of the wrong width") // unreachable: MatVec checks the shapes
		}
		addWeightedRows(s.grad[:k], b.m, b.touched, b.wg)
		// Other terms were added to both triangles; the Gram update goes to the upper
		// one, after which the lower triangle is copied from it.
		addWeightedGram(s.hess, k, b.m, b.significantRows(), b.wh)
		for p := 0; p < k; p++ {
			for q := p + 1; q < k; q++ {
				s.hess[q*k+p] = s.hess[p*k+q]
			}
		}
		for _, r := range b.touched {
			b.wg[r], b.wh[r], b.mark[r] = 0, 0, false
		}
		b.touched = b.touched[:0]
	}
}

// addWeightedRows adds Σ_r w[r]·a_r to g, r over rows, four rows per pass over g.
func addWeightedRows(g []float64, m *dataMatrix, rows []int, w []float64) {
	k := len(g)
	r := 0
	for ; r+4 <= len(rows); r += 4 {
		x0, x1, x2, x3 := m.row(rows[r])[:k], m.row(rows[r+1])[:k], m.row(rows[r+2])[:k], m.row(rows[r+3])[:k]
		w0, w1, w2, w3 := w[rows[r]], w[rows[r+1]], w[rows[r+2]], w[rows[r+3]]
		for p := range g {
			g[p] += w0*x0[p] + w1*x1[p] + w2*x2[p] + w3*x3[p]
		}
	}
	for ; r < len(rows); r++ {
		x0, w0 := m.row(rows[r])[:k], w[rows[r]]
		for p := range g {
			g[p] += w0 * x0[p]
		}
	}
}

// significantRows returns the touched rows whose Hessian term is not negligible
// (gram.Significant).
func (b *rowBatch) significantRows() []int {
	if b.m.norm2 == nil {
		return b.touched
	}
	b.kept = gram.Significant(b.kept, b.touched, b.wh, b.m.norm2, len(b.touched))
	return b.kept
}
