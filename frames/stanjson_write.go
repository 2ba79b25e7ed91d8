package frames

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/internal/fileio"
)

// StanVar is one variable of a data file in CmdStan's JSON format, to be written by
// WriteStanJSON: a scalar, or an array of any shape with its values in row-major
// order. StanInt, StanReal, StanInts, StanReals, StanMatrix, StanArray and
// StanIntArray make one; StanData.Vars returns those of data read by ReadStanJSON.
type StanVar struct {
	// Name is the variable's name in the Stan program's data block; it must not be
	// empty.
	Name string
	// Dims is the shape: nil or empty for a scalar, [n] for an array of n values,
	// [rows, cols] for a matrix (an array of rows), and so on.
	Dims []int
	// Ints, when not nil, holds the values of an integer variable in row-major
	// order; they are written as integers (no decimal point), which is how CmdStan
	// tells an int from a real. Values is then ignored.
	Ints []int
	// Values holds the values of a real variable in row-major order (when Ints is
	// nil). They are written so that they read back as reals and exactly: the
	// shortest decimal form that parses to the same float64, with ".0" added to a
	// whole number (3 is written 3.0), and NaN and ±∞ as the strings "NaN", "Inf"
	// and "-Inf", which CmdStan, rstan's jsonlite and ReadStanJSON read.
	Values []float64
}

// StanInt returns the integer scalar name = v.
func StanInt(name string, v int) StanVar { return StanVar{Name: name, Ints: []int{v}} }

// StanReal returns the real scalar name = v.
func StanReal(name string, v float64) StanVar { return StanVar{Name: name, Values: []float64{v}} }

// StanInts returns the 1-d integer array name = v (Stan's int name[N]). The slice is
// not copied.
func StanInts(name string, v []int) StanVar {
	if v == nil {
		v = []int{}
	}
	return StanVar{Name: name, Dims: []int{len(v)}, Ints: v}
}

// StanReals returns the 1-d real array name = v (Stan's real name[N] or vector[N]).
// The slice is not copied.
func StanReals(name string, v []float64) StanVar {
	if v == nil {
		v = []float64{}
	}
	return StanVar{Name: name, Dims: []int{len(v)}, Values: v}
}

// StanMatrix returns the matrix name = m, written as an array of its rows (Stan's
// matrix[R, C] or real name[R, C]). The values are copied.
func StanMatrix(name string, m mat.Matrix) StanVar {
	r, c := m.Dims()
	v := make([]float64, 0, r*c)
	for i := range r {
		for j := range c {
			v = append(v, m.At(i, j))
		}
	}
	return StanVar{Name: name, Dims: []int{r, c}, Values: v}
}

// StanArray returns the real array name of shape dims with values in row-major
// order (element [i][j][k] of dims [I, J, K] is values[(i·J + j)·K + k]).
// WriteStanJSON refuses it when len(values) is not the product of dims. The slices
// are not copied.
func StanArray(name string, dims []int, values []float64) StanVar {
	return StanVar{Name: name, Dims: dims, Values: values}
}

// StanIntArray is StanArray for integers.
func StanIntArray(name string, dims []int, values []int) StanVar {
	if values == nil {
		values = []int{}
	}
	return StanVar{Name: name, Dims: dims, Ints: values}
}

// Vars returns the variables of d in the order of the file, to write again with
// WriteStanJSON: a variable whose every element is an integer (as Int and IntArray
// take them) is an integer variable, any other a real one. Writing them and reading
// the result gives the same names, shapes and values, NaN and infinities included.
func (d *StanData) Vars() []StanVar {
	vars := make([]StanVar, len(d.names))
	for i, name := range d.names {
		v := d.vars[name]
		vars[i] = StanVar{Name: name, Dims: append([]int(nil), v.dims...)}
		if v.firstNonInt < 0 {
			vars[i].Ints = append([]int{}, v.ints...)
		} else {
			vars[i].Values = append([]float64{}, v.vals...)
		}
	}
	return vars
}

// WriteStanJSON writes vars to w as data in CmdStan's JSON format (see StanData),
// one variable per line in the order given:
//
//	{
//	  "N": 3,
//	  "y": [1.5, 2.0, 0.3],
//	  "X": [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
//	}
//
// ReadStanJSON reads the result back to the same names, shapes and values, with
// integers as integers (see StanVar), and so do CmdStan and rstan (with jsonlite's
// fromJSON). An empty or repeated name, a negative dimension, or a number of
// values other than the product of the dimensions is an error naming the variable;
// nothing is written then.
func WriteStanJSON(w io.Writer, vars ...StanVar) error {
	seen := make(map[string]bool, len(vars))
	for i, v := range vars {
		if err := v.check(); err != nil {
			return fmt.Errorf("frames: stan json: variable %d: %w", i, err)
		}
		if seen[v.Name] {
			return fmt.Errorf("frames: stan json: %q: given twice", v.Name)
		}
		seen[v.Name] = true
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("{")
	var num []byte
	for i, v := range vars {
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n  ")
		name, _ := json.Marshal(v.Name) // a valid UTF-8 string always marshals
		bw.Write(name)
		bw.WriteString(": ")
		k := 0 // the next value to write
		var write func(depth int)
		write = func(depth int) {
			if depth == len(v.Dims) {
				if v.Ints != nil {
					num = strconv.AppendInt(num[:0], int64(v.Ints[k]), 10)
				} else {
					num = appendStanReal(num[:0], v.Values[k])
				}
				bw.Write(num)
				k++
				return
			}
			bw.WriteByte('[')
			for j := range v.Dims[depth] {
				if j > 0 {
					bw.WriteString(", ")
				}
				write(depth + 1)
			}
			bw.WriteByte(']')
		}
		write(0)
	}
	if len(vars) > 0 {
		bw.WriteString("\n")
	}
	bw.WriteString("}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("frames: stan json: %w", err)
	}
	return nil
}

// WriteStanJSONFile writes vars to the file at path with WriteStanJSON, replacing
// it only when the whole file is written.
func WriteStanJSONFile(path string, vars ...StanVar) error {
	return fileio.WriteFile(path, func(w io.Writer) error { return WriteStanJSON(w, vars...) })
}

// check returns an error naming what is wrong with v's name, shape or values.
func (v StanVar) check() error {
	if v.Name == "" {
		return fmt.Errorf("empty name")
	}
	if !utf8.ValidString(v.Name) {
		return fmt.Errorf("%q: the name is not valid UTF-8", v.Name)
	}
	n := 1
	for _, k := range v.Dims {
		if k < 0 {
			return fmt.Errorf("%q: dims %v: a negative dimension", v.Name, v.Dims)
		}
		if k > 0 && n > math.MaxInt/k {
			return fmt.Errorf("%q: dims %v: too many values", v.Name, v.Dims)
		}
		n *= k
	}
	got, kind := len(v.Values), "real"
	if v.Ints != nil {
		got, kind = len(v.Ints), "integer"
	}
	if got != n {
		shape := "a scalar"
		if len(v.Dims) > 0 {
			shape = fmt.Sprintf("dims %v", v.Dims)
		}
		return fmt.Errorf("%q: %s needs %d values, have %d %s values", v.Name, shape, n, got, kind)
	}
	return nil
}

// appendStanReal appends x as a JSON number that reads back as the real x: the
// shortest exact form, with ".0" added to a whole number so that it is not read
// as an integer, and NaN and ±∞ as quoted strings.
func appendStanReal(dst []byte, x float64) []byte {
	switch {
	case math.IsNaN(x):
		return append(dst, `"NaN"`...)
	case math.IsInf(x, 1):
		return append(dst, `"Inf"`...)
	case math.IsInf(x, -1):
		return append(dst, `"-Inf"`...)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, x, 'g', -1, 64)
	for _, c := range dst[start:] {
		if c == '.' || c == 'e' {
			return dst
		}
	}
	return append(dst, ".0"...)
}
