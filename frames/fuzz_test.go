package frames

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/go-gota/gota/dataframe"

	"github.com/nmc-go/nmc/draws"
)

// The fuzz targets of this file run their committed seed corpus
// (testdata/fuzz/<FuzzName>/) with plain `go test`; explore with, e.g.,
//
//	go test -run '^$' -fuzz '^FuzzReadCSV$' -fuzztime 10m -parallel 1 ./frames/

// fuzzMaxInput bounds the inputs the targets look at, so that a single input
// cannot take seconds; parsers are linear, so larger inputs find nothing new.
const fuzzMaxInput = 1 << 16

// fuzzSameFloat reports whether a and b have the same bits, all NaNs alike.
func fuzzSameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

// checkDrawsShape checks the invariants every successfully parsed Draws must hold.
func checkDrawsShape(t *testing.T, d *draws.Draws) {
	t.Helper()
	if d == nil {
		t.Fatal("nil draws without an error")
	}
	if err := d.Validate(); err != nil {
		t.Fatalf("parsed draws are invalid: %v", err)
	}
}

// fuzzDrawsEqual reports the first difference between a and b, or "".
func fuzzDrawsEqual(a, b *draws.Draws) string {
	if len(a.Names) != len(b.Names) {
		return fmt.Sprintf("%d names, then %d", len(a.Names), len(b.Names))
	}
	for i := range a.Names {
		if a.Names[i] != b.Names[i] {
			return fmt.Sprintf("name %d: %q, then %q", i, a.Names[i], b.Names[i])
		}
	}
	if len(a.Chains) != len(b.Chains) {
		return fmt.Sprintf("%d chains, then %d", len(a.Chains), len(b.Chains))
	}
	for c := range a.Chains {
		if len(a.Chains[c]) != len(b.Chains[c]) {
			return fmt.Sprintf("chain %d: %d values, then %d", c, len(a.Chains[c]), len(b.Chains[c]))
		}
		for i := range a.Chains[c] {
			if !fuzzSameFloat(a.Chains[c][i], b.Chains[c][i]) {
				return fmt.Sprintf("chain %d value %d: %v (%#x), then %v (%#x)", c, i,
					a.Chains[c][i], math.Float64bits(a.Chains[c][i]), b.Chains[c][i], math.Float64bits(b.Chains[c][i]))
			}
		}
	}
	return ""
}

// FuzzReadCSV feeds arbitrary bytes to ReadCSV. Whatever parses must be valid
// draws that WriteCSV writes and ReadCSV reads back bit for bit.
func FuzzReadCSV(f *testing.F) {
	f.Add([]byte("chain,draw,a,b\n0,0,1,2\n0,1,3,4\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > fuzzMaxInput {
			return
		}
		d, err := ReadCSV(bytes.NewReader(data), "fuzz.csv")
		if err != nil {
			if d != nil {
				t.Fatalf("ReadCSV returned draws with error %v", err)
			}
			if !strings.HasPrefix(err.Error(), "frames: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		checkDrawsShape(t, d)
		var buf bytes.Buffer
		if err := WriteCSV(&buf, d); err != nil {
			t.Fatalf("WriteCSV of parsed draws: %v", err)
		}
		d2, err := ReadCSV(bytes.NewReader(buf.Bytes()), "roundtrip.csv")
		if err != nil {
			t.Fatalf("ReadCSV of WriteCSV output: %v\noutput:\n%s", err, buf.Bytes())
		}
		if diff := fuzzDrawsEqual(d, d2); diff != "" {
			t.Fatalf("round trip differs: %s\noutput:\n%s", diff, buf.Bytes())
		}
	})
}

// FuzzReadDataFrameCSV feeds arbitrary bytes to ReadDataFrameCSV and ReadDraws.
// Whatever parses must be valid draws with non-empty chains of equal length,
// which WriteCSV writes and ReadDataFrameCSV reads back bit for bit; an input
// with nmc's header (FormatNMC) that ReadCSV reads too, without empty chains,
// must read the same.
func FuzzReadDataFrameCSV(f *testing.F) {
	f.Add([]byte("\"\",\"mu\",\"theta[1]\",\".chain\",\".iteration\",\".draw\"\n\"1\",1.5,2,1,1,1\n\"2\",-0.25,NA,1,2,2\n"))
	f.Add([]byte(",chain,draw,mu\n0,0,0,1\n1,0,1,2\n2,1,0,3\n3,1,1,4\n"))
	f.Add([]byte("chain,draw,a,b\n1,2,3,4\n1,1,5,6\n2,1,7,8\n2,2,9,10\n"))
	f.Add([]byte("chain,draw,variable,value\n0,0,a,1\n0,0,b,2\n0,1,b,3\n0,1,a,4\n"))
	f.Add([]byte("chain,draw,a\n0,0,1\n0,0,2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > fuzzMaxInput {
			return
		}
		d, err := ReadDataFrameCSV(bytes.NewReader(data), "fuzz.csv")
		d2, err2 := ReadDraws(bytes.NewReader(data), "fuzz.csv")
		if err2 == nil && err == nil && fuzzDrawsEqual(d, d2) != "" {
			t.Fatalf("ReadDraws and ReadDataFrameCSV differ: %s", fuzzDrawsEqual(d, d2))
		}
		if err2 != nil && !strings.HasPrefix(err2.Error(), "frames: ") {
			t.Fatalf("ReadDraws: error without the package prefix: %v", err2)
		}
		if err != nil {
			if d != nil {
				t.Fatalf("ReadDataFrameCSV returned draws with error %v", err)
			}
			if !strings.HasPrefix(err.Error(), "frames: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		checkDrawsShape(t, d)
		for c := range d.Chains {
			if len(d.Chains[c]) == 0 || len(d.Chains[c]) != len(d.Chains[0]) {
				t.Fatalf("chain %d has %d values, chain 0 %d", c, len(d.Chains[c]), len(d.Chains[0]))
			}
		}
		// ReadCSV reads "variable", "iteration", ".chain" and the like as
		// quantities; the readers agree on nmc's own header.
		format, _ := DetectFormat(bytes.NewReader(data), "fuzz.csv")
		if strict, err := ReadCSV(bytes.NewReader(data), "fuzz.csv"); err == nil && format == FormatNMC &&
			!slices.ContainsFunc(strict.Chains, func(ch []float64) bool { return len(ch) == 0 }) {
			if diff := fuzzDrawsEqual(strict, d); diff != "" {
				t.Fatalf("ReadCSV and ReadDataFrameCSV differ: %s", diff)
			}
		}
		var buf bytes.Buffer
		if err := WriteCSV(&buf, d); err != nil {
			if strings.Contains(err.Error(), "clashes") {
				return // a quantity named like an index column in a posterior file
			}
			t.Fatalf("WriteCSV of parsed draws: %v", err)
		}
		back, err := ReadDataFrameCSV(bytes.NewReader(buf.Bytes()), "roundtrip.csv")
		if err != nil {
			t.Fatalf("ReadDataFrameCSV of WriteCSV output: %v\noutput:\n%s", err, buf.Bytes())
		}
		if diff := fuzzDrawsEqual(d, back); diff != "" {
			t.Fatalf("round trip differs: %s\noutput:\n%s", diff, buf.Bytes())
		}
	})
}

// FuzzReadCmdStanCSV feeds arbitrary bytes to ReadCmdStanCSV. Whatever parses
// must be valid draws of one chain whose names are all in this package's
// 0-based form (StanToName is idempotent on them only when they have no
// indices, so only validity and the absence of sampler columns are checked).
func FuzzReadCmdStanCSV(f *testing.F) {
	f.Add([]byte("# comment\nlp__,accept_stat__,theta.1\n-7,0.9,0.2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > fuzzMaxInput {
			return
		}
		d, err := ReadCmdStanCSV(bytes.NewReader(data), "fuzz.csv")
		if err != nil {
			if d != nil {
				t.Fatalf("ReadCmdStanCSV returned draws with error %v", err)
			}
			if !strings.HasPrefix(err.Error(), "frames: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		checkDrawsShape(t, d)
		if d.NumChains() != 1 {
			t.Fatalf("%d chains, want 1", d.NumChains())
		}
		for _, n := range d.Names {
			if strings.HasSuffix(n, "__") && n != "lp__" {
				t.Fatalf("sampler column %q kept", n)
			}
		}
	})
}

// FuzzReadTable feeds arbitrary bytes to ReadTable. A parsed table must be
// rectangular, have unique non-empty names and hold only finite values, and
// its accessors must agree with it.
func FuzzReadTable(f *testing.F) {
	f.Add([]byte("y,x1\n1,2\n3,4\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > fuzzMaxInput {
			return
		}
		tb, err := ReadTable(bytes.NewReader(data), "fuzz.csv")
		if err != nil {
			if tb != nil {
				t.Fatalf("ReadTable returned a table with error %v", err)
			}
			if !strings.HasPrefix(err.Error(), "frames: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, h := range tb.Header {
			if h == "" || seen[h] {
				t.Fatalf("header %q has an empty or repeated name", tb.Header)
			}
			seen[h] = true
		}
		prevLine := 1
		for i, row := range tb.Rows {
			if len(row) != len(tb.Header) {
				t.Fatalf("row %d has %d values, header %d", i, len(row), len(tb.Header))
			}
			for j, v := range row {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("row %d column %d holds %v", i, j, v)
				}
			}
			if l := tb.Line(i); l <= prevLine {
				t.Fatalf("row %d on line %d, after line %d", i, l, prevLine)
			} else {
				prevLine = l
			}
		}
		for j, h := range tb.Header {
			col, err := tb.Column(h)
			if err != nil {
				t.Fatalf("Column(%q): %v", h, err)
			}
			for i := range col {
				if !fuzzSameFloat(col[i], tb.Rows[i][j]) {
					t.Fatalf("Column(%q)[%d] = %v, row holds %v", h, i, col[i], tb.Rows[i][j])
				}
			}
			if ints, err := tb.Ints(h); err == nil {
				for i, v := range ints {
					if float64(v) != col[i] {
						t.Fatalf("Ints(%q)[%d] = %d, value %v", h, i, v, col[i])
					}
				}
			}
		}
		X, y, err := tb.Design(tb.Header[0])
		if err != nil {
			if tb.NumRows() > 0 && len(tb.Header) > 1 {
				t.Fatalf("Design of a %d×%d table: %v", tb.NumRows(), len(tb.Header), err)
			}
			return
		}
		if r, c := X.Dims(); r != tb.NumRows() || c != len(tb.Header)-1 || len(y) != r {
			t.Fatalf("Design: X is %d×%d, y has %d, table %d×%d", r, c, len(y), tb.NumRows(), len(tb.Header))
		}
	})
}

// FuzzFromDataFrame loads arbitrary bytes with gota's ReadCSV (with and without
// type detection) and converts the frame with FromDataFrame, which must return
// valid, rectangular draws or an error, never panic. Panics inside gota itself
// are not ours and skip the input.
func FuzzFromDataFrame(f *testing.F) {
	f.Add([]byte("chain,draw,a\n0,0,1.5\n0,1,2\n1,0,3\n1,1,4\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, detect bool) {
		if len(data) > fuzzMaxInput {
			return
		}
		df, ok := fuzzGotaCSV(data, detect)
		if !ok {
			t.Skip("gota panicked while loading the input")
		}
		d, err := FromDataFrame(df)
		if err != nil {
			if d != nil {
				t.Fatalf("FromDataFrame returned draws with error %v", err)
			}
			if !strings.HasPrefix(err.Error(), "frames: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		checkDrawsShape(t, d)
		if d.NumChains() == 0 {
			if df.Nrow() != 0 {
				t.Fatalf("no chains from a frame of %d rows", df.Nrow())
			}
			return
		}
		total := 0
		for c := range d.Chains {
			if len(d.Chains[c]) != len(d.Chains[0]) {
				t.Fatalf("ragged chains: chain %d has %d values, chain 0 %d", c, len(d.Chains[c]), len(d.Chains[0]))
			}
			total += d.NumDraws(c)
		}
		if total != df.Nrow() {
			t.Fatalf("%d draws from a frame of %d rows", total, df.Nrow())
		}
		if len(d.Names) != df.Ncol()-2 {
			t.Fatalf("%d parameters from a frame of %d columns", len(d.Names), df.Ncol())
		}
	})
}

// fuzzGotaCSV loads data with gota, reporting false if gota panics.
func fuzzGotaCSV(data []byte, detect bool) (df dataframe.DataFrame, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return dataframe.ReadCSV(bytes.NewReader(data), dataframe.DetectTypes(detect)), true
}

// TestReadCSVHugeChainNumber is the regression test for a corrupt chain number
// making ReadCSV allocate one empty chain per skipped number (999999999999
// asked for ~24 TB): such numbers are now an error naming the line and value.
func TestReadCSVHugeChainNumber(t *testing.T) {
	_, err := ReadCSV(strings.NewReader("chain,draw,x\n0,0,1\n999999999999,0,2\n"), "big.csv")
	if err == nil || !strings.Contains(err.Error(), "big.csv:3") || !strings.Contains(err.Error(), "999999999999") {
		t.Fatalf("err = %v, want an error naming big.csv:3 and the chain number", err)
	}
	d, err := ReadCSV(strings.NewReader("chain,draw,x\n65535,0,2\n"), "edge.csv")
	if err != nil {
		t.Fatalf("largest allowed chain number: %v", err)
	}
	if d.NumChains() != 65536 || d.NumDraws(65535) != 1 || d.NumDraws(0) != 0 {
		t.Fatalf("got %d chains, last with %d draws", d.NumChains(), d.NumDraws(d.NumChains()-1))
	}
}

// TestCSVNameLineBreak is the regression test for the fuzzer's finding that a
// quoted name holding "\r\n" read back as "\n" after WriteCSV: names with line
// breaks are now refused by both ReadCSV and WriteCSV.
func TestCSVNameLineBreak(t *testing.T) {
	_, err := ReadCSV(strings.NewReader("chain,draw,\"\r\r\n\"\n"), "nl.csv")
	if err == nil || !strings.Contains(err.Error(), "nl.csv:1: column 3") {
		t.Fatalf("ReadCSV: err = %v, want one naming nl.csv:1: column 3", err)
	}
	for _, name := range []string{"a\r\nb", "a\nb", "a\r"} {
		d := &draws.Draws{Names: []string{name}, Chains: [][]float64{{1}}}
		if err := WriteCSV(io.Discard, d); err == nil || !strings.Contains(err.Error(), "line break") {
			t.Fatalf("WriteCSV(name %q): err = %v, want a line-break error", name, err)
		}
	}
}
