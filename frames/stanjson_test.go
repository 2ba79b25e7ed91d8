package frames

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// stanWantVar is what a test file's variable must read as: its shape, its values in
// row-major order (as written in the file) and, when every element is an integer,
// the same values as ints.
type stanWantVar struct {
	name   string
	dims   []int
	values []float64
	ints   []int // nil when some element is a real
}

// stanFiles lists the valid test files in testdata/stanjson and their content,
// written out by hand from the files.
var stanFiles = []struct {
	file string
	vars []stanWantVar
}{
	{"eight_schools.json", []stanWantVar{
		{"J", nil, []float64{8}, []int{8}},
		{"y", []int{8}, []float64{28, 8, -3, 7, -1, 1, 18, 12}, []int{28, 8, -3, 7, -1, 1, 18, 12}},
		{"sigma", []int{8}, []float64{15, 10, 16, 11, 9, 11, 10, 18}, []int{15, 10, 16, 11, 9, 11, 10, 18}},
	}},
	{"arma11.json", []stanWantVar{
		{"T", nil, []float64{12}, []int{12}},
		{"y", []int{12}, []float64{-0.3108, 0.5537, 1.2694, 0.8112, -0.0461, -0.8825, -1.1392, -0.2718, 0.4407, 1.0529, 0.7936, 0.1084}, nil},
	}},
	{"regression.json", []stanWantVar{
		{"N", nil, []float64{5}, []int{5}},
		{"K", nil, []float64{3}, []int{3}},
		{"X", []int{5, 3}, []float64{
			1, 0.52373845386505127, -1.2e-3,
			1, -0.0081409774720668793, 3.5e+2,
			1, 1.7765934467315674, 0,
			1, -2.25e-1, math.Copysign(0, -1),
			1, 0.10000000000000001, 7,
		}, nil},
		{"y", []int{5}, []float64{2.4511, -0.38, 1.0e1, 3, -1.5}, nil},
	}},
	{"hmm.json", []stanWantVar{ // CRLF line ends
		{"K", nil, []float64{3}, []int{3}},
		{"V", nil, []float64{4}, []int{4}},
		{"T", nil, []float64{10}, []int{10}},
		{"w", []int{10}, []float64{1, 3, 3, 2, 4, 4, 1, 2, 2, 3}, []int{1, 3, 3, 2, 4, 4, 1, 2, 2, 3}},
		{"alpha", []int{3}, []float64{1, 1, 1}, []int{1, 1, 1}},
		{"beta", []int{4}, []float64{0.25, 0.25, 0.25, 0.25}, nil},
	}},
	{"panel3d.json", []stanWantVar{
		{"N", nil, []float64{2}, []int{2}},
		{"T", nil, []float64{3}, []int{3}},
		{"P", nil, []float64{4}, []int{4}},
		{"x", []int{2, 3, 4}, []float64{
			0.1, 0.2, 0.3, 0.4, 1.1, 1.2, 1.3, 1.4, 2.1, 2.2, 2.3, 2.4,
			-0.1, -0.2, -0.3, -0.4, -1.1, -1.2, -1.3, -1.4, -2.1, -2.2, -2.3, -2.4,
		}, nil},
		{"counts", []int{2, 3, 2}, []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
	}},
	{"nonfinite.json", []stanWantVar{ // starts with a byte order mark
		{"lower", nil, []float64{math.Inf(-1)}, nil},
		{"upper", nil, []float64{math.Inf(1)}, nil},
		{"y", []int{3}, []float64{1.5, math.NaN(), 2}, nil},
		{"py", []int{3}, []float64{math.Inf(1), math.Inf(-1), math.NaN()}, nil},
		{"bare", []int{5}, []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)}, nil},
		{"sd", nil, []float64{0.5}, nil},
	}},
	{"empty_arrays.json", []stanWantVar{
		{"N", nil, []float64{0}, []int{0}},
		{"y", []int{0}, []float64{}, []int{}},
		{"X", []int{3, 0}, []float64{}, []int{}},
		{"Z", []int{1, 1, 0}, []float64{}, []int{}},
		{"ids", []int{0}, []float64{}, []int{}},
	}},
	{"no_data.json", nil},
	{"ints_reals.json", []stanWantVar{
		{"N", nil, []float64{3}, nil},
		{"K", nil, []float64{2.5}, nil},
		{"M", nil, []float64{100}, nil},
		{"n", []int{3}, []float64{1, 2, 3}, nil},
		{"big", nil, []float64{1e20}, nil},
		{"neg", nil, []float64{-7}, []int{-7}},
		{"zero", nil, []float64{0}, []int{0}},
	}},
}

// sameFloats reports whether a and b hold the same float64 bit patterns, all NaNs
// alike (so that -0 and 0 differ).
func sameFloats(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool {
		if math.IsNaN(x) || math.IsNaN(y) {
			return math.IsNaN(x) && math.IsNaN(y)
		}
		return math.Float64bits(x) == math.Float64bits(y)
	})
}

func hasNonFinite(v []float64) bool {
	return slices.ContainsFunc(v, func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) })
}

// TestReadStanJSONFiles reads every valid test file and checks every accessor's
// values exactly against the content written out in stanFiles.
func TestReadStanJSONFiles(t *testing.T) {
	t.Parallel()
	for _, f := range stanFiles {
		t.Run(f.file, func(t *testing.T) {
			path := filepath.Join("testdata", "stanjson", f.file)
			d, err := ReadStanJSONFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if d.Source != path {
				t.Errorf("Source = %q, want %q", d.Source, path)
			}
			var names []string
			for _, w := range f.vars {
				names = append(names, w.name)
			}
			if got := d.Names(); !slices.Equal(got, names) {
				t.Fatalf("Names() = %q, want %q", got, names)
			}
			for _, w := range f.vars {
				checkStanVar(t, d, w)
			}
		})
	}
}

// checkStanVar checks every accessor of one variable against w: the accessors that
// fit its shape and kind return its values; the others return an error naming it.
func checkStanVar(t *testing.T, d *StanData, w stanWantVar) {
	t.Helper()
	name := w.name
	if !d.Has(name) {
		t.Errorf("Has(%q) = false", name)
	}
	dims, err := d.Dims(name)
	if err != nil || !slices.Equal(dims, w.dims) || dims == nil {
		t.Errorf("Dims(%q) = %v, %v; want %v (non-nil)", name, dims, err, w.dims)
	}
	nonFinite := hasNonFinite(w.values)
	for _, allow := range []bool{false, true} {
		d.AllowNonFinite = allow
		refused := nonFinite && !allow
		gotDims, vals, err := d.Array(name)
		checkRefusal(t, "Array", name, err, refused)
		if err == nil && (!slices.Equal(gotDims, w.dims) || !sameFloats(vals, w.values)) {
			t.Errorf("Array(%q) = %v, %v; want %v, %v", name, gotDims, vals, w.dims, w.values)
		}
		switch len(w.dims) {
		case 0:
			v, err := d.Float(name)
			checkRefusal(t, "Float", name, err, refused)
			if err == nil && !sameFloats([]float64{v}, w.values) {
				t.Errorf("Float(%q) = %v, want %v", name, v, w.values[0])
			}
			fallthrough
		case 1:
			v, err := d.Floats(name)
			checkRefusal(t, "Floats", name, err, refused)
			if err == nil && (v == nil || !sameFloats(v, w.values)) {
				t.Errorf("Floats(%q) = %v, want %v", name, v, w.values)
			}
		case 2:
			m, err := d.Matrix(name)
			empty := w.dims[0] == 0 || w.dims[1] == 0
			checkRefusal(t, "Matrix", name, err, refused || empty)
			if err == nil {
				if r, c := m.Dims(); r != w.dims[0] || c != w.dims[1] || !sameFloats(m.RawMatrix().Data, w.values) {
					t.Errorf("Matrix(%q) = %v, want %v of %v", name, m, w.dims, w.values)
				}
			}
		}
	}
	d.AllowNonFinite = false
	// Integers: the accessors read them exactly, or refuse a real element.
	isInt := w.ints != nil
	_, ints, err := d.IntArray(name)
	checkRefusal(t, "IntArray", name, err, !isInt)
	if err == nil && (ints == nil || !slices.Equal(ints, w.ints)) {
		t.Errorf("IntArray(%q) = %v, want %v", name, ints, w.ints)
	}
	if len(w.dims) <= 1 {
		v, err := d.Ints(name)
		checkRefusal(t, "Ints", name, err, !isInt)
		if err == nil && (v == nil || !slices.Equal(v, w.ints)) {
			t.Errorf("Ints(%q) = %v, want %v", name, v, w.ints)
		}
	}
	if len(w.dims) == 0 {
		v, err := d.Int(name)
		checkRefusal(t, "Int", name, err, !isInt)
		if err == nil && v != w.ints[0] {
			t.Errorf("Int(%q) = %v, want %v", name, v, w.ints[0])
		}
	}
	// The shapes each accessor refuses.
	if len(w.dims) > 0 {
		_, err := d.Float(name)
		checkRefusal(t, "Float", name, err, true)
		_, err = d.Int(name)
		checkRefusal(t, "Int", name, err, true)
	}
	if len(w.dims) > 1 {
		_, err := d.Floats(name)
		checkRefusal(t, "Floats", name, err, true)
		_, err = d.Ints(name)
		checkRefusal(t, "Ints", name, err, true)
	}
	if len(w.dims) != 2 {
		_, err := d.Matrix(name)
		checkRefusal(t, "Matrix", name, err, true)
	}
}

// checkRefusal checks that err is nil, or (when refused) an error naming the variable.
func checkRefusal(t *testing.T, accessor, name string, err error, refused bool) {
	t.Helper()
	switch {
	case refused && err == nil:
		t.Errorf("%s(%q): no error", accessor, name)
	case !refused && err != nil:
		t.Errorf("%s(%q): %v", accessor, name, err)
	case err != nil && !strings.Contains(err.Error(), strconv.Quote(name)+": "):
		t.Errorf("%s(%q): error %q does not name the variable", accessor, name, err)
	}
}

// TestStanJSONAccessorErrors checks the accessors' messages on valid files word for
// word.
func TestStanJSONAccessorErrors(t *testing.T) {
	t.Parallel()
	read := func(file string) *StanData {
		t.Helper()
		d, err := ReadStanJSONFile(filepath.Join("testdata", "stanjson", file))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	schools, reg, ir := read("eight_schools.json"), read("regression.json"), read("ints_reals.json")
	nonfinite, empty, panel, none := read("nonfinite.json"), read("empty_arrays.json"), read("panel3d.json"), read("no_data.json")
	call := func(f func() error) string {
		if err := f(); err != nil {
			return err.Error()
		}
		return "<nil>"
	}
	const td = "frames: testdata/stanjson/"
	cases := []struct {
		got  string
		want string
	}{
		{call(func() error { _, err := schools.Float("tau"); return err }),
			td + `eight_schools.json: no variable "tau" (have J, y, sigma)`},
		{call(func() error { _, err := none.Ints("y"); return err }),
			td + `no_data.json: no variable "y" (the data hold no variables)`},
		{call(func() error { _, err := ir.Int("K"); return err }),
			td + `ints_reals.json: "K": value is 2.5, want an integer`},
		{call(func() error { _, err := ir.Int("N"); return err }),
			td + `ints_reals.json: "N": value is 3.0, want an integer (CmdStan reads a number as an integer only when it is written without a decimal point or an exponent)`},
		{call(func() error { _, err := ir.Int("M"); return err }),
			td + `ints_reals.json: "M": value is 1e2, want an integer (CmdStan reads a number as an integer only when it is written without a decimal point or an exponent)`},
		{call(func() error { _, err := ir.Ints("n"); return err }),
			td + `ints_reals.json: "n": element [2] is 3e0, want an integer (CmdStan reads a number as an integer only when it is written without a decimal point or an exponent)`},
		{call(func() error { _, err := ir.Int("big"); return err }),
			td + `ints_reals.json: "big": value is 99999999999999999999, beyond the range of int`},
		{call(func() error { _, err := reg.Ints("y"); return err }),
			td + `regression.json: "y": element [0] is 2.4511, want an integer`},
		{call(func() error { _, _, err := reg.IntArray("X"); return err }),
			td + `regression.json: "X": element [0][1] is 0.52373845386505127, want an integer`},
		{call(func() error { _, _, err := panel.IntArray("x"); return err }),
			td + `panel3d.json: "x": element [0][0][0] is 0.1, want an integer`},
		{call(func() error { _, err := schools.Float("y"); return err }),
			td + `eight_schools.json: "y": holds a 1-d array of 8 values, want a scalar`},
		{call(func() error { _, err := schools.Int("sigma"); return err }),
			td + `eight_schools.json: "sigma": holds a 1-d array of 8 values, want a scalar`},
		{call(func() error { _, err := reg.Floats("X"); return err }),
			td + `regression.json: "X": holds a 2-d array (5×3), want a 1-d array`},
		{call(func() error { _, err := panel.Ints("counts"); return err }),
			td + `panel3d.json: "counts": holds a 3-d array (2×3×2), want a 1-d array`},
		{call(func() error { _, err := schools.Matrix("y"); return err }),
			td + `eight_schools.json: "y": holds a 1-d array of 8 values, want a 2-d array (a matrix)`},
		{call(func() error { _, err := schools.Matrix("J"); return err }),
			td + `eight_schools.json: "J": holds a scalar, want a 2-d array (a matrix)`},
		{call(func() error { _, err := panel.Matrix("x"); return err }),
			td + `panel3d.json: "x": holds a 3-d array (2×3×4), want a 2-d array (a matrix)`},
		{call(func() error { _, err := empty.Matrix("X"); return err }),
			td + `empty_arrays.json: "X": holds a 2-d array (3×0); a gonum matrix cannot be empty`},
		{call(func() error { _, err := empty.Matrix("y"); return err }),
			td + `empty_arrays.json: "y": holds an empty array, want a 2-d array (a matrix)`},
		{call(func() error { _, err := nonfinite.Floats("y"); return err }),
			td + `nonfinite.json: "y": element [1] is "NaN", want a finite number (set AllowNonFinite to read NaN and infinities)`},
		{call(func() error { _, err := nonfinite.Float("lower"); return err }),
			td + `nonfinite.json: "lower": value is "-Infinity", want a finite number (set AllowNonFinite to read NaN and infinities)`},
		{call(func() error { _, _, err := nonfinite.Array("bare"); return err }),
			td + `nonfinite.json: "bare": element [0] is NaN, want a finite number (set AllowNonFinite to read NaN and infinities)`},
		{call(func() error { _, err := nonfinite.Ints("py"); return err }),
			td + `nonfinite.json: "py": element [0] is "+inf", want an integer`},
		{call(func() error { _, err := nonfinite.Int("upper"); return err }),
			td + `nonfinite.json: "upper": value is "Inf", want an integer`},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d:\n got %s\nwant %s", i, c.got, c.want)
		}
	}
	// Without a source the messages say "stan json".
	d, err := ReadStanJSON(strings.NewReader(`{"y": [1, 2.5]}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Ints("y"); err == nil || err.Error() != `frames: stan json: "y": element [1] is 2.5, want an integer` {
		t.Errorf("Ints without a source: %v", err)
	}
}

// TestReadStanJSONMalformed checks the message for every malformed test file and for
// inline inputs, word for word.
func TestReadStanJSONMalformed(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"string_element.json": `"y": element [2][1] is "abc", want a number`,
		"ragged.json":         `"X": row 2 has 3 values, rows 0–1 have 2`,
		"ragged_3d.json":      `"x": element [1][1] has 1 value, element [0][0] has 2`,
		"truncated.json":      `4:1: unexpected end of input, want a value`,
		"duplicate.json":      `"N": defined twice`,
		"top_array.json":      `1:1: found an array, want a JSON object of named variables`,
		"tuple.json":          `"pair": value is an object, want a number or an array (Stan's tuples are not read)`,
		"null.json":           `"y": element [1] is null, want a number`,
		"overflow.json":       `"scale": value is 1e999, beyond the float64 range`,
		"trailing.json":       `2:1: an object after the closing brace`,
		"mixed_depth.json":    `"X": element [1] is 3, want an array as element [0]`,
		"bad_number.json":     `1:15: invalid character 'x', want ',' or ']' in an array`,
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "stanjson", "bad"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(files) {
		t.Errorf("%d files in testdata/stanjson/bad, %d checked", len(entries), len(files))
	}
	for file, want := range files {
		path := filepath.Join("testdata", "stanjson", "bad", file)
		d, err := ReadStanJSONFile(path)
		sep := ": "
		if want[0] != '"' {
			sep = ":" // a line and column follow the path
		}
		if want = "frames: " + path + sep + want; d != nil || err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", file, err, want)
		}
	}
	inline := []struct{ in, want string }{
		{``, `1:1: empty input, want a JSON object`},
		{"  \n ", `2:2: empty input, want a JSON object`},
		{`3`, `1:1: found a number, want a JSON object of named variables`},
		{`{"a": 1`, `1:8: unexpected end of input, want ',' or '}' after a variable`},
		{`{a: 1}`, `1:2: invalid character 'a', want a variable name in double quotes`},
		{`{"": 1}`, `a variable has an empty name`},
		{`{"a" 1}`, `1:6: invalid character '1', want ':' after the name`},
		{`{"a": [1 2]}`, `1:10: invalid character '2', want ',' or ']' in an array`},
		{`{"a": [1,]}`, `1:10: invalid character ']', want a value`},
		{`{"a": +1}`, `1:7: invalid character '+', want a value`},
		{`{"a": 1.}`, `1:9: invalid character '}', want a digit after the decimal point`},
		{`{"a": 1e}`, `1:9: invalid character '}', want a digit in the exponent`},
		{`{"a": -}`, `1:8: invalid character '}', want a digit`},
		{`{"a": 007}`, `1:7: invalid number 007 (leading zero)`},
		{`{"a": -NaN}`, `1:7: invalid character '-', want a value`},
		{`{"a": Infinityx}`, `1:7: invalid character 'I', want a value`},
		{`{"a": nan}`, `1:7: invalid character 'n', want a value`},
		{`{"a": true}`, `"a": value is true, want a number or an array`},
		{`{"a": [1, false]}`, `"a": element [1] is false, want a number`},
		{`{"a": [[1], {}]}`, `"a": element [1] is an object, want an array as element [0]`},
		{`{"a": [[1], "NaN"]}`, `"a": element [1] is "NaN", want an array as element [0]`},
		{`{"a": "one"}`, `"a": value is "one", want a number or an array`},
		{`{"a": ["x\u0041"]}`, `"a": element [0] is "x\u0041", want a number or an array`},
		{`{"a": "abc`, `1:7: unterminated string`},
		{"{\"a\n\": 1}", `1:4: control character 0x0a in a string`},
		{`{"a\q": 1}`, `1:4: invalid escape \q in a string`},
		{`{"a\u00g0": 1}`, `1:6: invalid \u escape`},
		{"{\"\xff\": 1}", `1:3: invalid UTF-8 in a string`},
		{`{"a": [[1, 2], [3]]}`, `"a": row 1 has 1 value, row 0 has 2`},
		{`{"a": [[], [3]]}`, `"a": row 1 has 1 value, row 0 has 0`},
		{`{"a": [[[1]], [[2], [3]]]}`, `"a": row 1 has 2 elements, row 0 has 1`},
		{`{"a": [1, [2]]}`, `"a": element [1] is an array, want a number as element [0]`},
		{`{"a": -1e400}`, `"a": value is -1e400, beyond the float64 range`},
		{`{"a": 1}` + "\x00", `1:9: character 0x00 after the closing brace`},
		{`{"a": ` + strings.Repeat("[", 65) + strings.Repeat("]", 65) + `}`,
			`"a": element ` + strings.Repeat("[0]", 64) + ` nests arrays more than 64 deep`},
		{`{"a": 1` + strings.Repeat("0", 60) + `.5e999}`,
			`"a": value is 1000000000000000000000000000000000000000…, beyond the float64 range`},
	}
	for _, c := range inline {
		d, err := ReadStanJSON(strings.NewReader(c.in), "in.json")
		want := "frames: in.json: " + c.want
		if c.want[0] != '"' && !strings.HasPrefix(c.want, "a ") {
			want = "frames: in.json:" + c.want
		}
		if d != nil || err == nil || err.Error() != want {
			t.Errorf("%q:\n got %v\nwant %s", c.in, err, want)
		}
	}
}

// TestReadStanJSONSpecialForms reads what is not plain: escapes and surrogate pairs
// in names, whitespace, underflow, integers at int's bounds, nesting 64 deep.
func TestReadStanJSONSpecialForms(t *testing.T) {
	t.Parallel()
	in := "{ \"a\\u00e9\\ud83d\\ude00\\n\" :\t1 ,\r\n\"tiny\": 1e-400, \"sub\": 4.9e-324, " +
		"\"imax\": 9223372036854775807, \"imin\": -9223372036854775808, \"lone\\udc00\": 2, " +
		"\"deep\": " + strings.Repeat("[", 64) + "7" + strings.Repeat("]", 64) + "}"
	d, err := ReadStanJSON(strings.NewReader(in), "special.json")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"aé😀\n", "tiny", "sub", "imax", "imin", "lone\ufffd", "deep"}
	if got := d.Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %q, want %q", got, want)
	}
	if v, err := d.Int("aé😀\n"); v != 1 || err != nil {
		t.Errorf("Int of the escaped name = %v, %v", v, err)
	}
	if v, err := d.Float("tiny"); v != 0 || err != nil {
		t.Errorf("1e-400 reads as %v, %v; want 0 (underflow)", v, err)
	}
	if v, err := d.Float("sub"); v != math.SmallestNonzeroFloat64 || err != nil {
		t.Errorf("4.9e-324 reads as %v, %v", v, err)
	}
	if strconv.IntSize == 64 {
		if v, err := d.Int("imax"); v != math.MaxInt64 || err != nil {
			t.Errorf("Int(imax) = %v, %v", v, err)
		}
		if v, err := d.Int("imin"); v != math.MinInt64 || err != nil {
			t.Errorf("Int(imin) = %v, %v", v, err)
		}
	}
	dims, vals, err := d.IntArray("deep")
	if err != nil || len(dims) != 64 || slices.ContainsFunc(dims, func(n int) bool { return n != 1 }) || !slices.Equal(vals, []int{7}) {
		t.Errorf("IntArray(deep) = %v, %v, %v", dims, vals, err)
	}
}

// TestReadStanJSONAgreesWithEncodingJSON decodes the valid test files that hold no
// NaN or infinity with encoding/json as well, and checks that both find the same
// names and the same values in row-major order.
func TestReadStanJSONAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, f := range stanFiles {
		data, err := os.ReadFile(filepath.Join("testdata", "stanjson", f.file))
		if err != nil {
			t.Fatal(err)
		}
		if f.file == "nonfinite.json" {
			continue // bare NaN and Infinity are not JSON
		}
		d, err := ReadStanJSON(bytes.NewReader(data), f.file)
		if err != nil {
			t.Fatal(err)
		}
		if diff := stanJSONAgrees(d, data); diff != "" {
			t.Errorf("%s: %s", f.file, diff)
		}
	}
}

// stanJSONAgrees decodes data with encoding/json and returns the first difference
// from d (names, as a set, and each variable's values in row-major order), or "".
func stanJSONAgrees(d *StanData, data []byte) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return "encoding/json: " + err.Error()
	}
	if len(m) != len(d.Names()) {
		return "encoding/json finds " + strconv.Itoa(len(m)) + " names"
	}
	allow := d.AllowNonFinite
	d.AllowNonFinite = true
	defer func() { d.AllowNonFinite = allow }()
	for name, v := range m {
		var flat []float64
		var walk func(v any) string
		walk = func(v any) string {
			switch v := v.(type) {
			case json.Number:
				if i, err := v.Int64(); err == nil && strconv.IntSize == 64 {
					flat = append(flat, float64(i)) // an integer: -0 is 0
					break
				}
				f, err := strconv.ParseFloat(string(v), 64)
				if err != nil {
					return err.Error()
				}
				flat = append(flat, f)
			case []any:
				for _, e := range v {
					if s := walk(e); s != "" {
						return s
					}
				}
			default:
				return "unexpected " + strconv.Quote(string(data))
			}
			return ""
		}
		if s := walk(v); s != "" {
			return name + ": " + s
		}
		_, vals, err := d.Array(name)
		if err != nil {
			return err.Error()
		}
		if !sameFloats(vals, flat) && !(len(vals) == 0 && len(flat) == 0) {
			return name + ": values differ from encoding/json's"
		}
	}
	return ""
}

// TestReadStanJSONFileMissing checks the error for a file that cannot be opened.
func TestReadStanJSONFileMissing(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "absent.json")
	d, err := ReadStanJSONFile(path)
	if d != nil || err == nil || !strings.HasPrefix(err.Error(), "frames: open "+path) {
		t.Errorf("ReadStanJSONFile(absent) = %v, %v", d, err)
	}
}

// TestStanJSONAccessorsCopy checks that the slices and matrices returned are the
// caller's: changing them does not change what the next call returns.
func TestStanJSONAccessorsCopy(t *testing.T) {
	t.Parallel()
	d, err := ReadStanJSON(strings.NewReader(`{"y": [1, 2], "X": [[1, 2], [3, 4]]}`), "")
	if err != nil {
		t.Fatal(err)
	}
	f, _ := d.Floats("y")
	f[0] = 9
	i, _ := d.Ints("y")
	i[0] = 9
	_, a, _ := d.Array("X")
	a[0] = 9
	m, _ := d.Matrix("X")
	m.Set(1, 1, 9)
	dims, _ := d.Dims("X")
	dims[0] = 9
	names := d.Names()
	names[0] = "z"
	f, _ = d.Floats("y")
	i, _ = d.Ints("y")
	_, a, _ = d.Array("X")
	dims, _ = d.Dims("X")
	if f[0] != 1 || i[0] != 1 || a[0] != 1 || a[3] != 4 || dims[0] != 2 || d.Names()[0] != "y" {
		t.Errorf("a returned slice aliases the data: %v %v %v %v %v", f, i, a, dims, d.Names())
	}
}

// BenchmarkReadStanJSON reads a logistic regression's data as posteriordb stores it:
// N = 10,000 rows of K = 40 reals in full precision, and y of 0s and 1s (about 8 MB).
func BenchmarkReadStanJSON(b *testing.B) {
	const n, k = 10000, 40
	var buf bytes.Buffer
	buf.WriteString(`{"N": 10000, "K": 40, "X": [`)
	x := 0.123456789
	for i := range n {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteByte('[')
		for j := range k {
			if j > 0 {
				buf.WriteString(", ")
			}
			x = math.Mod(x*9.87654321+0.5, 20) - 10 // values in [-10, 10) with 16-17 digits
			buf.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
		buf.WriteByte(']')
	}
	buf.WriteString(`], "y": [`)
	for i := range n {
		if i > 0 {
			buf.WriteString(", ")
		}
		buf.WriteString(strconv.Itoa(i % 2))
	}
	buf.WriteString("]}")
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := ReadStanJSON(bytes.NewReader(data), "bench.json")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := d.Matrix("X"); err != nil {
			b.Fatal(err)
		}
	}
}
