package frames

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzReadStanJSON feeds arbitrary bytes to ReadStanJSON (explore with
// go test -run '^$' -fuzz '^FuzzReadStanJSON$' -fuzztime 10m -parallel 1 ./frames/).
// Seeds: the test files of testdata/stanjson and testdata/fuzz/FuzzReadStanJSON.
// Whatever parses must hold unique non-empty names whose shapes match their values,
// and every accessor must agree with Array and with the variable's shape, returning
// errors that name the variable; an input with no NaN or infinity in it must be JSON
// that encoding/json decodes to the same names and values.
func FuzzReadStanJSON(f *testing.F) {
	f.Add([]byte(`{"N": 3, "y": [1.5, 2, 0.3], "X": [[1, 2], [3, 4], [5, 6]], "K": 2}`))
	f.Add([]byte(`{"a": [[[1, 2]], [[3, 4]]], "b": "-inf", "c": [NaN, -Infinity], "d": [[], []]}`))
	for _, dir := range []string{"stanjson", filepath.Join("stanjson", "bad")} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
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
			if d != nil {
				t.Fatalf("ReadStanJSON returned data with error %v", err)
			}
			if !strings.HasPrefix(err.Error(), "frames: fuzz.json") {
				t.Fatalf("error without the package prefix and source: %v", err)
			}
			return
		}
		names := d.Names()
		seen := map[string]bool{}
		for _, name := range names {
			if name == "" || seen[name] || !d.Has(name) {
				t.Fatalf("names %q: empty, repeated or not found", names)
			}
			seen[name] = true
			fuzzStanVar(t, d, name)
		}
		if _, err := d.Float("\x00absent"); err == nil || !strings.Contains(err.Error(), `no variable "\x00absent"`) {
			t.Fatalf("Float of an absent name: %v", err)
		}
		lower := bytes.ToLower(data)
		if !bytes.Contains(lower, []byte("nan")) && !bytes.Contains(lower, []byte("inf")) {
			if diff := stanJSONAgrees(d, bytes.TrimPrefix(data, []byte("\ufeff"))); diff != "" {
				t.Fatalf("encoding/json disagrees: %s", diff)
			}
		}
	})
}

// fuzzStanVar checks one variable's accessors against its shape and Array.
func fuzzStanVar(t *testing.T, d *StanData, name string) {
	t.Helper()
	named := func(accessor string, err error) {
		t.Helper()
		if err != nil && !strings.HasPrefix(err.Error(), "frames: fuzz.json: "+strconv.Quote(name)+": ") {
			t.Fatalf("%s(%q): error does not name the variable: %v", accessor, name, err)
		}
	}
	dims, err := d.Dims(name)
	if err != nil {
		t.Fatalf("Dims(%q): %v", name, err)
	}
	d.AllowNonFinite = true
	adims, vals, err := d.Array(name)
	if err != nil || !slices.Equal(adims, dims) {
		t.Fatalf("Array(%q) with AllowNonFinite: %v, dims %v, Dims %v", name, err, adims, dims)
	}
	n := 1
	for _, k := range dims {
		if k < 0 {
			t.Fatalf("Dims(%q) = %v", name, dims)
		}
		n *= k
	}
	if n != len(vals) {
		t.Fatalf("%q: dims %v but %d values", name, dims, len(vals))
	}
	d.AllowNonFinite = false
	finite := !hasNonFinite(vals)
	_, _, err = d.Array(name)
	named("Array", err)
	if (err == nil) != finite {
		t.Fatalf("Array(%q) of finite=%v data: %v", name, finite, err)
	}
	fl, err := d.Floats(name)
	named("Floats", err)
	if ok := len(dims) <= 1 && finite; (err == nil) != ok || err == nil && !sameFloats(fl, vals) {
		t.Fatalf("Floats(%q) = %v, %v; dims %v, values %v", name, fl, err, dims, vals)
	}
	x, err := d.Float(name)
	named("Float", err)
	if ok := len(dims) == 0 && finite; (err == nil) != ok || err == nil && !sameFloats([]float64{x}, vals) {
		t.Fatalf("Float(%q) = %v, %v; dims %v, values %v", name, x, err, dims, vals)
	}
	m, err := d.Matrix(name)
	named("Matrix", err)
	if ok := len(dims) == 2 && n > 0 && finite; (err == nil) != ok || err == nil && !sameFloats(m.RawMatrix().Data, vals) {
		t.Fatalf("Matrix(%q): %v; dims %v", name, err, dims)
	}
	_, ints, err := d.IntArray(name)
	named("IntArray", err)
	if err == nil {
		if len(ints) != len(vals) {
			t.Fatalf("IntArray(%q) has %d values, Array %d", name, len(ints), len(vals))
		}
		for i := range ints {
			if float64(ints[i]) != vals[i] || vals[i] == 0 && math.Signbit(vals[i]) {
				t.Fatalf("IntArray(%q)[%d] = %d, Array %v", name, i, ints[i], vals[i])
			}
		}
	}
	isInt := err == nil
	is, err := d.Ints(name)
	named("Ints", err)
	if ok := len(dims) <= 1 && isInt; (err == nil) != ok || err == nil && !slices.Equal(is, ints) {
		t.Fatalf("Ints(%q) = %v, %v; IntArray ok %v", name, is, err, isInt)
	}
	i, err := d.Int(name)
	named("Int", err)
	if ok := len(dims) == 0 && isInt; (err == nil) != ok || err == nil && i != ints[0] {
		t.Fatalf("Int(%q) = %v, %v; IntArray ok %v", name, i, err, isInt)
	}
}
