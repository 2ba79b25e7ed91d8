package frames

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadTable(t *testing.T) {
	t.Parallel()
	in := "y,x1,x2\n1,2.5,-3e2\n\n0, 4 ,5\n"
	tb, err := ReadTable(strings.NewReader(in), "mem.csv")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tb.Header, ","); got != "y,x1,x2" {
		t.Errorf("header %q, want y,x1,x2", got)
	}
	if tb.NumRows() != 2 {
		t.Fatalf("%d rows, want 2", tb.NumRows())
	}
	// The blank line 3 is skipped: the second row is on line 4.
	if tb.Line(0) != 2 || tb.Line(1) != 4 {
		t.Errorf("lines %d, %d, want 2, 4", tb.Line(0), tb.Line(1))
	}
	x2, err := tb.Column("x2")
	if err != nil {
		t.Fatal(err)
	}
	if x2[0] != -300 || x2[1] != 5 {
		t.Errorf("x2 = %v, want [-300 5]", x2)
	}
	ys, err := tb.Ints("y")
	if err != nil {
		t.Fatal(err)
	}
	if ys[0] != 1 || ys[1] != 0 {
		t.Errorf("y = %v, want [1 0]", ys)
	}
	X, y, err := tb.Design("x1")
	if err != nil {
		t.Fatal(err)
	}
	r, c := X.Dims()
	if r != 2 || c != 2 {
		t.Fatalf("X is %d×%d, want 2×2", r, c)
	}
	// Other columns in file order: y, x2.
	if X.At(0, 0) != 1 || X.At(0, 1) != -300 || X.At(1, 0) != 0 || X.At(1, 1) != 5 {
		t.Errorf("X = %v", X.RawMatrix().Data)
	}
	if y[0] != 2.5 || y[1] != 4 {
		t.Errorf("y = %v, want [2.5 4]", y)
	}
}

func TestReadTableErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{"empty", "", `frames: f.csv: empty file`},
		{"duplicate", "y,x1,x1\n1,2,3\n", `frames: f.csv:1: duplicate column "x1" (columns 2 and 3)`},
		{"emptyname", "y,,x2\n1,2,3\n", `frames: f.csv:1: column 2 has an empty name`},
		{"ragged", "y,x1,x2\n1,2,3\n1,2\n", `frames: f.csv:3: 2 fields, want 3`},
		{"long", "y,x1\n1,2\n1,2\n1,2,3\n", `frames: f.csv:4: 3 fields, want 2`},
		{"nonnumeric", "y,x1,x2,x3\n1,2,3,4\n1,2,3,abc\n", `frames: f.csv:3: column "x3": cannot parse "abc"`},
		{"emptycell", "y,x1\n1,\n", `frames: f.csv:2: column "x1": cannot parse ""`},
		{"nan", "y,x1\n1,NaN\n", `frames: f.csv:2: column "x1": non-finite value "NaN"`},
		{"inf", "y,x1\n-Inf,1\n", `frames: f.csv:2: column "y": non-finite value "-Inf"`},
		{"range", "y,x1\n1,1e400\n", `frames: f.csv:2: column "x1": "1e400" is out of the float64 range`},
		{"quote", "y,x1\n1,\"2\n", `frames: f.csv:2:`},
	}
	for _, c := range cases {
		_, err := ReadTable(strings.NewReader(c.in), "f.csv")
		if err == nil {
			t.Errorf("%s: no error, want %q", c.name, c.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: error %q, want prefix %q", c.name, err, c.want)
		}
	}
}

func TestTableColumnErrors(t *testing.T) {
	t.Parallel()
	tb, err := ReadTable(strings.NewReader("item,z\n1,2\n\n3,2.5\n"), "z.csv")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Column("w"); err == nil || err.Error() != `frames: z.csv: no column "w" (have item,z)` {
		t.Errorf("unknown column: error %v", err)
	}
	if _, err := tb.Ints("z"); err == nil || err.Error() != `frames: z.csv:4: column "z": 2.5 is not an integer` {
		t.Errorf("non-integer: error %v", err)
	}
	if _, _, err := tb.Design("nope"); err == nil {
		t.Error("Design with unknown column: no error")
	}
	one, err := ReadTable(strings.NewReader("y\n1\n"), "one.csv")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := one.Design("y"); err == nil || !strings.Contains(err.Error(), "no predictor columns") {
		t.Errorf("Design with only y: error %v", err)
	}
	none, err := ReadTable(strings.NewReader("y,x1\n"), "none.csv")
	if err != nil {
		t.Fatal(err)
	}
	if none.NumRows() != 0 {
		t.Errorf("%d rows, want 0", none.NumRows())
	}
	if _, _, err := none.Design("y"); err == nil || !strings.Contains(err.Error(), "no data rows") {
		t.Errorf("Design with no rows: error %v", err)
	}
}

func TestReadTableFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "blr_train.csv")
	if err := os.WriteFile(path, []byte("y,x1\n0,1.25\n1,-0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tb, err := ReadTableFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Source != path || tb.NumRows() != 2 || tb.Rows[1][1] != -0.5 {
		t.Errorf("got source %q, rows %v", tb.Source, tb.Rows)
	}
	if _, err := ReadTableFile(filepath.Join(dir, "missing.csv")); err == nil || !strings.HasPrefix(err.Error(), "frames: ") {
		t.Errorf("missing file: error %v", err)
	}
}

func ExampleReadTable() {
	tb, err := ReadTable(strings.NewReader("y,x1,x2\n1,0.5,2\n0,-1,3\n"), "blr_train.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	X, y, _ := tb.Design("y")
	r, c := X.Dims()
	fmt.Println(tb.Header, r, c, y)

	_, err = ReadTable(strings.NewReader("y,x1,x2,x3\n1,2,3,4\n1,2,3,abc\n"), "blr_train.csv")
	fmt.Println(err)
	// Output:
	// [y x1 x2] 2 2 [1 0]
	// frames: blr_train.csv:3: column "x3": cannot parse "abc"
}
