package diagnostics

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestBadInput(t *testing.T) {
	for name, f := range quantities {
		if _, err := f(nil); !errors.Is(err, ErrNoChains) {
			t.Errorf("%s(nil): error %v, want ErrNoChains", name, err)
		}
		_, err := f([][]float64{{1, 2, 3, 4, 5, 6}, {1, 2, 3}})
		if err == nil || !strings.Contains(err.Error(), "ragged chains: chain 1 has 3 draws, chain 0 has 6") {
			t.Errorf("%s(ragged): error %v", name, err)
		}
		_, err = f([][]float64{{1, 2}, {}})
		if err == nil || !strings.Contains(err.Error(), "chain 1 has no draws") {
			t.Errorf("%s(empty chain): error %v", name, err)
		}
	}
	pfuncs := map[string]func([][]float64, float64) (float64, error){
		"Quantile": Quantile, "ESSQuantile": ESSQuantile, "MCSEQuantile": MCSEQuantile,
	}
	for name, f := range pfuncs {
		for _, p := range []float64{-0.01, 1.01, math.NaN(), math.Inf(1)} {
			v, err := f(w1, p)
			if err == nil || !strings.HasPrefix(err.Error(), "diagnostics: probability p = ") || !math.IsNaN(v) {
				t.Errorf("%s(p = %v) = %v, %v; want NaN and an error", name, p, v, err)
			}
		}
		for _, p := range []float64{0, 1} {
			if _, err := f(w1, p); err != nil {
				t.Errorf("%s(p = %v): %v", name, p, err)
			}
		}
	}
}

// TestQuantileEnds checks p = 0 and p = 1 (min, max; ESS with the
// (S − 0.5)/S substitution is then finite for W1).
func TestQuantileEnds(t *testing.T) {
	lo, _ := Quantile(w1, 0)
	hi, _ := Quantile(w1, 1)
	if lo != -1.66 || hi != 2.40 {
		t.Errorf("Quantile 0, 1 = %v, %v", lo, hi)
	}
	e1, _ := ESSQuantile(w1, 1)
	if math.IsNaN(e1) || e1 <= 0 {
		t.Errorf("ESSQuantile(w1, 1) = %v, want a positive number", e1)
	}
}

// allFinite fails unless every named quantity is finite for x.
func allFinite(t *testing.T, what string, x [][]float64, names ...string) {
	t.Helper()
	for _, n := range names {
		v, err := quantities[n](x)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("%s: %s = %v, %v; want a finite number", what, n, v, err)
		}
	}
}

// allNaN fails unless every named quantity is NaN for x.
func allNaN(t *testing.T, what string, x [][]float64, names ...string) {
	t.Helper()
	for _, n := range names {
		v, err := quantities[n](x)
		if err != nil || !math.IsNaN(v) {
			t.Errorf("%s: %s = %v, %v; want NaN", what, n, v, err)
		}
	}
}

var diagNames = []string{"rhat", "rhat_basic", "ess_bulk", "ess_tail", "ess_basic", "ess_q05",
	"ess_q50", "ess_q95", "ess_sd", "mcse_mean", "mcse_sd", "mcse_q05", "mcse_q50", "mcse_q95"}

// TestEdgeCases follows the consolidated table of spec §9.2.
func TestEdgeCases(t *testing.T) {
	// Every chain constant, with different values.
	stuck := make([][]float64, 4)
	for c := range stuck {
		stuck[c] = make([]float64, 20)
		for i := range stuck[c] {
			stuck[c][i] = float64(c)
		}
	}
	for _, n := range []string{"rhat", "rhat_basic"} {
		if v, _ := quantities[n](stuck); !math.IsInf(v, 1) {
			t.Errorf("every chain constant: %s = %v, want +Inf", n, v)
		}
	}
	allFinite(t, "every chain constant", stuck, "ess_bulk", "ess_basic", "mcse_mean", "mcse_sd", "mean", "sd", "median", "mad")

	// Any NaN draw: everything NaN.
	withNaN := copyDraws(w1)
	withNaN[2][7] = math.NaN()
	allNaN(t, "NaN draw", withNaN, append(diagNames, "mean", "median", "sd", "mad", "q5", "q95")...)
	// A NaN that is a dropped middle draw still makes everything NaN.
	odd := make([][]float64, 4)
	for c := range odd {
		odd[c] = append([]float64(nil), w1[c][:19]...)
	}
	odd[0][9] = math.NaN()
	allNaN(t, "NaN middle draw", odd, "rhat", "ess_tail", "ess_q50", "ess_sd", "mcse_mean", "mcse_sd",
		"mcse_q50", "mean", "median", "sd", "mad")
	// …except where posterior tests only the split draws (spec §3, §7), which
	// drop it: rhat_basic, ess_basic and ess_bulk equal those without it.
	for _, n := range []string{"rhat_basic", "ess_basic", "ess_bulk"} {
		got, _ := quantities[n](odd)
		clean := copyDraws(odd)
		clean[0][9] = 123 // any finite value: the draw is dropped by the split
		want, _ := quantities[n](clean)
		if !sameFloat(got, want) || math.IsNaN(want) {
			t.Errorf("NaN middle draw: %s = %v, want %v", n, got, want)
		}
	}

	// Both infinite signs: mean NaN; rank-based diagnostics finite.
	inf2 := copyDraws(w1)
	inf2[0][0], inf2[3][5] = math.Inf(1), math.Inf(-1)
	allNaN(t, "±Inf", inf2, "mean", "sd", "rhat_basic", "ess_tail", "ess_basic", "mcse_mean", "mcse_sd", "mcse_q50")
	allFinite(t, "±Inf", inf2, "rhat", "ess_bulk", "median", "mad", "q5", "q95")

	// Single chain: computed from its halves.
	allFinite(t, "single chain", [][]float64{w1[0]}, diagNames...)

	// N = 4 or 5: R-hat computed, every ESS and MCSE NaN.
	for _, n := range []int{4, 5} {
		x := fill(l28, 4, n)
		allFinite(t, "N = 4, 5", x, "rhat", "rhat_basic", "mean", "sd", "median", "mad", "q5", "q95")
		allNaN(t, "N = 4, 5", x, "ess_bulk", "ess_tail", "ess_basic", "ess_sd", "mcse_mean", "mcse_sd", "mcse_q50")
	}
	// 6 ≤ N ≤ 11: ESS exactly M·N' (τ̂ = 2).
	for n := 6; n <= 11; n++ {
		x := make([][]float64, 4)
		for c := range x {
			x[c] = w1[c][:n]
		}
		for _, name := range []string{"ess_bulk", "ess_basic"} {
			if v, _ := quantities[name](x); v != float64(4*(n/2)) {
				t.Errorf("N = %d: %s = %v, want %d", n, name, v, 4*(n/2))
			}
		}
	}
	// N ≤ 3: every diagnostic NaN, statistics computed.
	allNaN(t, "N = 3", fill(l28, 4, 3), diagNames...)
	allFinite(t, "N = 3", fill(l28, 4, 3), "mean", "sd", "median", "mad", "q5", "q95")
	// A single draw: sd NaN (S = 1), other statistics are the draw.
	one := [][]float64{{1.5}}
	allNaN(t, "one draw", one, append(diagNames, "sd")...)
	for _, n := range []string{"mean", "median", "q5", "q95"} {
		if v, _ := quantities[n](one); v != 1.5 {
			t.Errorf("one draw: %s = %v", n, v)
		}
	}
	if v, _ := MAD(one); v != 0 {
		t.Errorf("one draw: mad = %v", v)
	}
}

// TestRHatDetectsStuckChain is a behavioural check: shifting one chain
// raises R-hat far above 1.01, while well-mixed AR(1) chains stay near 1.
func TestRHatDetectsStuckChain(t *testing.T) {
	d := randomDraws(4, 1000, 1, 11)
	x := d.Column(0) // φ = −0.5: well mixed
	r, _ := RHat(x)
	if r > 1.01 {
		t.Errorf("well-mixed chains: rhat = %v", r)
	}
	for i := range x[2] {
		x[2][i] += 2
	}
	if r, _ := RHat(x); r < 1.1 {
		t.Errorf("shifted chain: rhat = %v, want > 1.1", r)
	}
}
