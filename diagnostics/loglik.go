package diagnostics

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nmc-go/nmc/draws"
)

// LogLikFromDraws selects the columns variable[0], variable[1], … (Stan's
// log_lik convention, 0-based as package draws names them) of d, in index
// order, as a [LogLik]. It is an error if d has no such column, if an index is
// missing or not a single integer, or if the chains have different lengths.
func LogLikFromDraws(d *draws.Draws, variable string) (LogLik, error) {
	if d == nil || len(d.Names) == 0 {
		return LogLik{}, fmt.Errorf("diagnostics: no draws")
	}
	prefix := variable + "["
	col := map[int]int{} // observation → column
	maxIdx := -1
	for j, name := range d.Names {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		num, ok := strings.CutSuffix(rest, "]")
		i, err := strconv.Atoi(num)
		if !ok || err != nil || i < 0 {
			return LogLik{}, fmt.Errorf("diagnostics: column %s: want %s[i] with one index i ≥ 0", name, variable)
		}
		col[i] = j
		maxIdx = max(maxIdx, i)
	}
	if len(col) == 0 {
		return LogLik{}, fmt.Errorf("diagnostics: no %s[i] columns (columns: %s)", variable, nameList(d.Names))
	}
	N := maxIdx + 1
	for i := range N {
		if _, ok := col[i]; !ok {
			return LogLik{}, fmt.Errorf("diagnostics: column %s[%d] missing (%s[0] … %s[%d] expected)", variable, i, variable, variable, maxIdx)
		}
	}
	cols := make([]int, N)
	for i := range N {
		cols[i] = col[i]
	}
	P := len(d.Names)
	ll := LogLik{N: N, Chains: make([][]float64, len(d.Chains))}
	for c, ch := range d.Chains {
		if len(ch)%P != 0 {
			return LogLik{}, fmt.Errorf("diagnostics: chain %d holds %d values, not a whole number of draws of %d columns", c, len(ch), P)
		}
		n := len(ch) / P
		out := make([]float64, n*N)
		for dr := range n {
			row := ch[dr*P : (dr+1)*P]
			o := out[dr*N : (dr+1)*N]
			for i := range N {
				o[i] = row[cols[i]]
			}
		}
		ll.Chains[c] = out
	}
	return ll, nil
}

// nameList returns up to 5 names joined by ", ", with "…" if there are more.
func nameList(names []string) string {
	if len(names) > 5 {
		return strings.Join(slices.Clip(names[:5]), ", ") + ", …"
	}
	return strings.Join(names, ", ")
}
