package frames

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/internal/fileio"
)

// WriteCSV writes draws to w as CSV: a header "chain,draw,<names>" (names that
// contain commas or quotes, such as "theta[2,1]", are quoted as RFC 4180 says),
// then one line per draw, chain after chain, with 0-based chain and draw numbers.
// Values use the shortest representation that parses back to the same float64
// (strconv 'g', -1), so ReadCSV restores them bit for bit, including -0,
// subnormals, "NaN", "+Inf" and "-Inf" (NaN payloads are not kept). A chain with
// no draws writes no lines; ReadCSV restores it only if a later chain has draws.
//
// Output is buffered; WriteCSV returns the first write error, or an error if d is
// invalid (see Draws.Validate), a parameter is named "chain" or "draw" or a name
// holds a line break (encoding/csv turns "\r\n" inside a quoted field into "\n",
// so such a name would not read back as written).
func WriteCSV(w io.Writer, d *draws.Draws) error {
	if err := checkCSVDraws(d); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	cw := csv.NewWriter(bw)
	header := append([]string{ChainColumn, DrawColumn}, d.Names...)
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("frames: writing CSV header: %w", err)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("frames: writing CSV header: %w", err)
	}
	np := len(d.Names)
	buf := make([]byte, 0, 32*(np+2))
	for c, ch := range d.Chains {
		for i := 0; i+np <= len(ch); i += np {
			buf = buf[:0]
			buf = strconv.AppendInt(buf, int64(c), 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, int64(i/np), 10)
			for _, x := range ch[i : i+np] {
				buf = append(buf, ',')
				buf = appendFloat(buf, x)
			}
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return fmt.Errorf("frames: writing CSV: %w", err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("frames: writing CSV: %w", err)
	}
	return nil
}

// appendFloat formats x like strconv 'g', -1, with an explicit sign on +Inf. An
// integer of magnitude below 10⁶ other than −0 (the value of a discrete site, such
// as a class) is written by strconv.AppendInt, which gives the same digits ('g'
// switches to an exponent from 10⁶ on) at a fraction of the cost.
func appendFloat(buf []byte, x float64) []byte {
	if x > -1e6 && x < 1e6 && x == math.Trunc(x) && !(x == 0 && math.Signbit(x)) {
		return strconv.AppendInt(buf, int64(x), 10)
	}
	if math.IsInf(x, 1) {
		return append(buf, "+Inf"...)
	}
	return strconv.AppendFloat(buf, x, 'g', -1, 64)
}

// WriteCSVFile writes draws as CSV (see WriteCSV) to path. It writes to
// path+".tmp" first and renames that to path only once everything is written and
// the file is closed, so a failed write never leaves a partial file under path;
// the temporary file is removed on error. A path that exists and is not a regular
// file (a device such as /dev/stdout, a named pipe) is written directly, since
// renaming over it would replace it.
func WriteCSVFile(path string, d *draws.Draws) error {
	if err := checkCSVDraws(d); err != nil {
		return err
	}
	var errCSV error
	err := fileio.WriteFile(path, func(w io.Writer) error {
		errCSV = WriteCSV(w, d)
		return errCSV
	})
	switch {
	case errCSV != nil:
		return fmt.Errorf("%w (file %s)", errCSV, path)
	case err != nil:
		return fmt.Errorf("frames: %w", err)
	}
	return nil
}

// ReadCSVFile opens path and reads draws from it with ReadCSV, using path as the
// source name in errors.
func ReadCSVFile(path string) (*draws.Draws, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("frames: %w", err)
	}
	defer f.Close()
	return ReadCSV(f, path)
}

// ReadCSV reads draws written by WriteCSV, its exact inverse. source names the
// input in errors ("frames: draws.csv:17: column \"beta[2]\": cannot parse
// \"abc\""; lines count from 1, the header being line 1).
//
// The header must have a "chain" and a "draw" column (anywhere); every other
// column is a parameter, in file order, and names must be non-empty, unique and
// free of line breaks ('\r', '\n').
// Rows must come chain by chain in increasing chain number, with draws numbered
// 0, 1, 2, … within each chain. A chain number skipped over is read as a chain
// with no draws. Chains may have different numbers of draws. Chain numbers must
// be below 65536, so that a corrupt chain number cannot make the reader allocate
// billions of empty chains.
//
// It returns an error for empty input, a missing chain or draw column, an empty or
// duplicate name or one with a line break, a row with the wrong number of fields, a value that does not
// parse as a float, a chain or draw number that is not a non-negative integer, a
// chain number of 65536 or more, chains out of order and draw numbering that is
// not contiguous from 0.
func ReadCSV(r io.Reader, source string) (*draws.Draws, error) {
	cr, header, err := readCSVHeader(r, source)
	if err != nil {
		return nil, err
	}
	chainCol, drawCol := -1, -1
	var names []string
	var cols []int
	if _, err := checkColumnNames(header, 0, source); err != nil {
		return nil, err
	}
	for j, h := range header {
		switch h {
		case ChainColumn:
			chainCol = j
		case DrawColumn:
			drawCol = j
		default:
			names = append(names, h)
			cols = append(cols, j)
		}
	}
	if chainCol < 0 || drawCol < 0 {
		missing := ChainColumn
		if chainCol >= 0 {
			missing = DrawColumn
		}
		return nil, fmt.Errorf("frames: %s:1: header has no %q column", source, missing)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("frames: %s:1: header has no parameter columns", source)
	}
	nf := len(header)
	d := &draws.Draws{Names: names}
	var cur []float64 // values of the chain being read
	curChain, nextDraw := -1, 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(source, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != nf {
			return nil, fmt.Errorf("frames: %s:%d: row has %d fields, header has %d", source, line, len(rec), nf)
		}
		c, err := parseIndex(rec[chainCol])
		if err != nil {
			return nil, fmt.Errorf("frames: %s:%d: column %q: %v", source, line, ChainColumn, err)
		}
		dr, err := parseIndex(rec[drawCol])
		if err != nil {
			return nil, fmt.Errorf("frames: %s:%d: column %q: %v", source, line, DrawColumn, err)
		}
		if c >= maxChainNumber {
			return nil, fmt.Errorf("frames: %s:%d: column %q: chain number %d is too large (want below %d)", source, line, ChainColumn, c, maxChainNumber)
		}
		if c != curChain {
			if c < curChain {
				return nil, fmt.Errorf("frames: %s:%d: column %q: chain %d follows chain %d; rows must come chain by chain in increasing order", source, line, ChainColumn, c, curChain)
			}
			if curChain >= 0 {
				d.Chains = append(d.Chains, cur)
			}
			for len(d.Chains) < c { // skipped chain numbers hold no draws
				d.Chains = append(d.Chains, []float64{})
			}
			cur = nil
			curChain, nextDraw = c, 0
		}
		if dr != nextDraw {
			return nil, fmt.Errorf("frames: %s:%d: column %q: chain %d has draw %d where draw %d was expected; draws must be numbered 0, 1, 2, … without gaps", source, line, DrawColumn, c, dr, nextDraw)
		}
		nextDraw++
		for k, j := range cols {
			s := rec[j]
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				var ne *strconv.NumError
				if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
					err = nil // ParseFloat rounds overflow to ±Inf and underflow to ±0: accept those.
				}
			}
			if err != nil {
				return nil, fmt.Errorf("frames: %s:%d: column %q: cannot parse %q", source, line, names[k], s)
			}
			cur = append(cur, v)
		}
	}
	if curChain >= 0 {
		d.Chains = append(d.Chains, cur)
	}
	return d, nil
}

// checkCSVDraws is checkDraws plus the rule that names hold no line breaks,
// which encoding/csv cannot round-trip ("\r\n" in a quoted field reads as "\n").
func checkCSVDraws(d *draws.Draws) error {
	if err := checkDraws(d); err != nil {
		return err
	}
	for i, n := range d.Names {
		if strings.ContainsAny(n, "\r\n") {
			return fmt.Errorf("frames: parameter %d: name %q holds a line break, which CSV cannot store", i, n)
		}
	}
	return nil
}

// maxChainNumber bounds the chain numbers ReadCSV accepts: a chain number
// skipped over becomes an empty chain, so without a bound one corrupt cell such
// as 999999999999 would allocate memory for a trillion chains.
const maxChainNumber = 1 << 16

// readCSVHeader opens r as CSV (records of any length, reused between reads) and
// reads its header line; empty input is an error naming source.
func readCSVHeader(r io.Reader, source string) (*csv.Reader, []string, error) {
	cr := csv.NewReader(bufio.NewReaderSize(r, 64<<10))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, nil, fmt.Errorf("frames: %s: empty input, want a header line", source)
	}
	if err != nil {
		return nil, nil, csvError(source, err)
	}
	return cr, header, nil
}

// checkColumnNames checks the names of header[first:] (first skips an unnamed
// index column): none empty, none holding a line break, none twice. It returns
// the column of each name. Errors name source, line 1 and the 1-based column.
func checkColumnNames(header []string, first int, source string) (map[string]int, error) {
	seen := make(map[string]int, len(header))
	for j := first; j < len(header); j++ {
		n := header[j]
		if n == "" {
			return nil, fmt.Errorf("frames: %s:1: column %d has an empty name", source, j+1)
		}
		if strings.ContainsAny(n, "\r\n") {
			return nil, fmt.Errorf("frames: %s:1: column %d: name %q holds a line break", source, j+1, n)
		}
		if k, ok := seen[n]; ok {
			return nil, fmt.Errorf("frames: %s:1: column name %q appears twice (columns %d and %d)", source, n, k+1, j+1)
		}
		seen[n] = j
	}
	return seen, nil
}

// parseIndex parses a non-negative integer chain or draw number.
func parseIndex(s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("cannot parse %q as a non-negative integer", s)
	}
	return v, nil
}

// csvError converts an encoding/csv error to one naming the source and line.
func csvError(source string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("frames: %s:%d:%d: %v", source, pe.Line, pe.Column, pe.Err)
	}
	return fmt.Errorf("frames: %s: %w", source, err)
}
