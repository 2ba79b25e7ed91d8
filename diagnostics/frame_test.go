package diagnostics

import (
	"strings"
	"testing"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

func TestFromDataFrame(t *testing.T) {
	// Chains 7 and 3, rows shuffled; chain 3 must come first, draws in order.
	df := dataframe.New(
		series.New([]int{7, 3, 7, 3, 3, 7}, series.Int, "chain"),
		series.New([]int{1, 2, 0, 0, 1, 2}, series.Int, "draw"),
		series.New([]float64{71, 32, 70, 30, 31, 72}, series.Float, "mu"),
		series.New([]float64{-71, -32, -70, -30, -31, -72}, series.Float, "theta[0]"),
	)
	d, err := FromDataFrame(df)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(d.Names, ",") != "mu,theta[0]" || d.NumChains() != 2 {
		t.Fatalf("names %v, %d chains", d.Names, d.NumChains())
	}
	want := [][]float64{{30, -30, 31, -31, 32, -32}, {70, -70, 71, -71, 72, -72}}
	for c := range want {
		for i := range want[c] {
			if d.Chains[c][i] != want[c][i] {
				t.Fatalf("chain %d = %v, want %v", c, d.Chains[c], want[c])
			}
		}
	}
	// Without a draw column the row order is kept.
	d2, err := FromDataFrame(df.Drop("draw"))
	if err != nil {
		t.Fatal(err)
	}
	if d2.Chains[0][0] != 32 || d2.Chains[1][0] != 71 {
		t.Errorf("row order not kept: %v", d2.Chains)
	}
}

// TestFromDataFrameSummary round-trips W1 through a DataFrame and checks the
// summary against the reference values.
func TestFromDataFrameSummary(t *testing.T) {
	var chain, draw []int
	var v []float64
	for c := range w1 {
		for i, f := range w1[c] {
			chain, draw, v = append(chain, c+1), append(draw, i), append(v, f)
		}
	}
	df := dataframe.New(series.New(chain, series.Int, "chain"), series.New(draw, series.Int, "draw"),
		series.New(v, series.Float, "x"))
	d, err := FromDataFrame(df)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Summarize(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkRef(t, "rhat", rows[0].RHat, 1.013225921)
	checkRef(t, "ess_bulk", rows[0].ESSBulk, 46.19974939)
	checkRef(t, "ess_tail", rows[0].ESSTail, 83.49080914)
	checkRef(t, "mcse_sd", rows[0].MCSESD, 0.06206836976)
}

func TestFromDataFrameErrors(t *testing.T) {
	read := func(s string) dataframe.DataFrame {
		return dataframe.ReadCSV(strings.NewReader(s), dataframe.DetectTypes(false), dataframe.DefaultType(series.Float))
	}
	bad := []struct {
		name string
		df   dataframe.DataFrame
		msg  string
	}{
		{"no chain", read("draw,mu\n0,1\n1,2\n"), "no chain column"},
		{"non-numeric", read("chain,draw,mu\n1,0,1.5\n1,1,abc\n"), `column "mu", row 2 (chain 1): value "NaN" is not a number`},
		{"ragged", read("chain,draw,mu\n1,0,1\n1,1,2\n2,0,3\n"), "chain 2 has 1 draws, chain 1 has 2"},
		{"chain not int", read("chain,draw,mu\n1.5,0,1\n"), `column "chain", row 1: value "1.500000" is not an integer`},
		{"duplicate draw", read("chain,draw,mu\n1,0,1\n1,0,2\n"), "chain 1 has draw 0 twice"},
		{"no quantities", read("chain,draw\n1,0\n"), "no quantity columns"},
		{"gota error", dataframe.DataFrame{Err: errTest}, "test error"},
	}
	for _, b := range bad {
		_, err := FromDataFrame(b.df)
		if err == nil || !strings.Contains(err.Error(), b.msg) || !strings.HasPrefix(err.Error(), "diagnostics: ") {
			t.Errorf("%s: error %v, want one containing %q", b.name, err, b.msg)
		}
	}
	// A string column keeps the original cell text in the message.
	df := dataframe.ReadCSV(strings.NewReader("chain,mu\n1,1.5\n1,oops\n"), dataframe.WithTypes(map[string]series.Type{"mu": series.String}))
	if _, err := FromDataFrame(df); err == nil || !strings.Contains(err.Error(), `value "oops"`) {
		t.Errorf("string column: error %v", err)
	}
}

type testError struct{}

func (testError) Error() string { return "test error" }

var errTest error = testError{}
