package dist

import (
	"math"
	"math/rand/v2"

	"github.com/nmc-go/nmc/internal/special"
)

// StudentT is Student's t family with nu > 0 degrees of freedom, location mu and
// scale sigma > 0. With z = (x−μ)/σ,
//
//	log p(x | ν, μ, σ) = log Γ((ν+1)/2) − log Γ(ν/2) − ½ log(νπ) − log σ − (ν+1)/2 · log(1 + z²/ν).
//
// Args are [x, nu, mu, sigma]; the support is Real.
type StudentT struct{}

var _ Family = StudentT{}

// Name returns "StudentT".
func (StudentT) Name() string { return "StudentT" }

// ParamNames returns {"nu", "mu", "sigma"}.
func (StudentT) ParamNames() []string { return []string{"nu", "mu", "sigma"} }

// Layout returns (1, {1, 1, 1}) for every k.
func (StudentT) Layout(int) (int, []int) { return 1, ones(3) }

func studentOK(x, nu, mu, s float64) bool {
	return finite(x) && nu > 0 && !math.IsInf(nu, 1) && finite(mu) && s > 0 && !math.IsInf(s, 1)
}

// studentLogProb returns the Student-t log density at standardised z, computed as
// [log Γ(a+½) − log Γ(a) − ½ log a] − ½ log 2π − log σ − (ν+1)/2 · log(1 + z²/ν) with
// a = ν/2, which avoids the cancellation of the two log Γ for large ν.
func studentLogProb(z, nu, s float64) float64 {
	return lgammaHalfDiff(nu/2) - logSqrt2Pi - math.Log(s) - (nu+1)/2*math.Log1p(z*z/nu)
}

// halfDiffSwitch is the argument above which the Γ-function differences at a and a+½
// are taken from their asymptotic (Stirling) series; there the first omitted term is
// below 1e-16 relative.
const halfDiffSwitch = 20

// lgammaHalfDiff returns log Γ(a+½) − log Γ(a) − ½ log a for a > 0, without the
// cancellation of the direct form for large a (where it tends to −1/(8a)).
func lgammaHalfDiff(a float64) float64 {
	if a < halfDiffSwitch {
		return lgamma(a+0.5) - lgamma(a) - 0.5*special.Log(a)
	}
	// Stirling: log Γ(z) = (z−½) log z − z + ½ log 2π + S(z), so the difference is
	// a·log(1 + x) − ½ + S(a+½) − S(a) with x = 1/(2a), and
	// a·log(1 + x) − ½ = Σₙ₌₁ (−x)ⁿ/(2(n+1)), summed to n = 14 (x ≤ 1/40).
	x := 0.5 / a
	var p float64
	for n := 14; n >= 1; n-- {
		p = -x * (1/float64(2*(n+1)) + p)
	}
	return p + stirlingTail(a+0.5) - stirlingTail(a)
}

// stirlingTail returns S(z) = Σ B₂ₙ/(2n(2n−1) z²ⁿ⁻¹) = 1/(12z) − 1/(360z³) + 1/(1260z⁵)
// − 1/(1680z⁷) (DLMF 5.11.1), truncated where it is exact to double precision for
// z ≥ 20.
func stirlingTail(z float64) float64 {
	y := 1 / (z * z)
	return (1.0/12 - y*(1.0/360-y*(1.0/1260-y/1680))) / z
}

// digammaHalfDiff returns ψ(a+½) − ψ(a) for a > 0, accurate to a few ulps also for
// large a, where it tends to 1/(2a).
func digammaHalfDiff(a float64) float64 {
	if a < halfDiffSwitch {
		return special.Digamma(a+0.5) - special.Digamma(a)
	}
	// ψ(z) = log z − 1/(2z) − T(z) with T(z) = 1/(12z²) − 1/(120z⁴) + 1/(252z⁶) − 1/(240z⁸)
	// (DLMF 5.11.2).
	t := func(z float64) float64 {
		y := 1 / (z * z)
		return y * (1.0/12 - y*(1.0/120-y*(1.0/252-y/240)))
	}
	return math.Log1p(0.5/a) + 1/(2*a*(2*a+1)) - (t(a+0.5) - t(a))
}

// trigammaHalfDiff returns ψ₁(a+½) − ψ₁(a) for a > 0, accurate also for large a, where
// it tends to −1/(2a²).
func trigammaHalfDiff(a float64) float64 {
	if a < halfDiffSwitch {
		return special.Trigamma(a+0.5) - special.Trigamma(a)
	}
	// ψ₁(z) = 1/z + 1/(2z²) + U(z) with U(z) = 1/(6z³) − 1/(30z⁵) + 1/(42z⁷) − 1/(30z⁹)
	// (DLMF 5.15.8).
	u := func(z float64) float64 {
		y := 1 / (z * z)
		return y / z * (1.0/6 - y*(1.0/30-y*(1.0/42-y/30)))
	}
	b := a + 0.5
	return -0.5/a/b - (1+0.25/a)/(2*a*b*b) + (u(b) - u(a))
}

// LogProb returns the Student-t log density, or −Inf for invalid arguments.
func (StudentT) LogProb(args []float64, _ int) float64 {
	needArgs("StudentT", 4, args)
	x, nu, mu, s := args[0], args[1], args[2], args[3]
	if !studentOK(x, nu, mu, s) {
		return negInf
	}
	return studentLogProb((x-mu)/s, nu, s)
}

// Derivs returns the Student-t log density and its gradient and Hessian with respect
// to (x, ν, μ, σ). It does not allocate.
func (StudentT) Derivs(args []float64, k int, grad, hess []float64) float64 {
	return StudentT{}.DerivsMemo(args, k, grad, hess, nil)
}

// DerivsMemo is Derivs with the terms that depend on ν alone (a log-gamma difference
// and its digamma and trigamma differences) kept in m and reused while ν is unchanged,
// as it is across the observations of one model evaluation. A nil m recomputes them.
func (StudentT) DerivsMemo(args []float64, _ int, grad, hess []float64, m *Memo) float64 {
	const n = 4
	checkDerivs("StudentT", n, len(args), grad, hess)
	x, nu, mu, s := args[0], args[1], args[2], args[3]
	if !studentOK(x, nu, mu, s) {
		return fail(n, grad, hess)
	}
	lg, dg, tg := studentNuTerms(nu, m)
	// With z = (x−μ)/σ and q = ν + z²:
	//   ∂x = −(ν+1)z/(σq), ∂μ = −∂x, ∂σ = ν(z²−1)/(σq),
	//   ∂ν = ½[ψ((ν+1)/2) − ψ(ν/2) − log(1+z²/ν) + (z²−1)/q].
	z := (x - mu) / s
	z2 := z * z
	q := nu + z2
	iq := 1 / q
	is := 1 / s
	is2 := is * is
	iq2 := iq * iq
	a := z2 - 1
	// Ratios such as (ν+1)/q are formed first, so that huge ν cannot overflow a
	// product that a later factor would bring back into range (Inf·0 = NaN).
	r1 := (nu + 1) * iq // (ν+1)/q
	rn := nu * iq       // ν/q
	gx := -r1 * z * is
	l1p := math.Log1p(z2 / nu)
	grad[0] = gx
	grad[1] = 0.5 * (dg - l1p + a*iq)
	grad[2] = -gx
	grad[3] = rn * a * is
	hxx := r1 * ((z2 - nu) * iq) * is2
	hxnu := -z * a * is * iq2
	hxs := 2 * r1 * rn * z * is2
	hnunu := 0.25*tg + 0.5*z2/nu*iq - 0.5*a*iq2
	hnus := a * z2 * is * iq2
	hss := rn * is2 * ((1 - 3*z2) + 2*z2*a*iq)
	h := hess[:n*n]
	h[0], h[1], h[2], h[3] = hxx, hxnu, -hxx, hxs
	h[4], h[5], h[6], h[7] = hxnu, hnunu, -hxnu, hnus
	h[8], h[9], h[10], h[11] = -hxx, -hxnu, hxx, -hxs
	h[12], h[13], h[14], h[15] = hxs, hnus, -hxs, hss
	return lg - logSqrt2Pi - math.Log(s) - (nu+1)/2*l1p
}

// DerivsOf is DerivsMemo restricted to the arguments whose bits are set in wrt
// (PartialDeriver: bit 0 x, 1 ν, 2 μ, 3 σ); log σ is kept in m too. Invalid
// arguments give −Inf and NaN derivatives in the requested entries.
func (StudentT) DerivsOf(args []float64, _ int, wrt uint64, grad, hess []float64, m *Memo) float64 {
	const n = 4
	needArgs("StudentT", n, args)
	x, nu, mu, s := args[0], args[1], args[2], args[3]
	wx, wnu, wmu, ws := wrt&1 != 0, wrt&2 != 0, wrt&4 != 0, wrt&8 != 0
	if !studentOK(x, nu, mu, s) {
		for a := 0; a < n; a++ {
			if wrt&(1<<a) == 0 {
				continue
			}
			grad[a] = math.NaN()
			for b := 0; b < n; b++ {
				if wrt&(1<<b) != 0 {
					hess[a*n+b] = math.NaN()
				}
			}
		}
		return negInf
	}
	lg, dg, tg, ls := studentTerms(nu, s, m)
	z := (x - mu) / s
	z2 := z * z
	l1p := math.Log1p(z2 / nu)
	lp := lg - logSqrt2Pi - ls - (nu+1)/2*l1p
	if wrt == 0 {
		return lp
	}
	// The formulas of DerivsMemo, entry by entry.
	q := nu + z2
	iq := 1 / q
	is := 1 / s
	is2 := is * is
	iq2 := iq * iq
	a := z2 - 1
	r1 := (nu + 1) * iq
	rn := nu * iq
	wloc := wx || wmu
	var gx, hxx, hxnu, hxs float64
	if wloc {
		gx = -r1 * z * is
		hxx = r1 * ((z2 - nu) * iq) * is2
		if wnu {
			hxnu = -z * a * is * iq2
		}
		if ws {
			hxs = 2 * r1 * rn * z * is2
		}
	}
	if wx {
		grad[0] = gx
		hess[0] = hxx
		if wnu {
			hess[1], hess[4] = hxnu, hxnu
		}
		if wmu {
			hess[2], hess[8] = -hxx, -hxx
		}
		if ws {
			hess[3], hess[12] = hxs, hxs
		}
	}
	if wmu {
		grad[2] = -gx
		hess[10] = hxx
		if wnu {
			hess[6], hess[9] = -hxnu, -hxnu
		}
		if ws {
			hess[11], hess[14] = -hxs, -hxs
		}
	}
	if wnu {
		grad[1] = 0.5 * (dg - l1p + a*iq)
		hess[5] = 0.25*tg + 0.5*z2/nu*iq - 0.5*a*iq2
		if ws {
			hnus := a * z2 * is * iq2
			hess[7], hess[13] = hnus, hnus
		}
	}
	if ws {
		grad[3] = rn * a * is
		hess[15] = rn * is2 * ((1 - 3*z2) + 2*z2*a*iq)
	}
	return lp
}

// DerivsRows evaluates rows whose location μ (argument 2) varies, with derivatives
// in μ, ν or σ (RowsDeriver): the formulas of DerivsOf, ν's and σ's terms computed
// once.
func (StudentT) DerivsRows(x, v, args []float64, k, vary, wrt int, d1, d2 []float64, m *Memo) (float64, bool) {
	return StudentT{}.DerivsRowsTerms(x, v, args, k, vary, wrt, d1, d2, m, nil, false)
}

// RowTerms returns 1: a row keeps log(1 + z²/ν) (RowTermsDeriver).
func (StudentT) RowTerms() int { return 1 }

// studentRows holds what the row loops of a Student-t with ν and σ shared by the
// rows compute once: each row's constant term c (studentTerms' lg − log √(2π) −
// log σ), (ν+1)/2, the digamma and trigamma terms of ν's derivatives and 1/σ.
type studentRows struct{ c, half, dg, tg, is float64 }

// studentRowConsts returns the studentRows of ν and σ, or false when either is not
// finite and > 0.
func studentRowConsts(nu, s float64, m *Memo) (studentRows, bool) {
	if !(nu > 0) || math.IsInf(nu, 1) || !(s > 0) || math.IsInf(s, 1) {
		return studentRows{}, false
	}
	lg, dg, tg, ls := studentTerms(nu, s, m)
	return studentRows{c: lg - logSqrt2Pi - ls, half: (nu + 1) / 2, dg: dg, tg: tg, is: 1 / s}, true
}

// DerivsRowsTerms is DerivsRows keeping or reusing each row's log(1 + z²/ν) in terms
// (RowTermsDeriver).
func (StudentT) DerivsRowsTerms(x, v, args []float64, _, vary, wrt int, d1, d2 []float64, m *Memo, terms []float64, reuse bool) (float64, bool) {
	deriv := d1 != nil && d2 != nil
	if vary != 2 || (deriv && wrt != 1 && wrt != 2 && wrt != 3) {
		return 0, false
	}
	nu, s := args[1], args[3]
	k, ok := studentRowConsts(nu, s, m)
	if !ok {
		return negInf, true
	}
	c, half, dg, tg, is, is2 := k.c, k.half, k.dg, k.tg, k.is, k.is*k.is
	total := 0.0
	keep := terms != nil && !reuse
	if reuse {
		terms = terms[:len(x)]
	}
	for r, xr := range x {
		mu := v[r]
		if !finite(xr) || !finite(mu) {
			return negInf, true
		}
		z := (xr - mu) * is
		z2 := z * z
		var l1p float64
		if reuse {
			l1p = terms[r]
		} else {
			l1p = math.Log1p(z2 / nu)
			if keep {
				terms[r] = l1p
			}
		}
		total += c - half*l1p
		if !deriv {
			continue
		}
		q := nu + z2
		iq := 1 / q
		switch wrt {
		case 2:
			r1 := (nu + 1) * iq
			d1[r] = r1 * z * is
			d2[r] = r1 * ((z2 - nu) * iq) * is2
		case 1:
			a := z2 - 1
			d1[r] = 0.5 * (dg - l1p + a*iq)
			d2[r] = 0.25*tg + 0.5*z2/nu*iq - 0.5*a*iq*iq
		case 3:
			a := z2 - 1
			rn := nu * iq
			d1[r] = rn * a * is
			d2[r] = rn * is2 * ((1 - 3*z2) + 2*z2*a*iq)
		}
	}
	return total, true
}

// DerivsSharedRows sums the derivatives in ν and σ (wrt ⊆ {1, 3}) of rows whose
// location μ (argument 2) varies (SharedRowsDeriver), with DerivsOf's formulas and
// ν's and σ's terms computed once. Each row's z = (x − μ)/σ is computed as
// DerivsRows computes it, (x − μ)·(1/σ), so that a row's log(1 + z²/ν) is the same
// number in both (DerivsSharedRowsTerms shares the terms of DerivsRowsTerms); the sums
// therefore equal DerivsOf's to rounding, not bit for bit.
func (StudentT) DerivsSharedRows(x, v, args []float64, k, vary int, wrt uint64, g1, g2 []float64, m *Memo) (float64, bool) {
	return StudentT{}.DerivsSharedRowsTerms(x, v, args, k, vary, wrt, g1, g2, m, nil, false)
}

// DerivsSharedRowsTerms is DerivsSharedRows keeping or reusing each row's
// log(1 + z²/ν) in terms, the terms of DerivsRowsTerms (SharedRowTermsDeriver).
func (StudentT) DerivsSharedRowsTerms(x, v, args []float64, _, vary int, wrt uint64, g1, g2 []float64, m *Memo, terms []float64, reuse bool) (float64, bool) {
	const n = 4
	if vary != 2 || wrt == 0 || wrt&^(1<<1|1<<3) != 0 || len(args) != n {
		return 0, false
	}
	wnu, ws := wrt&2 != 0, wrt&8 != 0
	nu, s := args[1], args[3]
	k, ok := studentRowConsts(nu, s, m)
	if !ok {
		return negInf, true
	}
	c, half, dg, tg, is, is2 := k.c, k.half, k.dg, k.tg, k.is, k.is*k.is
	g2 = g2[:n*n]
	keep := terms != nil && !reuse
	if terms != nil {
		terms = terms[:len(x)]
	}
	total := 0.0
	for r, xr := range x {
		mu := v[r]
		if !finite(xr) || !finite(mu) {
			return negInf, true
		}
		// DerivsOf's expressions, in its order.
		z := (xr - mu) * is
		z2 := z * z
		var l1p float64
		if reuse {
			l1p = terms[r]
		} else {
			l1p = math.Log1p(z2 / nu)
			if keep {
				terms[r] = l1p
			}
		}
		total += c - half*l1p
		q := nu + z2
		iq := 1 / q
		iq2 := iq * iq
		a := z2 - 1
		if wnu {
			g1[1] += 0.5 * (dg - l1p + a*iq)
			g2[5] += 0.25*tg + 0.5*z2/nu*iq - 0.5*a*iq2
			if ws {
				hnus := a * z2 * is * iq2
				g2[7] += hnus
				g2[13] += hnus
			}
		}
		if ws {
			rn := nu * iq
			g1[3] += rn * a * is
			g2[15] += rn * is2 * ((1 - 3*z2) + 2*z2*a*iq)
		}
	}
	return total, true
}

// CheckParams requires nu finite and > 0, mu finite and sigma finite and > 0.
func (StudentT) CheckParams(params []float64, _ int) error {
	if err := checkCount("StudentT", params, 3); err != nil {
		return err
	}
	return firstErr(checkPositive("StudentT", "nu", params[0]), checkReal("StudentT", "mu", params[1]),
		checkPositive("StudentT", "sigma", params[2]))
}

// Support returns Real.
func (StudentT) Support([]float64, int) (Support, float64, float64, int) {
	return Real, math.Inf(-1), math.Inf(1), 0
}

// InSupport reports whether x is finite.
func (StudentT) InSupport(args []float64, _ int) bool { return len(args) > 0 && finite(args[0]) }

// Rand draws x = μ + σ z/√(V/ν), z ~ N(0, 1), V ~ χ²_ν = Gamma(ν/2, rate ½), into dst[0].
func (StudentT) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (StudentT{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	nu, mu, s := params[0], params[1], params[2]
	// √(ν/V) computed on the log scale: V can underflow for tiny ν.
	lv := RandLogGamma(rng, nu/2) + math.Ln2
	dst[0] = mu + s*rng.NormFloat64()*math.Exp(0.5*(math.Log(nu)-lv))
}

// Cauchy is the Cauchy family with location mu and scale gamma > 0. With
// z = (x−μ)/γ,
//
//	log p(x | μ, γ) = −log π − log γ − log(1 + z²).
//
// Args are [x, mu, gamma]; the support is Real.
type Cauchy struct{}

var _ Family = Cauchy{}

// Name returns "Cauchy".
func (Cauchy) Name() string { return "Cauchy" }

// ParamNames returns {"mu", "gamma"}.
func (Cauchy) ParamNames() []string { return []string{"mu", "gamma"} }

// Layout returns (1, {1, 1}) for every k.
func (Cauchy) Layout(int) (int, []int) { return 1, ones(2) }

// LogProb returns the Cauchy log density, or −Inf for invalid arguments.
func (Cauchy) LogProb(args []float64, _ int) float64 {
	needArgs("Cauchy", 3, args)
	x, mu, g := args[0], args[1], args[2]
	if !normalOK(x, mu, g) {
		return negInf
	}
	z := (x - mu) / g
	return -math.Log(math.Pi*g) - math.Log1p(z*z)
}

// cauchyDerivs writes the derivatives of −log γ − log(1+z²), z = r/γ, with respect to
// (r, γ) as gr, gg, hrr, hrg, hgg.
func cauchyDerivs(r, g float64) (gr, gg, hrr, hrg, hgg float64) {
	z := r / g
	z2 := z * z
	iq := 1 / (1 + z2)
	ig := 1 / g
	ig2 := ig * ig
	gr = -2 * z * ig * iq
	gg = (z2 - 1) * ig * iq
	hrr = 2 * (z2 - 1) * ig2 * iq * iq
	hrg = 4 * z * ig2 * iq * iq
	hgg = ig2 * (-1 - 2*iq + 4*iq*iq)
	return
}

// Derivs returns the Cauchy log density and its gradient and Hessian with respect to
// (x, μ, γ).
func (Cauchy) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	const n = 3
	checkDerivs("Cauchy", n, len(args), grad, hess)
	x, mu, g := args[0], args[1], args[2]
	if !normalOK(x, mu, g) {
		return fail(n, grad, hess)
	}
	gr, gg, hrr, hrg, hgg := cauchyDerivs(x-mu, g)
	grad[0], grad[1], grad[2] = gr, -gr, gg
	h := hess[:n*n]
	h[0], h[1], h[2] = hrr, -hrr, hrg
	h[3], h[4], h[5] = -hrr, hrr, -hrg
	h[6], h[7], h[8] = hrg, -hrg, hgg
	z := (x - mu) / g
	return -math.Log(math.Pi*g) - math.Log1p(z*z)
}

// CheckParams requires mu finite and gamma finite and > 0.
func (Cauchy) CheckParams(params []float64, _ int) error {
	if err := checkCount("Cauchy", params, 2); err != nil {
		return err
	}
	return firstErr(checkReal("Cauchy", "mu", params[0]), checkPositive("Cauchy", "gamma", params[1]))
}

// Support returns Real.
func (Cauchy) Support([]float64, int) (Support, float64, float64, int) {
	return Real, math.Inf(-1), math.Inf(1), 0
}

// InSupport reports whether x is finite.
func (Cauchy) InSupport(args []float64, _ int) bool { return len(args) > 0 && finite(args[0]) }

// Rand draws x = μ + γC into dst[0], with C a standard Cauchy variate (a ratio of
// two standard normals).
func (Cauchy) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (Cauchy{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	dst[0] = params[0] + params[1]*cauchyStd(rng)
}

// cauchyStd draws a standard Cauchy variate as the ratio of two normals, which avoids
// the pole of tan at U = 0.
func cauchyStd(rng *rand.Rand) float64 {
	for {
		d := rng.NormFloat64()
		if d != 0 {
			return rng.NormFloat64() / d
		}
	}
}

// HalfCauchy is the half-Cauchy family with scale > 0, the law of |X| for
// X ~ Cauchy(0, scale). With z = x/scale,
//
//	log p(x | s) = log 2 − log π − log s − log(1 + z²),  x ≥ 0.
//
// Args are [x, scale]; the support is Positive with lower bound 0.
type HalfCauchy struct{}

var _ Family = HalfCauchy{}

// Name returns "HalfCauchy".
func (HalfCauchy) Name() string { return "HalfCauchy" }

// ParamNames returns {"scale"}.
func (HalfCauchy) ParamNames() []string { return []string{"scale"} }

// Layout returns (1, {1}) for every k.
func (HalfCauchy) Layout(int) (int, []int) { return 1, ones(1) }

// LogProb returns the half-Cauchy log density, or −Inf for invalid arguments.
func (HalfCauchy) LogProb(args []float64, _ int) float64 {
	needArgs("HalfCauchy", 2, args)
	x, s := args[0], args[1]
	if !halfOK(x, s) {
		return negInf
	}
	z := x / s
	return math.Ln2 - math.Log(math.Pi*s) - math.Log1p(z*z)
}

// Derivs returns the half-Cauchy log density and its gradient and Hessian with
// respect to (x, scale).
func (HalfCauchy) Derivs(args []float64, _ int, grad, hess []float64) float64 {
	const n = 2
	checkDerivs("HalfCauchy", n, len(args), grad, hess)
	x, s := args[0], args[1]
	if !halfOK(x, s) {
		return fail(n, grad, hess)
	}
	gr, gg, hrr, hrg, hgg := cauchyDerivs(x, s)
	grad[0], grad[1] = gr, gg
	h := hess[:n*n]
	h[0], h[1] = hrr, hrg
	h[2], h[3] = hrg, hgg
	z := x / s
	return math.Ln2 - math.Log(math.Pi*s) - math.Log1p(z*z)
}

// CheckParams requires scale finite and > 0.
func (HalfCauchy) CheckParams(params []float64, _ int) error {
	if err := checkCount("HalfCauchy", params, 1); err != nil {
		return err
	}
	return checkPositive("HalfCauchy", "scale", params[0])
}

// Support returns Positive with lower bound 0.
func (HalfCauchy) Support([]float64, int) (Support, float64, float64, int) {
	return Positive, 0, math.Inf(1), 0
}

// InSupport reports whether x is finite and ≥ 0.
func (HalfCauchy) InSupport(args []float64, _ int) bool {
	return len(args) > 0 && args[0] >= 0 && !math.IsInf(args[0], 1)
}

// Rand draws x = scale·|C|, C standard Cauchy, into dst[0].
func (HalfCauchy) Rand(rng *rand.Rand, params []float64, k int, dst []float64) {
	if (HalfCauchy{}).CheckParams(params, k) != nil {
		fillNaN(dst[:1])
		return
	}
	dst[0] = params[0] * math.Abs(cauchyStd(rng))
}

// studentTerms returns the Student-t's terms that depend only on ν and σ: the
// log-gamma difference lgammaHalfDiff(ν/2) with its digamma and trigamma
// counterparts, and log σ, taken from m when it holds them for these ν and σ and
// kept there otherwise (m may be nil).
func studentTerms(nu, s float64, m *Memo) (lg, dg, tg, ls float64) {
	lg, dg, tg = studentNuTerms(nu, m)
	if m != nil && m.OK2 && m.Key2 == s {
		ls = m.Val2
	} else {
		ls = math.Log(s)
		if m != nil {
			m.Key2, m.Val2, m.OK2 = s, ls, true
		}
	}
	return lg, dg, tg, ls
}

// studentNuTerms returns the terms that depend on ν alone — lgammaHalfDiff(ν/2) and
// its digamma and trigamma counterparts — from m when it holds them for this ν, and
// keeps them there otherwise (m may be nil).
func studentNuTerms(nu float64, m *Memo) (lg, dg, tg float64) {
	if m != nil && m.OK && m.Key == nu {
		return m.Val[0], m.Val[1], m.Val[2]
	}
	lg, dg, tg = lgammaHalfDiff(nu/2), digammaHalfDiff(nu/2), trigammaHalfDiff(nu/2)
	if m != nil {
		m.Key, m.Val, m.OK = nu, [4]float64{lg, dg, tg}, true
	}
	return lg, dg, tg
}
