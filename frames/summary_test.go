package frames

import (
	"math"
	"testing"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/draws"
)

func TestWithSamplerStats(t *testing.T) {
	d := &draws.Draws{Names: []string{"a", "b[0]", "b[1]"}, Chains: [][]float64{{1, 2, 3, 2, 1, 5, 3, 1, 4, 4, 3, 2}, {2, 2, 3, 1, 5, 4, 0, 1, 2, 3, 2, 1}}}
	rows, err := diagnostics.Summarize(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	df := WithSamplerStats(SummaryDataFrame(rows), []diagnostics.SamplerStat{
		{Variable: "b[1]", AcceptRate: 0.5, Fallbacks: 3},
		{Variable: "a", AcceptRate: 1, Fallbacks: 0},
	})
	if df.Err != nil {
		t.Fatal(df.Err)
	}
	acc := df.Col("accept_rate").Float()
	fb := df.Col("fallbacks")
	if acc[0] != 1 || !math.IsNaN(acc[1]) || acc[2] != 0.5 {
		t.Errorf("accept_rate = %v", acc)
	}
	if !fb.Elem(1).IsNA() || fb.Elem(2).Val() != 3 || fb.Elem(0).Val() != 0 {
		t.Errorf("fallbacks = %v", fb.Records())
	}
	dup := WithSamplerStats(SummaryDataFrame(rows), []diagnostics.SamplerStat{{Variable: "a"}, {Variable: "a"}})
	if dup.Err == nil {
		t.Error("duplicate stats: no error")
	}
}
