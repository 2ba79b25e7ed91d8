package diagnostics

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestPLLInterleaved(t *testing.T) {
	// 2 chains × 2 draws × 2 held-out points; interleaved order c0d0, c1d0, c0d1, c1d1.
	heldOut := [][]float64{{-1, -2, -3, -4}, {-5, -6, -7, -8}}
	joint, point, err := PLLInterleaved(heldOut, 2)
	if err != nil {
		t.Fatal(err)
	}
	totals := []float64{-3, -11, -7, -15}
	j1 := []float64{-1, -5, -3, -7}
	j2 := []float64{-2, -6, -4, -8}
	if len(joint) != 4 || len(point) != 4 {
		t.Fatalf("%d and %d curve points, want 4", len(joint), len(point))
	}
	for n := 1; n <= 4; n++ {
		var st, s1, s2 float64
		for i := range n {
			st += math.Exp(totals[i])
			s1 += math.Exp(j1[i])
			s2 += math.Exp(j2[i])
		}
		wantJ := math.Log(st / float64(n))
		wantP := math.Log(s1/float64(n)) + math.Log(s2/float64(n))
		if math.Abs(joint[n-1]-wantJ) > 1e-12 || math.Abs(point[n-1]-wantP) > 1e-12 {
			t.Errorf("n = %d: joint %v pointwise %v, want %v and %v", n, joint[n-1], point[n-1], wantJ, wantP)
		}
	}
	// Only each draw's total kept (one point per draw): the joint curve is the same.
	tot, err := HeldOutTotals(heldOut, 2)
	if err != nil {
		t.Fatal(err)
	}
	jt, pt, err := PLLInterleaved(tot, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range joint {
		if jt[i] != joint[i] || pt[i] != jt[i] {
			t.Errorf("draw %d: joint from totals %v, from points %v; pointwise of totals %v", i, jt[i], joint[i], pt[i])
		}
	}
}

func TestPLLPerChain(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 1))
	const n, draws = 3, 20
	h := make([][]float64, 2)
	for c := range h {
		h[c] = make([]float64, draws*n)
		for i := range h[c] {
			h[c][i] = -1 - rng.Float64()
		}
	}
	tot, err := HeldOutTotals(h, n)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tot[1][4], h[1][12]+h[1][13]+h[1][14]; got != want {
		t.Errorf("total of chain 1 draw 4 = %v, want %v", got, want)
	}
	joint, point, err := PLLPerChain(h, n)
	if err != nil {
		t.Fatal(err)
	}
	if len(joint) != 2 || len(point) != 2 || len(joint[1]) != draws || len(point[1]) != draws {
		t.Fatalf("curves of %d and %d chains, want 2 of %d draws", len(joint), len(point), draws)
	}
	// Direct evaluation over the first 10 draws of chain 1: log of the mean of
	// exp(total), and Σ_j log of the mean of exp(value of point j).
	var sum float64
	wantP := 0.0
	for j := range n {
		var s float64
		for d := range 10 {
			s += math.Exp(h[1][d*n+j])
		}
		wantP += math.Log(s / 10)
	}
	for s := range 10 {
		sum += math.Exp(tot[1][s])
	}
	if got, want := joint[1][9], math.Log(sum/10); math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("joint PLL of chain 1 after 10 draws = %.15g, want %.15g", got, want)
	}
	if got := point[1][9]; math.Abs(got-wantP) > 1e-12*math.Abs(wantP) {
		t.Errorf("pointwise PLL of chain 1 after 10 draws = %.15g, want %.15g", got, wantP)
	}

	for _, tc := range []struct {
		h    [][]float64
		n    int
		want string
	}{
		{h, 0, "0 held-out points"},
		{[][]float64{{1, 2, 3}, {1, 2}}, 3, "chain 1 has 2 values, not a whole number of draws of 3 points"},
	} {
		if _, err := HeldOutTotals(tc.h, tc.n); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("HeldOutTotals: error %v, want it to contain %q", err, tc.want)
		}
		if _, _, err := PLLPerChain(tc.h, tc.n); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("PLLPerChain: error %v, want it to contain %q", err, tc.want)
		}
		if _, _, err := PLLInterleaved(tc.h, tc.n); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("PLLInterleaved: error %v, want it to contain %q", err, tc.want)
		}
	}
	if _, _, err := PLLPerChain([][]float64{{-1, -2}, {math.NaN(), -1}}, 2); err == nil || !strings.HasPrefix(err.Error(), "diagnostics: held-out pll: chain 1: ") {
		t.Errorf("NaN log-likelihood: error %v, want one naming chain 1", err)
	}
	if _, _, err := PLLInterleaved(nil, 2); err == nil {
		t.Error("PLLInterleaved of no chains: no error")
	}
}

func TestCompareExact(t *testing.T) {
	t.Parallel()
	rows := []SummaryRow{{Variable: "mu", Mean: 1.1, MCSEMean: 0.02, SD: 0.5}, {Variable: "p", Mean: 0.3, MCSEMean: 0.01, SD: 0.1}}
	cs, err := CompareExact(rows, []Reference{{"p", 0.2, 0.1}, {"mu", 1.0, 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Variable != "p" || math.Abs(cs[0].Z-10) > 1e-9 || math.Abs(cs[1].Z-5) > 1e-9 ||
		cs[1].SD != 0.5 || cs[1].ExactSD != 0.5 || cs[0].MCSE != 0.01 || cs[0].ExactMean != 0.2 {
		t.Errorf("comparisons %+v", cs)
	}
	if _, err := CompareExact(rows, []Reference{{"sigma", 1, 1}}); err == nil || !strings.Contains(err.Error(), "sigma") {
		t.Errorf("unknown reference: error %v", err)
	}
}

// TestPLLInterleavedFinal: the joint curve and the pointwise curve's last value are
// PLLInterleaved's bit for bit (chains of different lengths, log densities spread
// over 1400 nats, a density 0 at one draw, a point with densities 0 only), and its
// errors are PLLInterleaved's.
func TestPLLInterleavedFinal(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 2))
	const n = 7
	h := [][]float64{make([]float64, 30*n), make([]float64, 25*n), make([]float64, 31*n)}
	for c := range h {
		for i := range h[c] {
			h[c][i] = -700 * rng.Float64() * rng.Float64()
		}
	}
	h[1][3*n+2] = math.Inf(-1)
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	check := func(name string, h [][]float64) {
		joint, point, err := PLLInterleaved(h, n)
		if err != nil {
			t.Fatal(err)
		}
		fj, fp, err := PLLInterleavedFinal(h, n)
		if err != nil {
			t.Fatal(err)
		}
		if len(fj) != len(joint) {
			t.Fatalf("%s: joint curve of %d draws, want %d", name, len(fj), len(joint))
		}
		for i := range joint {
			if !same(fj[i], joint[i]) {
				t.Errorf("%s: joint[%d] %v, want %v", name, i, fj[i], joint[i])
			}
		}
		if !same(fp, point[len(point)-1]) {
			t.Errorf("%s: final pointwise %v, want %v", name, fp, point[len(point)-1])
		}
	}
	check("spread", h)
	for c := range h {
		for s := 0; s < len(h[c])/n; s++ {
			h[c][s*n+4] = math.Inf(-1)
		}
	}
	check("a point of density 0", h)

	for _, bad := range []struct {
		h [][]float64
		n int
	}{{h, 0}, {[][]float64{{1, 2, 3}}, 2}, {[][]float64{{}}, 2}, {[][]float64{{-1, math.NaN()}}, 2}, {[][]float64{{-1, -2}, {math.Inf(1), -1}}, 2}} {
		_, _, want := PLLInterleaved(bad.h, bad.n)
		_, _, err := PLLInterleavedFinal(bad.h, bad.n)
		if want == nil || err == nil || err.Error() != want.Error() {
			t.Errorf("h %v, n %d: error %v, want %v", bad.h, bad.n, err, want)
		}
	}
}
