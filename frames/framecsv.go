package frames

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/nmc-go/nmc/draws"
)

// ReadPosteriorCSV reads the draws of R posterior's draws_df as
// write.csv(as_draws_df(x)) writes them: a row-name column with the empty name
// "" (left out by write.csv(..., row.names = FALSE)), one column per quantity
// with R's 1-based names ("mu", "theta[1]", "Sigma[2,1]"), and the columns
// ".chain", ".iteration" and ".draw" (1-based; ".draw" counts across chains):
//
//	"","mu","theta[1]",".chain",".iteration",".draw"
//	"1",2.00583113051241,3.96175201695688,1,1,1
//
// Names are converted to this package's 0-based form with PosteriorToName
// ("theta[1]" becomes "theta[0]"). Chains are ordered by chain number and
// renumbered from 0; draws are ordered by ".iteration" within a chain.
//
// R writes a missing value as NA; draws with missing values have no summary, so
// an NA (like an empty cell) is an error naming the line and column rather than
// a silent NaN. R's NaN, Inf and -Inf are read as such. Otherwise the rules are
// those of ReadDataFrameCSV, of which this is the variant that insists on the
// ".chain" column. source names the input in errors.
func ReadPosteriorCSV(r io.Reader, source string) (*draws.Draws, error) {
	return readFrameCSV(r, source, posteriorChainColumn)
}

// ReadDataFrameCSV reads draws from the CSV file of a data-frame tool: pandas's
// DataFrame.to_csv of a frame with "chain" and "draw" columns (such as ArviZ's
// InferenceData.to_dataframe), R posterior's draws_df (see ReadPosteriorCSV),
// or nmc's own draws CSV. Its rules are those of FromDataFrame:
//
//   - A first column with the empty name is an index column (pandas's index, R's
//     row names) and is ignored.
//   - The chain column is "chain", else ".chain". Chain numbers identify chains
//     by value: chains are taken in increasing chain number and renumbered 0, 1,
//     …, so 0- and 1-based numbering both work. Chain and draw numbers must be
//     integers ("3" or "3.0").
//   - Within a chain, rows are ordered by the draw column ("draw", else
//     ".iteration", else ".draw"); draw numbers need not start at 0 or be
//     contiguous. Without a draw column the row order is kept.
//   - The columns "iteration", ".iteration" and ".draw" are dropped; every other
//     column is a quantity, in file order. Names are kept as written, except in
//     a draws_df (chain column ".chain"), whose 1-based names are converted with
//     PosteriorToName.
//   - A long (tidy) file, whose only columns besides the chain and draw columns
//     are "variable" and "value" (or tidybayes's ".variable" and ".value"), holds
//     one row per draw and quantity; quantities are taken in order of first
//     appearance, and every draw must have each exactly once.
//
// It returns an error naming the source, line and column for a row with the
// wrong number of fields, a value that does not parse as a float (NA and empty
// cells included; "NaN", "Inf", "+Inf" and "-Inf" are accepted), a chain or
// draw number that is not an integer, and a (chain, draw) pair that appears
// twice; and an error for a missing chain column, an empty or duplicate
// quantity name, a header without quantities and chains with different numbers
// of draws. nmc's draws CSV reads back as ReadCSV reads it, when its chains are
// non-empty and of equal length; ReadCSV, not this, is WriteCSV's exact inverse
// for all draws.
func ReadDataFrameCSV(r io.Reader, source string) (*draws.Draws, error) {
	return readFrameCSV(r, source, "")
}

// ReadPosteriorCSVFile opens path and reads it with ReadPosteriorCSV.
func ReadPosteriorCSVFile(path string) (*draws.Draws, error) {
	return readFile(path, ReadPosteriorCSV)
}

// ReadDataFrameCSVFile opens path and reads it with ReadDataFrameCSV.
func ReadDataFrameCSVFile(path string) (*draws.Draws, error) {
	return readFile(path, ReadDataFrameCSV)
}

// readFile opens path and reads it with read, path naming the source in errors.
func readFile(path string, read func(io.Reader, string) (*draws.Draws, error)) (*draws.Draws, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("frames: %w", err)
	}
	defer f.Close()
	return read(f, path)
}

// utf8BOM is the byte-order mark some tools (Excel, R with
// fileEncoding = "UTF-8-BOM") put at the start of a CSV file.
const utf8BOM = "\ufeff"

// frameHeader is the meaning of the columns of a data-frame tool's CSV header.
type frameHeader struct {
	fields    int      // number of columns
	chainCol  int      // the chain column
	drawCol   int      // the draw column, or -1 (row order)
	params    []string // wide layout: quantity names after conversion
	paramCols []int    // wide layout: their columns
	varCol    int      // long layout: the variable-name column, or -1 (wide)
	valueCol  int      // long layout: the value column
	convert   bool     // names are R's, 1-based: convert with PosteriorToName
	names     []string // the header as read
}

// parseFrameHeader interprets a data-frame tool's CSV header. wantChain, when
// not empty, is the chain column that must be there.
func parseFrameHeader(header []string, source, wantChain string) (*frameHeader, error) {
	header = slices.Clone(header)
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], utf8BOM)
	}
	h := &frameHeader{fields: len(header), drawCol: -1, varCol: -1, valueCol: -1, names: header}
	first := 0
	if len(header) > 1 && header[0] == "" {
		first = 1 // pandas's index or R's row names
	}
	cols := header[first:]
	chainName := chainColumnOf(cols)
	if wantChain != "" && chainName != wantChain {
		return nil, fmt.Errorf("frames: %s:1: header has no %q column", source, wantChain)
	}
	if chainName == "" {
		return nil, fmt.Errorf("frames: %s:1: header has no %q column (nmc, pandas, ArviZ) nor %q column (R posterior)", source, ChainColumn, posteriorChainColumn)
	}
	drawName := drawColumnOf(cols)
	h.convert = chainName == posteriorChainColumn
	seen, err := checkColumnNames(header, first, source)
	if err != nil {
		return nil, err
	}
	var rest []int // columns other than chain and draw numbers
	for j := first; j < len(header); j++ {
		n := header[j]
		switch {
		case n == chainName:
			h.chainCol = j
		case n == drawName:
			h.drawCol = j
		case !metaColumns[n]:
			rest = append(rest, j)
		}
	}
	if len(rest) == 2 {
		for _, pair := range [][2]string{{VariableColumn, ValueColumn}, {".variable", ".value"}} {
			v, x := seen[pair[0]], seen[pair[1]]
			if slices.Contains(rest, v) && slices.Contains(rest, x) && header[v] == pair[0] && header[x] == pair[1] {
				if h.drawCol < 0 {
					return nil, fmt.Errorf("frames: %s:1: a long file (columns %q and %q) needs a draw column (%q, %q or %q)", source, pair[0], pair[1], DrawColumn, ".iteration", ".draw")
				}
				h.varCol, h.valueCol = v, x
				return h, nil
			}
		}
	}
	conv := make(map[string]int)
	for _, j := range rest {
		p := header[j]
		if h.convert {
			p = PosteriorToName(p)
		}
		if k, ok := conv[p]; ok {
			return nil, fmt.Errorf("frames: %s:1: columns %d (%q) and %d (%q) are both %q in 0-based names", source, k+1, header[k], j+1, header[j], p)
		}
		conv[p] = j
		h.params = append(h.params, p)
		h.paramCols = append(h.paramCols, j)
	}
	if len(h.params) == 0 {
		return nil, fmt.Errorf("frames: %s:1: header has no quantity columns", source)
	}
	return h, nil
}

// readFrameCSV reads a data-frame tool's CSV file (see ReadDataFrameCSV).
func readFrameCSV(r io.Reader, source, wantChain string) (*draws.Draws, error) {
	cr, rec, err := readCSVHeader(r, source)
	if err != nil {
		return nil, err
	}
	h, err := parseFrameHeader(rec, source, wantChain)
	if err != nil {
		return nil, err
	}
	var (
		chain, draw, lines []int
		long               *longCells
	)
	rows := &drawRows{source: source}
	if h.varCol >= 0 {
		long = &longCells{index: make(map[[2]int]int), param: make(map[string]int)}
	} else {
		rows.params = h.params
		rows.cols = make([][]float64, len(h.params))
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(source, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != h.fields {
			return nil, fmt.Errorf("frames: %s:%d: row has %d fields, header has %d", source, line, len(rec), h.fields)
		}
		c, err := parseWhole(rec[h.chainCol])
		if err != nil {
			return nil, fmt.Errorf("frames: %s:%d: column %q: chain number: %v", source, line, h.names[h.chainCol], err)
		}
		dr := 0
		if h.drawCol >= 0 {
			if dr, err = parseWhole(rec[h.drawCol]); err != nil {
				return nil, fmt.Errorf("frames: %s:%d: column %q: draw number: %v", source, line, h.names[h.drawCol], err)
			}
		}
		if long != nil {
			if err := long.add(rec, h, c, dr, line, source); err != nil {
				return nil, err
			}
			continue
		}
		for k, j := range h.paramCols {
			v, err := parseCell(rec[j])
			if err != nil {
				return nil, fmt.Errorf("frames: %s:%d: column %q: %v", source, line, h.names[j], err)
			}
			rows.cols[k] = append(rows.cols[k], v)
		}
		chain, lines = append(chain, c), append(lines, line)
		if h.drawCol >= 0 {
			draw = append(draw, dr)
		}
	}
	if long != nil {
		return long.toDraws(h, source)
	}
	rows.chain, rows.draw = chain, draw
	rows.rowPair = func(i, j int) string { return fmt.Sprintf("%s lines %d and %d", source, lines[i], lines[j]) }
	return rows.toDraws()
}

// longCells gathers the rows of a long (tidy) file: one per draw and quantity.
type longCells struct {
	index  map[[2]int]int // (chain, draw) → draw row
	param  map[string]int // converted name → quantity column
	names  []string       // quantities in order of first appearance
	chain  []int          // chain of every draw row
	draw   []int          // draw of every draw row
	first  []int          // first line of every draw row
	cells  [][]float64    // cells[p][row]
	lineOf [][]int        // line of every cell, 0 if not seen
}

// add records one row of a long file.
func (l *longCells) add(rec []string, h *frameHeader, c, dr, line int, source string) error {
	name := rec[h.varCol]
	if name == "" || strings.ContainsAny(name, "\r\n") {
		return fmt.Errorf("frames: %s:%d: column %q: %q is not a quantity name", source, line, h.names[h.varCol], name)
	}
	if h.convert {
		name = PosteriorToName(name)
	}
	v, err := parseCell(rec[h.valueCol])
	if err != nil {
		return fmt.Errorf("frames: %s:%d: column %q: %v", source, line, h.names[h.valueCol], err)
	}
	key := [2]int{c, dr}
	row, ok := l.index[key]
	if !ok {
		row = len(l.chain)
		l.index[key] = row
		l.chain, l.draw, l.first = append(l.chain, c), append(l.draw, dr), append(l.first, line)
		for p := range l.cells {
			l.cells[p] = append(l.cells[p], 0)
			l.lineOf[p] = append(l.lineOf[p], 0)
		}
	}
	p, ok := l.param[name]
	if !ok {
		p = len(l.names)
		l.param[name] = p
		l.names = append(l.names, name)
		l.cells = append(l.cells, make([]float64, len(l.chain)))
		l.lineOf = append(l.lineOf, make([]int, len(l.chain)))
	}
	if prev := l.lineOf[p][row]; prev != 0 {
		return fmt.Errorf("frames: %s lines %d and %d both hold chain %d draw %d of %q", source, prev, line, c, dr, rec[h.varCol])
	}
	l.cells[p][row], l.lineOf[p][row] = v, line
	return nil
}

// toDraws checks that every draw has every quantity and groups the draws into
// chains.
func (l *longCells) toDraws(h *frameHeader, source string) (*draws.Draws, error) {
	if len(l.names) == 0 {
		return nil, fmt.Errorf("frames: %s: a long file (columns %q and %q) with no rows names no quantities", source, h.names[h.varCol], h.names[h.valueCol])
	}
	for p, lines := range l.lineOf {
		for row, ln := range lines {
			if ln == 0 {
				return nil, fmt.Errorf("frames: %s: chain %d draw %d (first on line %d) has no row for %q", source, l.chain[row], l.draw[row], l.first[row], l.names[p])
			}
		}
	}
	rows := &drawRows{
		params:  l.names,
		chain:   l.chain,
		draw:    l.draw,
		cols:    l.cells,
		source:  source,
		rowPair: func(i, j int) string { return fmt.Sprintf("%s lines %d and %d", source, l.first[i], l.first[j]) },
	}
	return rows.toDraws()
}

// parseWhole parses a chain or draw number: an integer, possibly written as a
// float with no fractional part ("3.0", as pandas writes a float column).
func parseWhole(s string) (int, error) {
	if n, err := strconv.Atoi(s); err == nil {
		return n, nil
	}
	if s == "" || s == "NA" {
		return 0, fmt.Errorf("missing (%q)", s)
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("cannot parse %q as an integer", s)
	}
	n, ok := wholeNumber(x)
	if !ok {
		return 0, fmt.Errorf("%q is not an integer", s)
	}
	return n, nil
}

// parseCell parses a quantity's value. NA (R's missing value) and empty cells
// (pandas's) are errors: a draw with a missing value has no summary, and a
// silent NaN would hide where it came from.
func parseCell(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err == nil {
		return v, nil
	}
	var ne *strconv.NumError
	if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
		return v, nil // overflow rounds to ±Inf, underflow to ±0
	}
	switch s {
	case "NA":
		return 0, errors.New(`missing value "NA"`)
	case "":
		return 0, errors.New("empty cell (missing value)")
	}
	return 0, fmt.Errorf("cannot parse %q", s)
}
