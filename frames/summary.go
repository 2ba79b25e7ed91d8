package frames

import (
	"fmt"
	"slices"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/draws"
)

// SummaryDataFrame returns diagnostics summary rows as a gota DataFrame with the columns
// variable mean median sd mad q5 q95 rhat ess_bulk ess_tail mcse_mean mcse_sd,
// where the quantile columns follow the rows' Quantiles (see SummaryRow).
// Undefined values are NaN.
func SummaryDataFrame(rows []diagnostics.SummaryRow) dataframe.DataFrame {
	vars := make([]string, len(rows))
	for i, r := range rows {
		vars[i] = r.Variable
	}
	names, vals := diagnostics.SummaryColumns(rows)
	cols := []series.Series{series.New(vars, series.String, "variable")}
	for j, name := range names {
		cols = append(cols, series.New(vals[j], series.Float, name))
	}
	return dataframe.New(cols...)
}

// WithSamplerStats returns df with two columns appended: accept_rate (float,
// Accepted/Proposals, NA without proposals) and fallbacks (int), matched to rows
// by the variable column: the entry whose Name is the row's variable, so a site
// covering several scalar quantities is given once per quantity name. Rows
// without an entry get NA in both. If df has no variable column, or a name
// appears twice in stats, the returned DataFrame has its Err set.
func WithSamplerStats(df dataframe.DataFrame, stats []draws.SiteStats) dataframe.DataFrame {
	if df.Err != nil {
		return df
	}
	if !slices.Contains(df.Names(), "variable") {
		return dataframe.DataFrame{Err: fmt.Errorf("frames: sampler stats: data frame has no variable column")}
	}
	byName := make(map[string]draws.SiteStats, len(stats))
	for i, s := range stats {
		if _, dup := byName[s.Name]; dup {
			return dataframe.DataFrame{Err: fmt.Errorf("frames: sampler stats: variable %q appears twice (entry %d)", s.Name, i)}
		}
		byName[s.Name] = s
	}
	vars := df.Col("variable").Records()
	acc := make([]interface{}, len(vars))
	fb := make([]interface{}, len(vars))
	for i, v := range vars {
		if s, ok := byName[v]; ok {
			if s.Proposals > 0 {
				acc[i] = s.AcceptRate()
			}
			fb[i] = s.Fallbacks
		}
	}
	out := df.Mutate(series.New(acc, series.Float, "accept_rate"))
	return out.Mutate(series.New(fb, series.Int, "fallbacks"))
}
