package frames_test

import (
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/frames"
)

// A Stan program's data, in the JSON file CmdStan reads, go to a model builder as
// ints, float slices and a gonum matrix.
func ExampleReadStanJSON() {
	const data = `{
  "N": 3,
  "K": 2,
  "X": [[1, 0.5], [1, -1.25], [1, 2]],
  "y": [1.5, 2, 0.3],
  "group": [1, 2, 2]
}`
	d, err := frames.ReadStanJSON(strings.NewReader(data), "regression.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	n, err := d.Int("N")
	if err != nil {
		fmt.Println(err)
		return
	}
	X, err := d.Matrix("X")
	if err != nil {
		fmt.Println(err)
		return
	}
	y, err := d.Floats("y")
	if err != nil {
		fmt.Println(err)
		return
	}
	group, err := d.Ints("group")
	if err != nil {
		fmt.Println(err)
		return
	}
	rows, cols := X.Dims()
	fmt.Println(d.Names(), n)
	fmt.Printf("X is %d×%d, row 1 %v\n", rows, cols, mat.Row(nil, 1, X))
	fmt.Println(y, group)
	// Output:
	// [N K X y group] 3
	// X is 3×2, row 1 [1 -1.25]
	// [1.5 2 0.3] [1 2 2]
}

// Errors name the variable and the element (0-based), whether the file is malformed
// or the value is not what the model wants.
func ExampleReadStanJSON_errors() {
	_, err := frames.ReadStanJSON(strings.NewReader(`{"X": [[1, 2], [3, 4], [5, 6, 7]]}`), "data.json")
	fmt.Println(err)
	_, err = frames.ReadStanJSON(strings.NewReader(`{"y": [[1, 2], [3, "abc"]]}`), "data.json")
	fmt.Println(err)
	d, err := frames.ReadStanJSON(strings.NewReader(`{"N": 2.5, "y": [0.5, "NaN"]}`), "data.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = d.Int("N")
	fmt.Println(err)
	_, err = d.Floats("y")
	fmt.Println(err)
	_, err = d.Floats("sigma")
	fmt.Println(err)
	// Output:
	// frames: data.json: "X": row 2 has 3 values, rows 0–1 have 2
	// frames: data.json: "y": element [1][1] is "abc", want a number
	// frames: data.json: "N": value is 2.5, want an integer
	// frames: data.json: "y": element [1] is "NaN", want a finite number (set AllowNonFinite to read NaN and infinities)
	// frames: data.json: no variable "sigma" (have N, y)
}

// Arrays of three or more dimensions come as their dims and their values in
// row-major order.
func ExampleStanData_Array() {
	d, err := frames.ReadStanJSON(strings.NewReader(`{"x": [[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]]}`), "")
	if err != nil {
		fmt.Println(err)
		return
	}
	dims, values, err := d.Array("x")
	if err != nil {
		fmt.Println(err)
		return
	}
	at := func(i, j, k int) float64 { return values[(i*dims[1]+j)*dims[2]+k] }
	fmt.Println(dims, values)
	fmt.Println("x[1][2][0] =", at(1, 2, 0))
	// Output:
	// [2 3 2] [1 2 3 4 5 6 7 8 9 10 11 12]
	// x[1][2][0] = 11
}
