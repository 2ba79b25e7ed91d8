package models

import (
	"bufio"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nmc-go/nmc/frames"
)

// File names of the shared annotation data set, relative to its directory.
const (
	AnnotationTrainFile  = "annotation_train.csv"
	AnnotationTestFile   = "annotation_test.csv"
	AnnotationTrainZFile = "annotation_train_z.csv"
	AnnotationTestZFile  = "annotation_test_z.csv"
	AnnotationMetaFile   = "annotation_meta.csv"
)

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
