package dist

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestStudentTDerivsOf checks every subset of arguments: the requested gradient and
// Hessian entries equal Derivs' (the same formulas, so bit for bit), the others are
// left as they were, the log density equals LogProb's to rounding, and a memo reused
// across parameters that change (ν, σ) never returns stale terms.
func TestStudentTDerivsOf(t *testing.T) {
	const n = 4
	rng := rand.New(rand.NewPCG(5, 6))
	var memo Memo
	for trial := 0; trial < 200; trial++ {
		args := []float64{3 * rng.NormFloat64(), math.Exp(2 * rng.NormFloat64()), rng.NormFloat64(), math.Exp(rng.NormFloat64())}
		if trial%3 == 0 && trial > 0 {
			args[1] = memo.Key // same ν as before, new σ and x: the memo's ν terms are reused
		}
		g, h := make([]float64, n), make([]float64, n*n)
		want := StudentT{}.Derivs(args, 1, g, h)
		for wrt := uint64(0); wrt < 1<<n; wrt++ {
			const sentinel = -12345.678
			g2, h2 := make([]float64, n), make([]float64, n*n)
			for i := range g2 {
				g2[i] = sentinel
			}
			for i := range h2 {
				h2[i] = sentinel
			}
			got := StudentT{}.DerivsOf(args, 1, wrt, g2, h2, &memo)
			if got != want {
				t.Fatalf("args %v wrt %04b: log p %v, Derivs %v", args, wrt, got, want)
			}
			if lp := (StudentT{}).LogProb(args, 1); math.Abs(got-lp) > 1e-12*math.Max(1, math.Abs(lp)) {
				t.Fatalf("args %v: log p %v, LogProb %v", args, got, lp)
			}
			for a := 0; a < n; a++ {
				in := wrt&(1<<a) != 0
				if in && g2[a] != g[a] || !in && g2[a] != sentinel {
					t.Fatalf("args %v wrt %04b: grad[%d] = %v, want %v (requested %v)", args, wrt, a, g2[a], g[a], in)
				}
				for b := 0; b < n; b++ {
					both := in && wrt&(1<<b) != 0
					if both && h2[a*n+b] != h[a*n+b] || !both && h2[a*n+b] != sentinel {
						t.Fatalf("args %v wrt %04b: hess[%d,%d] = %v, want %v (requested %v)", args, wrt, a, b, h2[a*n+b], h[a*n+b], both)
					}
				}
			}
		}
	}
	// Invalid arguments: −Inf and NaN in the requested entries.
	g, h := make([]float64, n), make([]float64, n*n)
	if lp := (StudentT{}).DerivsOf([]float64{0, -1, 0, 1}, 1, 2, g, h, nil); !math.IsInf(lp, -1) || !math.IsNaN(g[1]) || !math.IsNaN(h[5]) || g[0] != 0 {
		t.Errorf("ν = −1: log p %v, grad %v, hess[1,1] %v", lp, g, h[5])
	}
}

// TestDerivsRows checks the families' by-row evaluation against Derivs row by row:
// each row's derivatives in the argument asked for, and the summed log density, to
// 1e-13 relative; unsupported combinations report ok = false; a row outside the
// support gives −Inf.
func TestDerivsRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const rows = 50
	cases := []struct {
		fam  Family
		vary int
		wrts []int
		bad  []int // wrt values that are refused
		args func() []float64
		x    func() float64
	}{
		{BernoulliLogit{}, 1, []int{1}, []int{0}, func() []float64 { return []float64{0, 0} }, func() float64 { return float64(rng.IntN(2)) }},
		{PoissonLog{}, 1, []int{1}, []int{0}, func() []float64 { return []float64{0, 0} }, func() float64 { return float64(rng.IntN(300)) }},
		{Normal{}, 1, []int{1, 2}, []int{0}, func() []float64 { return []float64{0, 0, math.Exp(rng.NormFloat64())} },
			func() float64 { return 3 * rng.NormFloat64() }},
		{StudentT{}, 2, []int{1, 2, 3}, []int{0}, func() []float64 {
			return []float64{0, math.Exp(2 * rng.NormFloat64()), 0, math.Exp(rng.NormFloat64())}
		}, func() float64 { return 3 * rng.NormFloat64() }},
	}
	for _, c := range cases {
		rd := c.fam.(RowsDeriver)
		var memo Memo
		for trial := 0; trial < 20; trial++ {
			args := c.args()
			x, v := make([]float64, rows), make([]float64, rows)
			for r := range x {
				x[r], v[r] = c.x(), 20*rng.NormFloat64()
			}
			na := len(args)
			g, h := make([]float64, na), make([]float64, na*na)
			for _, wrt := range c.wrts {
				d1, d2 := make([]float64, rows), make([]float64, rows)
				sum, ok := rd.DerivsRows(x, v, args, 1, c.vary, wrt, d1, d2, &memo)
				if !ok {
					t.Fatalf("%s: vary %d wrt %d refused", c.fam.Name(), c.vary, wrt)
				}
				want := 0.0
				for r := range x {
					a := append([]float64(nil), args...)
					a[0], a[c.vary] = x[r], v[r]
					want += c.fam.Derivs(a, 1, g, h)
					if !close13(d1[r], g[wrt]) || !close13(d2[r], h[wrt*na+wrt]) {
						t.Fatalf("%s wrt %d row %d: %v %v, Derivs %v %v", c.fam.Name(), wrt, r, d1[r], d2[r], g[wrt], h[wrt*na+wrt])
					}
				}
				if !close13(sum, want) {
					t.Fatalf("%s wrt %d: sum %v, Derivs %v", c.fam.Name(), wrt, sum, want)
				}
				if s2, ok := rd.DerivsRows(x, v, args, 1, c.vary, -1, nil, nil, nil); !ok || s2 != sum {
					t.Fatalf("%s: value only %v (ok %v), with derivatives %v", c.fam.Name(), s2, ok, sum)
				}
			}
			for _, wrt := range c.bad {
				if _, ok := rd.DerivsRows(x, v, args, 1, c.vary, wrt, make([]float64, rows), make([]float64, rows), nil); ok {
					t.Errorf("%s: wrt %d accepted", c.fam.Name(), wrt)
				}
			}
			x[rows/2] = math.NaN()
			if s, ok := rd.DerivsRows(x, v, args, 1, c.vary, -1, nil, nil, nil); !ok || !math.IsInf(s, -1) {
				t.Errorf("%s: a NaN value gives %v (ok %v), want −Inf", c.fam.Name(), s, ok)
			}
		}
	}
}

func close13(a, b float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= 1e-13*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// TestDirichletDerivsOf checks every subset of the arguments of a 3-element
// Dirichlet: the requested gradient and Hessian entries equal Derivs' bit for bit,
// the others are left as they were, the log density equals Derivs', with one memo
// reused across 11 concentration vectors drawn in turn (more than it keeps, so
// entries are replaced) and without a memo; invalid arguments give −Inf and NaN in
// the requested entries.
func TestDirichletDerivsOf(t *testing.T) {
	const k, n = 3, 6
	rng := rand.New(rand.NewPCG(9, 10))
	alphas := make([][]float64, memoVecs+3)
	for r := range alphas {
		alphas[r] = []float64{math.Exp(rng.NormFloat64()), math.Exp(rng.NormFloat64()), math.Exp(rng.NormFloat64())}
	}
	var memo Memo
	for trial := 0; trial < 200; trial++ {
		args := make([]float64, n)
		(Dirichlet{}).Rand(rng, []float64{1, 2, 3}, k, args[:k])
		copy(args[k:], alphas[(trial*7)%len(alphas)])
		m := &memo
		if trial%5 == 4 {
			m = nil
		}
		g, h := make([]float64, n), make([]float64, n*n)
		want := Dirichlet{}.Derivs(args, k, g, h)
		for wrt := uint64(0); wrt < 1<<n; wrt++ {
			const sentinel = -12345.678
			g2, h2 := make([]float64, n), make([]float64, n*n)
			for i := range g2 {
				g2[i] = sentinel
			}
			for i := range h2 {
				h2[i] = sentinel
			}
			if got := (Dirichlet{}).DerivsOf(args, k, wrt, g2, h2, m); got != want {
				t.Fatalf("args %v wrt %06b: log p %v, Derivs %v", args, wrt, got, want)
			}
			for a := 0; a < n; a++ {
				in := wrt&(1<<a) != 0
				if in && g2[a] != g[a] || !in && g2[a] != sentinel {
					t.Fatalf("args %v wrt %06b: grad[%d] = %v, want %v (requested %v)", args, wrt, a, g2[a], g[a], in)
				}
				for b := 0; b < n; b++ {
					both := in && wrt&(1<<b) != 0
					if both && h2[a*n+b] != h[a*n+b] || !both && h2[a*n+b] != sentinel {
						t.Fatalf("args %v wrt %06b: hess[%d,%d] = %v, want %v (requested %v)", args, wrt, a, b, h2[a*n+b], h[a*n+b], both)
					}
				}
			}
		}
	}
	g, h := make([]float64, n), make([]float64, n*n)
	if lp := (Dirichlet{}).DerivsOf([]float64{0.5, 0.5, 0, 1, 1, 1}, k, 1<<1, g, h, &memo); !math.IsInf(lp, -1) || !math.IsNaN(g[1]) || !math.IsNaN(h[n+1]) || g[0] != 0 {
		t.Errorf("x[2] = 0: log p %v, grad %v, hess[1,1] %v", lp, g, h[n+1])
	}
}

// TestDerivsRowsTerms checks the row-terms families: a call that fills the terms and
// later calls that read them (with derivatives in each supported argument, and the
// value alone) give DerivsRows' sum and derivatives bit for bit; terms written with
// other arguments would not (a stale-term guard).
func TestDerivsRowsTerms(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const rows = 40
	cases := []struct {
		fam  RowTermsDeriver
		vary int
		wrts []int
		args func() []float64
		x    func() float64
	}{
		{BernoulliLogit{}, 1, []int{1}, func() []float64 { return []float64{0, 0} }, func() float64 { return float64(rng.IntN(2)) }},
		{PoissonLog{}, 1, []int{1}, func() []float64 { return []float64{0, 0} }, func() float64 { return float64(rng.IntN(300)) }},
		{StudentT{}, 2, []int{1, 2, 3}, func() []float64 {
			return []float64{0, math.Exp(2 * rng.NormFloat64()), 0, math.Exp(rng.NormFloat64())}
		}, func() float64 { return 3 * rng.NormFloat64() }},
	}
	for _, c := range cases {
		for trial := 0; trial < 10; trial++ {
			args := c.args()
			x, v := make([]float64, rows), make([]float64, rows)
			for r := range x {
				x[r], v[r] = c.x(), 5*rng.NormFloat64()
			}
			terms := make([]float64, rows*c.fam.RowTerms())
			fill, ok := c.fam.DerivsRowsTerms(x, v, args, 1, c.vary, -1, nil, nil, nil, terms, false)
			if want, _ := c.fam.DerivsRows(x, v, args, 1, c.vary, -1, nil, nil, nil); !ok || fill != want {
				t.Fatalf("%s: filling call %v (ok %v), DerivsRows %v", c.fam.(Family).Name(), fill, ok, want)
			}
			for _, wrt := range append([]int{-1}, c.wrts...) {
				var d1, d2, w1, w2 []float64
				if wrt >= 0 {
					d1, d2, w1, w2 = make([]float64, rows), make([]float64, rows), make([]float64, rows), make([]float64, rows)
				}
				got, ok := c.fam.DerivsRowsTerms(x, v, args, 1, c.vary, wrt, d1, d2, nil, terms, true)
				want, _ := c.fam.DerivsRows(x, v, args, 1, c.vary, wrt, w1, w2, nil)
				if !ok || got != want {
					t.Fatalf("%s wrt %d: reusing call %v (ok %v), DerivsRows %v", c.fam.(Family).Name(), wrt, got, ok, want)
				}
				for r := range d1 {
					if d1[r] != w1[r] || d2[r] != w2[r] {
						t.Fatalf("%s wrt %d row %d: %v %v, DerivsRows %v %v", c.fam.(Family).Name(), wrt, r, d1[r], d2[r], w1[r], w2[r])
					}
				}
			}
			v2 := append([]float64(nil), v...)
			for r := range v2 {
				v2[r] += 1
			}
			stale, _ := c.fam.DerivsRowsTerms(x, v2, args, 1, c.vary, -1, nil, nil, nil, terms, true)
			if want, _ := c.fam.DerivsRows(x, v2, args, 1, c.vary, -1, nil, nil, nil); stale == want {
				t.Fatalf("%s: terms of other values give the right sum %v: the terms are not read", c.fam.(Family).Name(), stale)
			}
		}
	}
}

// TestDerivsSharedRows checks StudentT's summed shared-argument derivatives against
// DerivsOf accumulated row by row: sums, gradients and Hessians for ν, σ and both, to
// within 10⁻¹³ of the rows' summed magnitudes (z is computed as (x − μ)·(1/σ), as in
// DerivsRows, not as (x − μ)/σ as in DerivsOf); other argument sets are refused; a
// NaN row gives −Inf.
func TestDerivsSharedRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const rows, n = 30, 4
	for trial := 0; trial < 20; trial++ {
		args := []float64{0, math.Exp(2 * rng.NormFloat64()), 0, math.Exp(rng.NormFloat64())}
		x, v := make([]float64, rows), make([]float64, rows)
		for r := range x {
			x[r], v[r] = 3*rng.NormFloat64(), 5*rng.NormFloat64()
		}
		for _, wrt := range []uint64{2, 8, 10} {
			g1, g2 := make([]float64, n), make([]float64, n*n)
			var memo Memo
			sum, ok := StudentT{}.DerivsSharedRows(x, v, args, 1, 2, wrt, g1, g2, &memo)
			if !ok {
				t.Fatalf("wrt %b refused", wrt)
			}
			w1, w2 := make([]float64, n), make([]float64, n*n)
			a1, a2 := make([]float64, n), make([]float64, n*n) // Σ|·| of the rows' terms
			d1, d2 := make([]float64, n), make([]float64, n*n)
			want, abs := 0.0, 0.0
			for r := range x {
				a := append([]float64(nil), args...)
				a[0], a[2] = x[r], v[r]
				lp := StudentT{}.DerivsOf(a, 1, wrt, d1, d2, nil)
				want += lp
				abs += math.Abs(lp)
				for i := 0; i < n; i++ {
					if wrt&(1<<i) == 0 {
						continue
					}
					w1[i] += d1[i]
					a1[i] += math.Abs(d1[i])
					for j := 0; j < n; j++ {
						if wrt&(1<<j) != 0 {
							w2[i*n+j] += d2[i*n+j]
							a2[i*n+j] += math.Abs(d2[i*n+j])
						}
					}
				}
			}
			const tol = 1e-13
			if math.Abs(sum-want) > tol*abs {
				t.Fatalf("wrt %b: sum %v, DerivsOf %v", wrt, sum, want)
			}
			for i := range g1 {
				if math.Abs(g1[i]-w1[i]) > tol*a1[i] {
					t.Fatalf("wrt %b: gradient %v, DerivsOf %v", wrt, g1, w1)
				}
			}
			for i := range g2 {
				if math.Abs(g2[i]-w2[i]) > tol*a2[i] {
					t.Fatalf("wrt %b: Hessian %v, DerivsOf %v", wrt, g2, w2)
				}
			}
		}
		for _, wrt := range []uint64{0, 1, 4, 6, 14} {
			if _, ok := (StudentT{}).DerivsSharedRows(x, v, args, 1, 2, wrt, make([]float64, n), make([]float64, n*n), nil); ok {
				t.Errorf("wrt %b accepted", wrt)
			}
		}
		x[rows/3] = math.NaN()
		if s, ok := (StudentT{}).DerivsSharedRows(x, v, args, 1, 2, 10, make([]float64, n), make([]float64, n*n), nil); !ok || !math.IsInf(s, -1) {
			t.Errorf("a NaN value gives %v (ok %v), want −Inf", s, ok)
		}
	}
}

// TestDerivsSharedRowsTerms checks that StudentT's shared-argument sums keep and
// reuse the terms of DerivsRowsTerms: filled by DerivsRowsTerms (the value alone or
// with derivatives in μ) or by DerivsSharedRowsTerms itself, the reused terms give
// DerivsSharedRows' sum, gradient and Hessian bit for bit, and a filling call writes
// the terms DerivsRowsTerms writes; terms of other values change the sum (they are
// read).
func TestDerivsSharedRowsTerms(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const rows, n = 30, 4
	for trial := 0; trial < 10; trial++ {
		args := []float64{0, math.Exp(2 * rng.NormFloat64()), 0, math.Exp(rng.NormFloat64())}
		x, v := make([]float64, rows), make([]float64, rows)
		for r := range x {
			x[r], v[r] = 3*rng.NormFloat64(), 5*rng.NormFloat64()
		}
		byRows := make([]float64, rows)
		if _, ok := (StudentT{}).DerivsRowsTerms(x, v, args, 1, 2, 2, make([]float64, rows), make([]float64, rows), nil, byRows, false); !ok {
			t.Fatal("DerivsRowsTerms refused")
		}
		for _, wrt := range []uint64{2, 8, 10} {
			w1, w2 := make([]float64, n), make([]float64, n*n)
			want, _ := StudentT{}.DerivsSharedRows(x, v, args, 1, 2, wrt, w1, w2, nil)
			own := make([]float64, rows)
			for _, c := range []struct {
				name  string
				terms []float64
				reuse bool
			}{{"filling", own, false}, {"reusing its own", own, true}, {"reusing DerivsRowsTerms'", byRows, true}} {
				g1, g2 := make([]float64, n), make([]float64, n*n)
				got, ok := StudentT{}.DerivsSharedRowsTerms(x, v, args, 1, 2, wrt, g1, g2, nil, c.terms, c.reuse)
				if !ok || got != want {
					t.Fatalf("wrt %b, %s terms: sum %v (ok %v), DerivsSharedRows %v", wrt, c.name, got, ok, want)
				}
				for i := range g1 {
					if g1[i] != w1[i] {
						t.Fatalf("wrt %b, %s terms: gradient %v, DerivsSharedRows %v", wrt, c.name, g1, w1)
					}
				}
				for i := range g2 {
					if g2[i] != w2[i] {
						t.Fatalf("wrt %b, %s terms: Hessian %v, DerivsSharedRows %v", wrt, c.name, g2, w2)
					}
				}
			}
			for r := range own {
				if own[r] != byRows[r] {
					t.Fatalf("wrt %b row %d: term %v, DerivsRowsTerms wrote %v", wrt, r, own[r], byRows[r])
				}
			}
		}
		v2 := append([]float64(nil), v...)
		for r := range v2 {
			v2[r] += 1
		}
		stale, _ := StudentT{}.DerivsSharedRowsTerms(x, v2, args, 1, 2, 10, make([]float64, n), make([]float64, n*n), nil, byRows, true)
		if want, _ := (StudentT{}).DerivsSharedRows(x, v2, args, 1, 2, 10, make([]float64, n), make([]float64, n*n), nil); stale == want {
			t.Fatalf("terms of other values give the right sum %v: the terms are not read", stale)
		}
	}
}
