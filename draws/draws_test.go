package draws

import (
	"reflect"
	"strings"
	"testing"
)

func TestSelect(t *testing.T) {
	t.Parallel()
	d := &Draws{Names: []string{"alpha", "beta[0]", "beta[1]", "betax", "sigma"},
		Chains: [][]float64{{1, 2, 3, 4, 5, 11, 12, 13, 14, 15}, {21, 22, 23, 24, 25}}}
	s, err := Select(d, "sigma", "beta", "beta[1]")
	if err != nil {
		t.Fatal(err)
	}
	want := &Draws{Names: []string{"sigma", "beta[0]", "beta[1]"}, Chains: [][]float64{{5, 2, 3, 15, 12, 13}, {25, 22, 23}}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("Select = %+v, want %+v", s, want)
	}
	s.Chains[0][0] = -1
	if d.Chains[0][4] != 5 {
		t.Error("Select shares memory with its input")
	}
	if _, err := Select(d, "gamma"); err == nil || !strings.Contains(err.Error(), `"gamma"`) {
		t.Errorf("unknown selector: error %v", err)
	}
	if _, err := Select(d); err == nil {
		t.Error("no selectors: no error")
	}
	if _, err := Select(&Draws{Names: []string{"a"}, Chains: [][]float64{{1, 2}}}, "a"); err != nil {
		t.Error(err)
	}
}
