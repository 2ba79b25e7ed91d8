package frames

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/nmc-go/nmc/draws"
)

// Format is a file format of draws that DetectFormat tells apart by the header.
type Format int

// The draws file formats ReadDraws reads.
const (
	// FormatNMC is nmc's draws CSV as WriteCSV writes it: a header
	// "chain,draw,<names>" (also what pandas writes for such a frame without
	// its index).
	FormatNMC Format = iota + 1
	// FormatDataFrame is the CSV of a pandas or ArviZ data frame with "chain"
	// and "draw" columns: a leading index column with an empty name, the chain
	// and draw columns elsewhere than first, or a long file (chain, draw,
	// variable, value).
	FormatDataFrame
	// FormatPosterior is R posterior's draws_df as write.csv writes it: a
	// ".chain" column (and ".iteration", ".draw"), 1-based names.
	FormatPosterior
	// FormatCmdStan is the output CSV of CmdStan's sampler: comment lines
	// starting with '#', or a header with an "lp__" column and no chain column.
	FormatCmdStan
)

// String returns a description of the format for messages: "an nmc draws CSV".
func (f Format) String() string {
	switch f {
	case FormatNMC:
		return "an nmc draws CSV"
	case FormatDataFrame:
		return "a pandas/ArviZ draws CSV"
	case FormatPosterior:
		return "an R posterior draws_df CSV"
	case FormatCmdStan:
		return "a CmdStan CSV"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// DetectFormat reads r up to its first non-blank line and tells the format of
// draws by it: a comment line ('#') means CmdStan; otherwise the line is the
// CSV header, and a ".chain" column means R posterior's draws_df, a header
// starting "chain,draw," with no other index column means nmc's draws CSV, any
// other header with a "chain" column means a pandas/ArviZ CSV, and a header with
// an "lp__" column (and no chain column) means CmdStan. source names the input in
// errors, which give the line for a header that is none of these.
func DetectFormat(r io.Reader, source string) (Format, error) {
	f, _, err := sniffFormat(bufio.NewReaderSize(r, 64<<10), source)
	return f, err
}

// sniffFormat reads br up to the first non-blank line, returning the format and
// the bytes read, so that the caller can read the input again from its start.
func sniffFormat(br *bufio.Reader, source string) (Format, []byte, error) {
	var read []byte
	line := 0
	for {
		b, err := readLine(br)
		if err == io.EOF {
			return 0, read, fmt.Errorf("frames: %s: empty input, want a CSV header", source)
		}
		if err != nil {
			return 0, read, fmt.Errorf("frames: %s:%d: %w", source, line+1, err)
		}
		line++
		read = append(append(read, b...), '\n')
		s := strings.TrimSpace(strings.TrimPrefix(string(b), utf8BOM))
		if s == "" {
			continue
		}
		if s[0] == '#' {
			return FormatCmdStan, read, nil
		}
		cr := csv.NewReader(strings.NewReader(s))
		cr.LazyQuotes = true
		header, err := cr.Read()
		if err != nil {
			return 0, read, fmt.Errorf("frames: %s:%d: cannot read the header: %v", source, line, err)
		}
		f := headerFormat(header)
		if f == 0 {
			return 0, read, fmt.Errorf("frames: %s:%d: header has no %q column (nmc, pandas, ArviZ), %q column (R posterior) or %q column (CmdStan)",
				source, line, ChainColumn, posteriorChainColumn, "lp__")
		}
		return f, read, nil
	}
}

// headerFormat tells the format by the columns of a header, or returns 0.
func headerFormat(header []string) Format {
	switch {
	case slices.Contains(header, posteriorChainColumn):
		return FormatPosterior
	case slices.Contains(header, ChainColumn):
		if len(header) >= 2 && header[0] == ChainColumn && header[1] == DrawColumn {
			others := slices.ContainsFunc(header[2:], func(n string) bool {
				return metaColumns[n] || n == VariableColumn || n == ValueColumn
			})
			if !others {
				return FormatNMC
			}
		}
		return FormatDataFrame
	case slices.Contains(header, "lp__"):
		return FormatCmdStan
	}
	return 0
}

// ReadDraws reads draws in any format DetectFormat tells apart: nmc's draws
// CSV, a pandas/ArviZ CSV and R posterior's draws_df CSV with
// ReadDataFrameCSV (chains identified by their numbers, 0- or 1-based, and
// renumbered from 0; R's 1-based names converted to 0-based ones), and
// CmdStan's output CSV with ReadCmdStanCSV (one chain). source names the
// input in errors. An nmc draws CSV whose chains are non-empty and of equal
// length reads back exactly as ReadCSV reads it.
func ReadDraws(r io.Reader, source string) (*draws.Draws, error) {
	d, _, err := readDraws(r, source)
	return d, err
}

// readDraws is ReadDraws, also returning the format.
func readDraws(r io.Reader, source string) (*draws.Draws, Format, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	f, read, err := sniffFormat(br, source)
	if err != nil {
		return nil, 0, err
	}
	all := io.MultiReader(bytes.NewReader(read), br)
	var d *draws.Draws
	if f == FormatCmdStan {
		d, err = ReadCmdStanCSV(all, source)
	} else {
		d, err = ReadDataFrameCSV(all, source)
	}
	if err != nil {
		return nil, 0, err
	}
	return d, f, nil
}

// ReadDrawsFile reads the draws file path in any format ReadDraws reads, for a
// summary or diagnostics: it is ReadDrawsFiles with one file.
func ReadDrawsFile(path string) (*draws.Draws, error) {
	return ReadDrawsFiles(path)
}

// ReadDrawsFiles reads draws files (see ReadDraws) as the chains of one run, for
// a summary or diagnostics of a run whose chains were sampled apart, such as on
// several machines: the chains of every file, in the order given, become chains
// 0, 1, … of the result (a CmdStan file holds one chain, the other formats any
// number). Files may be in different formats, since every reader gives names in
// this package's 0-based form.
//
// It returns an error if no path is given, if a file cannot be read or holds no
// draws, if a file's quantities differ from the first file's (the error names
// both files and the first name that differs) and if the chains are not all of
// the same length (the error names the files and chains, counted from 0 in file
// order).
func ReadDrawsFiles(paths ...string) (*draws.Draws, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("frames: no draws files given")
	}
	var (
		out    *draws.Draws
		format Format
		origin []string // the file and chain each chain of out came from
	)
	for _, p := range paths {
		fh, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("frames: %w", err)
		}
		d, f, err := readDraws(fh, p)
		fh.Close()
		if err != nil {
			return nil, err
		}
		if d.NumChains() == 0 {
			return nil, fmt.Errorf("frames: %s holds no draws", p)
		}
		for c := range d.Chains {
			origin = append(origin, fmt.Sprintf("%s chain %d", p, c))
		}
		if out == nil {
			out, format = d, f
			continue
		}
		if !slices.Equal(out.Names, d.Names) {
			msg := fmt.Sprintf("frames: %s and %s hold different quantities: %s", paths[0], p, nameDiff(out.Names, d.Names, paths[0], p))
			if f != format {
				msg += fmt.Sprintf(" (%s is %v, %s is %v)", paths[0], format, p, f)
			}
			return nil, fmt.Errorf("%s", msg)
		}
		out.Chains = append(out.Chains, d.Chains...)
	}
	for c := range out.NumChains() {
		if n, n0 := out.NumDraws(c), out.NumDraws(0); n != n0 {
			return nil, fmt.Errorf("frames: chains differ in length: %s has %d draws, %s has %d; chains of one run must be of equal length", origin[c], n, origin[0], n0)
		}
	}
	return out, nil
}

// nameDiff says where the quantity names b (of file bf) first differ from a (of
// file af).
func nameDiff(a, b []string, af, bf string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("quantity %d is %q in %s and %q in %s", i+1, a[i], af, b[i], bf)
		}
	}
	if len(a) > len(b) {
		return fmt.Sprintf("%s has %d quantities, %s %d: %q is missing from %s", af, len(a), bf, len(b), a[len(b)], bf)
	}
	return fmt.Sprintf("%s has %d quantities, %s %d: %q is not in %s", af, len(a), bf, len(b), b[len(a)], af)
}
