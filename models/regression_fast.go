package models

import (
	"math"
	"runtime"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/nmc-go/nmc/internal/gram"
	"github.com/nmc-go/nmc/internal/parallel"
	"github.com/nmc-go/nmc/internal/special"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// chunkRows is the number of data rows of one unit of work of the regression
// scorers. Sums over rows are taken per chunk and the chunks' partial sums are added
// in chunk order, whichever goroutine computed them, so the result does not depend
// on GOMAXPROCS or scheduling.
const chunkRows = 4096

// linearModel is logistic or robust regression written by hand: the graph model's
// sites, state layout, prior start and Markov blankets, with a scorer that works on
// the linear predictor η = α + Xβ directly. It caches Xβ between the sites' steps,
// skips Hessian rows whose weight is negligible, and splits the sums over rows into
// fixed chunks spread over the available cores.
type linearModel struct {
	*graph.Model
	robust bool
	n, k   int
	x      []float64 // n×k row-major
	y      []float64
	norm2  []float64 // ‖x_r‖²
	// rowIndex is 0, 1, …, n−1: the rows of a chunk as a list.
	rowIndex []int
	// Prior hyperparameters.
	alphaSD, betaSD         float64
	nuShape, nuRate, sigRat float64
	// Site indices and state offsets.
	siteAlpha, siteBeta, siteNu, siteSigma int
	offAlpha, offBeta, offNu, offSigma     int
	// workers, when positive, is the number of goroutines of every scorer (tests);
	// otherwise a scorer takes GOMAXPROCS when it is created.
	workers int
	// orbits are the graph model's groups (see regression_orbit.go).
	orbits []linearOrbit
}

// newLinearModel wraps m, the graph model Logistic or Robust built (sites alpha,
// beta and, for robust, nu and sigma), with the hand-written scorer.
func newLinearModel(m *graph.Model, train RegressionData, robust bool, alphaSD, betaSD, nuShape, nuRate, sigmaRate float64) *linearModel {
	n, k := train.Dims()
	raw := train.X.RawMatrix()
	lm := &linearModel{Model: m, robust: robust, n: n, k: k, y: train.Y,
		alphaSD: alphaSD, betaSD: betaSD, nuShape: nuShape, nuRate: nuRate, sigRat: sigmaRate,
		siteNu: -1, siteSigma: -1}
	lm.x = make([]float64, n*k) // a copy: later changes to train.X do not reach the model
	for i := 0; i < n; i++ {
		copy(lm.x[i*k:], raw.Data[i*raw.Stride:i*raw.Stride+k])
	}
	lm.norm2 = make([]float64, n)
	lm.rowIndex = make([]int, n)
	for i := range lm.norm2 {
		lm.rowIndex[i] = i
		for _, v := range lm.x[i*k : i*k+k] {
			lm.norm2[i] += v * v
		}
	}
	off := nmc.Offsets(m.Sites())
	for i, s := range m.Sites() {
		switch s.Name {
		case "alpha":
			lm.siteAlpha, lm.offAlpha = i, off[i]
		case "beta":
			lm.siteBeta, lm.offBeta = i, off[i]
		case "nu":
			lm.siteNu, lm.offNu = i, off[i]
		case "sigma":
			lm.siteSigma, lm.offSigma = i, off[i]
		}
	}
	lm.compileOrbits()
	return lm
}

// NewScorer returns a scorer for one chain.
func (lm *linearModel) NewScorer() nmc.Scorer {
	nc := (lm.n + chunkRows - 1) / chunkRows
	k := lm.k
	workers := lm.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	s := &linearScorer{lm: lm, nchunks: nc, workers: workers,
		part:  make([]float64, nc),
		gpart: make([]float64, nc*k),
		hpart: make([]float64, nc*k*k),
		d1:    make([]float64, lm.n),
		d2:    make([]float64, lm.n),
		kept:  make([][]int, nc),
		gs:    make([]float64, nc),
		hs:    make([]float64, nc),
	}
	for i := range s.xb {
		s.xb[i] = xbSlot{beta: make([]float64, k), vals: make([]float64, lm.n)}
	}
	return s
}

// xbSlot holds X·beta at one beta.
type xbSlot struct {
	beta []float64
	vals []float64
	ok   bool
	used uint64
}

// linearScorer evaluates the regression's site scores for one chain.
type linearScorer struct {
	lm      *linearModel
	nchunks int
	workers int       // goroutines sharing the chunks
	xb      [2]xbSlot // the two last betas seen: current and proposed
	clock   uint64
	part    []float64 // per chunk: partial log density
	gpart   []float64 // per chunk: partial gradient (beta)
	hpart   []float64 // per chunk: partial Hessian, upper triangle (beta)
	d1, d2  []float64 // per row: first and second derivative in η (or the scalar site)
	kept    [][]int   // per chunk: rows with a significant Hessian term
	gs, hs  []float64 // per chunk: partial first and second derivative (scalar sites)

	// Orbit scores (regression_orbit.go): u_β and w_β, X·u_β and X·w_β, and the
	// graph engine's scorer for groups that move nu or sigma; made when first needed.
	ub, wb, xu, xw []float64
	graphOrbit     nmc.OrbitScorer
}

// params are the scalar parameters of one evaluation.
type linearParams struct {
	alpha, nu, sigma float64
	// Robust: lgamma((ν+1)/2) − lgamma(ν/2) − ½ log(νπ) − log σ, per row.
	rowConst float64
}

// chunks runs fn(c) for every chunk c, spread over the scorer's workers.
func (s *linearScorer) chunks(fn func(c int)) {
	parallel.Chunks(s.nchunks, s.workers, func(_, c int) { fn(c) })
}

// reduce returns the chunks' partial sums (part, gs, hs) added in chunk order.
func (s *linearScorer) reduce() (t, g, h float64) {
	for c := range s.part {
		t += s.part[c]
		g += s.gs[c]
		h += s.hs[c]
	}
	return t, g, h
}

func (s *linearScorer) rows(c int) (lo, hi int) {
	return c * chunkRows, min((c+1)*chunkRows, s.lm.n)
}

// xbAt returns X·beta, from the cache when beta is one of the last two seen.
func (s *linearScorer) xbAt(beta []float64) []float64 {
	s.clock++
	for i := range s.xb {
		if sl := &s.xb[i]; sl.ok && slices.Equal(sl.beta, beta) {
			sl.used = s.clock
			return sl.vals
		}
	}
	sl := &s.xb[0]
	if s.xb[1].used < sl.used {
		sl = &s.xb[1]
	}
	copy(sl.beta, beta)
	sl.ok, sl.used = true, s.clock
	k := s.lm.k
	s.chunks(func(c int) {
		lo, hi := s.rows(c)
		blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: hi - lo, Cols: k, Stride: k, Data: s.lm.x[lo*k : hi*k]},
			blas64.Vector{N: k, Inc: 1, Data: sl.beta}, 0, blas64.Vector{N: hi - lo, Inc: 1, Data: sl.vals[lo:hi]})
	})
	return sl.vals
}

func (s *linearScorer) params(x []float64) (linearParams, bool) {
	lm := s.lm
	p := linearParams{alpha: x[lm.offAlpha]}
	if !lm.robust {
		return p, true
	}
	p.nu, p.sigma = x[lm.offNu], x[lm.offSigma]
	if !(p.nu > 0 && p.sigma > 0) || math.IsInf(p.nu, 1) || math.IsInf(p.sigma, 1) {
		return p, false
	}
	lg1, _ := math.Lgamma((p.nu + 1) / 2)
	lg2, _ := math.Lgamma(p.nu / 2)
	p.rowConst = lg1 - lg2 - 0.5*math.Log(p.nu*math.Pi) - math.Log(p.sigma)
	return p, true
}

// rowTermsEta writes, for rows lo…hi−1 at linear predictor eta = alpha + xb, the log
// density's derivatives with respect to the row's η into d1 and d2 (when wanted) and
// returns the rows' summed log density.
func (s *linearScorer) rowTermsEta(p linearParams, xb []float64, lo, hi int, deriv bool) float64 {
	y := s.lm.y
	total := 0.0
	if !s.lm.robust {
		for r := lo; r < hi; r++ {
			z := p.alpha + xb[r]
			e := math.Exp(-math.Abs(z))
			lp := math.Log1p(e)
			big, small := 1/(1+e), e/(1+e)
			sg := big // σ(z)
			if z < 0 {
				sg = small
			}
			total += y[r]*z - (max(z, 0) + lp)
			if deriv {
				s.d1[r] = y[r] - sg
				s.d2[r] = -big * small
			}
		}
		return total
	}
	nu, sigma := p.nu, p.sigma
	s2 := nu * sigma * sigma
	half := (nu + 1) / 2
	for r := lo; r < hi; r++ {
		e := y[r] - (p.alpha + xb[r])
		q := s2 + e*e
		total += p.rowConst - half*math.Log1p(e*e/s2)
		if deriv {
			s.d1[r] = (nu + 1) * e / q
			s.d2[r] = (nu + 1) * (e*e - s2) / (q * q)
		}
	}
	return total
}

// Score returns site i's Markov-blanket score: its prior plus the likelihood of
// every row, with derivatives in the site's coordinates when grad and hess are
// non-nil. Outside the support it returns −Inf.
func (s *linearScorer) Score(x []float64, i int, grad, hess []float64) float64 {
	lm := s.lm
	deriv := grad != nil && hess != nil
	p, ok := s.params(x)
	if !ok {
		return math.Inf(-1)
	}
	beta := x[lm.offBeta : lm.offBeta+lm.k]
	switch i {
	case lm.siteBeta:
		return s.scoreBeta(p, beta, grad, hess, deriv)
	case lm.siteAlpha:
		total, g, h := s.sumRows(p, s.xbAt(beta), deriv)
		v := p.alpha / lm.alphaSD
		total += -0.5 * v * v
		if deriv {
			grad[0] = g - p.alpha/(lm.alphaSD*lm.alphaSD)
			hess[0] = h - 1/(lm.alphaSD*lm.alphaSD)
		}
		return total
	case lm.siteNu:
		return s.scoreNu(p, s.xbAt(beta), grad, hess, deriv)
	case lm.siteSigma:
		return s.scoreSigma(p, s.xbAt(beta), grad, hess, deriv)
	}
	return math.NaN()
}

// sumRows returns the summed log density of all rows and, when deriv, the sums of
// its first and second derivatives in η (left per row in d1, d2), chunk by chunk.
func (s *linearScorer) sumRows(p linearParams, xb []float64, deriv bool) (t, g, h float64) {
	s.chunks(func(c int) {
		lo, hi := s.rows(c)
		s.part[c] = s.rowTermsEta(p, xb, lo, hi, deriv)
		var gc, hc float64
		if deriv {
			for r := lo; r < hi; r++ {
				gc += s.d1[r]
				hc += s.d2[r]
			}
		}
		s.gs[c], s.hs[c] = gc, hc
	})
	return s.reduce()
}

func (s *linearScorer) scoreBeta(p linearParams, beta, grad, hess []float64, deriv bool) float64 {
	lm := s.lm
	k := lm.k
	xb := s.xbAt(beta)
	s.chunks(func(c int) {
		lo, hi := s.rows(c)
		s.part[c] = s.rowTermsEta(p, xb, lo, hi, deriv)
		if !deriv {
			return
		}
		rows := hi - lo
		xc := blas64.General{Rows: rows, Cols: k, Stride: k, Data: lm.x[lo*k : hi*k]}
		g := s.gpart[c*k : c*k+k]
		blas64.Gemv(blas.Trans, 1, xc, blas64.Vector{N: rows, Inc: 1, Data: s.d1[lo:hi]}, 0, blas64.Vector{N: k, Inc: 1, Data: g})
		// Negligible Hessian rows are dropped, counted against all n rows, so that
		// the dropped terms of every chunk together stay below one rounding error of
		// the largest term.
		s.kept[c] = gram.Significant(s.kept[c], lm.rowIndex[lo:hi], s.d2, lm.norm2, lm.n)
		h := s.hpart[c*k*k : (c+1)*k*k]
		clear(h)
		gram.AddWeighted(h, k, lm.x, s.kept[c], s.d2)
	})
	total := 0.0
	for _, v := range s.part {
		total += v
	}
	prec := 1 / (lm.betaSD * lm.betaSD)
	for _, b := range beta {
		total += -0.5 * b * b * prec
	}
	if !deriv {
		return total
	}
	clear(grad[:k])
	clear(hess[:k*k])
	for c := 0; c < s.nchunks; c++ {
		for j, v := range s.gpart[c*k : c*k+k] {
			grad[j] += v
		}
		h := s.hpart[c*k*k : (c+1)*k*k]
		for a := 0; a < k; a++ {
			for b := a; b < k; b++ {
				hess[a*k+b] += h[a*k+b]
			}
		}
	}
	for a := 0; a < k; a++ {
		grad[a] -= beta[a] * prec
		hess[a*k+a] -= prec
		for b := a + 1; b < k; b++ {
			hess[b*k+a] = hess[a*k+b]
		}
	}
	return total
}

// scoreNu is the score of the Student-t degrees of freedom ν ~ Gamma(shape, rate).
// Per row, log t = c(ν) − log σ − (ν+1)/2 · log(1 + u/ν) with u = e²/σ², e = y − η,
// and c(ν) = lgamma((ν+1)/2) − lgamma(ν/2) − ½ log(νπ).
func (s *linearScorer) scoreNu(p linearParams, xb, grad, hess []float64, deriv bool) float64 {
	lm := s.lm
	nu, sigma := p.nu, p.sigma
	inv2 := 1 / (sigma * sigma)
	s.chunks(func(c int) {
		lo, hi := s.rows(c)
		var t, g, h float64
		for r := lo; r < hi; r++ {
			e := lm.y[r] - (p.alpha + xb[r])
			u := e * e * inv2
			l1 := math.Log1p(u / nu)
			t -= (nu + 1) / 2 * l1
			if deriv {
				nuu := nu + u
				g += -0.5*l1 + (nu+1)*u/(2*nu*nuu)
				h += u/(2*nu*nuu) - u*(nu*nu+2*nu+u)/(2*nu*nu*nuu*nuu)
			}
		}
		s.part[c], s.gs[c], s.hs[c] = t, g, h
	})
	n := float64(lm.n)
	total, g, h := s.reduce()
	total += n * p.rowConst
	// Prior Gamma(shape, rate), up to a constant.
	total += (lm.nuShape-1)*math.Log(nu) - lm.nuRate*nu
	if deriv {
		dc := 0.5*special.Digamma((nu+1)/2) - 0.5*special.Digamma(nu/2) - 0.5/nu
		d2c := 0.25*special.Trigamma((nu+1)/2) - 0.25*special.Trigamma(nu/2) + 0.5/(nu*nu)
		grad[0] = n*dc + g + (lm.nuShape-1)/nu - lm.nuRate
		hess[0] = n*d2c + h - (lm.nuShape-1)/(nu*nu)
	}
	return total
}

// scoreSigma is the score of the Student-t scale σ ~ Exponential(rate).
func (s *linearScorer) scoreSigma(p linearParams, xb, grad, hess []float64, deriv bool) float64 {
	lm := s.lm
	nu, sigma := p.nu, p.sigma
	s2 := nu * sigma * sigma
	half := (nu + 1) / 2
	s.chunks(func(c int) {
		lo, hi := s.rows(c)
		var t, g, h float64
		for r := lo; r < hi; r++ {
			e := lm.y[r] - (p.alpha + xb[r])
			e2 := e * e
			t -= half * math.Log1p(e2/s2)
			if deriv {
				q := s2 + e2
				g += (nu + 1) * e2 / (sigma * q)
				h -= (nu + 1) * e2 * (3*s2 + e2) / (sigma * sigma * q * q)
			}
		}
		s.part[c], s.gs[c], s.hs[c] = t, g, h
	})
	n := float64(lm.n)
	total, g, h := s.reduce()
	total += n * p.rowConst
	total -= lm.sigRat * sigma
	if deriv {
		grad[0] = -n/sigma + g - lm.sigRat
		hess[0] = n/(sigma*sigma) + h
	}
	return total
}

// LogJoint returns the log joint density at x with every normalising constant, the
// graph model's value.
func (s *linearScorer) LogJoint(x []float64) float64 {
	lm := s.lm
	p, ok := s.params(x)
	if !ok {
		return math.Inf(-1)
	}
	beta := x[lm.offBeta : lm.offBeta+lm.k]
	total, _, _ := s.sumRows(p, s.xbAt(beta), false)
	if lm.robust {
		lgShape, _ := math.Lgamma(lm.nuShape)
		total += lm.nuShape*math.Log(lm.nuRate) - lgShape + (lm.nuShape-1)*math.Log(p.nu) - lm.nuRate*p.nu
		total += math.Log(lm.sigRat) - lm.sigRat*p.sigma
	}
	v := p.alpha / lm.alphaSD
	total -= 0.5*v*v + math.Log(lm.alphaSD) + logSqrt2Pi
	prec := 1 / (lm.betaSD * lm.betaSD)
	for _, b := range beta {
		total -= 0.5*b*b*prec + math.Log(lm.betaSD) + logSqrt2Pi
	}
	return total
}

// logSqrt2Pi is log √(2π), the Normal density's constant.
const logSqrt2Pi = 0.91893853320467274178032973640561763986139747363778
