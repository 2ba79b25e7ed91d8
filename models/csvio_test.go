package models

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestReadRegressionExamples(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file   string
		binary bool
	}{
		{"blr_train_head1000.csv", true}, {"blr_test_head1000.csv", true},
		{"robust_train_head1000.csv", false}, {"robust_test_head1000.csv", false},
	} {
		path := testData(t, "examples", c.file)
		d, err := ReadRegressionCSV(path)
		if err != nil {
			t.Fatal(err)
		}
		if n, k := d.Dims(); n != 1000 || k != 40 {
			t.Errorf("%s: %d×%d, want 1000×40", c.file, n, k)
		}
		if err := d.Validate(c.binary); err != nil {
			t.Errorf("%s: %v", c.file, err)
		}
		// Written and read back, the data are bit-for-bit the same.
		out := filepath.Join(t.TempDir(), c.file)
		if err := WriteRegressionCSV(out, d); err != nil {
			t.Fatal(err)
		}
		back, err := ReadRegressionCSV(out)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(d.X, back.X) || !reflect.DeepEqual(d.Y, back.Y) {
			t.Errorf("%s: round trip changed the data", c.file)
		}
	}
	// The first row of blr_train_head1000.csv, as in the file.
	d, err := ReadRegressionCSV(testData(t, "examples", "blr_train_head1000.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Y[0] != 0 || d.X.At(0, 0) != -0.58425556194733619 || d.X.At(0, 1) != 8.822094300116623 {
		t.Errorf("first row y=%v x1=%v x2=%v", d.Y[0], d.X.At(0, 0), d.X.At(0, 1))
	}
}

func TestReadAnnotationExamples(t *testing.T) {
	t.Parallel()
	dir := testData(t, "examples")
	train, test, meta, err := ReadAnnotationDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := AnnotationMeta{N: 10000, NTrain: 5000, NTest: 5000, K: 100, C: 3, JLoc: 2.5, Gamma: 10, Rho: 0.5,
		RowsTrain: 12777, RowsTest: 13017}
	if meta != want {
		t.Errorf("meta %+v, want %+v", meta, want)
	}
	if meta.Config() != DefaultAnnotationConfig(10000) {
		t.Errorf("meta config %+v, want the paper's %+v", meta.Config(), DefaultAnnotationConfig(10000))
	}
	for _, d := range []AnnotationData{train, test} {
		if err := d.Validate(); err != nil {
			t.Error(err)
		}
		if d.Z == nil {
			t.Error("true classes not read")
		}
	}
	// First rows: annotation_train.csv "1,49,3" and annotation_test.csv "1,34,3",
	// annotation_train_z.csv "1,3" and "2,3" — all 0-based in Go.
	if train.Item[0] != 0 || train.Labeler[0] != 48 || train.Label[0] != 2 {
		t.Errorf("train row 0 = (%d, %d, %d), want (0, 48, 2)", train.Item[0], train.Labeler[0], train.Label[0])
	}
	if test.Item[0] != 0 || test.Labeler[0] != 33 || test.Label[0] != 2 {
		t.Errorf("test row 0 = (%d, %d, %d), want (0, 33, 2)", test.Item[0], test.Labeler[0], test.Label[0])
	}
	if train.Z[0] != 2 || train.Z[1] != 2 {
		t.Errorf("train Z[:2] = %v, want [2 2]", train.Z[:2])
	}
	// Write the set and read it back: identical.
	out := t.TempDir()
	if err := WriteAnnotationDir(out, meta.Config(), train, test); err != nil {
		t.Fatal(err)
	}
	tr2, te2, meta2, err := ReadAnnotationDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if meta2 != meta || !reflect.DeepEqual(tr2, train) || !reflect.DeepEqual(te2, test) {
		t.Error("annotation round trip changed the data")
	}
	// The label file written is byte-for-byte the shared one.
	for _, f := range []string{AnnotationTrainFile, AnnotationTestZFile, AnnotationMetaFile} {
		a, err1 := os.ReadFile(filepath.Join(dir, f))
		b, err2 := os.ReadFile(filepath.Join(out, f))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if string(a) != string(b) {
			t.Errorf("%s written differs from the shared file", f)
		}
	}
}

func TestGeneratedRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 1))
	dir := t.TempDir()
	train, _, truth, err := GenerateRobust(rng, 50, 3)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "robust_train.csv")
	if err := WriteRegressionCSV(path, train); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRegressionCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(train.X, back.X) || !reflect.DeepEqual(train.Y, back.Y) {
		t.Error("regression round trip changed the data")
	}
	names, values := truth.Named()
	tpath := filepath.Join(dir, "robust_truth.csv")
	if err := WriteTruthCSV(tpath, names, values); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(tpath)
	if !strings.Contains(string(raw), "\nbeta[1],") || strings.Contains(string(raw), "beta[0]") {
		t.Errorf("truth file does not use 1-based names:\n%s", raw)
	}
	got, err := ReadTruthCSV(tpath)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		if got[n] != values[i] {
			t.Errorf("truth %s = %v, want %v", n, got[n], values[i])
		}
	}
	if len(got) != len(names) || got["sigma"] != truth.Sigma || got["beta[2]"] != truth.Beta[2] {
		t.Errorf("truth read back %v", got)
	}

	atrain, atest, atruth, err := GenerateAnnotation(rng, AnnotationConfig{N: 41, Labelers: 7, Classes: 4, JLoc: 2, Gamma: 5, Rho: 0.6})
	if err != nil {
		t.Fatal(err)
	}
	cfg := AnnotationConfig{N: 41, Labelers: 7, Classes: 4, JLoc: 2, Gamma: 5, Rho: 0.6}
	if err := WriteAnnotationDir(dir, cfg, atrain, atest); err != nil {
		t.Fatal(err)
	}
	tr, te, meta, err := ReadAnnotationDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Config() != cfg || !reflect.DeepEqual(tr, atrain) || !reflect.DeepEqual(te, atest) {
		t.Error("annotation round trip changed the data")
	}
	apath := filepath.Join(dir, "annotation_truth.csv")
	if err := WriteAnnotationTruthCSV(apath, atruth); err != nil {
		t.Fatal(err)
	}
	at, err := ReadTruthCSV(apath)
	if err != nil {
		t.Fatal(err)
	}
	if len(at) != 4+7*4*4 || at["prev[3]"] != atruth.Pi[3] || at["theta[6,2,1]"] != atruth.Theta[6][2][1] {
		t.Errorf("annotation truth read back: %d values, prev[3] = %v, theta[6,2,1] = %v", len(at), at["prev[3]"], at["theta[6,2,1]"])
	}
	raw, _ = os.ReadFile(apath)
	if !strings.HasPrefix(string(raw), "parameter,value\nprev[1],") || !strings.Contains(string(raw), "\n\"theta[7,4,4]\",0") {
		t.Errorf("annotation truth file does not use the shared 1-based names:\n%.80s…", raw)
	}
	an, av := atruth.Named()
	if len(an) != 4+7*4*4 || an[4] != "theta[0,0,0]" || av[5] != atruth.Theta[0][0][1] {
		t.Errorf("annotation truth names %v…", an[:6])
	}
}

func TestConjugateReaders(t *testing.T) {
	t.Parallel()
	y, err := ReadNormalData(testData(t, "conjugate", "normal_known_sigma.csv"))
	if err != nil || len(y) != 50 || y[0] != -2.1554411943155789 {
		t.Errorf("normal data: %d values, first %v, err %v", len(y), y[0], err)
	}
	c, err := ReadCountData(testData(t, "conjugate", "gamma_poisson.csv"))
	if err != nil || len(c) != 40 || c[0] != 5 {
		t.Errorf("count data: %v, err %v", c, err)
	}
	cat, err := ReadCategoricalData(testData(t, "conjugate", "dirichlet_categorical.csv"), 4)
	if err != nil || len(cat) != 100 || cat[0] != 1 { // file value 2, 0-based 1
		t.Errorf("categorical data: %v, err %v", cat, err)
	}
	tr, s, err := ReadBinomialData(testData(t, "conjugate", "beta_binomial.csv"))
	if err != nil || len(tr) != 10 || tr[0] != 20 || s[0] != 8 {
		t.Errorf("binomial data: %v %v, err %v", tr, s, err)
	}
	h, err := ReadHyperparameters(testData(t, "conjugate", "hyperparameters.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if h["normal_known_sigma"]["tau0"] != 10 || h["dirichlet_categorical"]["alpha[3]"] != 4 || h["beta_binomial"]["b"] != 3 {
		t.Errorf("hyperparameters %v", h)
	}
	alpha, err := HyperVector(h["dirichlet_categorical"], "alpha")
	if err != nil || !reflect.DeepEqual(alpha, []float64{1, 2, 3, 4}) {
		t.Errorf("alpha = %v, %v", alpha, err)
	}
	truth, err := ReadConjugateTruth(testData(t, "conjugate", "truth.csv"))
	if err != nil || truth["dirichlet_categorical"]["p[0]"] != 0.029861280288620673 || truth["beta_binomial"]["p"] != 0.31658437262173783 {
		t.Errorf("truth %v, err %v", truth, err)
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ file, goName string }{
		{"alpha", "alpha"}, {"beta[3]", "beta[2]"}, {"theta[1,2,3]", "theta[0,1,2]"}, {"prev[10]", "prev[9]"},
	} {
		if g, err := GoName(c.file); err != nil || g != c.goName {
			t.Errorf("GoName(%q) = %q, %v; want %q", c.file, g, err, c.goName)
		}
		if f, err := FileName(c.goName); err != nil || f != c.file {
			t.Errorf("FileName(%q) = %q, %v; want %q", c.goName, f, err, c.file)
		}
	}
	for _, bad := range []string{"beta[0]", "beta[x]", "beta[1", "[1]"} {
		if _, err := GoName(bad); err == nil {
			t.Errorf("GoName(%q): no error", bad)
		}
	}
}

// TestBadFiles checks that malformed files give errors naming the file, the line and
// the column.
func TestBadFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	annot := func(p string) error { _, err := ReadAnnotationCSV(p, 5, 100, 3); return err }
	zread := func(p string) error {
		d := AnnotationData{NumItems: 3, NumLabelers: 2, NumClasses: 3}
		return ReadAnnotationZ(p, &d)
	}
	regr := func(p string) error { _, err := ReadRegressionCSV(p); return err }
	cases := []struct {
		name, content string
		read          func(string) error
		want          string // after "<path>"
	}{
		{"regr_missing_col", "y,x1,x3\n1,2,3\n", regr, `:1: column 3 is "x3", want "x2"`},
		{"regr_no_y", "x1,x2\n1,2\n", regr, `:1: column 1 is "x1", want "y"`},
		{"regr_ragged", "y,x1,x2\n1,2,3\n1,2\n", regr, `:3: 2 fields, want 3`},
		{"regr_nonnumeric", "y,x1,x2\n1,2,3\n1,2,abc\n", regr, `:3: column "x2": cannot parse "abc"`},
		{"annot_zero_item", "item,labeler,label\n1,1,1\n0,2,1\n", annot, `:3: column "item": id 0 out of range 1..5`},
		{"annot_big_item", "item,labeler,label\n6,1,1\n", annot, `:2: column "item": id 6 out of range 1..5`},
		{"annot_labeler", "item,labeler,label\n1,101,1\n", annot, `:2: column "labeler": id 101 out of range 1..100`},
		{"annot_label", "item,labeler,label\n1,1,1\n1,2,4\n", annot, `:3: column "label": id 4 out of range 1..3`},
		{"annot_fraction", "item,labeler,label\n1,1.5,1\n", annot, `:2: column "labeler": 1.5 is not an integer`},
		{"annot_text", "item,labeler,label\n1,2,x\n", annot, `:2: column "label": cannot parse "x"`},
		{"annot_missing_col", "item,label\n1,1\n", annot, `:1: column 2 is "label", want "labeler"`},
		{"annot_extra_col", "item,labeler,label,w\n1,1,1,1\n", annot, `:1: unexpected column "w"`},
		{"annot_ragged", "item,labeler,label\n1,1,1\n1,1\n", annot, `:3: 2 fields, want 3`},
		{"z_dup", "item,z\n1,1\n2,2\n1,3\n", zread, `:4: column "item": item 1 appears twice`},
		{"z_missing", "item,z\n1,1\n3,2\n", zread, `: item 2 has no row`},
		{"z_range", "item,z\n1,1\n2,0\n3,1\n", zread, `:3: column "z": id 0 out of range 1..3`},
		{"cat_range", "y\n1\n5\n", func(p string) error { _, err := ReadCategoricalData(p, 4); return err }, `:3: column "y": id 5 out of range 1..4`},
		{"count_negative", "y\n1\n-2\n", func(p string) error { _, err := ReadCountData(p); return err }, `:3: column "y": count -2 is negative`},
		{"binom", "trials,successes\n20,8\n20,21\n", func(p string) error { _, _, err := ReadBinomialData(p); return err }, `:3: column "successes": 21 successes in 20 trials`},
		{"hyper_value", "model,name,value\nm,a,1\nm,b,x\n", func(p string) error { _, err := ReadHyperparameters(p); return err }, `:3: column "value": cannot parse "x"`},
		{"hyper_name", "model,name,value\nm,alpha[0],1\n", func(p string) error { _, err := ReadHyperparameters(p); return err }, `:2: column "name": index 0`},
		{"hyper_ragged", "model,name,value\nm,a\n", func(p string) error { _, err := ReadHyperparameters(p); return err }, `:2: 2 fields, want 3`},
		{"exact_family", "model,parameter,family,par1,par2,mean,sd,q5,q95\nm,p,cauchy,1,2,3,4,5,6\n", func(p string) error { _, err := ReadExactPosterior(p); return err }, `:2: column "family": unknown family "cauchy"`},
		{"meta_unknown", "name,value\nN,10\nM,3\n", func(p string) error { _, err := ReadAnnotationMeta(p); return err }, `:3: column "name": unknown name "M"`},
		{"meta_count", "name,value\nN,2.5\n", func(p string) error { _, err := ReadAnnotationMeta(p); return err }, `:2: column "value": N = 2.5, want a count`},
		{"meta_missing", "name,value\nN,10\n", func(p string) error { _, err := ReadAnnotationMeta(p); return err }, `: missing "N_train"`},
		{"empty", "", regr, `: empty file`},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name+".csv")
		if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		err := c.read(path)
		if err == nil {
			t.Errorf("%s: no error, want %q", c.name, c.want)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "models: ") || !strings.Contains(msg, path+c.want) {
			t.Errorf("%s: error\n\t%s\nwant it to contain\n\t%s", c.name, msg, path+c.want)
		}
	}
}
