package diagnostics

import (
	"math"
	"testing"
)

// FuzzLOO decodes fuzzer bytes into a log-likelihood matrix (NaN, ±Inf, huge
// values, ties, ragged chains, no chains) of 1 to 4 observations. LOO, WAIC
// and RelativeEff must return an error exactly for a bad shape or a
// non-finite value, and otherwise one result per observation with r_eff in
// (0, log10 S] and k̂ not NaN, never a panic.
func FuzzLOO(f *testing.F) {
	f.Add([]byte{2, 30, 0, 1, 5, 1, 7, 3, 4, 3, 250, 0, 1, 5, 200, 6, 1, 2, 3}, uint8(2))
	f.Add([]byte{1, 63, 0, 3, 200, 3, 1, 3, 9, 3, 250}, uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, nb uint8) {
		r := &fuzzBytes{b: data}
		N := int(nb%4) + 1
		x := r.matrix()
		ll := LogLik{N: N}
		bad := len(x) == 0
		for _, ch := range x {
			// chain c holds its draws' values for all N observations
			vals := make([]float64, 0, len(ch)*N)
			for _, v := range ch {
				for i := range N {
					vals = append(vals, v-float64(i)/8)
				}
			}
			ll.Chains = append(ll.Chains, vals)
			bad = bad || len(ch) < 2 || len(ch) != len(x[0])
			for _, v := range ch {
				bad = bad || math.IsNaN(v) || math.IsInf(v, 0)
			}
		}
		res, err := LOO(ll)
		_, werr := WAIC(ll)
		reff, rerr := RelativeEff(ll)
		if bad != (werr != nil) || bad != (rerr != nil) {
			t.Fatalf("bad input %v: WAIC error %v, RelativeEff error %v", bad, werr, rerr)
		}
		if bad {
			if err == nil {
				t.Fatal("LOO accepted bad input")
			}
			return
		}
		if err != nil {
			t.Fatalf("LOO: %v", err)
		}
		S := float64(len(x) * len(x[0]))
		if len(res.Pointwise) != N || len(reff) != N {
			t.Fatalf("%d pointwise values, %d r_eff, want %d", len(res.Pointwise), len(reff), N)
		}
		for i, r := range reff {
			if !(r > 0 && r <= math.Log10(S)*(1+1e-12)) {
				t.Errorf("r_eff[%d] = %v, S = %v", i, r, S)
			}
		}
		for i, p := range res.Pointwise {
			if math.IsNaN(p.ParetoK) {
				t.Errorf("k̂[%d] is NaN", i)
			}
		}
		_ = res.Format()
	})
}
