package diagnostics

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/draws"
)

// The fuzz targets of this file run their committed seed corpus
// (testdata/fuzz/<FuzzName>/) with plain `go test`; explore with, e.g.,
//
//	go test -run '^$' -fuzz '^FuzzSummary$' -fuzztime 10m -parallel 1 ./diagnostics/

// fuzzSpecials are the values a fuzzed draw picks from most often: the
// non-finite values, signed zeros, the extremes of float64 and a few ties.
var fuzzSpecials = []float64{
	0, math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 1, -1,
	math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 1e-300, 1e300, 0.5, 2,
}

// fuzzBytes decodes fuzzer bytes; once they run out every read gives 0.
type fuzzBytes struct {
	b    []byte
	prev float64
}

func (r *fuzzBytes) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// float decodes one value: a special value, a small integer (ties), a step of a
// random walk (autocorrelated chains), raw bits or a fine-grained value.
func (r *fuzzBytes) float() float64 {
	var v float64
	switch sel := r.byte(); sel % 8 {
	case 0:
		v = fuzzSpecials[int(r.byte())%len(fuzzSpecials)]
	case 1, 2:
		v = float64(int8(r.byte()))
	case 3:
		v = r.prev + float64(int8(r.byte()))/16
	case 4:
		var u uint64
		for range 8 {
			u = u<<8 | uint64(r.byte())
		}
		v = math.Float64frombits(u)
	default:
		v = float64(int16(uint16(r.byte())<<8|uint16(r.byte()))) / 256
	}
	r.prev = v
	return v
}

// matrix decodes draws x[chain][draw]: 0 to 4 chains of up to 63 draws,
// ragged when the flag byte says so.
func (r *fuzzBytes) matrix() [][]float64 {
	m, n, flags := int(r.byte()%5), int(r.byte()%64), r.byte()
	x := make([][]float64, m)
	for c := range x {
		nc := n
		if flags&1 != 0 {
			nc = max(0, n-int(r.byte()%3))
		}
		x[c] = make([]float64, nc)
		for i := range x[c] {
			x[c][i] = r.float()
		}
	}
	return x
}

// fuzzShapeOK reports whether x is acceptable draws: at least one chain, no
// empty chain, all chains of one length.
func fuzzShapeOK(x [][]float64) bool {
	if len(x) == 0 {
		return false
	}
	for _, ch := range x {
		if len(ch) == 0 || len(ch) != len(x[0]) {
			return false
		}
	}
	return true
}

// fuzzSame reports whether a and b are equal or both NaN.
func fuzzSame(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// FuzzSummary decodes fuzzer bytes into draws x[chain][draw] (NaN, ±Inf, ties,
// ragged chains, no chains) and a quantile probability. Every per-quantity
// function must return an error exactly for bad shapes or probabilities, and
// otherwise a value within its range: R-hat ≥ 0 or NaN; ESS in (0, S·log10 S]
// or NaN; SD, MAD and MCSEs ≥ 0 or NaN; median and quantiles between the
// smallest and largest draw; NaN when any draw is NaN (for RHatBasic,
// ESSBasic and ESSBulk: any draw of the split chains). Summarize must agree
// with the per-quantity functions.
func FuzzSummary(f *testing.F) {
	f.Add([]byte{2, 10, 0, 1, 5, 1, 7, 3, 4, 3, 250, 0, 1, 5, 200, 6, 1, 2, 3}, uint8(50))
	f.Fuzz(func(t *testing.T, data []byte, pb uint8) {
		r := &fuzzBytes{b: data}
		x := r.matrix()
		p := float64(pb) / 200 // > 1 for pb > 200: an invalid probability
		okShape := fuzzShapeOK(x)
		var pooled []float64
		// hasNaN: any NaN draw. splitNaN: a NaN draw in the split chains, which
		// leave out the middle draw of an odd-length chain; rhat_basic, ess_basic
		// and ess_bulk only see those (spec §3, §5), so a NaN there alone escapes them.
		hasNaN, splitNaN := false, false
		for _, ch := range x {
			for i, v := range ch {
				pooled = append(pooled, v)
				hasNaN = hasNaN || math.IsNaN(v)
				splitNaN = splitNaN || (math.IsNaN(v) && !(len(ch)%2 == 1 && i == len(ch)/2))
			}
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range pooled {
			lo, hi = min(lo, v), max(hi, v)
		}
		S := float64(len(pooled))

		type fn struct {
			name string
			f    func([][]float64) (float64, error)
			prob bool
		}
		withP := func(g func([][]float64, float64) (float64, error)) func([][]float64) (float64, error) {
			return func(x [][]float64) (float64, error) { return g(x, p) }
		}
		funcs := []fn{
			{"Mean", Mean, false}, {"SD", SD, false}, {"Median", Median, false}, {"MAD", MAD, false},
			{"Quantile", withP(Quantile), true}, {"RHat", RHat, false}, {"RHatBasic", RHatBasic, false},
			{"ESSBasic", ESSBasic, false}, {"ESSMean", ESSMean, false}, {"ESSBulk", ESSBulk, false},
			{"ESSTail", ESSTail, false}, {"ESSQuantile", withP(ESSQuantile), true}, {"ESSMedian", ESSMedian, false},
			{"ESSSD", ESSSD, false}, {"MCSEMean", MCSEMean, false}, {"MCSESD", MCSESD, false},
			{"MCSEQuantile", withP(MCSEQuantile), true}, {"MCSEMedian", MCSEMedian, false},
		}
		got := map[string]float64{}
		for _, g := range funcs {
			v, err := g.f(x)
			wantErr := !okShape || (g.prob && !(p >= 0 && p <= 1))
			if (err != nil) != wantErr {
				t.Fatalf("%s on %d chains (lengths %v), p = %v: err = %v, want error: %v", g.name, len(x), fuzzLens(x), p, err, wantErr)
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), "diagnostics: ") {
					t.Fatalf("%s: error without the package prefix: %v", g.name, err)
				}
				if len(x) == 0 && !(g.prob && !(p >= 0 && p <= 1)) && !errors.Is(err, ErrNoChains) {
					t.Fatalf("%s with no chains: err = %v, want ErrNoChains", g.name, err)
				}
				if !math.IsNaN(v) {
					t.Fatalf("%s returned %v with error %v, want NaN", g.name, v, err)
				}
				continue
			}
			got[g.name] = v
			splitOnly := g.name == "RHatBasic" || g.name == "ESSBasic" || g.name == "ESSMean" || g.name == "ESSBulk"
			if ((splitOnly && splitNaN) || (!splitOnly && hasNaN)) && !math.IsNaN(v) {
				t.Fatalf("%s = %v with a NaN draw, want NaN", g.name, v)
			}
			switch {
			case strings.HasPrefix(g.name, "RHat"):
				if v < 0 {
					t.Fatalf("%s = %v < 0", g.name, v)
				}
			case strings.HasPrefix(g.name, "ESS"):
				if !math.IsNaN(v) && !(v > 0 && v <= S*math.Log10(S)*(1+1e-12)) {
					t.Fatalf("%s = %v, want NaN or in (0, S·log10 S = %v]", g.name, v, S*math.Log10(S))
				}
			case g.name == "SD" || g.name == "MAD" || strings.HasPrefix(g.name, "MCSE"):
				if v < 0 {
					t.Fatalf("%s = %v < 0", g.name, v)
				}
			case g.name == "Median" || g.name == "Quantile":
				// Interpolating between −Inf and +Inf gives NaN; otherwise the
				// value lies between the smallest and largest draw.
				if !hasNaN && !(v >= lo && v <= hi) && !(math.IsNaN(v) && math.IsInf(lo, -1) && math.IsInf(hi, 1)) {
					t.Fatalf("%s = %v outside the draws' range [%v, %v]", g.name, v, lo, hi)
				}
			}
		}
		if okShape && !hasNaN {
			if q0, _ := Quantile(x, 0); q0 != lo {
				t.Fatalf("Quantile(x, 0) = %v, smallest draw %v", q0, lo)
			}
			if q1, _ := Quantile(x, 1); q1 != hi {
				t.Fatalf("Quantile(x, 1) = %v, largest draw %v", q1, hi)
			}
		}

		// Summarize on the same draws as parameter "x" and their negation as "y".
		d := &draws.Draws{Names: []string{"x", "y"}}
		for _, ch := range x {
			vals := make([]float64, 0, 2*len(ch))
			for _, v := range ch {
				vals = append(vals, v, -v)
			}
			d.Chains = append(d.Chains, vals)
		}
		opts := &SummaryOptions{Quantiles: []float64{p, 0.5}, Workers: 1 + int(pb%2)}
		rows, err := Summarize(d, opts)
		wantErr := !okShape || !(p >= 0 && p <= 1)
		if (err != nil) != wantErr {
			t.Fatalf("Summarize on %d chains (lengths %v), p = %v: err = %v, want error: %v", len(x), fuzzLens(x), p, err, wantErr)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "diagnostics: ") {
				t.Fatalf("Summarize: error without the package prefix: %v", err)
			}
			return
		}
		if len(rows) != 2 || rows[0].Variable != "x" || rows[1].Variable != "y" {
			t.Fatalf("Summarize returned %d rows %+v", len(rows), rows)
		}
		rx := rows[0]
		for _, c := range []struct {
			name      string
			row, want float64
		}{
			{"Mean", rx.Mean, got["Mean"]}, {"Median", rx.Median, got["Median"]}, {"SD", rx.SD, got["SD"]},
			{"MAD", rx.MAD, got["MAD"]}, {"RHat", rx.RHat, got["RHat"]}, {"ESSBulk", rx.ESSBulk, got["ESSBulk"]},
			{"ESSTail", rx.ESSTail, got["ESSTail"]}, {"MCSEMean", rx.MCSEMean, got["MCSEMean"]},
			{"MCSESD", rx.MCSESD, got["MCSESD"]}, {"Quantile", rx.Quantiles[0].Value, got["Quantile"]},
		} {
			if !fuzzSame(c.row, c.want) {
				t.Fatalf("Summarize %s = %v, %s(x) = %v", c.name, c.row, c.name, c.want)
			}
		}
		// The type-7 quantile at 0.5 is the median up to rounding: a/2 + b/2
		// and (a+b)/2 differ in the last bit, most for subnormal draws.
		if q, med := rx.Quantiles[1].Value, got["Median"]; !fuzzSame(q, med) &&
			!(math.Abs(q-med) <= 1e-15*math.Abs(med)+1e-323) {
			t.Fatalf("Summarize quantile 0.5 = %v, Median(x) = %v", q, med)
		}
		// Negating the draws keeps the spread exactly and the rank-based
		// diagnostics up to rounding. Those are only compared when R-hat is
		// moderate: an R-hat of 1e16 means the within-chain variance of the
		// z-scores is rounding noise, which negation does not reproduce.
		ry := rows[1]
		type pair struct {
			name string
			x, y float64
		}
		pairs := []pair{{"SD", rx.SD, ry.SD}, {"MAD", rx.MAD, ry.MAD}}
		if rx.RHat < 1e3 && ry.RHat < 1e3 {
			pairs = append(pairs, pair{"RHat", rx.RHat, ry.RHat}, pair{"ESSBulk", rx.ESSBulk, ry.ESSBulk})
		}
		for _, c := range pairs {
			if math.IsNaN(c.x) != math.IsNaN(c.y) || math.Abs(c.x-c.y) > 1e-9*math.Abs(c.x) {
				t.Fatalf("%s of x is %v, of −x %v", c.name, c.x, c.y)
			}
		}
		if s := FormatSummary(rows); !strings.Contains(s, "x") {
			t.Fatalf("FormatSummary lost the variable name:\n%s", s)
		}
		var sb strings.Builder
		if err := WriteSummaryCSV(&sb, rows); err != nil {
			t.Fatalf("WriteSummaryCSV: %v", err)
		}
	})
}

func fuzzLens(x [][]float64) []int {
	l := make([]int, len(x))
	for i := range x {
		l[i] = len(x[i])
	}
	return l
}

// fuzzLogDensity decodes a log density: mostly moderate negative values, with
// the special values (NaN, ±Inf, huge) mixed in.
func (r *fuzzBytes) logDensity() float64 {
	v := r.float()
	if sel := r.byte(); sel%4 != 0 && !math.IsNaN(v) {
		v = -math.Abs(v)
	}
	return v
}

// FuzzPLL decodes fuzzer bytes into a matrix L[draw][point] of log densities
// (NaN, ±Inf, ragged rows, no points) and checks PLLCurve, PLLCurveJoint,
// RunningPLL, Interleave and SamplesToConvergence: errors exactly for bad
// input, curves of the right length without NaN, the streaming accumulator
// equal to the batch functions, and SamplesToConvergence satisfying its
// definition.
func FuzzPLL(f *testing.F) {
	f.Add([]byte{5, 3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzBytes{b: data}
		S, J, flags := int(r.byte()%40), int(r.byte()%6), r.byte()
		L := make([][]float64, S)
		for s := range L {
			js := J
			if flags&1 != 0 && r.byte()%8 == 0 {
				js = int(r.byte() % 6)
			}
			L[s] = make([]float64, js)
			for j := range L[s] {
				L[s][j] = r.logDensity()
			}
		}
		wantErr := S == 0 || len(L[0]) == 0
		for _, row := range L {
			if len(row) != len(L[0]) {
				wantErr = true
			}
			for _, v := range row {
				if math.IsNaN(v) || math.IsInf(v, 1) {
					wantErr = true
				}
			}
		}
		curve, err := PLLCurve(L)
		if (err != nil) != wantErr {
			t.Fatalf("PLLCurve(%v): err = %v, want error: %v", L, err, wantErr)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "diagnostics: ") {
				t.Fatalf("PLLCurve: error without the package prefix: %v", err)
			}
		} else {
			if len(curve) != S {
				t.Fatalf("PLLCurve: %d points for %d draws", len(curve), S)
			}
			for n, v := range curve {
				if math.IsNaN(v) {
					t.Fatalf("PLLCurve(%v)[%d] is NaN", L, n)
				}
			}
			run := NewRunningPLL(len(L[0]))
			for _, row := range L {
				if err := run.Add(row); err != nil {
					t.Fatalf("RunningPLL.Add: %v", err)
				}
			}
			if run.Len() != S {
				t.Fatalf("RunningPLL.Len = %d, want %d", run.Len(), S)
			}
			rc := run.Curve()
			for n := range curve {
				if !fuzzSame(rc[n], curve[n]) {
					t.Fatalf("RunningPLL curve[%d] = %v, PLLCurve %v", n, rc[n], curve[n])
				}
			}
			fuzzCheckConvergence(t, curve)

			T := make([]float64, S)
			jointErr := false
			for s, row := range L {
				for _, v := range row {
					T[s] += v
				}
				if math.IsNaN(T[s]) || math.IsInf(T[s], 1) {
					jointErr = true // e.g. −MaxFloat64 + −MaxFloat64 is fine, MaxFloat64 + MaxFloat64 is not
				}
			}
			joint, err := PLLCurveJoint(T)
			if (err != nil) != jointErr {
				t.Fatalf("PLLCurveJoint(%v): err = %v, want error: %v", T, err, jointErr)
			}
			if err == nil {
				if len(joint) != S {
					t.Fatalf("PLLCurveJoint: %d points for %d draws", len(joint), S)
				}
				for n, v := range joint {
					if math.IsNaN(v) {
						t.Fatalf("PLLCurveJoint(%v)[%d] is NaN", T, n)
					}
				}
				if jc := run.JointCurve(); !jointErr {
					for n := range joint {
						if !fuzzSame(jc[n], joint[n]) && math.Abs(jc[n]-joint[n]) > 1e-9*math.Abs(joint[n]) {
							t.Fatalf("RunningPLL joint[%d] = %v, PLLCurveJoint %v", n, jc[n], joint[n])
						}
					}
				}
				fuzzCheckConvergence(t, joint)
			}
		}

		// Interleave the draws as chains of the rows 0, k, 2k, … and back.
		k := 1 + int(flags>>1)%4
		perChain := make([][][]float64, k)
		for s, row := range L {
			perChain[s%k] = append(perChain[s%k], row)
		}
		il := Interleave(perChain)
		if len(il) != S {
			t.Fatalf("Interleave: %d rows from %d", len(il), S)
		}
		for s := range il {
			if len(il[s]) != len(L[s]) || (len(L[s]) > 0 && &il[s][0] != &L[s][0]) {
				t.Fatalf("Interleave: row %d is not draw %d", s, s)
			}
		}
	})
}

// fuzzCheckConvergence checks SamplesToConvergence against its definition.
func fuzzCheckConvergence(t *testing.T, curve []float64) {
	t.Helper()
	n, err := SamplesToConvergence(curve)
	last := curve[len(curve)-1]
	if finite := !math.IsNaN(last) && !math.IsInf(last, 0); (err == nil) != finite {
		t.Fatalf("SamplesToConvergence(%v): err = %v with final value %v", curve, err, last)
	}
	if err != nil {
		return
	}
	if n < 1 || n > len(curve) {
		t.Fatalf("SamplesToConvergence(%v) = %d, outside 1..%d", curve, n, len(curve))
	}
	in := func(m int) bool { return math.Abs(curve[m-1]-last) <= 0.01*math.Abs(last) }
	for m := n; m <= len(curve); m++ {
		if !in(m) {
			t.Fatalf("SamplesToConvergence(%v) = %d but curve(%d) = %v is outside the band", curve, n, m, curve[m-1])
		}
	}
	if n > 1 && in(n-1) {
		t.Fatalf("SamplesToConvergence(%v) = %d but curve(%d) is already in the band", curve, n, n-1)
	}
}

// TestPLLOverflowThenZeroDensity is the regression test for the fuzzer's
// finding that PLLCurve returned NaN for a draw whose log densities were
// {MaxFloat64, MaxFloat64, −Inf}: the sum over points overflowed to +Inf before
// the −Inf was added. A zero density now makes the curve −Inf, as documented.
func TestPLLOverflowThenZeroDensity(t *testing.T) {
	row := []float64{math.MaxFloat64, math.MaxFloat64, math.Inf(-1)}
	curve, err := PLLCurve([][]float64{row, {0, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(curve[0], -1) {
		t.Fatalf("curve(1) = %v, want -Inf", curve[0])
	}
	if math.IsNaN(curve[1]) {
		t.Fatalf("curve(2) = %v, want a number", curve[1])
	}
	r := NewRunningPLL(3)
	if err := r.Add(row); err != nil {
		t.Fatal(err)
	}
	if j := r.JointCurve(); !math.IsInf(j[0], -1) {
		t.Fatalf("joint(1) = %v, want -Inf", j[0])
	}
}

// TestMedianQuantileNoOverflow is the regression test for the fuzzer's finding
// that the median of draws equal to MaxFloat64 was +Inf: (a+b)/2 overflowed.
func TestMedianQuantileNoOverflow(t *testing.T) {
	M := math.MaxFloat64
	next := math.Nextafter(M, 0)
	x := [][]float64{{M, next, M, next}, {M, M, next, M}}
	med, err := Median(x)
	if err != nil || math.IsInf(med, 0) || med < next || med > M {
		t.Fatalf("Median = %v, %v; want a value in [%v, %v]", med, err, next, M)
	}
	neg := [][]float64{{-M, -M}, {-M, -M}}
	if med, _ := Median(neg); med != -M {
		t.Fatalf("Median of -MaxFloat64 draws = %v", med)
	}
	for _, p := range []float64{0.05, 0.3, 0.5, 0.95} {
		q, err := Quantile(x, p)
		if err != nil || math.IsInf(q, 0) || q < next || q > M {
			t.Fatalf("Quantile(%v) = %v, %v; want a value in [%v, %v]", p, q, err, next, M)
		}
	}
	if med, _ := Median([][]float64{{1, 2}}); med != 1.5 {
		t.Fatalf("Median(1, 2) = %v", med)
	}
}
