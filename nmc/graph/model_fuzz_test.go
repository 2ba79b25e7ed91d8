package graph_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
	"github.com/nmc-go/nmc/nmc/jet"
)

// The fuzz target of this file runs its committed seed corpus
// (testdata/fuzz/FuzzModel/) with plain `go test`; explore with
//
//	go test -run '^$' -fuzz '^FuzzModel$' -fuzztime 10m -parallel 1 ./nmc/graph/

type (
	jetSpace  = jet.Space
	jetNumber = jet.Number
)

// decodeFuzzModel decodes fuzzer bytes into a model of up to 20 declarations:
// latents (plates, Vector, Ordered, PositiveOrdered, Bounded by nodes, Dirichlet,
// multivariate normal), expressions over them (arithmetic, Index, MatVec, Concat,
// Stack, Reshape, Components, LogSumExp, LogMix, LogDensity, Go functions,
// kernels, AddDiag, CholeskyMul), recursions of up to 10 steps, observations
// (among them regressions on plates read by data indices),
// factors, hidden Markov models, deterministic quantities and declarations that
// Build must refuse.
func decodeFuzzModel(data []byte) *fzModel { return decodeFuzzModelOf(data, false) }

// decodeFuzzModelOf is decodeFuzzModel, with more: the families of
// FuzzModelFamilies besides.
func decodeFuzzModelOf(data []byte, more bool) *fzModel {
	m := &fzModel{p: &fuzzProg{b: data}, b: graph.New(), more: more}
	for steps := 0; steps < 20 && len(m.p.b) > 0; steps++ {
		switch m.byte() % 16 {
		case 0, 1:
			m.plainLatent()
		case 2:
			m.vectorLatent(1 + m.byte()%4)
		case 3:
			m.orderedLatent()
		case 4:
			m.boundedLatent()
		case 5:
			m.dirichletLatent(2+m.byte()%2, 1+m.byte()%2)
		case 6, 7, 8:
			m.expr()
		case 9:
			m.recursion()
		case 10:
			m.observeStep()
		case 11:
			m.factor()
		case 12:
			m.hmm()
		case 13:
			m.mvnStep()
		case 14:
			m.deterministic()
		case 15:
			switch m.byte() % 4 {
			case 0:
				m.faultStep()
			case 1:
				m.regression()
			default:
				m.expr()
			}
		}
	}
	if len(m.lats) == 0 {
		m.faults = append(m.faults, "no latents")
	}
	return m
}

// FuzzModel decodes fuzzer bytes into a random model built with the engine's
// nodes (decodeFuzzModel) and, beside it, a description evaluated by a slow
// reference (model_fuzz_ref_test.go). Build must refuse a model with a bad
// declaration (a bad shape, a nil node, a bad size, a duplicate name) with an
// error naming the package, and build every other: no panic either way. At two
// states from Init, the built model must agree with the reference: LogJoint to
// 1e-9 of the terms' magnitudes (plus what the reference's own sensitivity to
// rounding allows), the derived quantities (constrained values, Deterministic)
// likewise; for every site, Score with and without derivatives, the change of
// Score under a move of the site equal to the reference's change of the log joint
// (and LogJoint's), and the gradient and Hessian equal to central differences of
// the reference (Richardson-extrapolated, within their estimated truncation and
// rounding errors, where the differences converge). The hidden states of
// HiddenMarkov models must be generated in range. States the engine cannot be held
// to are not compared (refEval.fragile): a subnormal value (Go's math.Log is wrong
// there on amd64).
func FuzzModel(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 6, 7, 0, 0, 3, 0, 10, 0, 0, 1})
	f.Fuzz(fuzzModel)
}

// fzT is what FuzzModel's checks need of a *testing.T.
type fzT interface {
	Helper()
	Fatalf(format string, args ...any)
}

// FuzzModelFamilies is FuzzModel with the families added after it — Stan's
// logistic, weibull, neg_binomial_2 and neg_binomial_2_log — among the scalar
// families of latents, observations and LogDensity terms (a separate target, so
// that FuzzModel's kept inputs decode as they did).
func FuzzModelFamilies(f *testing.F) {
	f.Add([]byte{0, 3, 1, 0, 6, 7, 0, 0, 3, 0, 10, 1, 0, 1, 10, 0, 3, 2, 0})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzModelOf(t, data, true) })
}

func fuzzModel(t *testing.T, data []byte) { fuzzModelT(t, data) }

func fuzzModelT(t fzT, data []byte) { fuzzModelOf(t, data, false) }

func fuzzModelOf(t fzT, data []byte, more bool) {
	if len(data) > 600 {
		return
	}
	m := decodeFuzzModelOf(data, more)
	if m.err != nil {
		t.Fatalf("declaring: %v\ntrace: %v", m.err, m.trace)
	}
	model, err := m.b.Build()
	if err != nil && !strings.HasPrefix(err.Error(), "graph: ") && !strings.HasPrefix(err.Error(), "dist: ") {
		t.Fatalf("Build error without a package prefix: %v", err)
	}
	if len(m.faults) > 0 {
		if err == nil {
			t.Fatalf("Build accepted a model with %v\ntrace: %v", m.faults, m.trace)
		}
		return
	}
	if err != nil {
		t.Fatalf("Build: %v\ntrace: %v", err, m.trace)
	}
	m.check(t, model, uint64(len(data)))
}

// check compares model with the reference at two states from Init.
func (m *fzModel) check(t fzT, model *graph.Model, seed uint64) {
	for _, lt := range m.lats {
		off, size, err := model.Offset(lt.name)
		if err != nil {
			t.Fatalf("Offset(%q): %v", lt.name, err)
		}
		lt.off, lt.size = off, size
	}
	sites := model.Sites()
	offs := nmc.Offsets(sites)
	x := make([]float64, nmc.Dim(sites))
	sc := model.NewScorer()
	for s := range uint64(2) {
		if err := model.Init(rand.New(rand.NewPCG(seed, s)), x); err != nil {
			if !strings.HasPrefix(err.Error(), "graph: ") {
				t.Fatalf("Init error without the package prefix: %v", err)
			}
			continue
		}
		lj, ok := m.checkLogJoint(t, sc, x)
		if !ok || math.IsInf(lj, -1) {
			continue // derived values of an impossible state are not specified
		}
		m.checkDerived(t, model, x)
		m.checkGenerated(t, model, x)
		for i, st := range sites {
			m.checkSite(t, sc, x, i, st, offs[i])
		}
		checkTapeScores(t, model, x, m.trace)
	}
}

// refTol returns the reference log joint at x and the tolerance of a comparison
// with it: 1e-9 of the terms' magnitudes plus 100 times the change of the
// reference under a 1e-13 relative jitter of every node value.
func (m *fzModel) refTol(x []float64) (ref, tol float64) {
	ref, tol, _ = m.refNoise(x)
	return ref, tol
}

// refNoise returns, besides refTol's, an estimate of the reference's rounding
// error: 4 ulps of the terms' magnitudes plus a hundredth of its change under
// the jitter (a hundred times more than rounding).
func (m *fzModel) refNoise(x []float64) (ref, tol, noise float64) {
	ref, mag := m.refLogJoint(x, 0)
	jit, _ := m.refLogJoint(x, 1e-13)
	return ref, 1e-9*math.Max(1, mag) + 100*math.Abs(ref-jit), 1e-15*math.Max(1, mag) + 0.01*math.Abs(ref-jit)
}

func (m *fzModel) checkLogJoint(t fzT, sc nmc.Scorer, x []float64) (float64, bool) {
	t.Helper()
	lj := sc.LogJoint(x)
	ref, tol := m.refTol(x)
	switch {
	case math.IsInf(ref, -1):
		if !math.IsInf(lj, -1) {
			t.Fatalf("LogJoint %v, reference −Inf at %v\ntrace: %v", lj, x, m.trace)
		}
		return lj, true
	case math.IsNaN(tol) || math.IsInf(tol, 0) || math.Abs(ref) > 1e12:
		return lj, false // beyond what a float64 reference can vouch for
	case !(math.Abs(lj-ref) <= tol):
		t.Fatalf("LogJoint %.17g, reference %.17g (tolerance %.3g) at %v\ntrace: %v", lj, ref, tol, x, m.trace)
	}
	return lj, true
}

func (m *fzModel) checkDerived(t fzT, model *graph.Model, x []float64) {
	t.Helper()
	names := model.DerivedNames()
	dst := make([]float64, len(names))
	model.Derive(x, dst)
	ref := m.refDerived(x)
	jit := (&fzModel{derived: m.derived}).refDerivedJitter(x)
	for name, v := range ref {
		i := slices.Index(names, name)
		if i < 0 {
			t.Fatalf("no derived column %q in %v", name, names)
		}
		got := dst[i]
		if j := jit[name]; math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e12 || math.IsNaN(j) || math.IsInf(j, 0) {
			continue // not finite, or the jitter left a domain (LogMix's θ = 1 beyond 1): unvouched
		}
		if tol := 1e-9*math.Max(1, math.Abs(v)) + 100*math.Abs(v-jit[name]); !(math.Abs(got-v) <= tol) {
			t.Fatalf("derived %s = %.17g, reference %.17g (tolerance %.3g) at %v\ntrace: %v", name, got, v, tol, x, m.trace)
		}
	}
}

func (m *fzModel) refDerivedJitter(x []float64) map[string]float64 {
	r := &refEval{x: x, vals: map[*fzNode][]float64{}, jitter: 1e-13}
	out := map[string]float64{}
	for _, d := range m.derived {
		v := r.val(d.n)
		for e := range d.n.l {
			for c := range d.n.w {
				out[derivedName(d.name, d.n.l, d.n.w, e, c)] = v[e*d.n.w+c]
			}
		}
	}
	return out
}

func (m *fzModel) checkGenerated(t fzT, model *graph.Model, x []float64) {
	t.Helper()
	if len(m.hmms) == 0 {
		return
	}
	names := model.GeneratedNames()
	dst := make([]float64, len(names))
	model.Generate(rand.New(rand.NewPCG(1, 2)), x, dst)
	off := 0
	for _, h := range m.hmms {
		for i := range h.n {
			if v := dst[off+i]; v != math.Floor(v) || v < 0 || v >= float64(h.k) {
				t.Fatalf("generated %s = %v, want a state in [0, %d)\ntrace: %v", names[off+i], v, h.k, m.trace)
			}
		}
		off += h.n
	}
}

// fdStep returns the finite-difference step of a site's coordinate at value v
// (|v| ≤ 1e6): 1e-3, or 1e-3 of its distance to a bound if that is less than 1,
// rounded so that v + h is exact. (Not 1e-3 of |v|: a Cauchy prior's location at
// −84415 varies on the scale of its width.)
func fdStep(st nmc.Site, v float64) float64 {
	h := 1.0
	switch st.Support {
	case nmc.Positive:
		h = math.Min(h, v-st.Lower)
	case nmc.Interval:
		h = math.Min(h, math.Min(v-st.Lower, st.Upper-v))
	}
	return (v + 1e-3*h) - v
}

// move returns x with site i moved within its support.
func moveSite(x []float64, st nmc.Site, o int) []float64 {
	y := slices.Clone(x)
	for j := range st.Size {
		v := &y[o+j]
		switch st.Support {
		case nmc.Positive:
			*v = st.Lower + (*v-st.Lower)*math.Exp(0.3-0.2*float64(j))
		case nmc.Interval:
			u := (*v - st.Lower) / (st.Upper - st.Lower)
			u = 1 / (1 + math.Exp(-(math.Log(u/(1-u)) + 0.3)))
			*v = st.Lower + (st.Upper-st.Lower)*u
		case nmc.Simplex:
			*v = 0.7**v + 0.3/float64(st.Size)
		default:
			*v += 0.3 - 0.1*float64(j)
		}
	}
	return y
}

func (m *fzModel) checkSite(t fzT, sc nmc.Scorer, x []float64, i int, st nmc.Site, o int) {
	t.Helper()
	k := st.Size
	grad, hess := make([]float64, k), make([]float64, k*k)
	f := sc.Score(x, i, grad, hess)
	f0 := sc.Score(x, i, nil, nil)
	ref, tol, noise := m.refNoise(x)
	if math.IsNaN(tol) || math.IsInf(tol, 0) || math.Abs(ref) > 1e12 {
		return
	}
	if !(math.Abs(f-f0) <= tol) {
		t.Fatalf("site %s: Score %.17g with derivatives, %.17g without\ntrace: %v", st.Name, f, f0, m.trace)
	}
	// The site's blanket: Score's change is the log joint's.
	y := moveSite(x, st, o)
	fy := sc.Score(y, i, nil, nil)
	ljy := sc.LogJoint(y)
	refY, tolY := m.refTol(y)
	switch {
	case math.IsInf(refY, -1):
		if !math.IsInf(fy, -1) || !math.IsInf(ljy, -1) {
			t.Fatalf("site %s moved: Score %v, LogJoint %v, reference −Inf at %v\ntrace: %v", st.Name, fy, ljy, y, m.trace)
		}
	case math.IsNaN(tolY) || math.IsInf(tolY, 0) || math.Abs(refY) > 1e12:
	default:
		if d := (fy - f) - (refY - ref); !(math.Abs(d) <= tol+tolY) {
			t.Fatalf("site %s moved: Score changed by %.17g, the reference log joint by %.17g (tolerance %.3g), from %v to %v\ntrace: %v",
				st.Name, fy-f, refY-ref, tol+tolY, x, y, m.trace)
		}
		if d := (fy - f) - (ljy - sc.LogJoint(x)); !(math.Abs(d) <= tol+tolY) {
			t.Fatalf("site %s moved: Score changed by %.17g, LogJoint by %.17g\ntrace: %v", st.Name, fy-f, ljy-sc.LogJoint(x), m.trace)
		}
	}
	if st.Support == nmc.Simplex {
		return // its coordinates cannot move one at a time (and an HMM's rows get steered Hessians)
	}
	m.checkDerivs(t, x, st, o, grad, hess, ref, noise)
}

// checkDerivs compares grad and hess with central differences of the reference
// log joint in the site's coordinates, at steps h and h/2, extrapolated; the
// tolerance is the differences' own disagreement (truncation error) plus their
// rounding error (the reference's rounding tolerance over h and h²).
func (m *fzModel) checkDerivs(t fzT, x []float64, st nmc.Site, o int, grad, hess []float64, f0, noise float64) {
	t.Helper()
	k := st.Size
	for _, v := range append(slices.Clone(grad), hess...) {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e8 {
			return // the reference's differences cannot vouch for these
		}
	}
	for _, v := range x[o : o+k] {
		if math.Abs(v) > 1e6 {
			// Differences cannot resolve features narrower than the value's
			// rounding: a Student-t value at 3.4e38 next to its location.
			return
		}
	}
	xs := slices.Clone(x)
	eval := func(j, l int, dj, dl float64) (float64, bool) {
		copy(xs, x)
		xs[o+j] += dj
		xs[o+l] += dl
		v, _ := m.refLogJoint(xs, 0)
		return v, !math.IsNaN(v) && !math.IsInf(v, 0)
	}
	// Steps within the coordinates' curvature scales 1/√|H_jj| (the engine's H
	// sets only the resolution): a Cauchy location with a scale of 1e-4 varies
	// within a step of 1e-3.
	// A coordinate far from 0 on a wide curvature scale (a Gamma(54000, 2)
	// density at 27000: 1/√|H| = 116) gets a step of up to 10⁻³ of its size and
	// of that scale: at 10⁻³ the second difference H·h² = 7e-11 is below the
	// rounding of the reference's (a − 1)·log x ≈ 5·10⁵.
	steps := make([]float64, k)
	for j := range k {
		v := x[o+j]
		c := math.Sqrt(math.Abs(hess[j*k+j]))
		steps[j] = fdStep(st, v)
		switch rel := fdStep(st, v) * math.Abs(v); {
		case c > 1:
			steps[j] = (v + steps[j]/c) - v
		case rel > steps[j] && fdStep(st, v) == (v+1e-3)-v:
			steps[j] = (v + math.Min(rel, 1e-3/c)) - v
		}
		if !(steps[j] > 0) {
			return
		}
	}
	// The reference's rounding in each coordinate, measured (roundingProbe):
	// noise, from the terms' values and the jitter, misses a density whose
	// parts cancel to far less than themselves.
	noises := make([]float64, k)
	for j := range k {
		noises[j] = max(noise, m.roundingProbe(x, o+j, steps[j]))
	}
	// converged reports whether the differences at h and h/2 agree within 1% of
	// the quantity's scale: differences that do not cannot vouch either way.
	converged := func(a, b, v float64) bool {
		return math.Abs(a-b) <= 1e-2*math.Max(1, math.Max(math.Abs(v), math.Abs(b)))
	}
	for j := range k {
		h := steps[j]
		var d1 [2]float64
		var d2 [2]float64
		for s, hh := range []float64{h, h / 2} {
			p, ok1 := eval(j, j, hh, 0)
			q, ok2 := eval(j, j, -hh, 0)
			if !ok1 || !ok2 {
				return
			}
			d1[s] = (p - q) / (2 * hh)
			d2[s] = (p - 2*f0 + q) / (hh * hh)
		}
		r1 := (4*d1[1] - d1[0]) / 3
		g := grad[j]
		if !converged(d1[0], d1[1], g) {
			continue
		}
		if tolG := 1e-6*math.Max(1, math.Abs(g)) + 10*math.Abs(d1[0]-d1[1]) + 10*noises[j]/h; !(math.Abs(g-r1) <= tolG) {
			t.Fatalf("site %s: gradient[%d] %.12g, central differences of the reference %.12g (h %.3g: %.12g, %.12g; tolerance %.3g) at %v\ntrace: %v",
				st.Name, j, g, r1, h, d1[0], d1[1], tolG, x, m.trace)
		}
		for l := range k {
			hl := steps[l]
			var r2, e2, dh, dh2 float64
			if l == j {
				r2, e2, dh, dh2 = (4*d2[1]-d2[0])/3, math.Abs(d2[0]-d2[1]), d2[0], d2[1]
			} else {
				var dd [2]float64
				for s, sc := range []float64{1, 0.5} {
					a, ok1 := eval(j, l, sc*h, sc*hl)
					b, ok2 := eval(j, l, sc*h, -sc*hl)
					c, ok3 := eval(j, l, -sc*h, sc*hl)
					d, ok4 := eval(j, l, -sc*h, -sc*hl)
					if !ok1 || !ok2 || !ok3 || !ok4 {
						return
					}
					dd[s] = (a - b - c + d) / (4 * sc * sc * h * hl)
				}
				r2, e2, dh, dh2 = (4*dd[1]-dd[0])/3, math.Abs(dd[0]-dd[1]), dd[0], dd[1]
			}
			hv := hess[j*k+l]
			if !converged(dh, dh2, hv) || dh == 0 && dh2 == 0 && hv != 0 {
				// Second differences of exactly 0 at both steps are below the
				// reference's resolution (a Gamma(54000, 2) density at x = 27000:
				// H = −7.4e-5, H·h² = 7.4e-11, the rounding of (a − 1)·log x ≈ 5·10⁵
				// is 1e-10): they cannot vouch either way.
				continue
			}
			if tolH := 1e-5*math.Max(1, math.Abs(hv)) + 10*e2 + 40*max(noises[j], noises[l])/(h*hl); !(math.Abs(hv-r2) <= tolH) {
				t.Fatalf("site %s: Hessian[%d,%d] %.12g, central differences of the reference %.12g (tolerance %.3g) at %v\ntrace: %v",
					st.Name, j, l, hv, r2, tolH, x, m.trace)
			}
		}
	}
}

// roundingProbe returns the rounding error of the reference log joint near x in
// coordinate i, measured: the largest deviation of its values at x_i + t, for 9
// offsets t up to ±4·2⁻³⁰·h (at least 2 ulps of x_i apart), from their
// least-squares quadratic, which the log joint is to far below its rounding
// there (its third derivative adds less than f‴·h³·2⁻⁸⁶). 0 when a value is not
// finite.
//
// Differences of the reference resolve no less than its rounding, which the
// terms' values do not bound when a density's parts cancel: a Gamma(a, a)
// density with a = z10 = 2.38e7 at z17 = 0.99974 is 6.8, computed as
// (a·log a − log Γ(a) + (a − 1)·log z17) − a·z17, sums of 2.4e7 that round to
// ulps of 3.7e-9 as z17 moves. Its second differences at the steps that follow
// the curvature (h = 2.05e-7, h/2) are −268 and −67 of those ulps where the
// exact ones are −268.30 and −67.07 (mpmath): −23801414.07 against the exact
// −(a − 1)/z17² = −23827817.79, the engine's value to 1e-16. The probe measures
// 3.1e-9 there, and the Hessian's tolerance is 40·that/h² (the worst rounding of
// the extrapolated (4·d(h/2) − d(h))/3 is 23 per-value roundings over h²).
func (m *fzModel) roundingProbe(x []float64, i int, h float64) float64 {
	const n = 9
	v := x[i]
	d := math.Max(h*0x1p-30, 2*(math.Nextafter(math.Abs(v), math.Inf(1))-math.Abs(v)))
	xs := slices.Clone(x)
	var basis [3][n]float64 // 1, t, t², made orthonormal (Gram–Schmidt)
	var f [n]float64
	for k := range n {
		xs[i] = v + float64(k-n/2)*d
		t := xs[i] - v
		lj, _ := m.refLogJoint(xs, 0)
		if math.IsNaN(lj) || math.IsInf(lj, 0) {
			return 0
		}
		f[k] = lj
		basis[0][k], basis[1][k], basis[2][k] = 1, t/d, (t/d)*(t/d)
	}
	f0 := f[n/2]
	for k := range n {
		f[k] -= f0
	}
	dot := func(a, b *[n]float64) (s float64) {
		for k := range n {
			s += a[k] * b[k]
		}
		return s
	}
	for b := range basis {
		for c := range b {
			p := dot(&basis[b], &basis[c])
			for k := range n {
				basis[b][k] -= p * basis[c][k]
			}
		}
		norm := math.Sqrt(dot(&basis[b], &basis[b]))
		for k := range n {
			basis[b][k] /= norm
		}
		p := dot(&f, &basis[b])
		for k := range n {
			f[k] -= p * basis[b][k]
		}
	}
	var dev float64
	for _, r := range f {
		dev = math.Max(dev, math.Abs(r))
	}
	return dev
}
