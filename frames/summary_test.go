package frames

import (
	"testing"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/draws"
)

func TestWithSamplerStats(t *testing.T) {
	d := &draws.Draws{Names: []string{"a", "b[0]", "b[1]", "c"}, Chains: [][]float64{
		{1, 2, 3, 1, 2, 1, 5, 2, 3, 1, 4, 3, 4, 3, 2, 4},
		{2, 2, 3, 2, 1, 5, 4, 1, 0, 1, 2, 0, 3, 2, 1, 3},
	}}
	rows, err := diagnostics.Summarize(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	df := WithSamplerStats(SummaryDataFrame(rows), []draws.SiteStats{
		{Name: "b[1]", Proposals: 8, Accepted: 4, Fallbacks: 3},
		{Name: "a", Proposals: 8, Accepted: 8, Fallbacks: 0},
		{Name: "b[0]", Proposals: 0, Fallbacks: 0},
	})
	if df.Err != nil {
		t.Fatal(df.Err)
	}
	acc := df.Col("accept_rate").Float()
	fb := df.Col("fallbacks")
	if acc[0] != 1 || !df.Col("accept_rate").Elem(1).IsNA() || acc[2] != 0.5 {
		t.Errorf("accept_rate = %v (b[0] made no proposals: want NA)", acc)
	}
	if !df.Col("accept_rate").Elem(3).IsNA() || !fb.Elem(3).IsNA() {
		t.Errorf("c has no entry: accept_rate %v, fallbacks %v, want NA", acc[3], fb.Elem(3))
	}
	if fb.Elem(1).Val() != 0 || fb.Elem(2).Val() != 3 || fb.Elem(0).Val() != 0 {
		t.Errorf("fallbacks = %v", fb.Records())
	}
	dup := WithSamplerStats(SummaryDataFrame(rows), []draws.SiteStats{{Name: "a"}, {Name: "a"}})
	if dup.Err == nil {
		t.Error("duplicate stats: no error")
	}
}
