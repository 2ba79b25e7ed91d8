package dist

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ordRowsCase draws cutpoints for k categories and rows around them: η near the
// cutpoints, far in both tails, beyond ordRowsBound (row-by-row formulas), and at
// cutpoints spread over ±150, where a row's probability falls below 2⁻³³² (taken in
// logarithms at once by logProd).
func ordRowsCase(rng *rand.Rand, k, rows int, wide bool) (args, x, v []float64) {
	args = make([]float64, k+1)
	c := args[2:]
	c[0] = 2 * rng.NormFloat64()
	for j := 1; j < len(c); j++ {
		c[j] = c[j-1] + 0.01 + 3*rng.Float64()
	}
	if wide {
		for j := range c {
			c[j] = -150 + 300*float64(j)/float64(max(len(c)-1, 1))
		}
	}
	x, v = make([]float64, rows), make([]float64, rows)
	for r := range x {
		x[r] = float64(rng.IntN(k))
		switch rng.IntN(6) {
		case 0:
			v[r] = 40 * rng.NormFloat64()
		case 1:
			v[r] = []float64{-1000, 1000, -171, 171, 160, -160}[rng.IntN(6)]
		default:
			v[r] = c[rng.IntN(len(c))] + 2*rng.NormFloat64()
		}
	}
	return args, x, v
}

// TestOrderedLogisticRows checks OrderedLogistic's by-rows evaluation against
// Derivs row by row: DerivsRows' derivatives of each row in η and in each cutpoint,
// DerivsSharedRows' summed gradient and Hessian entries for random sets of η and
// the cutpoints, and the summed log density (the same with and without
// derivatives), all to 10⁻¹³ of the rows' summed magnitudes, for 2 to 6 categories,
// cutpoints close together, far apart and beyond ordRowsBound.
func TestOrderedLogisticRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const rows, tol = 200, 1e-13
	for trial := 0; trial < 60; trial++ {
		k := 2 + trial%5
		args, x, v := ordRowsCase(rng, k, rows, trial%3 == 2)
		if trial%7 == 6 {
			args[2] = -200 // a cutpoint beyond ordRowsBound: every row by ordLogisticTerms
		}
		n := k + 1
		// Derivs row by row: the sums of the entries and of their magnitudes.
		g, h := make([]float64, n), make([]float64, n*n)
		want, wantAbs := 0.0, 0.0
		sumG, absG := make([]float64, n), make([]float64, n)
		sumH, absH := make([]float64, n*n), make([]float64, n*n)
		rowG, rowH := make([][]float64, rows), make([][]float64, rows)
		for r := range x {
			a := append([]float64(nil), args...)
			a[0], a[1] = x[r], v[r]
			lp := OrderedLogistic{}.Derivs(a, k, g, h)
			want += lp
			wantAbs += math.Abs(lp)
			rowG[r], rowH[r] = append([]float64(nil), g...), append([]float64(nil), h...)
			for i := range g {
				sumG[i] += g[i]
				absG[i] += math.Abs(g[i])
			}
			for i := range h {
				sumH[i] += h[i]
				absH[i] += math.Abs(h[i])
			}
		}
		value, ok := OrderedLogistic{}.DerivsRows(x, v, args, k, 1, -1, nil, nil, nil)
		if !ok || math.Abs(value-want) > tol*wantAbs {
			t.Fatalf("k %d trial %d: DerivsRows sum %v (ok %v), Derivs %v", k, trial, value, ok, want)
		}
		for wrt := 1; wrt <= k; wrt++ {
			d1, d2 := make([]float64, rows), make([]float64, rows)
			sum, ok := OrderedLogistic{}.DerivsRows(x, v, args, k, 1, wrt, d1, d2, nil)
			if !ok || sum != value {
				t.Fatalf("k %d wrt %d: sum %v (ok %v), value only %v", k, wrt, sum, ok, value)
			}
			for r := range x {
				if !close13(d1[r], rowG[r][wrt]) || !close13(d2[r], rowH[r][wrt*n+wrt]) {
					t.Fatalf("k %d wrt %d row %d (y %v, η %v, c %v): %v %v, Derivs %v %v",
						k, wrt, r, x[r], v[r], args[2:], d1[r], d2[r], rowG[r][wrt], rowH[r][wrt*n+wrt])
				}
			}
		}
		for range 4 {
			wrt := uint64(rng.IntN(1<<k)) << 1
			if wrt == 0 {
				wrt = 2
			}
			g1, g2 := make([]float64, n), make([]float64, n*n)
			sum, ok := OrderedLogistic{}.DerivsSharedRows(x, v, args, k, 1, wrt, g1, g2, nil)
			if !ok || sum != value {
				t.Fatalf("k %d wrt %b: sum %v (ok %v), value only %v", k, wrt, sum, ok, value)
			}
			for i := 0; i < n; i++ {
				in := wrt&(1<<i) != 0
				if w := sumG[i]; (in && math.Abs(g1[i]-w) > tol*absG[i]) || (!in && g1[i] != 0) {
					t.Fatalf("k %d wrt %b: gradient %v, Derivs %v", k, wrt, g1, sumG)
				}
				for j := 0; j < n; j++ {
					in2 := in && wrt&(1<<j) != 0
					if w := sumH[i*n+j]; (in2 && math.Abs(g2[i*n+j]-w) > tol*absH[i*n+j]) || (!in2 && g2[i*n+j] != 0) {
						t.Fatalf("k %d wrt %b: Hessian %v, Derivs %v", k, wrt, g2, sumH)
					}
				}
			}
		}
	}
}

// TestOrderedLogisticRowsRefused checks what the by-rows calls refuse (ok = false:
// the caller evaluates row by row) and what makes their sum −Inf.
func TestOrderedLogisticRowsRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	const k = 4
	args, x, v := ordRowsCase(rng, k, 20, false)
	d1, d2 := make([]float64, 20), make([]float64, 20)
	g1, g2 := make([]float64, k+1), make([]float64, (k+1)*(k+1))
	for _, c := range []struct {
		name      string
		vary, wrt int
	}{{"vary 2", 2, 1}, {"wrt 0 (the value)", 1, 0}, {"wrt past the cutpoints", 1, k + 1}} {
		if _, ok := (OrderedLogistic{}).DerivsRows(x, v, args, k, c.vary, c.wrt, d1, d2, nil); ok {
			t.Errorf("DerivsRows %s accepted", c.name)
		}
	}
	for _, wrt := range []uint64{0, 1, 3, 1 << (k + 1)} {
		if _, ok := (OrderedLogistic{}).DerivsSharedRows(x, v, args, k, 1, wrt, g1, g2, nil); ok {
			t.Errorf("DerivsSharedRows wrt %b accepted", wrt)
		}
	}
	bad := append([]float64(nil), args...)
	bad[3], bad[4] = bad[4], bad[3] // decreasing cutpoints: Derivs decides row by row
	if _, ok := (OrderedLogistic{}).DerivsRows(x, v, bad, k, 1, -1, nil, nil, nil); ok {
		t.Error("decreasing cutpoints accepted")
	}
	many := make([]float64, ordRowsMaxCuts+3)
	for j := range many {
		many[j] = float64(j)
	}
	if _, ok := (OrderedLogistic{}).DerivsRows(x, v, many, ordRowsMaxCuts+2, 1, -1, nil, nil, nil); ok {
		t.Error("more than ordRowsMaxCuts cutpoints accepted")
	}
	for name, edit := range map[string]func(x, v []float64){
		"a NaN η":             func(_, v []float64) { v[3] = math.NaN() },
		"a category too high": func(x, _ []float64) { x[5] = k },
		"a fractional value":  func(x, _ []float64) { x[5] = 1.5 },
	} {
		xb, vb := append([]float64(nil), x...), append([]float64(nil), v...)
		edit(xb, vb)
		if s, ok := (OrderedLogistic{}).DerivsRows(xb, vb, args, k, 1, 1, d1, d2, nil); !ok || !math.IsInf(s, -1) {
			t.Errorf("%s: DerivsRows %v (ok %v), want −Inf", name, s, ok)
		}
		if s, ok := (OrderedLogistic{}).DerivsSharedRows(xb, vb, args, k, 1, 6, g1, g2, nil); !ok || !math.IsInf(s, -1) {
			t.Errorf("%s: DerivsSharedRows %v (ok %v), want −Inf", name, s, ok)
		}
	}
}

// TestOrderedLogisticRowsNoAlloc checks that the by-rows calls allocate nothing
// (the cutpoints' terms live on the stack, the rows' visitor does not escape).
func TestOrderedLogisticRowsNoAlloc(t *testing.T) {
	args, x, v := ordRowsCase(rand.New(rand.NewPCG(25, 26)), 4, 100, false)
	d1, d2 := make([]float64, 100), make([]float64, 100)
	g1, g2 := make([]float64, 5), make([]float64, 25)
	if a := testing.AllocsPerRun(50, func() {
		OrderedLogistic{}.DerivsRows(x, v, args, 4, 1, 1, d1, d2, nil)
		OrderedLogistic{}.DerivsRows(x, v, args, 4, 1, -1, nil, nil, nil)
		OrderedLogistic{}.DerivsSharedRows(x, v, args, 4, 1, 12, g1, g2, nil)
	}); a != 0 {
		t.Errorf("%v allocations per call", a)
	}
}
