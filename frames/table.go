package frames

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Table is a numeric CSV table: one header line of unique column names, then rows in
// which every cell is a finite float. It is the reader under the data files of package
// models (blr_train.csv, annotation_train.csv, …).
type Table struct {
	// Source names where the table came from (a file path); it prefixes error messages.
	Source string
	// Header holds the column names in file order.
	Header []string
	// Rows holds the values, Rows[i][j] being row i (0-based, header excluded) of
	// column Header[j].
	Rows [][]float64

	// lines[i] is the 1-based file line of Rows[i] (the header is line 1). It is nil
	// for tables not read from a file, in which case Line assumes no blank lines.
	lines []int
}

// ReadTable reads a comma-separated table with a header line from r. Every cell must
// parse as a finite float (strconv.ParseFloat; surrounding blanks are ignored); blank
// lines are skipped. source names the input in errors, which give the 1-based line
// (the header is line 1) and the column name, for example
//
//	frames: blr_train.csv:7: column "x3": cannot parse "abc"
//	frames: blr_train.csv:7: 40 fields, want 41
//
// An empty input, an empty or duplicate column name, a ragged row, an unparsable or
// non-finite cell are errors. A header with no rows is a valid empty table.
func ReadTable(r io.Reader, source string) (*Table, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // ragged rows are reported by us, with the line
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("frames: %s: empty file, want a header line", source)
	}
	if err != nil {
		return nil, csvError(source, err)
	}
	t := &Table{Source: source, Header: make([]string, len(header))}
	seen := make(map[string]int, len(header))
	for j, h := range header {
		h = strings.TrimSpace(h)
		if j == 0 {
			h = strings.TrimPrefix(h, "\ufeff") // byte order mark written by some tools
		}
		if h == "" {
			return nil, fmt.Errorf("frames: %s:1: column %d has an empty name", source, j+1)
		}
		if k, dup := seen[h]; dup {
			return nil, fmt.Errorf("frames: %s:1: duplicate column %q (columns %d and %d)", source, h, k+1, j+1)
		}
		seen[h] = j
		t.Header[j] = h
	}
	width := len(t.Header)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(source, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != width {
			return nil, fmt.Errorf("frames: %s:%d: %d fields, want %d", source, line, len(rec), width)
		}
		row := make([]float64, width)
		for j, cell := range rec {
			s := strings.TrimSpace(cell)
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				if errors.Is(err, strconv.ErrRange) {
					return nil, fmt.Errorf("frames: %s:%d: column %q: %q is out of the float64 range", source, line, t.Header[j], s)
				}
				return nil, fmt.Errorf("frames: %s:%d: column %q: cannot parse %q", source, line, t.Header[j], s)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("frames: %s:%d: column %q: non-finite value %q", source, line, t.Header[j], s)
			}
			row[j] = v
		}
		t.Rows = append(t.Rows, row)
		t.lines = append(t.lines, line)
	}
	return t, nil
}

// ReadTableFile opens path and reads it with ReadTable, using path as the source name.
func ReadTableFile(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("frames: %w", err)
	}
	defer f.Close()
	return ReadTable(f, path)
}

// NumRows returns the number of data rows (the header excluded).
func (t *Table) NumRows() int { return len(t.Rows) }

// Line returns the 1-based file line of data row i (0-based); the header is line 1,
// so without blank lines row i is on line i+2.
func (t *Table) Line(i int) int {
	if i >= 0 && i < len(t.lines) {
		return t.lines[i]
	}
	return i + 2
}

// Index returns the position of the named column in Header, or an error naming the
// column and the source.
func (t *Table) Index(name string) (int, error) {
	for j, h := range t.Header {
		if h == name {
			return j, nil
		}
	}
	return -1, fmt.Errorf("frames: %s: no column %q (have %s)", t.Source, name, strings.Join(t.Header, ","))
}

// Column returns a new slice holding the values of the named column, one per row.
func (t *Table) Column(name string) ([]float64, error) {
	j, err := t.Index(name)
	if err != nil {
		return nil, err
	}
	col := make([]float64, len(t.Rows))
	for i, row := range t.Rows {
		col[i] = row[j]
	}
	return col, nil
}

// Ints returns the values of the named column as integers. A value that is not a whole
// number, or does not fit in an int, is an error naming the source, the line and the
// column.
func (t *Table) Ints(name string) ([]int, error) {
	j, err := t.Index(name)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(t.Rows))
	for i, row := range t.Rows {
		v := row[j]
		if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
			return nil, fmt.Errorf("frames: %s:%d: column %q: %v is not an integer", t.Source, t.Line(i), name, v)
		}
		out[i] = int(v)
	}
	return out, nil
}

// Design splits the table into a design matrix and a response: y is the column yCol and
// X (rows × (columns−1)) holds all the other columns in file order. A table with no
// rows, or with no column besides yCol, is an error.
func (t *Table) Design(yCol string) (X *mat.Dense, y []float64, err error) {
	jy, err := t.Index(yCol)
	if err != nil {
		return nil, nil, err
	}
	n, p := len(t.Rows), len(t.Header)-1
	if n == 0 {
		return nil, nil, fmt.Errorf("frames: %s: no data rows", t.Source)
	}
	if p == 0 {
		return nil, nil, fmt.Errorf("frames: %s: no predictor columns besides %q", t.Source, yCol)
	}
	data := make([]float64, 0, n*p)
	y = make([]float64, n)
	for i, row := range t.Rows {
		y[i] = row[jy]
		data = append(data, row[:jy]...)
		data = append(data, row[jy+1:]...)
	}
	return mat.NewDense(n, p, data), y, nil
}
