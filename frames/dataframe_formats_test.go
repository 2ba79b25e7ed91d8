package frames

import (
	"strings"
	"testing"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// TestFromDataFrameChainsByValue checks that chains are identified by value, in
// increasing order, and that a frame without a draw column keeps its row order.
func TestFromDataFrameChainsByValue(t *testing.T) {
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

// TestFromDataFramePosteriorDraws reads the columns of R posterior's draws_df
// (.chain, .iteration, .draw; 1-based) as written by write.csv(as_draws_df(x)),
// with R's row-name column dropped.
func TestFromDataFramePosteriorDraws(t *testing.T) {
	in := "mu,tau,.chain,.iteration,.draw\n" +
		"1.5,0.1,1,1,1\n2.5,0.2,1,2,2\n3.5,0.3,2,1,3\n4.5,0.4,2,2,4\n"
	df := dataframe.ReadCSV(strings.NewReader(in))
	d, err := FromDataFrame(df)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(d.Names, ",") != "mu,tau" || d.NumChains() != 2 || d.NumDraws(0) != 2 {
		t.Fatalf("names %v, %d chains of %d", d.Names, d.NumChains(), d.NumDraws(0))
	}
	if d.Chains[1][0] != 3.5 || d.Chains[1][3] != 0.4 {
		t.Errorf("chain 1 = %v", d.Chains[1])
	}
}

// TestFromDataFramePosteriorNames checks that a draws_df's 1-based R names are
// converted to 0-based ones, as ReadPosteriorCSV converts them, and that a
// frame with "chain" keeps its names.
func TestFromDataFramePosteriorNames(t *testing.T) {
	in := "theta[1],\"Sigma[2,1]\",.chain,.iteration\n1,2,1,1\n3,4,1,2\n"
	df := dataframe.ReadCSV(strings.NewReader(in))
	d, err := FromDataFrame(df)
	if err != nil {
		t.Fatal(err)
	}
	fromCSV, err := ReadPosteriorCSV(strings.NewReader(in), "in.csv")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(d.Names, ";") != "theta[0];Sigma[1,0]" || fuzzDrawsEqual(d, fromCSV) != "" {
		t.Errorf("FromDataFrame gave %v %v, ReadPosteriorCSV %v %v", d.Names, d.Chains, fromCSV.Names, fromCSV.Chains)
	}
	d, err = FromDataFrame(dataframe.ReadCSV(strings.NewReader("theta[1],chain\n1,0\n")))
	if err != nil || d.Names[0] != "theta[1]" {
		t.Errorf("chain frame: names %v, err %v", d.Names, err)
	}
	_, err = FromDataFrame(dataframe.ReadCSV(strings.NewReader("theta[1],theta[0],.chain\n1,2,1\n")))
	if err == nil || !strings.Contains(err.Error(), `"theta[1]" and "theta[0]" are both "theta[0]"`) {
		t.Errorf("colliding names: err = %v", err)
	}
}

func TestFromDataFrameBadFrames(t *testing.T) {
	read := func(s string) dataframe.DataFrame {
		return dataframe.ReadCSV(strings.NewReader(s), dataframe.DetectTypes(false), dataframe.DefaultType(series.Float))
	}
	bad := []struct {
		name string
		df   dataframe.DataFrame
		msg  string
	}{
		{"no chain", read("draw,mu\n0,1\n1,2\n"), `no "chain"`},
		{"ragged", read("chain,draw,mu\n1,0,1\n1,1,2\n2,0,3\n"), "chain 2 has 1"},
		{"chain not int", read("chain,draw,mu\n1.5,0,1\n"), `"chain"`},
		{"duplicate draw", read("chain,draw,mu\n1,0,1\n1,0,2\n"), "both hold chain 1 draw 0"},
		{"no quantities", read("chain,draw\n1,0\n"), "no parameter columns"},
	}
	for _, b := range bad {
		_, err := FromDataFrame(b.df)
		if err == nil || !strings.Contains(err.Error(), b.msg) || !strings.HasPrefix(err.Error(), "frames: ") {
			t.Errorf("%s: error %v, want one containing %q", b.name, err, b.msg)
		}
	}
	// A string column keeps the original cell text in the message.
	df := dataframe.ReadCSV(strings.NewReader("chain,mu\n1,1.5\n1,oops\n"), dataframe.WithTypes(map[string]series.Type{"mu": series.String}))
	if _, err := FromDataFrame(df); err == nil || !strings.Contains(err.Error(), `"oops"`) {
		t.Errorf("string column: error %v", err)
	}
}
