package diagnostics

import (
	"math"
	"testing"
)

// Worked examples W1–W9 of the diagnostics spec (§12); reference values are
// the outputs of R posterior 1.4.0 listed there.

var w1 = [][]float64{
	{-0.63, -0.23, -0.81, 0.79, 0.74, -0.21, 0.26, 0.75, 0.91, 0.30, 1.39, 1.15, 0.19, -1.66, -0.09, -0.09, -0.07, 0.71, 1.09, 1.13},
	{0.92, 1.18, 0.77, -1.13, -0.18, -0.15, -0.22, -1.31, -1.17, -0.37, 0.87, 0.44, 0.57, 0.30, -0.92, -0.88, -0.85, -0.56, 0.55, 0.94},
	{-0.16, -0.30, 0.38, 0.67, -0.15, -0.65, -0.10, 0.55, 0.24, 0.85, 0.83, 0.01, 0.28, -0.74, 0.70, 2.01, 0.91, -0.29, 0.28, 0.06},
	{2.40, 1.41, 1.40, 0.86, -0.08, 0.10, -1.38, 0.34, 0.33, 1.94, 1.54, 0.36, 0.70, -0.33, -1.20, -0.49, -0.65, -0.39, -0.17, -0.58},
}

var w5 = [][]float64{
	{1, 2, 1, 1, 3, 2, 1, 1, 1, 1, 3, 1},
	{0, 1, 0, 1, 0, 0, 0, 1, 2, 3, 3, 3},
	{2, 2, 3, 3, 2, 1, 2, 3, 3, 3, 3, 3},
	{0, 0, 0, 0, 2, 1, 1, 3, 2, 2, 1, 1},
}

var w6 = [][]float64{{-0.36, 0.69, -0.95, 0.60, 0.07, 1.14, 0.16, -0.18, 0.99, -0.62, 0.77, -1.10, 1.87, -2.21, 0.65, -0.45, -0.67, 0.33, -0.95, -1.67, 0.50}}

var w8 = [][]float64{
	{-0.57, 0.55, -0.98, 0.52, -0.14, -0.15, 0.54, -0.32, 0.29, -0.58, 0.30, -0.39, -0.09, 0.01, -0.35, 0.34, -0.39, 0.63, -0.78, 0.55, -0.72, 0.68, -0.78, 0.85, -0.78, 0.75, -0.76, 0.50, -0.54, 0.22},
	{-0.54, 0.23, -0.01, -0.46, 0.18, -0.02, -0.03, 0.50, -0.66, 0.52, -0.98, 0.94, -0.63, 0.33, -0.05, -0.06, -0.60, 0.84, -0.58, 0.61, -0.35, 0.26, -0.49, 0.62, -0.54, 0.68, -0.69, 0.79, -0.30, 0.30},
}

var l28 = []float64{0.3, 1.1, -0.4, 2.2, 0.9, -1.3, 0.05, 1.7, -0.8, 0.6, 1.4, -2.1, 0.2, 0.75,
	-0.15, 1.9, -0.6, 0.45, 1.25, -1.1, 0.85, 0.1, -0.35, 2.4, 0.55, -0.9, 1.05, 0.0}

// copyDraws returns a deep copy of x.
func copyDraws(x [][]float64) [][]float64 {
	out := make([][]float64, len(x))
	for i, c := range x {
		out[i] = append([]float64(nil), c...)
	}
	return out
}

// fill returns m chains of n draws holding the first m·n values of v, chain 1 first.
func fill(v []float64, m, n int) [][]float64 {
	out := make([][]float64, m)
	for c := range m {
		out[c] = append([]float64(nil), v[c*n:(c+1)*n]...)
	}
	return out
}

// quantities maps the spec's names to the package's functions.
var quantities = map[string]func([][]float64) (float64, error){
	"rhat":       RHat,
	"rhat_basic": RHatBasic,
	"ess_bulk":   ESSBulk,
	"ess_tail":   ESSTail,
	"ess_basic":  ESSBasic,
	"ess_mean":   ESSMean,
	"ess_q05":    func(x [][]float64) (float64, error) { return ESSQuantile(x, 0.05) },
	"ess_q50":    ESSMedian,
	"ess_q95":    func(x [][]float64) (float64, error) { return ESSQuantile(x, 0.95) },
	"ess_sd":     ESSSD,
	"mcse_mean":  MCSEMean,
	"mcse_sd":    MCSESD,
	"mcse_q05":   func(x [][]float64) (float64, error) { return MCSEQuantile(x, 0.05) },
	"mcse_q50":   MCSEMedian,
	"mcse_q95":   func(x [][]float64) (float64, error) { return MCSEQuantile(x, 0.95) },
	"mean":       Mean,
	"median":     Median,
	"sd":         SD,
	"mad":        MAD,
	"q5":         func(x [][]float64) (float64, error) { return Quantile(x, 0.05) },
	"q95":        func(x [][]float64) (float64, error) { return Quantile(x, 0.95) },
}

// checkRef fails unless got matches ref to 1e-9·max(1, |ref|), with NaN and
// ±Inf matched exactly.
func checkRef(t *testing.T, what string, got, ref float64) {
	t.Helper()
	switch {
	case math.IsNaN(ref):
		if !math.IsNaN(got) {
			t.Errorf("%s = %.17g, want NaN", what, got)
		}
	case math.IsInf(ref, 0):
		if got != ref {
			t.Errorf("%s = %.17g, want %v", what, got, ref)
		}
	default:
		if math.IsNaN(got) || math.Abs(got-ref) > 1e-9*max(1, math.Abs(ref)) {
			t.Errorf("%s = %.17g, want %.10g (diff %.3g)", what, got, ref, got-ref)
		}
	}
}

func checkAll(t *testing.T, x [][]float64, want map[string]float64) {
	t.Helper()
	orig := copyDraws(x)
	for name, ref := range want {
		f, ok := quantities[name]
		if !ok {
			t.Fatalf("unknown quantity %q in test table", name)
		}
		got, err := f(x)
		if err != nil {
			t.Errorf("%s: unexpected error %v", name, err)
			continue
		}
		checkRef(t, name, got, ref)
	}
	for c := range x {
		for i := range x[c] {
			if math.Float64bits(x[c][i]) != math.Float64bits(orig[c][i]) {
				t.Fatalf("input modified at chain %d draw %d", c, i)
			}
		}
	}
}

var nan = math.NaN()

func TestW1(t *testing.T) {
	checkAll(t, w1, map[string]float64{
		"rhat": 1.013225921, "rhat_basic": 1.017321875, "ess_bulk": 46.19974939,
		"ess_tail": 83.49080914, "ess_basic": 46.23314157, "ess_mean": 46.23314157,
		"ess_q05": 117.5438596, "ess_q50": 52.30238857, "ess_q95": 83.49080914,
		"ess_sd": 79.4082556, "mcse_mean": 0.121081368, "mcse_sd": 0.06206836976,
		"mcse_q05": 0.23, "mcse_q50": 0.205, "mcse_q95": 0.38, "mean": 0.198875,
		"median": 0.25, "sd": 0.823292239, "mad": 0.808017, "q5": -1.1715, "q95": 1.4165,
	})
}

func TestW2(t *testing.T) {
	x := copyDraws(w1)
	for i := range x[3] {
		x[3][i] = 0.5
	}
	checkAll(t, x, map[string]float64{
		"rhat": 1.551276816, "rhat_basic": 1.016222417, "ess_bulk": 47.48768496,
		"ess_tail": 60.55320209, "ess_basic": 47.36042909, "ess_q05": 64.21875,
		"ess_q50": 53.15594527, "ess_q95": 60.55320209,
		"mcse_mean": 0.09635081996, "mcse_sd": 0.06467246423, "mcse_q05": 0.25,
		"mcse_q50": 0.1, "mcse_q95": 0.135, "mean": 0.2475, "median": 0.5,
		"sd": 0.6630758782, "mad": 0.504084, "q5": -0.9305, "q95": 1.131,
	})
	q, err := newQuantity(x)
	if err != nil {
		t.Fatal(err)
	}
	bulk, tail := q.rhatParts()
	checkRef(t, "rhat_bulk", bulk, 0.9902906602)
	checkRef(t, "rhat_tail", tail, 1.551276816)
}

func TestW3Constant(t *testing.T) {
	x := make([][]float64, 4)
	for c := range x {
		x[c] = make([]float64, 20)
		for i := range x[c] {
			x[c][i] = 2.5
		}
	}
	want := map[string]float64{"mean": 2.5, "median": 2.5, "q5": 2.5, "q95": 2.5, "sd": 0, "mad": 0}
	for name := range quantities {
		if _, ok := want[name]; !ok {
			want[name] = nan
		}
	}
	checkAll(t, x, want)
}

func TestW4(t *testing.T) {
	x := make([][]float64, 4)
	for c := range x {
		x[c] = append([]float64(nil), w1[c][:10]...)
	}
	checkAll(t, x, map[string]float64{
		"rhat": 1.133936519, "rhat_basic": 1.115421313,
		"ess_bulk": 20, "ess_tail": 20, "ess_basic": 20, "ess_q05": 20, "ess_q50": 20, "ess_q95": 20,
		"mcse_mean": 0.1892776755, "mcse_sd": 0.1329065253, "mcse_q05": 0.365,
		"mcse_q50": 0.265, "mcse_q95": 0.515, "mean": 0.2215, "median": 0.25,
		"sd": 0.8464754983, "mad": 0.756126, "q5": -1.177, "q95": 1.4365,
	})
}

func TestW5Ties(t *testing.T) {
	checkAll(t, w5, map[string]float64{
		"rhat": 1.389737422, "rhat_basic": 1.373605639, "ess_bulk": 19.11455737,
		"ess_basic": 19.42446043, "ess_q05": 20.39134912, "ess_q50": 24.26966292,
		"ess_q95": nan, "ess_tail": nan,
		"mcse_mean": 0.2472534312, "mcse_sd": 0.07658494468, "mcse_q05": 0,
		"mcse_q50": 0.5, "mcse_q95": nan, "mean": 1.5625, "median": 1,
		"sd": 1.089724736, "mad": 1.4826, "q5": 0, "q95": 3,
	})
}

func TestW6Antithetic(t *testing.T) {
	checkAll(t, w6, map[string]float64{
		"rhat": 1.119872278, "rhat_basic": 1.019598685, "ess_bulk": 21.41057972,
		"ess_tail": 14.68189233, "ess_basic": 26.02059991, "ess_q05": 14.68189233,
		"ess_q50": 26.02059991, "ess_q95": 25.64102564,
		"mcse_mean": 0.1951114627, "mcse_sd": 0.2065836479, "mcse_q05": 0.63,
		"mcse_q50": 0.39, "mcse_q95": 0.55, "mean": -0.06619047619, "median": 0.07,
		"sd": 0.9952712002, "mad": 1.022994, "q5": -1.67, "q95": 1.14,
	})
}

func TestW7Inf(t *testing.T) {
	x := copyDraws(w1)
	x[1][2] = math.Inf(1)
	checkAll(t, x, map[string]float64{
		"rhat": 1.027591932, "ess_bulk": 48.83404873,
		"rhat_basic": nan, "ess_tail": nan, "ess_basic": nan, "ess_q05": nan,
		"ess_q50": nan, "ess_q95": nan, "ess_sd": nan, "mcse_mean": nan, "mcse_sd": nan,
		"mcse_q05": nan, "mcse_q50": nan, "mcse_q95": nan,
		"mean": math.Inf(1), "sd": nan, "median": 0.25, "mad": 0.837669,
		"q5": -1.1715, "q95": 1.56,
	})
}

func TestW8Cap(t *testing.T) {
	capped := 60 * math.Log10(60)
	checkAll(t, w8, map[string]float64{
		"ess_bulk": capped, "ess_basic": capped, "ess_q50": capped,
		"rhat": 1.053577366, "rhat_basic": 0.9704884681, "ess_tail": 77.16823406,
		"ess_q05": 77.16823406, "ess_q95": 79.14110429,
		"mcse_mean": 0.05315490111, "mcse_sd": 0.04148238558, "mcse_q05": 0.11,
		"mcse_q50": 0.065, "mcse_q95": 0.08, "mean": -0.02966666667, "median": -0.04,
		"sd": 0.5490391196, "mad": 0.793191, "q5": -0.78, "q95": 0.7925,
	})
	checkRef(t, "60·log10(60)", capped, 106.689075)
}

func TestW9FewDraws(t *testing.T) {
	type row struct {
		m, n                                                 int
		rhat, rhatBasic, bulk, tail, basic, mcseMean, mcseSD float64
	}
	rows := []row{
		{1, 1, nan, nan, nan, nan, nan, nan, nan},
		{1, 2, nan, nan, nan, nan, nan, nan, nan},
		{1, 3, nan, nan, nan, nan, nan, nan, nan},
		{1, 4, 1.932361682, 0.7147102985, nan, nan, nan, nan, nan},
		{1, 5, 0.8995624064, 1.05838163, nan, nan, nan, nan, nan},
		{1, 6, 1.066643759, 0.8282032224, 3, 3, 3, 0.7067924416, 0.3363169652},
		{1, 7, 0.9138644462, 0.8829113406, 3, nan, 3, 0.6515853682, 0.349664244},
		{4, 1, nan, nan, nan, nan, nan, nan, nan},
		{4, 2, nan, nan, nan, nan, nan, nan, nan},
		{4, 3, nan, nan, nan, nan, nan, nan, nan},
		{4, 4, 1.030526973, 0.7960260589, nan, nan, nan, nan, nan},
		{4, 5, 0.9694589592, 0.8636399806, nan, nan, nan, nan, nan},
		{4, 6, 0.9366056394, 0.835694744, 12, 12, 12, 0.3275120079, 0.1983971701},
		{4, 7, 0.8675462223, 0.8659413843, 12, 12, 12, 0.3135581732, 0.1955830285},
	}
	for _, r := range rows {
		x := fill(l28, r.m, r.n)
		checkAll(t, x, map[string]float64{
			"rhat": r.rhat, "rhat_basic": r.rhatBasic, "ess_bulk": r.bulk,
			"ess_tail": r.tail, "ess_basic": r.basic, "mcse_mean": r.mcseMean,
			"mcse_sd": r.mcseSD,
		})
		if t.Failed() {
			t.Fatalf("M=%d N=%d failed", r.m, r.n)
		}
	}
}
