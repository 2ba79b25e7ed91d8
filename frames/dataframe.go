package frames

import (
	"fmt"
	"strconv"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"

	"github.com/nmc-go/nmc/draws"
)

// Column names used by draw frames and draw CSV files.
const (
	// ChainColumn is the name of the 0-based chain number column.
	ChainColumn = "chain"
	// DrawColumn is the name of the 0-based draw number column.
	DrawColumn = "draw"
	// VariableColumn is the name of the variable-name column of a long frame.
	VariableColumn = "variable"
	// ValueColumn is the name of the value column of a long frame.
	ValueColumn = "value"
)

// Frame is gota's DataFrame, named here so that packages that hand out draws as a
// data frame (nmc.Result.DataFrame) need not import gota themselves.
type Frame = dataframe.DataFrame

// checkDraws validates d and checks that no parameter is named like the index
// columns, which would make the frame or file ambiguous.
func checkDraws(d *draws.Draws) error {
	if err := d.Validate(); err != nil {
		return err
	}
	for _, n := range d.Names {
		if n == ChainColumn || n == DrawColumn {
			return fmt.Errorf("frames: parameter name %q clashes with the %q/%q index columns", n, ChainColumn, DrawColumn)
		}
	}
	return nil
}

// DataFrame returns draws as a wide gota data frame: an int column "chain"
// (0-based), an int column "draw" (0-based, restarting in every chain) and one
// float column per name in d.Names, in that order, with one row per draw of every
// chain, chain after chain. Chains of unequal length are kept as they are.
//
// It returns an error if d is invalid (see Draws.Validate), if a parameter is named
// "chain" or "draw", or if gota reports one.
func DataFrame(d *draws.Draws) (dataframe.DataFrame, error) {
	if err := checkDraws(d); err != nil {
		return dataframe.DataFrame{}, err
	}
	np := len(d.Names)
	rows := 0
	for c := range d.Chains {
		rows += d.NumDraws(c)
	}
	chain := make([]int, 0, rows)
	draw := make([]int, 0, rows)
	for c := range d.Chains {
		for i := range d.NumDraws(c) {
			chain = append(chain, c)
			draw = append(draw, i)
		}
	}
	cols := make([]series.Series, 0, np+2)
	cols = append(cols, series.New(chain, series.Int, ChainColumn), series.New(draw, series.Int, DrawColumn))
	v := make([]float64, rows)
	for p, name := range d.Names {
		r := 0
		for _, ch := range d.Chains {
			for i := p; i < len(ch); i += np {
				v[r] = ch[i]
				r++
			}
		}
		cols = append(cols, series.New(v, series.Float, name))
	}
	df := dataframe.New(cols...)
	if df.Err != nil {
		return dataframe.DataFrame{}, fmt.Errorf("frames: building data frame: %w", df.Err)
	}
	return df, nil
}

// LongDataFrame returns draws as a long (tidy) gota data frame with the columns
// "chain" (int, 0-based), "draw" (int, 0-based), "variable" (string, a name from
// d.Names) and "value" (float): one row per draw of every parameter, ordered by
// chain, then draw, then parameter as in d.Names.
//
// It returns an error if d is invalid (see Draws.Validate) or if gota reports one.
func LongDataFrame(d *draws.Draws) (dataframe.DataFrame, error) {
	if err := d.Validate(); err != nil {
		return dataframe.DataFrame{}, err
	}
	np := len(d.Names)
	rows := 0
	for _, ch := range d.Chains {
		rows += len(ch)
	}
	chain := make([]int, 0, rows)
	draw := make([]int, 0, rows)
	variable := make([]string, 0, rows)
	value := make([]float64, 0, rows)
	for c, ch := range d.Chains {
		for i, x := range ch {
			chain = append(chain, c)
			draw = append(draw, i/np)
			variable = append(variable, d.Names[i%np])
			value = append(value, x)
		}
	}
	df := dataframe.New(
		series.New(chain, series.Int, ChainColumn),
		series.New(draw, series.Int, DrawColumn),
		series.New(variable, series.String, VariableColumn),
		series.New(value, series.Float, ValueColumn),
	)
	if df.Err != nil {
		return dataframe.DataFrame{}, fmt.Errorf("frames: building long data frame: %w", df.Err)
	}
	return df, nil
}

// FromDataFrame converts a wide draws frame back to Draws: one made by DataFrame, a
// pandas/ArviZ-style frame (chain, draw, …) or R posterior's draws_df (.chain,
// .iteration, .draw, …). The chain column ("chain" or ".chain") must hold integers,
// which identify chains by value: chains are taken in increasing chain number and
// renumbered 0, 1, … in the result, so 0- and 1-based numbering both work. Within a
// chain, rows are ordered by the draw column ("draw", else ".iteration", else
// ".draw") when there is one and kept in row order otherwise; draw numbers need not
// start at 0 or be contiguous (a frame filtered with draw >= 500 converts too) and
// are not kept. Every other column except "iteration", ".draw" and ".iteration" is
// a parameter, in frame order. In a draws_df (chain column ".chain") the names
// are R's, with 1-based indices, and are converted with PosteriorToName:
// "theta[1]" becomes "theta[0]".
//
// Parameter columns may be float, int or string columns; string cells must parse
// as floats ("NaN", "+Inf" and "-Inf" are accepted). It returns an error naming the
// row (0-based) and column for a cell that is not a number, for a non-integer or
// missing chain or draw number and for a (chain, draw) pair that appears twice; an
// error for a missing chain column, a bool column, a frame with no parameter
// columns, and for chains with different numbers of draws (ragged chains).
// A float column is taken as it is, NaN included: gota itself turns a cell it
// could not parse into NaN when it loads a column as float, and that cannot be
// told from a real NaN afterwards, so load CSV with type detection (or use
// ReadCSV) to have bad cells reported.
func FromDataFrame(df dataframe.DataFrame) (*draws.Draws, error) {
	if df.Err != nil {
		return nil, fmt.Errorf("frames: data frame carries an error: %w", df.Err)
	}
	names := df.Names()
	chainName := chainColumnOf(names)
	if chainName == "" {
		return nil, fmt.Errorf("frames: data frame has no %q (or \".chain\") column (columns: %v)", ChainColumn, names)
	}
	drawName := drawColumnOf(names)
	var params, cols []string
	seen := make(map[string]string)
	for _, n := range names {
		if metaColumns[n] {
			continue
		}
		p := n
		if chainName == posteriorChainColumn {
			p = PosteriorToName(n)
		}
		if other, ok := seen[p]; ok {
			return nil, fmt.Errorf("frames: data frame columns %q and %q are both %q", other, n, p)
		}
		seen[p] = n
		params = append(params, p)
		cols = append(cols, n)
	}
	if len(params) == 0 {
		return nil, fmt.Errorf("frames: data frame has no parameter columns (columns: %v)", names)
	}
	rows := &drawRows{
		params:  params,
		cols:    make([][]float64, len(params)),
		rowPair: func(i, j int) string { return fmt.Sprintf("data frame rows %d and %d", i, j) },
		source:  "data frame",
	}
	var err error
	if rows.chain, err = intColumn(df, chainName); err != nil {
		return nil, err
	}
	if drawName != "" {
		if rows.draw, err = intColumn(df, drawName); err != nil {
			return nil, err
		}
	}
	for j, n := range cols {
		if rows.cols[j], err = floatColumn(df, n); err != nil {
			return nil, err
		}
	}
	return rows.toDraws()
}

// intColumn reads an integer-valued column, naming the first bad row.
func intColumn(df dataframe.DataFrame, name string) ([]int, error) {
	s := df.Col(name)
	if s.Err != nil {
		return nil, fmt.Errorf("frames: column %q: %w", name, s.Err)
	}
	out := make([]int, s.Len())
	for i := range out {
		e := s.Elem(i)
		var x float64
		switch s.Type() {
		case series.Int, series.Float:
			if e.IsNA() {
				return nil, fmt.Errorf("frames: data frame row %d, column %q: missing value", i, name)
			}
			x = e.Float()
		case series.String:
			str := e.String()
			v, err := strconv.ParseFloat(str, 64)
			if err != nil {
				return nil, fmt.Errorf("frames: data frame row %d, column %q: cannot parse %q as an integer", i, name, str)
			}
			x = v
		default:
			return nil, fmt.Errorf("frames: column %q has type %v, want int", name, s.Type())
		}
		n, ok := wholeNumber(x)
		if !ok {
			return nil, fmt.Errorf("frames: data frame row %d, column %q: %v is not an integer", i, name, x)
		}
		out[i] = n
	}
	return out, nil
}

// floatColumn reads a parameter column. Float columns are taken as they are (NaN is
// a legitimate draw value); int columns must have no missing values; string cells
// must parse.
func floatColumn(df dataframe.DataFrame, name string) ([]float64, error) {
	s := df.Col(name)
	if s.Err != nil {
		return nil, fmt.Errorf("frames: column %q: %w", name, s.Err)
	}
	switch s.Type() {
	case series.Float:
		return s.Float(), nil
	case series.Int:
		out := make([]float64, s.Len())
		for i := range out {
			e := s.Elem(i)
			if e.IsNA() {
				return nil, fmt.Errorf("frames: data frame row %d, column %q: missing value", i, name)
			}
			out[i] = e.Float()
		}
		return out, nil
	case series.String:
		out := make([]float64, s.Len())
		for i := range out {
			str := s.Elem(i).String()
			v, err := strconv.ParseFloat(str, 64)
			if err != nil {
				return nil, fmt.Errorf("frames: data frame row %d, column %q: cannot parse %q as a number", i, name, str)
			}
			out[i] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("frames: column %q has type %v, not a number", name, s.Type())
}
