package diagnostics

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/mathext"
)

// LogLik is the pointwise log-likelihood matrix of one run: log p(y_i | θ_s)
// for N observations y_i at every draw θ_s of every chain.
type LogLik struct {
	// N is the number of observations.
	N int
	// Chains holds one slice per chain, row-major draws × N: Chains[c][d*N+i]
	// is the log-likelihood of observation i at draw d of chain c. Every chain
	// holds the same number of draws (at least 2), in iteration order.
	Chains [][]float64
}

// dims checks the shape of ll and returns the number of draws per chain.
func (ll LogLik) dims() (int, error) {
	if ll.N < 1 {
		return 0, fmt.Errorf("diagnostics: log-likelihood has %d observations, want at least 1", ll.N)
	}
	if len(ll.Chains) == 0 {
		return 0, fmt.Errorf("diagnostics: log-likelihood has no chains")
	}
	n := 0
	for c, ch := range ll.Chains {
		if len(ch)%ll.N != 0 {
			return 0, fmt.Errorf("diagnostics: log-likelihood chain %d holds %d values, not a whole number of draws of %d observations", c, len(ch), ll.N)
		}
		d := len(ch) / ll.N
		if c == 0 {
			n = d
		} else if d != n {
			return 0, &LogLikError{Chain: c, Observation: -1, Draw: -1,
				msg: fmt.Sprintf("chain %d has %d draws, chain 0 has %d (chains must have equal lengths)", c, d, n)}
		}
	}
	if n < 2 {
		return 0, &LogLikError{Chain: 0, Observation: -1, Draw: -1, msg: fmt.Sprintf("chains have %d draws, want at least 2", n)}
	}
	return n, nil
}

// LogLikError reports bad log-likelihood input: a value that is NaN or +Inf
// (loo: "All input values must be finite"; −Inf is refused too), or chains of
// unequal lengths. Observation and Draw are −1 when the error is not about one
// value.
type LogLikError struct {
	Chain, Observation, Draw int
	Value                    float64
	msg                      string
}

func (e *LogLikError) Error() string {
	if e.msg != "" {
		return "diagnostics: log-likelihood: " + e.msg
	}
	return fmt.Sprintf("diagnostics: log-likelihood of observation %d is %v at draw %d of chain %d (must be finite)", e.Observation, e.Value, e.Draw, e.Chain)
}

// Estimate is a total over observations with its standard error
// √(N·Var(pointwise)).
type Estimate struct {
	Estimate, SE float64
}

// LOOPoint holds the PSIS-LOO values of one observation.
type LOOPoint struct {
	// ELPD is the expected log pointwise predictive density, elpd_loo.
	ELPD float64
	// MCSE is its Monte Carlo standard error, mcse_elpd_loo.
	MCSE float64
	// P is the effective number of parameters, p_loo = lpd − elpd_loo.
	P float64
	// IC is the information criterion, looic = −2·elpd_loo.
	IC float64
	// ParetoK is the shape k̂ of the generalized Pareto fit to the largest
	// importance ratios, influence_pareto_k (+Inf when too few draws for a fit).
	ParetoK float64
	// REff is the relative efficiency of exp(log-likelihood) (loo's relative_eff).
	REff float64
	// NEff is the PSIS effective sample size, r_eff / Σ w².
	NEff float64
}

// WAICPoint holds the WAIC values of one observation.
type WAICPoint struct {
	// ELPD is elpd_waic = lpd − p_waic.
	ELPD float64
	// P is p_waic, the variance over draws of the log-likelihood.
	P float64
	// IC is waic = −2·elpd_waic.
	IC float64
}

// WAICResult is the widely applicable information criterion of a run, as
// loo 2.5.1's waic computes it.
type WAICResult struct {
	N, Draws int
	// ELPD, P and IC are the totals of elpd_waic, p_waic and waic.
	ELPD, P, IC Estimate
	Pointwise   []WAICPoint
}

// LOOResult is Pareto-smoothed importance-sampling leave-one-out
// cross-validation of a run, as loo 2.5.1's loo computes it.
type LOOResult struct {
	// N is the number of observations and Draws the number of draws (all chains).
	N, Draws int
	// ELPD, P and IC are the totals of elpd_loo, p_loo and looic.
	ELPD, P, IC Estimate
	// MCSE is the Monte Carlo SE of the total elpd_loo, √Σ mcse²; NaN (loo's NA)
	// when any k̂ > 0.7.
	MCSE      float64
	Pointwise []LOOPoint
	// WAIC is computed in the same pass over the log-likelihood.
	WAIC *WAICResult
}

// RelativeEff returns loo's relative_eff(exp(ll)): for every observation, the
// effective sample size of the likelihood exp(log p(y_i | θ)) over the chains
// divided by the number of draws. The ESS is the older Stan estimator (Geyer's
// initial monotone sequence, no chain splitting, no rank normalisation) that
// loo 2.5.1 uses, not the one of ESSBasic.
func RelativeEff(ll LogLik) ([]float64, error) {
	n, err := ll.dims()
	if err != nil {
		return nil, err
	}
	out := make([]float64, ll.N)
	err = forObservations(ll, n, func(ws *looWorkspace, i int, col []float64) {
		out[i] = ws.relEff(col, len(ll.Chains), n)
	})
	return out, err
}

// LOO computes PSIS-LOO (and WAIC) from the pointwise log-likelihood, with
// r_eff from [RelativeEff]: loo(x, r_eff = relative_eff(exp(x))) of R's loo
// 2.5.1. Observations are processed in parallel; the result does not depend on
// the number of cores.
func LOO(ll LogLik) (*LOOResult, error) { return LOOWithREff(ll, nil) }

// LOOWithREff is [LOO] with given relative efficiencies, one per observation
// (for example all 1 for independent draws); nil computes them as [LOO] does.
func LOOWithREff(ll LogLik, reff []float64) (*LOOResult, error) {
	n, err := ll.dims()
	if err != nil {
		return nil, err
	}
	if reff != nil {
		if len(reff) != ll.N {
			return nil, fmt.Errorf("diagnostics: %d r_eff values for %d observations", len(reff), ll.N)
		}
		for i, r := range reff {
			if !(r > 0) || math.IsInf(r, 1) {
				return nil, fmt.Errorf("diagnostics: r_eff of observation %d is %v, want a positive finite number", i, r)
			}
		}
	}
	C := len(ll.Chains)
	S := C * n
	res := &LOOResult{N: ll.N, Draws: S, Pointwise: make([]LOOPoint, ll.N),
		WAIC: &WAICResult{N: ll.N, Draws: S, Pointwise: make([]WAICPoint, ll.N)}}
	zn := mcseZ()
	err = forObservations(ll, n, func(ws *looWorkspace, i int, col []float64) {
		var r float64
		if reff != nil {
			r = reff[i]
			ws.y = grow(ws.y, S)
			for s, v := range col {
				ws.y[s] = math.Exp(v)
			}
		} else {
			r = ws.relEff(col, C, n) // sets ws.y
		}
		res.Pointwise[i], res.WAIC.Pointwise[i] = ws.observation(col, r, zn)
	})
	if err != nil {
		return nil, err
	}
	res.fillTotals()
	res.WAIC.fillTotals()
	return res, nil
}

// WAIC computes the widely applicable information criterion from the
// pointwise log-likelihood, as waic(x) of R's loo 2.5.1.
func WAIC(ll LogLik) (*WAICResult, error) {
	n, err := ll.dims()
	if err != nil {
		return nil, err
	}
	S := len(ll.Chains) * n
	res := &WAICResult{N: ll.N, Draws: S, Pointwise: make([]WAICPoint, ll.N)}
	err = forObservations(ll, n, func(_ *looWorkspace, i int, col []float64) {
		res.Pointwise[i] = waicPoint(col, logSumExp(col)-math.Log(float64(len(col))))
	})
	if err != nil {
		return nil, err
	}
	res.fillTotals()
	return res, nil
}

// total returns Σv and √(N·Var(v)).
func total(v []float64) Estimate {
	var s float64
	for _, f := range v {
		s += f
	}
	return Estimate{s, math.Sqrt(float64(len(v)) * varOf(v))}
}

// pointTotals returns the totals, with standard errors, of the elpd, p and ic
// columns of pointwise values ps.
func pointTotals[P any](ps []P, elpd, p, ic func(P) float64) (e, pe, ice Estimate) {
	col := make([]float64, len(ps))
	get := func(f func(P) float64) Estimate {
		for i, pt := range ps {
			col[i] = f(pt)
		}
		return total(col)
	}
	return get(elpd), get(p), get(ic)
}

func (r *LOOResult) fillTotals() {
	r.ELPD, r.P, r.IC = pointTotals(r.Pointwise,
		func(p LOOPoint) float64 { return p.ELPD }, func(p LOOPoint) float64 { return p.P }, func(p LOOPoint) float64 { return p.IC })
	var ss float64
	for _, p := range r.Pointwise {
		ss += p.MCSE * p.MCSE
		if p.ParetoK > 0.7 {
			ss = math.NaN()
		}
	}
	r.MCSE = math.Sqrt(ss)
}

func (r *WAICResult) fillTotals() {
	r.ELPD, r.P, r.IC = pointTotals(r.Pointwise,
		func(p WAICPoint) float64 { return p.ELPD }, func(p WAICPoint) float64 { return p.P }, func(p WAICPoint) float64 { return p.IC })
}

// ParetoK returns the k̂ of every observation.
func (r *LOOResult) ParetoK() []float64 {
	k := make([]float64, len(r.Pointwise))
	for i, p := range r.Pointwise {
		k[i] = p.ParetoK
	}
	return k
}

// obsBlock is the number of adjacent observations one worker copies out of
// the row-major chains together (four cache lines of float64s per draw).
const obsBlock = 32

// forObservations calls f once for every observation i with its column of
// log-likelihoods, chain by chain (all draws of chain 0, then chain 1, …), in
// parallel over blocks of observations. It checks that every value is finite;
// the error reported is that of the lowest observation, so it does not depend
// on scheduling.
func forObservations(ll LogLik, n int, f func(ws *looWorkspace, i int, col []float64)) error {
	N := ll.N
	blocks := (N + obsBlock - 1) / obsBlock
	workers := min(runtime.GOMAXPROCS(0), blocks)
	errs := make([]*LogLikError, blocks)
	var next atomic.Int64
	var wg sync.WaitGroup
	S := len(ll.Chains) * n
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := &looWorkspace{}
			buf := make([]float64, obsBlock*S)
			for {
				b := int(next.Add(1) - 1)
				if b >= blocks {
					return
				}
				lo := b * obsBlock
				w := min(obsBlock, N-lo)
				for c, ch := range ll.Chains {
					for d := range n {
						row := ch[d*N+lo : d*N+lo+w]
						for j, v := range row {
							buf[j*S+c*n+d] = v
						}
					}
				}
				for j := range w {
					col := buf[j*S : (j+1)*S]
					if k := slices.IndexFunc(col, func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }); k >= 0 {
						errs[b] = &LogLikError{Chain: k / n, Observation: lo + j, Draw: k % n, Value: col[k]}
						break
					}
					f(ws, lo+j, col)
				}
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// looWorkspace holds one worker's scratch buffers.
type looWorkspace struct {
	y, pad, acov, rho, lw, means []float64
	coef                         []complex128
	fft                          *fourier.FFT
	idx                          []pair
	x, theta, lth                []float64
	lik                          []float64
	k                            float64
}

// relEff is loo's ess_rfun(exp(col)) / S for the chain-major C×n column col.
// It leaves exp(col) in ws.y.
func (ws *looWorkspace) relEff(col []float64, C, n int) float64 {
	S := C * n
	ws.y = grow(ws.y, S)
	for s, v := range col {
		ws.y[s] = math.Exp(v)
	}
	M := 2
	if n > 2 {
		M = nextn(n)
	}
	L := 2 * M
	if ws.fft == nil || ws.fft.Len() != L {
		ws.fft = fourier.NewFFT(L)
	}
	ws.acov = grow(ws.acov, n)
	clear(ws.acov)
	ws.pad = grow(ws.pad, L)
	ws.means = grow(ws.means, C)
	means := ws.means
	var sumAcov0 float64
	scale := 1 / (2 * float64(n) * float64(n))
	for c := range C {
		ch := ws.y[c*n : (c+1)*n]
		mu := meanOf(ch)
		means[c] = mu
		for t, v := range ch {
			ws.pad[t] = v - mu
		}
		clear(ws.pad[n:])
		ws.coef = ws.fft.Coefficients(grow(ws.coef, L/2+1), ws.pad)
		for k, z := range ws.coef {
			ws.coef[k] = complex(real(z)*real(z)+imag(z)*imag(z), 0)
		}
		// gonum's Sequence is the unnormalised inverse transform.
		seq := ws.fft.Sequence(ws.pad, ws.coef)
		for t := range n {
			ws.acov[t] += seq[t] * scale
		}
		sumAcov0 += seq[0] * scale
	}
	fc := float64(C)
	meanAcov := func(t int) float64 { return ws.acov[t] / fc }
	meanVar := sumAcov0 / fc * float64(n) / float64(n-1)
	varPlus := meanVar * float64(n-1) / float64(n)
	if C > 1 {
		varPlus += varOf(means)
	}
	ws.rho = grow(ws.rho, n)
	rho := ws.rho
	clear(rho)
	rho[0] = 1
	even := 1.0
	odd := 1 - (meanVar-meanAcov(1))/varPlus
	rho[1] = odd
	t := 0
	for t < n-5 && !math.IsNaN(even+odd) && even+odd > 0 {
		t += 2
		even = 1 - (meanVar-meanAcov(t))/varPlus
		odd = 1 - (meanVar-meanAcov(t+1))/varPlus
		if even+odd >= 0 {
			rho[t], rho[t+1] = even, odd
		}
	}
	maxT := t
	if even > 0 {
		rho[maxT] = even
	}
	for t := 2; t <= maxT-2; t += 2 {
		if rho[t]+rho[t+1] > rho[t-2]+rho[t-1] {
			rho[t] = (rho[t-2] + rho[t-1]) / 2
			rho[t+1] = rho[t]
		}
	}
	var sum float64
	if maxT == 0 {
		sum = rho[0] // R's 1:0
	} else {
		for _, r := range rho[:maxT] {
			sum += r
		}
	}
	tau := -1 + 2*sum + rho[maxT]
	tau = rmax(tau, 1/math.Log10(float64(S)))
	return float64(S) / tau / float64(S)
}

// rmax is R's max of two numbers: NaN if either is NaN.
func rmax(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return max(a, b)
}

// mcseZ returns Φ⁻¹((r − 3/8)/(1000 − 3/4 + 1)), r = 1 … 1000, loo's
// normal scores for the Monte Carlo SE of elpd_loo.
func mcseZ() []float64 {
	const n = 1000
	z := make([]float64, n)
	for r := range z {
		z[r] = mathext.NormalQuantile((float64(r+1) - 0.375) / (n - 2*0.375 + 1))
	}
	return z
}

// logSumExp is log Σ exp(v), computed as matrixStats does: the maximum plus
// log1p of the sum of the other terms' exp(v − max). NaN if any v is NaN.
func logSumExp(v []float64) float64 {
	im := 0
	for i, f := range v {
		if math.IsNaN(f) {
			return math.NaN()
		}
		if f > v[im] {
			im = i
		}
	}
	m := v[im]
	if math.IsInf(m, 0) {
		return m
	}
	var s float64
	for i, f := range v {
		if i != im {
			s += math.Exp(f - m)
		}
	}
	return m + math.Log1p(s)
}

// observation computes the LOO and WAIC values of one observation from its
// chain-major log-likelihood column and relative efficiency; ws.y must hold
// exp(col).
func (ws *looWorkspace) observation(col []float64, reff float64, zn []float64) (LOOPoint, WAICPoint) {
	S := len(col)
	lw := ws.psis(col, reff)
	// lw holds the normalised log weights; reuse ws.lik for ll + lw.
	ws.lik = grow(ws.lik, S)
	for s, v := range col {
		ws.lik[s] = v + lw[s]
	}
	elpd := logSumExp(ws.lik)
	lpd := logSumExp(col) - math.Log(float64(S))
	eElpd := math.Exp(elpd)
	var varEpd, sumW2 float64
	for s := range col {
		w := math.Exp(lw[s])
		w2 := w * w
		d := ws.y[s] - eElpd
		varEpd += w2 * d * d
		sumW2 += w2
	}
	sdEpd := math.Sqrt(varEpd)
	logs := ws.lik[:0]
	for _, z := range zn {
		if v := eElpd + sdEpd*z; v > 0 {
			logs = append(logs, math.Log(v))
		}
	}
	mcse := math.Sqrt(varOf(logs) / reff)
	p := LOOPoint{ELPD: elpd, MCSE: mcse, P: lpd - elpd, IC: -2 * elpd, ParetoK: ws.k,
		REff: reff, NEff: 1 / sumW2 * reff}
	return p, waicPoint(col, lpd)
}

// waicPoint is the WAIC of one observation given its lpd.
func waicPoint(col []float64, lpd float64) WAICPoint {
	pw := varOf(col)
	e := lpd - pw
	return WAICPoint{ELPD: e, P: pw, IC: -2 * e}
}

// psis sets ws.lw to the normalised Pareto-smoothed log weights of the log
// ratios −col and ws.k to k̂, and returns ws.lw.
func (ws *looWorkspace) psis(col []float64, reff float64) []float64 {
	S := len(col)
	ws.lw = grow(ws.lw, S)
	lw := ws.lw
	maxR := math.Inf(-1)
	for _, v := range col {
		maxR = max(maxR, -v)
	}
	for s, v := range col {
		lw[s] = -v - maxR
	}
	ws.k = psisSmooth(lw, reff, &ws.idx, &ws.x, &ws.theta, &ws.lth)
	for s, v := range lw {
		if v > 0 {
			lw[s] = 0
		}
		lw[s] += maxR
	}
	l := logSumExp(lw)
	for s := range lw {
		lw[s] -= l
	}
	return lw
}

// PSIS returns loo 2.5.1's Pareto-smoothed importance log weights
// (normalised to sum to 1 on the exp scale) of the log importance ratios
// logRatios, for draws of relative efficiency reff, and the shape k̂ of the
// generalized Pareto fit to the tail (+Inf when the tail is shorter than 5
// draws or constant). For leave-one-out, the log ratios of observation i are
// −log p(y_i | θ_s).
func PSIS(logRatios []float64, reff float64) (logWeights []float64, k float64, err error) {
	if len(logRatios) < 2 {
		return nil, 0, fmt.Errorf("diagnostics: PSIS of %d log ratios, want at least 2", len(logRatios))
	}
	if !(reff > 0) || math.IsInf(reff, 1) {
		return nil, 0, fmt.Errorf("diagnostics: PSIS r_eff = %v, want a positive finite number", reff)
	}
	for s, v := range logRatios {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, 0, fmt.Errorf("diagnostics: PSIS log ratio %d is %v (must be finite)", s, v)
		}
	}
	ws := &looWorkspace{}
	neg := make([]float64, len(logRatios))
	for s, v := range logRatios {
		neg[s] = -v
	}
	lw := ws.psis(neg, reff)
	return slices.Clone(lw), ws.k, nil
}

// psisSmooth smooths the tail of the log weights lw (max 0) in place and
// returns k̂ (loo 2.5.1's do_psis_i before truncation).
func psisSmooth(lw []float64, reff float64, idxBuf *[]pair, xBuf, thetaBuf, lBuf *[]float64) float64 {
	S := len(lw)
	M := int(math.Ceil(math.Min(0.2*float64(S), 3*math.Sqrt(float64(S)/reff))))
	if M < 5 {
		return math.Inf(1)
	}
	// Sort (value, index) pairs: ties in index order, as R's stable sort.int.
	*idxBuf = grow(*idxBuf, S)
	ps := *idxBuf
	for s, v := range lw {
		ps[s] = pair{v, int32(s)}
	}
	// Only the cutoff and the tail need sorting: select them first.
	selectPairs(ps, S-M-1)
	slices.SortFunc(ps[S-M-1:], cmpPair)
	tail := ps[S-M:]
	if math.Abs(tail[M-1].v-tail[0].v) < machEps/100 {
		return math.Inf(1)
	}
	expCut := math.Exp(ps[S-M-1].v)
	*xBuf = grow(*xBuf, M)
	x := *xBuf
	for j, p := range tail {
		x[j] = math.Exp(p.v) - expCut
	}
	k, sigma := gpdFit(x, thetaBuf, lBuf)
	if math.IsInf(k, 0) {
		return k
	}
	for j, t := range tail {
		p := (float64(j+1) - 0.5) / float64(M)
		q := math.NaN()
		if sigma > 0 {
			q = sigma * math.Expm1(-k*math.Log1p(-p)) / k
		}
		lw[t.i] = math.Log(q + expCut)
	}
	return k
}

// GPDFit fits a generalized Pareto distribution with location 0 to the
// ascending exceedances x by the method of Zhang and Stephens (2009) with
// loo 2.5.1's weakly informative prior on the shape (gpdfit with wip = TRUE),
// and returns the shape k and scale σ. k is +Inf when the fit fails.
func GPDFit(x []float64) (k, sigma float64, err error) {
	if len(x) == 0 {
		return 0, 0, fmt.Errorf("diagnostics: GPDFit of no values")
	}
	if !slices.IsSorted(x) {
		return 0, 0, fmt.Errorf("diagnostics: GPDFit: values not ascending")
	}
	var t, l []float64
	k, sigma = gpdFit(x, &t, &l)
	return k, sigma, nil
}

func gpdFit(x []float64, thetaBuf, lBuf *[]float64) (k, sigma float64) {
	m := len(x)
	fm := float64(m)
	G := 30 + int(math.Floor(math.Sqrt(fm)))
	xstar := x[int(math.Floor(fm/4+0.5))-1]
	*thetaBuf = grow(*thetaBuf, G)
	*lBuf = grow(*lBuf, G)
	theta, l := *thetaBuf, *lBuf
	for g := range G {
		theta[g] = 1/x[m-1] + (1-math.Sqrt(float64(G)/(float64(g+1)-0.5)))/3/xstar
		a := -theta[g]
		var s float64
		for _, v := range x {
			s += math.Log1p(a * v)
		}
		kg := s / fm
		l[g] = fm * (math.Log(a/kg) - kg - 1)
	}
	lz := logSumExp(l)
	var thetaHat float64
	for g := range G {
		thetaHat += theta[g] * math.Exp(l[g]-lz)
	}
	var s float64
	for _, v := range x {
		s += math.Log1p(-thetaHat * v)
	}
	k = s / fm
	sigma = -k / thetaHat
	const a = 10.0
	k = k*fm/(fm+a) + a*0.5/(fm+a)
	if math.IsNaN(k) {
		k = math.Inf(1)
	}
	return k, sigma
}

// cmpPair orders pairs by value, then by index: the order of a stable sort.
func cmpPair(a, b pair) int {
	switch {
	case a.v < b.v:
		return -1
	case a.v > b.v:
		return 1
	}
	return int(a.i) - int(b.i)
}

// selectPairs reorders p so that p[k] is the pair a full sort by cmpPair
// would put there, with no greater pair before it and no smaller one after
// (quickselect with a median-of-three pivot). Values must not be NaN.
func selectPairs(p []pair, k int) {
	lo, hi := 0, len(p)-1
	for hi > lo {
		if hi-lo < 16 {
			slices.SortFunc(p[lo:hi+1], cmpPair)
			return
		}
		mid := lo + (hi-lo)/2
		if cmpPair(p[mid], p[lo]) < 0 {
			p[mid], p[lo] = p[lo], p[mid]
		}
		if cmpPair(p[hi], p[lo]) < 0 {
			p[hi], p[lo] = p[lo], p[hi]
		}
		if cmpPair(p[hi], p[mid]) < 0 {
			p[hi], p[mid] = p[mid], p[hi]
		}
		pivot := p[mid]
		i, j := lo, hi
		for i <= j {
			for cmpPair(p[i], pivot) < 0 {
				i++
			}
			for cmpPair(p[j], pivot) > 0 {
				j--
			}
			if i <= j {
				p[i], p[j] = p[j], p[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}
