package models

import (
	"math"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/internal/parallel"
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

// fillNaN marks every entry of dst as undefined; the sampler and the predictive
// curve reject NaN rather than use it.
func fillNaN(dst []float64) {
	for i := range dst {
		dst[i] = math.NaN()
	}
}
