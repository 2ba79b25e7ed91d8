package diagnostics

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gota/gota/dataframe"

	"github.com/nmc-go/nmc/frames"
)

// metaColumns are the columns of a draws DataFrame that are not quantities.
var metaColumns = map[string]bool{
	"chain": true, "draw": true, "iteration": true,
	".chain": true, ".draw": true, ".iteration": true,
}

// FromDataFrame converts a gota DataFrame of draws, one row per draw, into
// frames.Draws. The chain column identifies chains by any integer values;
// chains are ordered by ascending value. Within a chain, rows are ordered by
// the draw column when there is one, and otherwise kept in row order. Every
// other column except iteration, .chain, .draw and .iteration is a quantity,
// in column order.
//
// It returns an error if df has its Err set, has no chain column, a chain or
// draw value that is not an integer, a repeated draw within a chain, a
// quantity cell that is not a number (NaN, as gota gives for a failed parse),
// chains with different numbers of draws, or no quantity columns.
func FromDataFrame(df dataframe.DataFrame) (*frames.Draws, error) {
	if df.Err != nil {
		return nil, fmt.Errorf("diagnostics: data frame: %w", df.Err)
	}
	names := df.Names()
	if !slices.Contains(names, "chain") {
		return nil, fmt.Errorf("diagnostics: data frame has no chain column (columns: %v)", names)
	}
	nrow := df.Nrow()
	chainCol, err := intColumn(df, "chain")
	if err != nil {
		return nil, err
	}
	var drawCol []int
	if slices.Contains(names, "draw") {
		if drawCol, err = intColumn(df, "draw"); err != nil {
			return nil, err
		}
	}
	var params []string
	for _, n := range names {
		if !metaColumns[n] {
			params = append(params, n)
		}
	}
	if len(params) == 0 {
		return nil, fmt.Errorf("diagnostics: data frame has no quantity columns (columns: %v)", names)
	}

	// Group rows by chain, then order each chain's rows by draw.
	rowsOf := map[int][]int{}
	for r := range nrow {
		rowsOf[chainCol[r]] = append(rowsOf[chainCol[r]], r)
	}
	ids := make([]int, 0, len(rowsOf))
	for id := range rowsOf {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if len(ids) == 0 {
		return nil, fmt.Errorf("diagnostics: data frame has no rows")
	}
	ndraw := len(rowsOf[ids[0]])
	for _, id := range ids {
		rows := rowsOf[id]
		if len(rows) != ndraw {
			return nil, fmt.Errorf("diagnostics: data frame: ragged chains: chain %d has %d draws, chain %d has %d", id, len(rows), ids[0], ndraw)
		}
		if drawCol != nil {
			slices.SortStableFunc(rows, func(a, b int) int { return drawCol[a] - drawCol[b] })
			for k := 1; k < len(rows); k++ {
				if drawCol[rows[k]] == drawCol[rows[k-1]] {
					return nil, fmt.Errorf("diagnostics: data frame: chain %d has draw %d twice (rows %d and %d)", id, drawCol[rows[k]], rows[k-1]+1, rows[k]+1)
				}
			}
		}
	}

	d := &frames.Draws{Names: params, Chains: make([][]float64, len(ids))}
	np := len(params)
	for c := range ids {
		d.Chains[c] = make([]float64, ndraw*np)
	}
	for p, name := range params {
		col := df.Col(name)
		if col.Err != nil {
			return nil, fmt.Errorf("diagnostics: data frame: column %q: %w", name, col.Err)
		}
		v := col.Float()
		for c, id := range ids {
			for i, r := range rowsOf[id] {
				if math.IsNaN(v[r]) {
					return nil, fmt.Errorf("diagnostics: data frame: column %q, row %d (chain %d): value %q is not a number", name, r+1, id, col.Elem(r).String())
				}
				d.Chains[c][i*np+p] = v[r]
			}
		}
	}
	return d, nil
}

// intColumn returns the named column as integers, or an error naming the
// first cell that is not an integer (rows 1-based).
func intColumn(df dataframe.DataFrame, name string) ([]int, error) {
	col := df.Col(name)
	if col.Err != nil {
		return nil, fmt.Errorf("diagnostics: data frame: column %q: %w", name, col.Err)
	}
	v := col.Float()
	out := make([]int, len(v))
	for r, f := range v {
		if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return nil, fmt.Errorf("diagnostics: data frame: column %q, row %d: value %q is not an integer", name, r+1, col.Elem(r).String())
		}
		out[r] = int(f)
	}
	return out, nil
}
