package diagnostics

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// W10 of the spec (§13): 16 draws, 3 held-out points.
var w10 = [][]float64{
	{-1.07, -1.21, -0.47}, {-0.28, -1.18, -0.82}, {-1.37, -1.78, -0.72}, {-0.75, -1.46, -0.97},
	{-0.96, -0.51, -1.32}, {-1.83, -0.49, -0.68}, {-1.19, -1.40, -1.52}, {-0.65, -1.42, -1.86},
	{-1.27, -0.69, -1.02}, {-1.74, -0.98, -0.84}, {-0.77, -0.83, 0.04}, {-1.38, -1.54, -1.69},
	{-1.12, -1.04, -1.37}, {-1.82, -0.75, -0.57}, {-0.47, -1.43, -1.76}, {-1.20, -1.20, -0.42},
}

var w10Curve = []float64{-2.75, -2.42358808, -2.809958548, -2.892649706, -2.774149614,
	-2.72061169, -2.879119373, -2.955920752, -2.944343085, -2.982338553, -2.795991892,
	-2.90885492, -2.948099223, -2.938027443, -2.949023295, -2.931377072}

var w10Dist = []float64{0.1813770721, 0.5077889923, 0.1214185243, 0.03872736627, 0.1572274579,
	0.2107653818, 0.05225769936, 0.02454367955, 0.01296601239, 0.05096148057, 0.1353851802,
	0.02252215179, 0.01672215073, 0.006650371353, 0.01764622241, 0}

func TestW10(t *testing.T) {
	curve, err := PLLCurve(w10)
	if err != nil {
		t.Fatal(err)
	}
	if len(curve) != 16 {
		t.Fatalf("curve has %d points, want 16", len(curve))
	}
	for n := range curve {
		checkRef(t, "curve", curve[n], w10Curve[n])
		checkRef(t, "|curve − curve(16)|", math.Abs(curve[n]-curve[15]), w10Dist[n])
	}
	n, err := SamplesToConvergence(curve)
	if err != nil {
		t.Fatal(err)
	}
	if n != 12 {
		t.Errorf("samples to convergence = %d, want 12", n)
	}
	// The streaming accumulator gives the same curve.
	r := NewRunningPLL(3)
	for _, row := range w10 {
		if err := r.Add(row); err != nil {
			t.Fatal(err)
		}
	}
	for i, v := range r.Curve() {
		if v != curve[i] {
			t.Errorf("running curve[%d] = %.17g, batch %.17g", i, v, curve[i])
		}
	}
}

// naivePLL exponentiates directly; fine for moderate log densities.
func naivePLL(L [][]float64) (pointwise, joint []float64) {
	J := len(L[0])
	sums := make([]float64, J)
	var tsum float64
	for n, row := range L {
		var c, tot float64
		for j, v := range row {
			sums[j] += math.Exp(v)
			c += math.Log(sums[j] / float64(n+1))
			tot += v
		}
		tsum += math.Exp(tot)
		pointwise = append(pointwise, c)
		joint = append(joint, math.Log(tsum/float64(n+1)))
	}
	return pointwise, joint
}

func TestPLLAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	L := make([][]float64, 200)
	T := make([]float64, len(L))
	for s := range L {
		L[s] = make([]float64, 4)
		for j := range L[s] {
			L[s][j] = -1 - 3*rng.Float64()
			T[s] += L[s][j]
		}
	}
	wantP, wantJ := naivePLL(L)
	gotP, err := PLLCurve(L)
	if err != nil {
		t.Fatal(err)
	}
	gotJ, err := PLLCurveJoint(T)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRunningPLL(4)
	for _, row := range L {
		if err := r.Add(row); err != nil {
			t.Fatal(err)
		}
	}
	runJ := r.JointCurve()
	for n := range L {
		checkRef(t, "pointwise", gotP[n], wantP[n])
		checkRef(t, "joint", gotJ[n], wantJ[n])
		checkRef(t, "running joint", runJ[n], wantJ[n])
	}
}

// TestPLLExtreme checks that log densities far outside float64's exp range
// neither overflow nor underflow: with every L = c the curve is J·c exactly.
func TestPLLExtreme(t *testing.T) {
	for _, c := range []float64{-5000, 800} {
		L := [][]float64{{c, c}, {c, c}, {c, c}}
		curve, err := PLLCurve(L)
		if err != nil {
			t.Fatal(err)
		}
		for n, v := range curve {
			checkRef(t, "curve", v, 2*c)
			_ = n
		}
		joint, err := PLLCurveJoint([]float64{c, c, c})
		if err != nil {
			t.Fatal(err)
		}
		checkRef(t, "joint", joint[2], c)
	}
	// A density of zero at first: −Inf until a positive density arrives.
	curve, err := PLLCurve([][]float64{{math.Inf(-1)}, {-1}})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(curve[0], -1) {
		t.Errorf("curve(1) = %v, want -Inf", curve[0])
	}
	checkRef(t, "curve(2)", curve[1], -1-math.Log(2))
	if n, err := SamplesToConvergence(curve); err != nil || n != 2 {
		t.Errorf("SamplesToConvergence = %d, %v; want 2", n, err)
	}
}

func TestPLLErrors(t *testing.T) {
	bad := []struct {
		name string
		L    [][]float64
		msg  string
	}{
		{"empty", nil, "no draws"},
		{"ragged", [][]float64{{1, 2}, {1}}, "draw 1 has 1 log densities, want J = 2"},
		{"nan", [][]float64{{-1}, {math.NaN()}}, "draw 1, held-out point 0"},
		{"+inf", [][]float64{{-1, math.Inf(1)}}, "draw 0, held-out point 1"},
		{"no points", [][]float64{{}}, "J = 0"},
	}
	for _, b := range bad {
		_, err := PLLCurve(b.L)
		if err == nil || !strings.Contains(err.Error(), b.msg) || !strings.HasPrefix(err.Error(), "diagnostics: ") {
			t.Errorf("%s: error %v, want one containing %q", b.name, err, b.msg)
		}
	}
	if _, err := PLLCurveJoint(nil); err == nil {
		t.Error("PLLCurveJoint(nil): no error")
	}
	if _, err := PLLCurveJoint([]float64{-1, math.NaN()}); err == nil || !strings.Contains(err.Error(), "draw 1") {
		t.Errorf("PLLCurveJoint with NaN: error %v", err)
	}
	r := NewRunningPLL(2)
	if err := r.Add([]float64{-1, math.NaN()}); err == nil {
		t.Error("Add with NaN: no error")
	}
	if r.Len() != 0 {
		t.Errorf("failed Add changed the accumulator: Len = %d", r.Len())
	}
	if _, err := SamplesToConvergence(nil); err == nil {
		t.Error("SamplesToConvergence(nil): no error")
	}
	if _, err := SamplesToConvergence([]float64{-1, math.Inf(-1)}); err == nil {
		t.Error("SamplesToConvergence with -Inf final value: no error")
	}
}

func TestSamplesToConvergenceCases(t *testing.T) {
	cases := []struct {
		curve []float64
		want  int
	}{
		{[]float64{-5}, 1},
		{[]float64{-10, -10, -10}, 1},
		{[]float64{-10, -10.1, -10}, 1},         // exactly on the band edge counts
		{[]float64{-10, -10.2, -10.05, -10}, 3}, // last violation at n = 2
		{[]float64{1, 0, 0}, 2},                 // c* = 0: only equality counts
		{[]float64{math.Inf(-1), -3, -3}, 2},
	}
	for _, c := range cases {
		got, err := SamplesToConvergence(c.curve)
		if err != nil || got != c.want {
			t.Errorf("SamplesToConvergence(%v) = %d, %v; want %d", c.curve, got, err, c.want)
		}
	}
}

func TestInterleave(t *testing.T) {
	a := [][]float64{{0}, {2}, {4}}
	b := [][]float64{{1}, {3}}
	got := Interleave([][][]float64{a, b})
	want := []float64{0, 1, 2, 3, 4}
	if len(got) != len(want) {
		t.Fatalf("len = %d, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i][0] != want[i] {
			t.Errorf("row %d = %v, want %v", i, got[i][0], want[i])
		}
	}
	if len(Interleave(nil)) != 0 {
		t.Error("Interleave(nil) is not empty")
	}
}
