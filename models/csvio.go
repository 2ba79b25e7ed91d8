package models

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/internal/fileio"
)

// ---- name conversion -------------------------------------------------------------

// shiftIndices returns name with every integer inside its brackets shifted by delta:
// "theta[1,2,3]" with delta −1 is "theta[0,1,2]". A name without brackets is returned
// unchanged. A malformed index, or one that would become negative, is an error.
func shiftIndices(name string, delta int) (string, error) {
	open := strings.IndexByte(name, '[')
	if open < 0 {
		return name, nil
	}
	if !strings.HasSuffix(name, "]") || open == 0 {
		return "", fmt.Errorf("malformed parameter name %q", name)
	}
	parts := strings.Split(name[open+1:len(name)-1], ",")
	var b strings.Builder
	b.WriteString(name[:open+1])
	for i, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return "", fmt.Errorf("malformed index %q in parameter name %q", p, name)
		}
		v += delta
		if v < 0 {
			return "", fmt.Errorf("index %d in parameter name %q is below the first (ids in files are 1-based)", v-delta, name)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(v))
	}
	b.WriteByte(']')
	return b.String(), nil
}

// GoName converts a Stan-style 1-based parameter name from a file ("beta[3]",
// "theta[1,2,3]") to the 0-based name used in Go ("beta[2]", "theta[0,1,2]").
func GoName(fileName string) (string, error) {
	s, err := shiftIndices(fileName, -1)
	if err != nil {
		return "", fmt.Errorf("models: %v", err)
	}
	return s, nil
}

// FileName converts a 0-based Go parameter name ("beta[2]") to the 1-based name used in
// files ("beta[3]").
func FileName(goName string) (string, error) {
	s, err := shiftIndices(goName, 1)
	if err != nil {
		return "", fmt.Errorf("models: %v", err)
	}
	return s, nil
}

// ---- low-level reading and writing -------------------------------------------------

// readTable reads a numeric table and checks that its header is exactly want.
func readTable(path string, want ...string) (*frames.Table, error) {
	t, err := frames.ReadTableFile(path)
	if err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	if err := checkHeader(path, t.Header, want); err != nil {
		return nil, err
	}
	return t, nil
}

// checkHeader returns an error naming the first column of got that differs from want.
func checkHeader(path string, got, want []string) error {
	for j, w := range want {
		if j >= len(got) {
			return fmt.Errorf("models: %s:1: missing column %q (column %d); want header %s", path, w, j+1, strings.Join(want, ","))
		}
		if got[j] != w {
			return fmt.Errorf("models: %s:1: column %d is %q, want %q (header %s)", path, j+1, got[j], w, strings.Join(want, ","))
		}
	}
	if len(got) > len(want) {
		return fmt.Errorf("models: %s:1: unexpected column %q (column %d); want header %s", path, got[len(want)], len(want)+1, strings.Join(want, ","))
	}
	return nil
}

// record is one row of a CSV file with text columns.
type record struct {
	line   int
	fields []string
}

// readRecords reads a CSV file whose header must be want; every row must have
// len(want) fields.
func readRecords(path string, want ...string) ([]record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("models: %s: empty file, want header %s", path, strings.Join(want, ","))
	}
	if err != nil {
		return nil, recordError(path, err)
	}
	for j := range header {
		header[j] = strings.TrimSpace(header[j])
	}
	if err := checkHeader(path, header, want); err != nil {
		return nil, err
	}
	var recs []record
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return nil, recordError(path, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(want) {
			return nil, fmt.Errorf("models: %s:%d: %d fields, want %d", path, line, len(rec), len(want))
		}
		for j := range rec {
			rec[j] = strings.TrimSpace(rec[j])
		}
		recs = append(recs, record{line: line, fields: rec})
	}
}

// recordError turns an encoding/csv error into a models error naming file and line.
func recordError(path string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("models: %s:%d: column %d: %v", path, pe.Line, pe.Column, pe.Err)
	}
	return fmt.Errorf("models: %s: %v", path, err)
}

// float parses field j of r as a finite float, naming the column col in errors.
func (r record) float(path string, j int, col string) (float64, error) {
	v, err := strconv.ParseFloat(r.fields[j], 64)
	if err != nil || !finite(v) {
		return 0, fmt.Errorf("models: %s:%d: column %q: cannot parse %q as a finite number", path, r.line, col, r.fields[j])
	}
	return v, nil
}

// writeCSV writes the file path (see fileio.WriteFile: a failed write leaves no
// partial file under path) with the bytes fill writes to w; write errors stick in
// w and are returned after fill.
func writeCSV(path string, fill func(w *bufio.Writer)) error {
	err := fileio.WriteFile(path, func(out io.Writer) error {
		w := bufio.NewWriter(out)
		fill(w)
		return w.Flush()
	})
	if err != nil {
		return fmt.Errorf("models: writing %s: %w", path, err)
	}
	return nil
}

// appendFloat formats v in the shortest form that parses back to exactly v.
func appendFloat(buf []byte, v float64) []byte { return strconv.AppendFloat(buf, v, 'g', -1, 64) }

// ---- truth files ----------------------------------------------------------------

// WriteTruthCSV writes generating values to path (columns parameter, value), converting
// the 0-based Go names to the files' 1-based names. Names holding a comma
// ("theta[1,2,3]") are quoted, as CSV requires.
func WriteTruthCSV(path string, names []string, values []float64) error {
	if len(names) != len(values) {
		return fmt.Errorf("models: %s: %d names but %d values", path, len(names), len(values))
	}
	file := make([]string, len(names))
	for i, n := range names {
		f, err := FileName(n)
		if err != nil {
			return err
		}
		file[i] = f
	}
	return writeCSV(path, func(w *bufio.Writer) {
		w.WriteString("parameter,value\n")
		for i, n := range file {
			w.WriteString(csvField(n))
			w.WriteByte(',')
			w.Write(appendFloat(nil, values[i]))
			w.WriteByte('\n')
		}
	})
}

// WriteAnnotationTruthCSV writes the generating values of an annotation data set to path
// (columns parameter, value) with the shared files' names: the prevalences as
// "prev[m]" (Stan's name for π) and the confusion matrices as "theta[l,m,n]", 1-based.
// ReadTruthCSV reads the file back with 0-based names ("prev[0]", "theta[0,0,0]").
func WriteAnnotationTruthCSV(path string, t AnnotationTruth) error {
	names, values := t.Named()
	for i, n := range names {
		if strings.HasPrefix(n, "pi[") {
			names[i] = "prev" + n[len("pi"):]
		}
	}
	return WriteTruthCSV(path, names, values)
}

// csvField quotes s when it holds a comma or a quote.
func csvField(s string) string {
	if !strings.ContainsAny(s, ",\"\n") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// ReadTruthCSV reads a *_truth.csv file (columns parameter, value) into a map from the
// 0-based Go name to the value. A repeated name is an error.
func ReadTruthCSV(path string) (map[string]float64, error) {
	recs, err := readRecords(path, "parameter", "value")
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(recs))
	for _, r := range recs {
		name, err := shiftIndices(r.fields[0], -1)
		if err != nil {
			return nil, fmt.Errorf("models: %s:%d: column \"parameter\": %v", path, r.line, err)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("models: %s:%d: column \"parameter\": %q appears twice", path, r.line, r.fields[0])
		}
		if out[name], err = r.float(path, 1, "value"); err != nil {
			return nil, err
		}
	}
	return out, nil
}
