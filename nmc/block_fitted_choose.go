package nmc

import (
	"math"
	"math/rand/v2"
	"slices"
)

// The choice of a block's fitted proposal (block_fitted.go). Two multivariate
// t proposals are fitted at the end of warm-up: from the curvature of the latest
// warm-up draws (curvatureFit) and from their covariance (covarianceFit). Each
// one's stationary acceptance rate is estimated from the warm-up draws, as
// fittedAcceptance estimates a Real block's, and the steps use the higher; where
// neither reaches blockFitMinAccept the chain makes no fitted steps (each would
// cost a score and almost never move).
//
// Measured on garch11 (posteriordb's GARCH(1, 1), T = 200, the block of α₀ and
// β₁'s raw coordinate, whose posterior in log and logit coordinates is skewed,
// with a long left tail in logit β₁): the curvature fit alone accepted 0.64 of
// its proposals on the seed-1 data, and on the seed-3 data one chain's fit
// accepted none of 3000 (the mean curvature of 8 draws there is nearly
// singular), where the covariance fit accepts about half.

const (
	// blockFitMinAccept is the least estimated acceptance rate of a fitted
	// proposal for the steps to be made.
	blockFitMinAccept = 0.05
	// blockFitTrials is the number of warm-up draws and of proposals the
	// acceptance rate is estimated from.
	blockFitTrials = 20
	// blockFitTrialSeed is mixed into Options.Seed for the estimate's proposals,
	// so that the chain's own stream is left as it was.
	blockFitTrialSeed = 0x3c6ef372fe94f82b
)

// chooseFit fits both proposals, keeps the one with the higher estimated
// acceptance rate in f.mean, f.l and f.c, and reports whether it reaches
// blockFitMinAccept. The state is restored and every cache invalidated.
func (st *blockStepper) chooseFit(c *Chain) bool {
	f := st.fit
	du := st.coords.du
	covMean, covL := slices.Clone(f.mean), make([]float64, du*du)
	covOK := st.covarianceFit(covL)
	var curvMean, curvL []float64
	if st.curvatureFit(c) {
		curvMean, curvL = slices.Clone(f.mean), slices.Clone(f.l)
	}
	best, pick := -1.0, 0
	for k, cand := range [][2][]float64{{curvMean, curvL}, {covMean, covL}} {
		if cand[1] == nil || k == 1 && !covOK {
			continue
		}
		copy(f.mean, cand[0])
		copy(f.l, cand[1])
		if f.c = logDiag(f.l, du); !isFinite(f.c) {
			continue
		}
		if a := st.fitAcceptance(c); a > best {
			best, pick = a, k
		}
	}
	if best < 0 {
		return false
	}
	if pick == 0 {
		copy(f.mean, curvMean)
		copy(f.l, curvL)
	} else {
		copy(f.mean, covMean)
		copy(f.l, covL)
	}
	f.c = logDiag(f.l, du)
	f.trialAccept = best
	return best >= blockFitMinAccept
}

// covarianceFit writes into l the Cholesky factor of blockFitInflate times the
// warm-up draws' covariance, regularised as Stan's mass matrix, and reports
// whether it is positive definite.
func (st *blockStepper) covarianceFit(l []float64) bool {
	f := st.fit
	du := st.coords.du
	n := float64(f.n)
	for j := range du {
		for k := range du {
			s := f.m2[j*du+k] / (n - 1)
			v := (n / (n + 5)) * s
			if j == k {
				v += 1e-3 * 5 / (n + 5)
			}
			l[j*du+k] = blockFitInflate * v
		}
	}
	return cholesky(l, du)
}

// logDiag returns Σ log L_jj of the k×k factor l.
func logDiag(l []float64, k int) float64 {
	c := 0.0
	for j := range k {
		c += math.Log(l[j*k+j])
	}
	return c
}

// fitAcceptance returns an estimate of the stationary acceptance rate of the
// fitted proposal in f.mean, f.l and f.c: the mean over pairs of
// min(1, w(y)/w(x)), w = π/q, x among blockFitTrials of the latest warm-up draws
// (as draws of π) and y among as many proposals, drawn from a stream of their
// own (Options.Seed mixed with blockFitTrialSeed, the chain's number). The state
// is restored and every cache invalidated.
func (st *blockStepper) fitAcceptance(c *Chain) float64 {
	f := st.fit
	b := st.coords
	du := b.du
	b.gather(c.x, st.xb0)
	defer func() {
		b.scatter(st.xb0, c.x)
		c.invalidateAll()
		st.valid = false
	}()
	lw := func(u []float64) float64 {
		b.fromFree(u, st.xb1)
		if !b.inBox(u, st.xb1) {
			return math.Inf(-1)
		}
		b.scatter(st.xb1, c.x)
		c.invalidateAll()
		v := st.eval.value(c.x, u)
		if !isFinite(v) {
			return math.Inf(-1)
		}
		return v - st.logqFit(u)
	}
	npts := min(blockFitTrials, f.kept)
	var wx []float64
	for t := range npts {
		r := (f.next - 1 - t*f.kept/npts + 2*blockFitRing) % blockFitRing
		if w := lw(f.ring[r*du : (r+1)*du]); isFinite(w) {
			wx = append(wx, w)
		}
	}
	if len(wx) == 0 {
		return 0
	}
	rng := rand.New(rand.NewPCG(c.run.opts.Seed^blockFitTrialSeed, uint64(c.num())))
	y, z := make([]float64, du), make([]float64, du)
	sum := 0.0
	for range blockFitTrials {
		chi := 0.0
		for range int(blockFitNu) {
			g := rng.NormFloat64()
			chi += g * g
		}
		s := math.Sqrt(blockFitNu / chi)
		for j := range z {
			z[j] = s * rng.NormFloat64()
		}
		for j := range du {
			t := 0.0
			for k := 0; k <= j; k++ {
				t += f.l[j*du+k] * z[k]
			}
			y[j] = f.mean[j] + t
		}
		wy := lw(y)
		if !isFinite(wy) {
			continue
		}
		for _, w := range wx {
			sum += math.Exp(min(0, wy-w))
		}
	}
	return sum / float64(blockFitTrials*len(wx))
}
