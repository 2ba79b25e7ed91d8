package frames

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// StanData holds the variables of a data file in CmdStan's JSON format, as read by
// ReadStanJSON: a JSON object whose members are the data block's variables, each a
// number or a rectangular nested array of numbers (row-major: a matrix is an array of
// its rows), for example
//
//	{"N": 3, "y": [1.5, 2, 0.3], "X": [[1, 2], [3, 4], [5, 6]], "K": 2}
//
// This is the format of posteriordb's data files and of cmdstanr's and cmdstanpy's
// write_stan_json. Its accessors (Float, Int, Floats, Ints, Matrix, Array, IntArray)
// return the values in the forms a model builder takes, with errors that name the
// variable and the element.
//
// # Integers and reals
//
// As in CmdStan, a number written without a decimal point or an exponent (3, -17)
// is an integer; 3.0 and 3e0 are reals. Int, Ints and IntArray take integers only
// (and refuse 2.5, 3.0 and NaN, naming the element); the float accessors take both.
//
// # NaN and infinities
//
// NaN and ±∞ may be written as the strings "NaN", "Inf", "Infinity", "-Inf",
// "-Infinity" (any letter case, with an optional + before Inf: "+inf" is what
// cmdstanpy writes) or bare, unquoted, as NaN, Infinity, -Infinity, Inf and -Inf
// (what Python's json module writes). They are reals. Float, Floats, Matrix and Array
// refuse them with an error naming the element unless AllowNonFinite is set: model
// data are nearly always finite, and a NaN that stands for a missing value should be
// caught where it is read rather than in the model.
//
// # Shapes
//
// Dims gives a variable's shape: empty for a scalar, [n] for an array of n values,
// [rows, cols] for a matrix, and so on. The shape is that of the first element at each
// level, and every other element must match it: ragged arrays are refused when read.
// An empty array [] has shape [0] and [[], []] shape [2, 0]. Indices in messages are
// 0-based, as everywhere in Go; Stan's are 1-based.
type StanData struct {
	// Source names where the data came from (a file path); it prefixes error messages.
	// Messages say "stan json" when it is empty.
	Source string
	// AllowNonFinite, when true, lets Float, Floats, Matrix and Array return NaN and
	// infinities. When false (the default) they return an error naming the first
	// non-finite element.
	AllowNonFinite bool

	names []string            // file order
	vars  map[string]*stanVar // by name
}

// stanVar is one variable: its shape and its values in row-major order.
type stanVar struct {
	dims []int     // nil for a scalar
	vals []float64 // row-major; one value for a scalar
	// ints holds the values as ints while every element so far is an integer
	// literal within int's range (firstNonInt < 0); it is dropped otherwise.
	ints        []int
	firstNonInt int    // flat index of the first element that is not such an integer, or −1
	nonIntText  string // that element as written (shortened)
	// firstNonFinite is the flat index of the first NaN or ±∞, or −1.
	firstNonFinite int
	nonFiniteText  string
}

// stanJSONMaxDepth bounds the nesting of arrays: Stan's arrays have a few dimensions,
// and the bound keeps a hostile input from recursing without end.
const stanJSONMaxDepth = 64

// ReadStanJSON reads data in CmdStan's JSON format (see StanData) from r. source
// names the input in errors (a file path; "" reads as "stan json"). A syntax error
// gives the 1-based line and column:
//
//	frames: data.json:3:14: invalid character 'x', want ',' or ']' in an array
//
// and a value that is not data names the variable and the element (0-based):
//
//	frames: data.json: "y": element [2][1] is "abc", want a number
//	frames: data.json: "X": row 2 has 3 values, rows 0–1 have 2
//
// A top level that is not an object, an empty or repeated name, a string other than
// the names of NaN and the infinities, true, false, null, an object as a value (Stan's
// tuples are not read), a ragged array, a number beyond the float64 range, arrays
// nested more than 64 deep and anything after the closing brace are errors. A leading
// UTF-8 byte order mark is skipped.
func ReadStanJSON(r io.Reader, source string) (*StanData, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("frames: %s: %w", stanSource(source), err)
	}
	p := &stanParser{data: data, src: stanSource(source)}
	d, err := p.parse()
	if err != nil {
		return nil, err
	}
	d.Source = source
	return d, nil
}

// ReadStanJSONFile opens path and reads it with ReadStanJSON, using path as the
// source name.
func ReadStanJSONFile(path string) (*StanData, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("frames: %w", err)
	}
	defer f.Close()
	return ReadStanJSON(f, path)
}

func stanSource(source string) string {
	if source == "" {
		return "stan json"
	}
	return source
}

// Names returns the names of the variables in the order of the file.
func (d *StanData) Names() []string { return append([]string(nil), d.names...) }

// Has reports whether the data hold a variable called name.
func (d *StanData) Has(name string) bool {
	_, ok := d.vars[name]
	return ok
}

// Dims returns the shape of the named variable: empty for a scalar, [n] for an
// array of n values, [rows, cols] for an array of rows, and so on (see StanData).
func (d *StanData) Dims(name string) ([]int, error) {
	v, err := d.lookup(name)
	if err != nil {
		return nil, err
	}
	return append([]int{}, v.dims...), nil
}

// Float returns the named scalar, an integer or a real. An array, and NaN or ±∞
// unless AllowNonFinite is set, are errors.
func (d *StanData) Float(name string) (float64, error) {
	v, err := d.shaped(name, 0, "a scalar")
	if err != nil {
		return 0, err
	}
	if err := d.finite(name, v); err != nil {
		return 0, err
	}
	return v.vals[0], nil
}

// Int returns the named scalar, which must be an integer: written without a decimal
// point or an exponent, within int's range. An array is an error.
func (d *StanData) Int(name string) (int, error) {
	v, err := d.shaped(name, 0, "a scalar")
	if err != nil {
		return 0, err
	}
	if err := d.integer(name, v); err != nil {
		return 0, err
	}
	return v.ints[0], nil
}

// Floats returns the named 1-d array as a new slice (empty for []). A scalar reads as
// one value, since R's jsonlite with auto_unbox = TRUE writes a vector of length 1 as
// a scalar. An array of two or more dimensions, and NaN or ±∞ unless AllowNonFinite
// is set, are errors.
func (d *StanData) Floats(name string) ([]float64, error) {
	v, err := d.shaped(name, 1, "a 1-d array")
	if err != nil {
		return nil, err
	}
	if err := d.finite(name, v); err != nil {
		return nil, err
	}
	return append([]float64{}, v.vals...), nil
}

// Ints returns the named 1-d array of integers as a new slice (empty for []); a
// scalar reads as one value, as in Floats. A real element (2.5, 3.0, NaN) or an
// array of two or more dimensions is an error.
func (d *StanData) Ints(name string) ([]int, error) {
	v, err := d.shaped(name, 1, "a 1-d array")
	if err != nil {
		return nil, err
	}
	if err := d.integer(name, v); err != nil {
		return nil, err
	}
	return append([]int{}, v.ints...), nil
}

// Matrix returns the named 2-d array, an array of rows, as a new rows × cols
// matrix. Any other shape, an empty array (a gonum matrix cannot be empty; check
// Dims first when the data may have no rows), and NaN or ±∞ unless AllowNonFinite is
// set, are errors.
func (d *StanData) Matrix(name string) (*mat.Dense, error) {
	v, err := d.lookup(name)
	if err != nil {
		return nil, err
	}
	if len(v.dims) != 2 {
		return nil, d.errorf(name, "holds %s, want a 2-d array (a matrix)", describeDims(v.dims))
	}
	if v.dims[0] == 0 || v.dims[1] == 0 {
		return nil, d.errorf(name, "holds %s; a gonum matrix cannot be empty", describeDims(v.dims))
	}
	if err := d.finite(name, v); err != nil {
		return nil, err
	}
	return mat.NewDense(v.dims[0], v.dims[1], append([]float64(nil), v.vals...)), nil
}

// Array returns the named variable of any shape: its dims (as Dims) and its values
// in row-major order, in new slices; element [i][j][k] of an array of dims [I, J, K]
// is values[(i·J + j)·K + k]. A scalar has no dims and one value. NaN and ±∞ are
// errors unless AllowNonFinite is set.
func (d *StanData) Array(name string) (dims []int, values []float64, err error) {
	v, err := d.lookup(name)
	if err != nil {
		return nil, nil, err
	}
	if err := d.finite(name, v); err != nil {
		return nil, nil, err
	}
	return append([]int{}, v.dims...), append([]float64{}, v.vals...), nil
}

// IntArray is Array for integers: a real element (2.5, 3.0, NaN) is an error.
func (d *StanData) IntArray(name string) (dims []int, values []int, err error) {
	v, err := d.lookup(name)
	if err != nil {
		return nil, nil, err
	}
	if err := d.integer(name, v); err != nil {
		return nil, nil, err
	}
	return append([]int{}, v.dims...), append([]int{}, v.ints...), nil
}

// lookup returns the named variable, or an error listing the names there are.
func (d *StanData) lookup(name string) (*stanVar, error) {
	if v, ok := d.vars[name]; ok {
		return v, nil
	}
	have := "the data hold no variables"
	if len(d.names) > 0 {
		have = "have " + strings.Join(d.names, ", ")
	}
	return nil, fmt.Errorf("frames: %s: no variable %q (%s)", stanSource(d.Source), name, have)
}

// shaped returns the named variable if it has at most maxDims dimensions; want
// names the shape wanted, for the message.
func (d *StanData) shaped(name string, maxDims int, want string) (*stanVar, error) {
	v, err := d.lookup(name)
	if err != nil {
		return nil, err
	}
	if len(v.dims) > maxDims {
		return nil, d.errorf(name, "holds %s, want %s", describeDims(v.dims), want)
	}
	return v, nil
}

// finite returns an error naming v's first NaN or infinity, unless AllowNonFinite.
func (d *StanData) finite(name string, v *stanVar) error {
	if d.AllowNonFinite || v.firstNonFinite < 0 {
		return nil
	}
	return d.errorf(name, "%s is %s, want a finite number (set AllowNonFinite to read NaN and infinities)",
		elementName(unravel(v.firstNonFinite, v.dims)), v.nonFiniteText)
}

// integer returns an error naming v's first element that is not an integer.
func (d *StanData) integer(name string, v *stanVar) error {
	if v.firstNonInt < 0 {
		return nil
	}
	what := elementName(unravel(v.firstNonInt, v.dims))
	text := v.nonIntText
	if strings.Trim(text, "-0123456789") == "" {
		return d.errorf(name, "%s is %s, beyond the range of int", what, text)
	}
	if f, err := strconv.ParseFloat(text, 64); err == nil && f == math.Trunc(f) && !math.IsInf(f, 0) {
		return d.errorf(name, "%s is %s, want an integer (CmdStan reads a number as an integer only when it is written without a decimal point or an exponent)", what, text)
	}
	return d.errorf(name, "%s is %s, want an integer", what, text)
}

func (d *StanData) errorf(name, format string, args ...any) error {
	return fmt.Errorf("frames: %s: %q: %s", stanSource(d.Source), name, fmt.Sprintf(format, args...))
}

// unravel returns the index path of the flat row-major index i in an array of dims.
func unravel(i int, dims []int) []int {
	path := make([]int, len(dims))
	for k := len(dims) - 1; k >= 0; k-- {
		if dims[k] > 0 {
			path[k] = i % dims[k]
			i /= dims[k]
		}
	}
	return path
}

// describeDims names a shape for messages: "a scalar", "a 1-d array of 3 values",
// "a 2-d array (3×2)".
func describeDims(dims []int) string {
	switch len(dims) {
	case 0:
		return "a scalar"
	case 1:
		if dims[0] == 0 {
			return "an empty array"
		}
		if dims[0] == 1 {
			return "a 1-d array of 1 value"
		}
		return fmt.Sprintf("a 1-d array of %d values", dims[0])
	}
	s := make([]string, len(dims))
	for i, n := range dims {
		s[i] = strconv.Itoa(n)
	}
	return fmt.Sprintf("a %d-d array (%s)", len(dims), strings.Join(s, "×"))
}
