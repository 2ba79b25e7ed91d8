package models

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/internal/fileio"
)

// File names of the shared annotation data set, relative to its directory.
const (
	AnnotationTrainFile  = "annotation_train.csv"
	AnnotationTestFile   = "annotation_test.csv"
	AnnotationTrainZFile = "annotation_train_z.csv"
	AnnotationTestZFile  = "annotation_test_z.csv"
	AnnotationMetaFile   = "annotation_meta.csv"
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

// ---- regression -----------------------------------------------------------------

// regressionHeader returns y, x1, …, xk.
func regressionHeader(k int) []string {
	h := make([]string, k+1)
	h[0] = "y"
	for j := 1; j <= k; j++ {
		h[j] = "x" + strconv.Itoa(j)
	}
	return h
}

// ReadRegressionCSV reads a regression data file with columns y, x1, …, xK in that
// order (blr_*.csv, robust_*.csv). A wrong or missing column, a ragged row or a cell that
// is not a finite number is an error naming the file, line and column.
func ReadRegressionCSV(path string) (RegressionData, error) {
	t, err := frames.ReadTableFile(path)
	if err != nil {
		return RegressionData{}, fmt.Errorf("models: %w", err)
	}
	if len(t.Header) < 2 {
		return RegressionData{}, fmt.Errorf("models: %s:1: header %s, want y,x1,…,xK with K ≥ 1", path, strings.Join(t.Header, ","))
	}
	if err := checkHeader(path, t.Header, regressionHeader(len(t.Header)-1)); err != nil {
		return RegressionData{}, err
	}
	x, y, err := t.Design("y")
	if err != nil {
		return RegressionData{}, fmt.Errorf("models: %w", err)
	}
	return RegressionData{X: x, Y: y}, nil
}

// WriteRegressionCSV writes d to path with the header y, x1, …, xK, one row per
// observation, floats in the shortest form that reads back exactly. It returns an error
// for invalid data (see RegressionData.Validate) or a failed write.
func WriteRegressionCSV(path string, d RegressionData) error {
	if err := d.Validate(false); err != nil {
		return err
	}
	n, k := d.X.Dims()
	return writeCSV(path, func(w *bufio.Writer) {
		w.WriteString(strings.Join(regressionHeader(k), ","))
		w.WriteByte('\n')
		buf := make([]byte, 0, 32*(k+1))
		for i := 0; i < n; i++ {
			buf = appendFloat(buf[:0], d.Y[i])
			for _, x := range d.X.RawRowView(i) {
				buf = append(buf, ',')
				buf = appendFloat(buf, x)
			}
			buf = append(buf, '\n')
			w.Write(buf)
		}
	})
}

// ---- annotation -----------------------------------------------------------------

// idColumn reads an integer id column, checks 1 ≤ id ≤ max and returns the ids 0-based.
func idColumn(t *frames.Table, col string, max int) ([]int, error) {
	v, err := t.Ints(col)
	if err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	for i, id := range v {
		if id < 1 || id > max {
			return nil, fmt.Errorf("models: %s:%d: column %q: id %d out of range 1..%d", t.Source, t.Line(i), col, id, max)
		}
		v[i] = id - 1
	}
	return v, nil
}

// ReadAnnotationCSV reads annotation_train.csv or annotation_test.csv (columns item,
// labeler, label; one row per label; 1-based ids) for a data set of the given sizes. Ids
// are converted to 0-based. An id outside 1 … size, a wrong column, a ragged row or a
// non-integer cell is an error naming the file, line and column. Z is left nil (see
// ReadAnnotationZ).
func ReadAnnotationCSV(path string, numItems, numLabelers, numClasses int) (AnnotationData, error) {
	d := AnnotationData{NumItems: numItems, NumLabelers: numLabelers, NumClasses: numClasses}
	if numItems < 0 || numLabelers < 1 || numClasses < 2 {
		return d, fmt.Errorf("models: %s: sizes %d items, %d labelers, %d classes; want ≥ 0, ≥ 1, ≥ 2", path, numItems, numLabelers, numClasses)
	}
	t, err := readTable(path, "item", "labeler", "label")
	if err != nil {
		return d, err
	}
	if d.Item, err = idColumn(t, "item", numItems); err != nil {
		return d, err
	}
	if d.Labeler, err = idColumn(t, "labeler", numLabelers); err != nil {
		return d, err
	}
	if d.Label, err = idColumn(t, "label", numClasses); err != nil {
		return d, err
	}
	return d, nil
}

// ReadAnnotationZ reads a true-class file (columns item, z; 1-based) into d.Z, 0-based.
// Every item of d must appear exactly once; a missing or repeated item or a class out of
// range is an error naming the file and line.
func ReadAnnotationZ(path string, d *AnnotationData) error {
	t, err := readTable(path, "item", "z")
	if err != nil {
		return err
	}
	items, err := idColumn(t, "item", d.NumItems)
	if err != nil {
		return err
	}
	zs, err := idColumn(t, "z", d.NumClasses)
	if err != nil {
		return err
	}
	// Index the rows by item before allocating one class per item: d.NumItems can
	// come from a metadata file and be far larger than the rows can cover.
	row := make(map[int]int, len(items))
	for r, it := range items {
		if _, dup := row[it]; dup {
			return fmt.Errorf("models: %s:%d: column \"item\": item %d appears twice", path, t.Line(r), it+1)
		}
		row[it] = r
	}
	if len(items) != d.NumItems {
		// ids are in range and distinct, so fewer rows than items leaves one out
		// among the first len(items)+1.
		for i := 0; ; i++ {
			if _, ok := row[i]; !ok {
				return fmt.Errorf("models: %s: item %d has no row (want one per item 1..%d)", path, i+1, d.NumItems)
			}
		}
	}
	z := make([]int, d.NumItems)
	for r, it := range items {
		z[it] = zs[r]
	}
	d.Z = z
	return nil
}

// WriteAnnotationCSV writes the labels of d to path (columns item, labeler, label;
// 1-based ids).
func WriteAnnotationCSV(path string, d AnnotationData) error {
	if err := d.Validate(); err != nil {
		return err
	}
	return writeCSV(path, func(w *bufio.Writer) {
		w.WriteString("item,labeler,label\n")
		var buf []byte
		for r := range d.Item {
			buf = strconv.AppendInt(buf[:0], int64(d.Item[r]+1), 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, int64(d.Labeler[r]+1), 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, int64(d.Label[r]+1), 10)
			buf = append(buf, '\n')
			w.Write(buf)
		}
	})
}

// WriteAnnotationZ writes the true classes of d to path (columns item, z; 1-based). It
// returns an error when d.Z is nil.
func WriteAnnotationZ(path string, d AnnotationData) error {
	if d.Z == nil {
		return fmt.Errorf("models: %s: annotation data has no true classes (Z is nil)", path)
	}
	if err := d.Validate(); err != nil {
		return err
	}
	return writeCSV(path, func(w *bufio.Writer) {
		w.WriteString("item,z\n")
		for i, z := range d.Z {
			fmt.Fprintf(w, "%d,%d\n", i+1, z+1)
		}
	})
}

// AnnotationMeta is the content of annotation_meta.csv: the sizes and hyperparameters of
// an annotation data set.
type AnnotationMeta struct {
	N, NTrain, NTest, K, C int
	JLoc, Gamma, Rho       float64
	RowsTrain, RowsTest    int
}

// Meta returns the metadata of a generated data set.
func (c AnnotationConfig) Meta(train, test AnnotationData) AnnotationMeta {
	return AnnotationMeta{N: c.N, NTrain: train.NumItems, NTest: test.NumItems, K: c.Labelers, C: c.Classes,
		JLoc: c.JLoc, Gamma: c.Gamma, Rho: c.Rho, RowsTrain: train.NumLabels(), RowsTest: test.NumLabels()}
}

// Config returns the generating configuration recorded in m.
func (m AnnotationMeta) Config() AnnotationConfig {
	return AnnotationConfig{N: m.N, Labelers: m.K, Classes: m.C, JLoc: m.JLoc, Gamma: m.Gamma, Rho: m.Rho}
}

// metaFields lists the names of annotation_meta.csv in file order.
func (m *AnnotationMeta) metaFields() (ints map[string]*int, floats map[string]*float64, order []string) {
	ints = map[string]*int{"N": &m.N, "N_train": &m.NTrain, "N_test": &m.NTest, "K": &m.K, "C": &m.C,
		"rows_train": &m.RowsTrain, "rows_test": &m.RowsTest}
	floats = map[string]*float64{"J_loc": &m.JLoc, "gamma": &m.Gamma, "rho": &m.Rho}
	order = []string{"N", "N_train", "N_test", "K", "C", "J_loc", "gamma", "rho", "rows_train", "rows_test"}
	return ints, floats, order
}

// ReadAnnotationMeta reads annotation_meta.csv (columns name, value). Every one of N,
// N_train, N_test, K, C, J_loc, gamma, rho, rows_train, rows_test must appear once; an
// unknown or repeated name, a non-integer count or an inconsistent N is an error naming
// the file and line.
func ReadAnnotationMeta(path string) (AnnotationMeta, error) {
	var m AnnotationMeta
	recs, err := readRecords(path, "name", "value")
	if err != nil {
		return m, err
	}
	ints, floats, order := m.metaFields()
	seen := map[string]bool{}
	for _, r := range recs {
		name := r.fields[0]
		if seen[name] {
			return m, fmt.Errorf("models: %s:%d: column \"name\": %q appears twice", path, r.line, name)
		}
		seen[name] = true
		v, err := r.float(path, 1, "value")
		if err != nil {
			return m, err
		}
		switch {
		case ints[name] != nil:
			if v != float64(int(v)) || v < 0 {
				return m, fmt.Errorf("models: %s:%d: column \"value\": %s = %v, want a count", path, r.line, name, v)
			}
			*ints[name] = int(v)
		case floats[name] != nil:
			*floats[name] = v
		default:
			return m, fmt.Errorf("models: %s:%d: column \"name\": unknown name %q (want one of %s)", path, r.line, name, strings.Join(order, ","))
		}
	}
	for _, name := range order {
		if !seen[name] {
			return m, fmt.Errorf("models: %s: missing %q", path, name)
		}
	}
	if m.NTrain+m.NTest != m.N {
		return m, fmt.Errorf("models: %s: N_train + N_test = %d, want N = %d", path, m.NTrain+m.NTest, m.N)
	}
	return m, nil
}

// WriteAnnotationMeta writes m to path (columns name, value).
func WriteAnnotationMeta(path string, m AnnotationMeta) error {
	ints, floats, order := m.metaFields()
	return writeCSV(path, func(w *bufio.Writer) {
		w.WriteString("name,value\n")
		for _, name := range order {
			w.WriteString(name)
			w.WriteByte(',')
			if p := ints[name]; p != nil {
				w.WriteString(strconv.Itoa(*p))
			} else {
				w.Write(appendFloat(nil, *floats[name]))
			}
			w.WriteByte('\n')
		}
	})
}

// ReadAnnotationDir reads the annotation data set in dir: annotation_meta.csv, then the
// train and test labels and their true classes. The row counts must match the metadata.
func ReadAnnotationDir(dir string) (train, test AnnotationData, meta AnnotationMeta, err error) {
	if meta, err = ReadAnnotationMeta(filepath.Join(dir, AnnotationMetaFile)); err != nil {
		return
	}
	if train, err = ReadAnnotationCSV(filepath.Join(dir, AnnotationTrainFile), meta.NTrain, meta.K, meta.C); err != nil {
		return
	}
	if test, err = ReadAnnotationCSV(filepath.Join(dir, AnnotationTestFile), meta.NTest, meta.K, meta.C); err != nil {
		return
	}
	if train.NumLabels() != meta.RowsTrain || test.NumLabels() != meta.RowsTest {
		err = fmt.Errorf("models: %s: %d train and %d test rows, but %s says %d and %d", dir,
			train.NumLabels(), test.NumLabels(), AnnotationMetaFile, meta.RowsTrain, meta.RowsTest)
		return
	}
	if err = ReadAnnotationZ(filepath.Join(dir, AnnotationTrainZFile), &train); err != nil {
		return
	}
	err = ReadAnnotationZ(filepath.Join(dir, AnnotationTestZFile), &test)
	return
}

// WriteAnnotationDir writes the five annotation files (labels, true classes and
// metadata) of a data set generated with cfg into dir, which must exist.
func WriteAnnotationDir(dir string, cfg AnnotationConfig, train, test AnnotationData) error {
	if err := WriteAnnotationMeta(filepath.Join(dir, AnnotationMetaFile), cfg.Meta(train, test)); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		d    AnnotationData
		z    bool
	}{{AnnotationTrainFile, train, false}, {AnnotationTestFile, test, false},
		{AnnotationTrainZFile, train, true}, {AnnotationTestZFile, test, true}} {
		write := WriteAnnotationCSV
		if f.z {
			write = WriteAnnotationZ
		}
		if err := write(filepath.Join(dir, f.name), f.d); err != nil {
			return err
		}
	}
	return nil
}

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

// ---- conjugate data sets -----------------------------------------------------------

// ReadNormalData reads the y column of normal_known_sigma.csv (header y, one finite
// number per line).
func ReadNormalData(path string) ([]float64, error) {
	t, err := readTable(path, "y")
	if err != nil {
		return nil, err
	}
	return t.Column("y")
}

// ReadCountData reads the y column of gamma_poisson.csv: non-negative integers.
func ReadCountData(path string) ([]int, error) {
	t, err := readTable(path, "y")
	if err != nil {
		return nil, err
	}
	y, err := t.Ints("y")
	if err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	for i, v := range y {
		if v < 0 {
			return nil, fmt.Errorf("models: %s:%d: column \"y\": count %d is negative", path, t.Line(i), v)
		}
	}
	return y, nil
}

// ReadCategoricalData reads the y column of dirichlet_categorical.csv, categories
// 1 … k in the file, and returns them 0-based (0 … k−1).
func ReadCategoricalData(path string, k int) ([]int, error) {
	t, err := readTable(path, "y")
	if err != nil {
		return nil, err
	}
	return idColumn(t, "y", k)
}

// ReadBinomialData reads beta_binomial.csv (columns trials, successes), checking
// 0 ≤ successes ≤ trials on every line.
func ReadBinomialData(path string) (trials, successes []int, err error) {
	t, err := readTable(path, "trials", "successes")
	if err != nil {
		return nil, nil, err
	}
	if trials, err = t.Ints("trials"); err != nil {
		return nil, nil, fmt.Errorf("models: %w", err)
	}
	if successes, err = t.Ints("successes"); err != nil {
		return nil, nil, fmt.Errorf("models: %w", err)
	}
	for i := range trials {
		if trials[i] < 0 || successes[i] < 0 || successes[i] > trials[i] {
			return nil, nil, fmt.Errorf("models: %s:%d: column \"successes\": %d successes in %d trials, want 0 ≤ successes ≤ trials",
				path, t.Line(i), successes[i], trials[i])
		}
	}
	return trials, successes, nil
}

// ReadHyperparameters reads hyperparameters.csv (columns model, name, value) into
// model → name → value. Indexed names are converted to 0-based: alpha[1] in the file
// is alpha[0] in the map (see HyperVector). A repeated (model, name) is an error.
func ReadHyperparameters(path string) (map[string]map[string]float64, error) {
	recs, err := readRecords(path, "model", "name", "value")
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]float64{}
	for _, r := range recs {
		model := r.fields[0]
		name, err := shiftIndices(r.fields[1], -1)
		if err != nil {
			return nil, fmt.Errorf("models: %s:%d: column \"name\": %v", path, r.line, err)
		}
		v, err := r.float(path, 2, "value")
		if err != nil {
			return nil, err
		}
		if out[model] == nil {
			out[model] = map[string]float64{}
		}
		if _, dup := out[model][name]; dup {
			return nil, fmt.Errorf("models: %s:%d: %s %s appears twice", path, r.line, model, r.fields[1])
		}
		out[model][name] = v
	}
	return out, nil
}

// HyperVector collects base[0], base[1], … from h until the first missing index. It
// returns an error when base[0] is missing or h holds an index beyond a gap.
func HyperVector(h map[string]float64, base string) ([]float64, error) {
	var v []float64
	for i := 0; ; i++ {
		x, ok := h[base+"["+strconv.Itoa(i)+"]"]
		if !ok {
			break
		}
		v = append(v, x)
	}
	if len(v) == 0 {
		return nil, fmt.Errorf("models: no hyperparameter %s[0]", base)
	}
	n := 0
	for name := range h {
		if strings.HasPrefix(name, base+"[") {
			n++
		}
	}
	if n != len(v) {
		return nil, fmt.Errorf("models: hyperparameter %s has %d indexed entries but only %s[0] … %s[%d] are contiguous", base, n, base, base, len(v)-1)
	}
	return v, nil
}

// ExactRow is one line of exact_posterior.csv: the closed-form marginal posterior of one
// scalar parameter (0-based name) of one conjugate model, with its summaries.
type ExactRow struct {
	Model, Parameter  string
	Marginal          Marginal
	Mean, SD, Q5, Q95 float64
}

// ReadExactPosterior reads exact_posterior.csv (columns model, parameter, family, par1,
// par2, mean, sd, q5, q95). Parameter names are converted to 0-based.
func ReadExactPosterior(path string) ([]ExactRow, error) {
	cols := []string{"model", "parameter", "family", "par1", "par2", "mean", "sd", "q5", "q95"}
	recs, err := readRecords(path, cols...)
	if err != nil {
		return nil, err
	}
	rows := make([]ExactRow, len(recs))
	for i, r := range recs {
		row := &rows[i]
		row.Model = r.fields[0]
		if row.Parameter, err = shiftIndices(r.fields[1], -1); err != nil {
			return nil, fmt.Errorf("models: %s:%d: column \"parameter\": %v", path, r.line, err)
		}
		row.Marginal.Family = r.fields[2]
		switch row.Marginal.Family {
		case FamilyNormal, FamilyGamma, FamilyBeta:
		default:
			return nil, fmt.Errorf("models: %s:%d: column \"family\": unknown family %q (want normal, gamma or beta)", path, r.line, r.fields[2])
		}
		dst := []*float64{&row.Marginal.Par1, &row.Marginal.Par2, &row.Mean, &row.SD, &row.Q5, &row.Q95}
		for j, p := range dst {
			if *p, err = r.float(path, 3+j, cols[3+j]); err != nil {
				return nil, err
			}
		}
	}
	return rows, nil
}

// ReadConjugateTruth reads the conjugate truth.csv (columns model, parameter, value) into
// model → 0-based parameter name → value.
func ReadConjugateTruth(path string) (map[string]map[string]float64, error) {
	recs, err := readRecords(path, "model", "parameter", "value")
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]float64{}
	for _, r := range recs {
		name, err := shiftIndices(r.fields[1], -1)
		if err != nil {
			return nil, fmt.Errorf("models: %s:%d: column \"parameter\": %v", path, r.line, err)
		}
		v, err := r.float(path, 2, "value")
		if err != nil {
			return nil, err
		}
		if out[r.fields[0]] == nil {
			out[r.fields[0]] = map[string]float64{}
		}
		out[r.fields[0]][name] = v
	}
	return out, nil
}
