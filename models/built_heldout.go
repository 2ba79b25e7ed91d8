package models

import (
	"math"
	"runtime"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/internal/parallel"
	"github.com/nmc-go/nmc/internal/special"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// chunkRows is the number of test rows of one unit of work of the regressions'
// held-out likelihood. Each point's value does not depend on the split, so the
// result does not depend on GOMAXPROCS or scheduling.
const chunkRows = 4096

// linearHeldOut is the held-out likelihood of logistic or robust regression at a
// state of the built model.
type linearHeldOut struct {
	test                   RegressionData
	robust                 bool
	alpha, beta, nu, sigma int
	k                      int
}

func newLinearHeldOut(m *graph.Model, test RegressionData, robust bool) (*linearHeldOut, error) {
	h := &linearHeldOut{test: test, robust: robust}
	var err error
	if h.alpha, _, err = m.Offset("alpha"); err != nil {
		return nil, err
	}
	if h.beta, h.k, err = m.Offset("beta"); err != nil {
		return nil, err
	}
	if robust {
		if h.nu, _, err = m.Offset("nu"); err != nil {
			return nil, err
		}
		if h.sigma, _, err = m.Offset("sigma"); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// Len is the number of test points.
func (h *linearHeldOut) Len() int { return len(h.test.Y) }

// LogLik writes log p(y_j | θ) of every test point. Large test sets are split into
// fixed chunks of rows evaluated on all cores; every point's value is computed by
// the same code whatever the split, so the result does not depend on GOMAXPROCS.
func (h *linearHeldOut) LogLik(x []float64, dst []float64) {
	n := len(h.test.Y)
	nc := (n + chunkRows - 1) / chunkRows
	if nc <= 1 {
		// One chunk (the usual test set): no closure to allocate at every draw.
		h.logLikRows(x, 0, n, dst)
		return
	}
	parallel.Chunks(nc, runtime.GOMAXPROCS(0), func(_, c int) {
		h.logLikRows(x, c*chunkRows, min((c+1)*chunkRows, n), dst)
	})
}

// logLikRows writes the log-likelihoods of test rows lo…hi−1 into dst[lo:hi].
func (h *linearHeldOut) logLikRows(x []float64, lo, hi int, dst []float64) {
	beta := x[h.beta : h.beta+h.k]
	part := h.test
	if lo != 0 || hi != len(h.test.Y) {
		part = RegressionData{X: h.test.X.Slice(lo, hi, 0, h.k).(*mat.Dense), Y: h.test.Y[lo:hi]}
	}
	var err error
	if h.robust {
		err = RobustPointwise(part, x[h.nu], x[h.sigma], x[h.alpha], beta, dst[lo:hi])
	} else {
		err = LogisticPointwise(part, x[h.alpha], beta, dst[lo:hi])
	}
	if err != nil {
		fillNaN(dst[lo:hi])
	}
}

// annotationHeldOut is the held-out likelihood of the annotation model: per test
// item, log Σ_m pi_m Π_labels theta[l,m,y].
type annotationHeldOut struct {
	test      AnnotationData
	pi, theta int
}

func newAnnotationHeldOut(m *graph.Model, test AnnotationData) (*annotationHeldOut, error) {
	h := &annotationHeldOut{test: test}
	var err error
	if h.pi, _, err = m.Offset("pi"); err != nil {
		return nil, err
	}
	if h.theta, _, err = m.Offset("theta"); err != nil {
		return nil, err
	}
	return h, nil
}

// Len is the number of test items.
func (h *annotationHeldOut) Len() int { return h.test.NumItems }

// LogLik writes the log-likelihood of every test item's labels, its class summed out.
func (h *annotationHeldOut) LogLik(x []float64, dst []float64) {
	c, l := h.test.NumClasses, h.test.NumLabelers
	if err := AnnotationPointwiseFlat(h.test, x[h.pi:h.pi+c], x[h.theta:h.theta+l*c*c], dst); err != nil {
		fillNaN(dst)
	}
}

// annotationProductHeldOut is the held-out likelihood of annotationHeldOut (per test
// item, log Σ_m pi_m Π_labels theta[l,m,y]; log Σ_m pi_m for an item without labels)
// computed with one logarithm per item: the sum of products is formed directly and
// only an item whose sum leaves [1e-250, 1e250] (underflow or overflow ahead) is
// summed in the log domain. Invalid pi or theta (an entry that is negative, NaN or
// +Inf among those the test labels read) is handed to annotationHeldOut, which
// fills dst with NaN. Annotation returns it in both forms of the model: at the
// paper's default size (5,000 test items) it takes 99 µs per state against
// annotationHeldOut's 610 µs (BenchmarkAnnotationHeldOut, medians of 5 runs).
type annotationProductHeldOut struct {
	slow      *annotationHeldOut
	c         int
	numItems  int
	pi, theta int     // state offsets
	start     []int32 // labels of test item j: code[start[j]:start[j+1]]
	code      []int32 // theta offset (relative to theta) of theta[labeler, 0, label]
	used      []int32 // the theta offsets (relative) that some label reads, sorted
}

var _ nmc.HeldOut = (*annotationProductHeldOut)(nil)

// newAnnotationProductHeldOut wraps slow, built on the same test data. It returns slow
// itself when the test data is too large for 32-bit indices.
func newAnnotationProductHeldOut(slow *annotationHeldOut) nmc.HeldOut {
	d := slow.test
	c := d.NumClasses
	if d.NumItems > math.MaxInt32 || d.NumLabels() > math.MaxInt32 || d.NumLabelers > math.MaxInt32/(c*c) {
		return slow
	}
	h := &annotationProductHeldOut{slow: slow, c: c, numItems: d.NumItems, pi: slow.pi, theta: slow.theta}
	h.start = make([]int32, d.NumItems+1)
	for _, it := range d.Item {
		h.start[it+1]++
	}
	for j := 0; j < d.NumItems; j++ {
		h.start[j+1] += h.start[j]
	}
	pos := slices.Clone(h.start[:d.NumItems])
	h.code = make([]int32, d.NumLabels())
	read := make([]bool, d.NumLabelers*c*c)
	for r, it := range d.Item {
		code := d.Labeler[r]*c*c + d.Label[r]
		h.code[pos[it]] = int32(code)
		pos[it]++
		for m := 0; m < c; m++ {
			read[code+m*c] = true
		}
	}
	for o, u := range read {
		if u {
			h.used = append(h.used, int32(o))
		}
	}
	return h
}

// Len is the number of test items.
func (h *annotationProductHeldOut) Len() int { return h.numItems }

// LogLik writes the log-likelihood of every test item's labels, its class summed out.
func (h *annotationProductHeldOut) LogLik(x []float64, dst []float64) {
	c := h.c
	pi := x[h.pi : h.pi+c]
	theta := x[h.theta:]
	ok := len(dst) == h.numItems
	for _, p := range pi {
		ok = ok && p >= 0 && p <= math.MaxFloat64
	}
	for _, o := range h.used {
		t := theta[o]
		ok = ok && t >= 0 && t <= math.MaxFloat64
	}
	if !ok {
		h.slow.LogLik(x, dst)
		return
	}
	var stack [16]float64
	acc := stack[:0]
	if c <= len(stack) {
		acc = stack[:c]
	} else {
		acc = make([]float64, c)
	}
	for j := range dst {
		codes := h.code[h.start[j]:h.start[j+1]]
		s := 0.0
		if c == 3 {
			// Three classes, unrolled: the same products and sum, in the same order.
			p0, p1, p2 := pi[0], pi[1], pi[2]
			for _, o := range codes {
				t := theta[o : o+7 : o+7]
				p0 *= t[0]
				p1 *= t[3]
				p2 *= t[6]
			}
			s = s + p0 + p1 + p2
		} else {
			for m, p := range pi {
				base := theta[m*c:]
				for _, o := range codes {
					p *= base[o]
				}
				s += p
			}
		}
		if s >= 1e-250 && s <= 1e250 {
			dst[j] = math.Log(s)
			continue
		}
		if len(codes) == 0 {
			dst[j] = math.Log(s) // log Σ pi, as annotationHeldOut
			continue
		}
		for m, p := range pi {
			a := math.Log(p)
			base := theta[m*c:]
			for _, o := range codes {
				a += math.Log(base[o])
			}
			acc[m] = a
		}
		dst[j] = special.LogSumExp(acc)
	}
}

// fillNaN marks every entry of dst as undefined; the sampler and the predictive
// curve reject NaN rather than use it.
func fillNaN(dst []float64) {
	for i := range dst {
		dst[i] = math.NaN()
	}
}
