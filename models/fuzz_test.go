package models

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// The fuzz targets of this file run their committed seed corpus
// (testdata/fuzz/<FuzzName>/) with plain `go test`; explore with, e.g.,
//
//	go test -run '^$' -fuzz '^FuzzReadRegressionCSV$' -fuzztime 10m -parallel 1 ./models/

// fuzzMaxInput bounds the size of one fuzzed file.
const fuzzMaxInput = 1 << 16

var fuzzFileSeq atomic.Int64

// fuzzFile writes data to a new file in dir and returns its path.
func fuzzFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, fmt.Sprintf("%d_%s", fuzzFileSeq.Add(1), name))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(p) })
	return p
}

// fuzzCheckErr checks the form of an error from a reader of this package.
func fuzzCheckErr(t *testing.T, what string, err error) {
	t.Helper()
	if !strings.HasPrefix(err.Error(), "models: ") {
		t.Fatalf("%s: error without the package prefix: %v", what, err)
	}
}

// FuzzReadRegressionCSV feeds arbitrary bytes to ReadRegressionCSV. Parsed data
// must be valid (finite, y with one entry per row of X, K ≥ 1) and must survive
// WriteRegressionCSV and ReadRegressionCSV bit for bit.
func FuzzReadRegressionCSV(f *testing.F) {
	dir := f.TempDir()
	f.Add([]byte("y,x1,x2\n1,0.5,-2\n0,3,4\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > fuzzMaxInput {
			return
		}
		p := fuzzFile(t, dir, "reg.csv", data)
		d, err := ReadRegressionCSV(p)
		if err != nil {
			fuzzCheckErr(t, "ReadRegressionCSV", err)
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := d.Validate(false); err != nil {
			t.Fatalf("parsed data are invalid: %v", err)
		}
		n, k := d.Dims()
		if n < 1 || k < 1 {
			t.Fatalf("parsed data are %d×%d", n, k)
		}
		q := filepath.Join(dir, "roundtrip.csv")
		if err := WriteRegressionCSV(q, d); err != nil {
			t.Fatalf("WriteRegressionCSV: %v", err)
		}
		d2, err := ReadRegressionCSV(q)
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		if n2, k2 := d2.Dims(); n2 != n || k2 != k {
			t.Fatalf("read back %d×%d, wrote %d×%d", n2, k2, n, k)
		}
		for i := range n {
			if math.Float64bits(d.Y[i]) != math.Float64bits(d2.Y[i]) {
				t.Fatalf("y[%d]: wrote %v, read %v", i, d.Y[i], d2.Y[i])
			}
			for j := range k {
				if a, b := d.X.At(i, j), d2.X.At(i, j); math.Float64bits(a) != math.Float64bits(b) {
					t.Fatalf("X[%d,%d]: wrote %v, read %v", i, j, a, b)
				}
			}
		}
	})
}

// FuzzReadAnnotation feeds arbitrary bytes to the annotation loaders: the meta
// file, then a labels file read with the meta's sizes (fixed sizes when the
// meta does not parse), then a true-class file. Loaded data must validate.
func FuzzReadAnnotation(f *testing.F) {
	dir := f.TempDir()
	f.Add([]byte("item,labeler,label\n1,1,2\n2,3,1\n"), []byte("item,z\n1,1\n2,3\n"),
		[]byte("name,value\nN,4\nN_train,2\nN_test,2\nK,3\nC,3\nJ_loc,2.5\ngamma,10\nrho,0.5\nrows_train,2\nrows_test,2\n"))
	f.Fuzz(func(t *testing.T, labels, z, meta []byte) {
		if len(labels)+len(z)+len(meta) > fuzzMaxInput {
			return
		}
		items, labelers, classes := 5, 4, 3
		m, err := ReadAnnotationMeta(fuzzFile(t, dir, "meta.csv", meta))
		if err != nil {
			fuzzCheckErr(t, "ReadAnnotationMeta", err)
		} else {
			if m.NTrain+m.NTest != m.N || m.N < 0 || m.K < 0 || m.C < 0 || m.RowsTrain < 0 || m.RowsTest < 0 {
				t.Fatalf("inconsistent meta accepted: %+v", m)
			}
			for _, v := range []float64{m.JLoc, m.Gamma, m.Rho} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("non-finite meta value accepted: %+v", m)
				}
			}
			if cfg := m.Config(); cfg.N != m.N || cfg.Labelers != m.K || cfg.Classes != m.C {
				t.Fatalf("Config %+v does not match meta %+v", cfg, m)
			}
			items, labelers, classes = m.NTrain, m.K, m.C
		}
		d, err := ReadAnnotationCSV(fuzzFile(t, dir, "labels.csv", labels), items, labelers, classes)
		if err != nil {
			fuzzCheckErr(t, "ReadAnnotationCSV", err)
			// The true-class reader only needs the sizes; try it on its own.
			d = AnnotationData{NumItems: items, NumLabelers: labelers, NumClasses: classes}
			if d.NumItems < 0 || d.NumLabelers < 1 || d.NumClasses < 2 {
				return
			}
		} else if err := d.Validate(); err != nil {
			t.Fatalf("loaded labels are invalid: %v", err)
		}
		if err := ReadAnnotationZ(fuzzFile(t, dir, "z.csv", z), &d); err != nil {
			fuzzCheckErr(t, "ReadAnnotationZ", err)
			if d.Z != nil {
				t.Fatalf("Z set although ReadAnnotationZ failed: %v", err)
			}
			return
		}
		if len(d.Z) != d.NumItems {
			t.Fatalf("Z has %d classes for %d items", len(d.Z), d.NumItems)
		}
		if d.Item != nil {
			if err := d.Validate(); err != nil {
				t.Fatalf("loaded labels and classes are invalid: %v", err)
			}
		}
		for i, c := range d.Z {
			if c < 0 || c >= d.NumClasses {
				t.Fatalf("Z[%d] = %d out of range [0, %d)", i, c, d.NumClasses)
			}
		}
	})
}

// FuzzReadConjugate feeds arbitrary bytes to every reader of the conjugate data
// sets (data files, hyperparameters, exact posterior, truth files) and uses what
// they return: every reader returns a value or an error, values are finite and
// names 0-based, and the exact marginals' methods never panic.
func FuzzReadConjugate(f *testing.F) {
	dir := f.TempDir()
	f.Add([]byte("model,name,value\nnormal_known_sigma,mu0,0\ndirichlet_categorical,alpha[1],1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > fuzzMaxInput {
			return
		}
		p := fuzzFile(t, dir, "conj.csv", data)

		if y, err := ReadNormalData(p); err != nil {
			fuzzCheckErr(t, "ReadNormalData", err)
		} else {
			fuzzFinite(t, "ReadNormalData", y)
		}
		if y, err := ReadCountData(p); err != nil {
			fuzzCheckErr(t, "ReadCountData", err)
		} else {
			for i, v := range y {
				if v < 0 {
					t.Fatalf("ReadCountData: y[%d] = %d", i, v)
				}
			}
		}
		if y, err := ReadCategoricalData(p, 4); err != nil {
			fuzzCheckErr(t, "ReadCategoricalData", err)
		} else {
			for i, v := range y {
				if v < 0 || v >= 4 {
					t.Fatalf("ReadCategoricalData: y[%d] = %d, want 0..3", i, v)
				}
			}
		}
		if n, s, err := ReadBinomialData(p); err != nil {
			fuzzCheckErr(t, "ReadBinomialData", err)
		} else {
			if len(n) != len(s) {
				t.Fatalf("ReadBinomialData: %d trials, %d successes", len(n), len(s))
			}
			for i := range n {
				if s[i] < 0 || s[i] > n[i] {
					t.Fatalf("ReadBinomialData: row %d: %d successes in %d trials", i, s[i], n[i])
				}
			}
		}
		if h, err := ReadHyperparameters(p); err != nil {
			fuzzCheckErr(t, "ReadHyperparameters", err)
		} else {
			for model, m := range h {
				bases := map[string]bool{}
				for name, v := range m {
					fuzzName(t, "ReadHyperparameters", name)
					fuzzFinite(t, "ReadHyperparameters "+model+" "+name, []float64{v})
					if i := strings.IndexByte(name, '['); i > 0 {
						bases[name[:i]] = true
					}
				}
				for base := range bases {
					if v, err := HyperVector(m, base); err != nil {
						fuzzCheckErr(t, "HyperVector", err)
					} else {
						fuzzFinite(t, "HyperVector", v)
					}
				}
			}
		}
		if rows, err := ReadExactPosterior(p); err != nil {
			fuzzCheckErr(t, "ReadExactPosterior", err)
		} else {
			for _, r := range rows {
				fuzzName(t, "ReadExactPosterior", r.Parameter)
				fuzzFinite(t, "ReadExactPosterior", []float64{r.Marginal.Par1, r.Marginal.Par2, r.Mean, r.SD, r.Q5, r.Q95})
				m := r.Marginal
				_, _, _ = m.Mean(), m.LogPDF(r.Mean), m.LogPDF(r.Q5) // must not panic
				if sd := m.SD(); sd < 0 {
					t.Fatalf("ReadExactPosterior: %+v: SD %v", m, sd)
				}
				if q5, q95 := m.Quantile(0.05), m.Quantile(0.95); q5 > q95 {
					t.Fatalf("ReadExactPosterior: %+v: q5 %v > q95 %v", m, q5, q95)
				}
			}
		}
		for what, read := range map[string]func(string) (map[string]map[string]float64, error){
			"ReadConjugateTruth": ReadConjugateTruth,
		} {
			if m, err := read(p); err != nil {
				fuzzCheckErr(t, what, err)
			} else {
				for _, mm := range m {
					for name, v := range mm {
						fuzzName(t, what, name)
						fuzzFinite(t, what, []float64{v})
					}
				}
			}
		}
		if m, err := ReadTruthCSV(p); err != nil {
			fuzzCheckErr(t, "ReadTruthCSV", err)
		} else {
			for name, v := range m {
				fuzzName(t, "ReadTruthCSV", name)
				fuzzFinite(t, "ReadTruthCSV", []float64{v})
			}
		}
	})
}

// fuzzFinite fails if v holds a NaN or an infinity.
func fuzzFinite(t *testing.T, what string, v []float64) {
	t.Helper()
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			t.Fatalf("%s: value %d is %v", what, i, x)
		}
	}
}

// fuzzName checks that a name converted to 0-based form has non-negative indices
// and converts back to the file's form without error.
func fuzzName(t *testing.T, what, name string) {
	t.Helper()
	if _, err := FileName(name); err != nil {
		t.Fatalf("%s: 0-based name %q does not convert back: %v", what, name, err)
	}
}

// TestReadAnnotationZHugeItemCount is the regression test for ReadAnnotationZ
// allocating one class per declared item before looking at the rows: a meta
// file declaring 2^50 items made it ask for 8 PiB. Now the missing item is
// reported without the allocation.
func TestReadAnnotationZHugeItemCount(t *testing.T) {
	p := filepath.Join(t.TempDir(), "z.csv")
	if err := os.WriteFile(p, []byte("item,z\n2,1\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := AnnotationData{NumItems: 1 << 50, NumLabelers: 1, NumClasses: 2}
	err := ReadAnnotationZ(p, &d)
	if err == nil || !strings.Contains(err.Error(), "item 3 has no row") || d.Z != nil {
		t.Fatalf("err = %v, Z has %d entries; want \"item 3 has no row\" and no Z", err, len(d.Z))
	}
	d.NumItems = 2
	if err := ReadAnnotationZ(p, &d); err != nil || len(d.Z) != 2 || d.Z[0] != 1 || d.Z[1] != 0 {
		t.Fatalf("two items: err %v, Z %v; want [1 0]", err, d.Z)
	}
}
