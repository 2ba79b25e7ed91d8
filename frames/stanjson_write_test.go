package frames

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// sameFloatBits reports whether a and b hold the same float64 values bit for bit (NaN
// equal to NaN, −0 apart from 0).
func sameFloatBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

// checkRoundTrip reads back what WriteStanJSON wrote for vars and checks every
// variable's name, shape and values, and that integer variables (and only they)
// read as integers.
func checkRoundTrip(t *testing.T, vars []StanVar) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteStanJSON(&buf, vars...); err != nil {
		t.Fatalf("WriteStanJSON: %v", err)
	}
	if !json.Valid(buf.Bytes()) {
		t.Fatalf("WriteStanJSON wrote invalid JSON:\n%s", buf.Bytes())
	}
	d, err := ReadStanJSON(bytes.NewReader(buf.Bytes()), "rt.json")
	if err != nil {
		t.Fatalf("ReadStanJSON of what WriteStanJSON wrote: %v\n%s", err, buf.Bytes())
	}
	d.AllowNonFinite = true
	var names []string
	for _, v := range vars {
		names = append(names, v.Name)
	}
	if got := d.Names(); !slices.Equal(got, names) {
		t.Fatalf("names %q, want %q", got, names)
	}
	for _, v := range vars {
		dims, vals, err := d.Array(v.Name)
		if err != nil {
			t.Fatalf("Array(%q): %v", v.Name, err)
		}
		if len(v.Dims) == 0 && len(dims) != 0 || len(v.Dims) > 0 && !slices.Equal(dims, v.Dims) {
			t.Errorf("%q: dims %v, want %v", v.Name, dims, v.Dims)
		}
		_, ints, ierr := d.IntArray(v.Name)
		if v.Ints != nil {
			if ierr != nil || !slices.Equal(ints, v.Ints) {
				t.Errorf("%q: IntArray %v, %v; want %v", v.Name, ints, ierr, v.Ints)
			}
			continue
		}
		if !sameFloatBits(vals, v.Values) {
			t.Errorf("%q: values %v, want %v bit for bit", v.Name, vals, v.Values)
		}
		if ierr == nil && len(v.Values) > 0 {
			t.Errorf("%q: a real variable reads as integers %v", v.Name, ints)
		}
	}
}

// TestWriteStanJSONRoundTrip: every kind of variable written by WriteStanJSON reads
// back with ReadStanJSON to the same names, shapes and values bit for bit (whole
// reals, −0, the extremes of float64 and int64, NaN and ±∞ included), integers as
// integers and reals as reals.
func TestWriteStanJSONRoundTrip(t *testing.T) {
	t.Parallel()
	x := mat.NewDense(3, 2, []float64{1, 2.5, -3, 1e-300, 0.1, 7})
	checkRoundTrip(t, []StanVar{
		StanInt("N", 3),
		StanInt("neg", -17),
		StanReal("whole", 3),
		StanReal("negzero", math.Copysign(0, -1)),
		StanReal("tiny", 5e-324),
		StanReal("huge", math.MaxFloat64),
		StanReals("y", []float64{1.5, 2, 0.3, -1e21, 1e21, 0.1 + 0.2}),
		StanReals("special", []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0}),
		StanInts("k", []int{0, 1, math.MaxInt64, math.MinInt64}),
		StanMatrix("X", x),
		StanArray("cube", []int{2, 3, 2}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12.5}),
		StanIntArray("grid", []int{2, 2}, []int{1, 2, 3, 4}),
		StanReals("empty", nil),
		StanInts("noints", nil),
		StanArray("rows0", []int{2, 0}, nil),
		StanIntArray("deep0", []int{1, 1, 0}, nil),
		StanArray("one", []int{1}, []float64{4}),
	})
}

// TestWriteStanJSONText: the layout of the written file, one variable per line,
// whole reals with ".0", and an empty object for no variables.
func TestWriteStanJSONText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		vars []StanVar
		want string
	}{
		{nil, "{}\n"},
		{[]StanVar{StanInt("N", 2), StanReals("y", []float64{1, -0.5}), StanMatrix("X", mat.NewDense(2, 2, []float64{1, 2, 3, 4e-7})), StanInts("z", nil)},
			"{\n  \"N\": 2,\n  \"y\": [1.0, -0.5],\n  \"X\": [[1.0, 2.0], [3.0, 4e-07]],\n  \"z\": []\n}\n"},
		{[]StanVar{StanReal("a\"b\x01", math.NaN())}, "{\n  \"a\\\"b\\u0001\": \"NaN\"\n}\n"},
	} {
		var buf bytes.Buffer
		if err := WriteStanJSON(&buf, c.vars...); err != nil {
			t.Fatal(err)
		}
		if buf.String() != c.want {
			t.Errorf("wrote\n%q\nwant\n%q", buf.String(), c.want)
		}
	}
}

// TestWriteStanJSONErrors: bad variables are refused with an error naming them,
// and nothing is written.
func TestWriteStanJSONErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		vars []StanVar
		want string
	}{
		{[]StanVar{StanInt("", 1)}, "frames: stan json: variable 0: empty name"},
		{[]StanVar{StanInt("N", 1), StanReal("N", 2)}, `frames: stan json: "N": given twice`},
		{[]StanVar{StanInt("N", 1), StanArray("y", []int{2, 2}, []float64{1, 2, 3})}, `frames: stan json: variable 1: "y": dims [2 2] needs 4 values, have 3 real values`},
		{[]StanVar{StanIntArray("k", []int{3}, []int{1})}, `frames: stan json: variable 0: "k": dims [3] needs 3 values, have 1 integer values`},
		{[]StanVar{{Name: "s", Values: []float64{1, 2}}}, `frames: stan json: variable 0: "s": a scalar needs 1 values, have 2 real values`},
		{[]StanVar{StanArray("z", []int{-1}, nil)}, `frames: stan json: variable 0: "z": dims [-1]: a negative dimension`},
		{[]StanVar{StanArray("z", []int{1 << 40, 1 << 40}, nil)}, `frames: stan json: variable 0: "z": dims [1099511627776 1099511627776]: too many values`},
		{[]StanVar{StanInt("bad\xff", 1)}, `frames: stan json: variable 0: "bad\xff": the name is not valid UTF-8`},
	} {
		var buf bytes.Buffer
		err := WriteStanJSON(&buf, c.vars...)
		if err == nil || err.Error() != c.want {
			t.Errorf("WriteStanJSON: %v, want %q", err, c.want)
		}
		if buf.Len() != 0 {
			t.Errorf("WriteStanJSON wrote %q with an error", buf.String())
		}
	}
}

// TestStanJSONFilesRoundTrip: each valid test file, read, written from its Vars and
// read again, gives the same variables; the file written by WriteStanJSONFile is
// the same text.
func TestStanJSONFilesRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range stanFiles {
		d, err := ReadStanJSONFile(filepath.Join("testdata", "stanjson", f.file))
		if err != nil {
			t.Fatal(err)
		}
		vars := d.Vars()
		checkRoundTrip(t, vars)
		var buf bytes.Buffer
		if err := WriteStanJSON(&buf, vars...); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, f.file)
		if err := WriteStanJSONFile(path, vars...); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, buf.Bytes()) {
			t.Errorf("%s: WriteStanJSONFile wrote %q (%v), WriteStanJSON %q", f.file, got, err, buf.Bytes())
		}
	}
	if err := WriteStanJSONFile(filepath.Join(dir, "missing", "x.json"), StanInt("N", 1)); err == nil {
		t.Error("WriteStanJSONFile into a missing directory: no error")
	}
}

// TestStanDataVarsCopy: Vars returns copies; changing them leaves the data as read.
func TestStanDataVarsCopy(t *testing.T) {
	t.Parallel()
	d, err := ReadStanJSON(strings.NewReader(`{"k": [1, 2], "y": [[0.5, 1]]}`), "")
	if err != nil {
		t.Fatal(err)
	}
	v := d.Vars()
	v[0].Ints[0], v[1].Values[0], v[1].Dims[0] = 9, 9, 9
	if k, _ := d.Ints("k"); !slices.Equal(k, []int{1, 2}) {
		t.Errorf("k = %v after changing Vars' copy", k)
	}
	if dims, y, _ := d.Array("y"); !slices.Equal(dims, []int{1, 2}) || !slices.Equal(y, []float64{0.5, 1}) {
		t.Errorf("y = %v %v after changing Vars' copy", dims, y)
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestWriteStanJSONWriterError: the writer's error is returned.
func TestWriteStanJSONWriterError(t *testing.T) {
	t.Parallel()
	if err := WriteStanJSON(failingWriter{}, StanInt("N", 1)); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("WriteStanJSON to a failing writer: %v", err)
	}
}

// FuzzStanJSONRoundTrip: whatever ReadStanJSON accepts, written from its Vars by
// WriteStanJSON, reads back to the same variables (go test -run '^$' -fuzz
// '^FuzzStanJSONRoundTrip$' -fuzztime 10m -parallel 1 ./frames/). Seeds: the test
// files and FuzzReadStanJSON's corpus.
func FuzzStanJSONRoundTrip(f *testing.F) {
	f.Add([]byte(`{"N": 3, "y": [1.5, 2, 0.3], "X": [[1, 2], [3, 4], [5, 6]], "K": 2}`))
	f.Add([]byte(`{"a": [[[1, 2]], [[3, 4]]], "b": "-inf", "c": [NaN, -Infinity], "d": [[], []], "z": -0}`))
	for _, dir := range []string{"stanjson", filepath.Join("fuzz", "FuzzReadStanJSON")} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*"))
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > fuzzMaxInput {
			return
		}
		d, err := ReadStanJSON(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		checkRoundTrip(t, d.Vars())
	})
}
