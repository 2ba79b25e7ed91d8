package frames

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/nmc-go/nmc/draws"
)

// ReadCmdStanCSV reads the output CSV file of one CmdStan sampler run (one chain)
// and returns it as Draws with one chain. source names the input in errors, which
// give the line (counting from 1) and the column.
//
// Lines starting with '#' are comments and are skipped: the configuration block
// before the header, the adaptation block (step size and inverse metric) and the
// timing block at the end. Blank lines are skipped. The first other line is the
// header. The sampler columns whose names end in "__" (accept_stat__, stepsize__,
// treedepth__, n_leapfrog__, divergent__, energy__, …) are dropped, except lp__,
// which is kept as a parameter named "lp__". If the file holds warmup draws
// (save_warmup=1), the rows before the "# Adaptation terminated" comment are
// warmup and are dropped, so only the sampling draws are returned.
//
// Stan's 1-based indexed names are converted to this package's 0-based names:
// CmdStan's "beta.3" and "theta.2.1" and the bracket forms "beta[3]" and
// "theta[2,1]" become "beta[2]" and "theta[1,0]". Names without indices are kept as
// they are. Columns keep the file's order (CmdStan writes arrays and matrices in
// column-major order).
//
// It returns an error for input without a header, a bad index in a name (not a
// positive integer), a duplicate name after conversion, a row with the wrong
// number of fields and a value that does not parse as a float (CmdStan's "nan",
// "inf" and "-inf" are accepted).
func ReadCmdStanCSV(r io.Reader, source string) (*draws.Draws, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	line := 0
	var (
		names    []string // converted names of the kept columns
		stanName []string // their names in the file
		keep     []int    // file columns that are kept
		nfields  int
		vals     []float64
		rows     int
		header   bool
	)
	for {
		b, err := readLine(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("frames: %s:%d: %w", source, line+1, err)
		}
		line++
		b = bytes.TrimRight(b, "\r")
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if b[0] == '#' {
			if header && rows > 0 && bytes.Contains(b, []byte("Adaptation terminated")) {
				vals, rows = vals[:0], 0 // the rows so far were saved warmup draws
			}
			continue
		}
		if !header {
			header = true
			fields := splitHeader(string(b))
			nfields = len(fields)
			seen := make(map[string]int)
			for j, f := range fields {
				f = strings.TrimSpace(strings.Trim(strings.TrimSpace(f), `"`))
				if f == "" {
					return nil, fmt.Errorf("frames: %s:%d: column %d has an empty name", source, line, j+1)
				}
				if strings.HasSuffix(f, "__") && f != "lp__" {
					continue
				}
				n, err := StanToName(f)
				if err != nil {
					return nil, fmt.Errorf("frames: %s:%d: column %d: %w", source, line, j+1, err)
				}
				if k, ok := seen[n]; ok {
					return nil, fmt.Errorf("frames: %s:%d: columns %d and %d are both %q", source, line, k+1, j+1, n)
				}
				seen[n] = j
				names = append(names, n)
				stanName = append(stanName, f)
				keep = append(keep, j)
			}
			if len(names) == 0 {
				return nil, fmt.Errorf("frames: %s:%d: header has no parameter columns", source, line)
			}
			continue
		}
		fields := strings.Split(string(b), ",")
		if len(fields) != nfields {
			return nil, fmt.Errorf("frames: %s:%d: row has %d fields, header has %d", source, line, len(fields), nfields)
		}
		for k, j := range keep {
			s := strings.TrimSpace(fields[j])
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				var ne *strconv.NumError
				if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
					return nil, fmt.Errorf("frames: %s:%d: column %q: cannot parse %q", source, line, stanName[k], s)
				}
			}
			vals = append(vals, v)
		}
		rows++
	}
	if !header {
		return nil, fmt.Errorf("frames: %s: no header line (only comments or empty input)", source)
	}
	return &draws.Draws{Names: names, Chains: [][]float64{slices.Clip(vals)}}, nil
}

// readLine returns the next line without its '\n', however long, or io.EOF.
func readLine(br *bufio.Reader) ([]byte, error) {
	b, err := br.ReadSlice('\n')
	if err == nil {
		return b[:len(b)-1], nil
	}
	if err == bufio.ErrBufferFull {
		long := append([]byte(nil), b...)
		for err == bufio.ErrBufferFull {
			b, err = br.ReadSlice('\n')
			long = append(long, b...)
		}
		if err == nil {
			return long[:len(long)-1], nil
		}
		b = long
	}
	if err == io.EOF && len(b) > 0 {
		return b, nil
	}
	return nil, err
}

// splitHeader splits a header line at commas outside brackets and double quotes,
// so "theta[2,1]" stays one name.
func splitHeader(s string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth <= 0 && !quoted {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// StanToName converts a Stan variable name with 1-based indices to this package's
// 0-based form: "beta.3" and "beta[3]" become "beta[2]"; "theta.2.1" and
// "theta[2,1]" become "theta[1,0]"; a name without indices is returned unchanged.
// It returns an error naming the name if an index is not a positive integer.
func StanToName(s string) (string, error) {
	var base string
	var idx []string
	if i := strings.IndexByte(s, '['); i >= 0 {
		if !strings.HasSuffix(s, "]") || i == 0 {
			return "", fmt.Errorf("cannot convert Stan name %q: malformed brackets", s)
		}
		base, idx = s[:i], strings.Split(s[i+1:len(s)-1], ",")
	} else if i := strings.IndexByte(s, '.'); i >= 0 {
		if i == 0 {
			return "", fmt.Errorf("cannot convert Stan name %q: empty variable name", s)
		}
		base, idx = s[:i], strings.Split(s[i+1:], ".")
	} else {
		return s, nil
	}
	var sb strings.Builder
	sb.WriteString(base)
	sb.WriteByte('[')
	for k, x := range idx {
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil || n < 1 {
			return "", fmt.Errorf("cannot convert Stan name %q: index %q is not a positive integer", s, x)
		}
		if k > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Itoa(n - 1))
	}
	sb.WriteByte(']')
	return sb.String(), nil
}

// ReadCmdStanFiles reads CmdStan output files (see ReadCmdStanCSV), one chain per
// file in the order given. Every file must have the same columns in the same
// order; otherwise the error names the file that differs. Chains may have
// different numbers of draws. It returns an error if no path is given or a file
// cannot be read.
func ReadCmdStanFiles(paths ...string) (*draws.Draws, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("frames: no CmdStan files given")
	}
	var out *draws.Draws
	for _, p := range paths {
		d, err := readCmdStanFile(p)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = d
			continue
		}
		if !slices.Equal(out.Names, d.Names) {
			return nil, fmt.Errorf("frames: %s: columns differ from %s: %s", p, paths[0], describeDiff(out.Names, d.Names))
		}
		out.Chains = append(out.Chains, d.Chains[0])
	}
	return out, nil
}

func readCmdStanFile(path string) (*draws.Draws, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("frames: %w", err)
	}
	defer f.Close()
	return ReadCmdStanCSV(f, path)
}

// describeDiff says where two name lists first differ.
func describeDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("column %d is %q, want %q", i+1, b[i], a[i])
		}
	}
	return fmt.Sprintf("%d parameter columns, want %d", len(b), len(a))
}
