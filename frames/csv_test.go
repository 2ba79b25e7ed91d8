package frames

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/draws"
)

// specialValues are the floats a naive formatter would corrupt.
var specialValues = []float64{
	0, math.Copysign(0, -1), 1e-300, -1e-300, 5e-324, -5e-324, 2.2250738585072014e-308,
	2.225073858507201e-308, math.MaxFloat64, -math.MaxFloat64, math.NaN(), math.Inf(1), math.Inf(-1),
	1.0 / 3, 0.1, 1e-7, 123456789012345678, math.Pi * 1e200,
}

// randomDraws makes draws with random bit patterns mixed with special values.
func randomDraws(rng *rand.Rand, names []string, lens []int) *draws.Draws {
	d := &draws.Draws{Names: names}
	for _, n := range lens {
		ch := make([]float64, n*len(names))
		for i := range ch {
			switch rng.IntN(4) {
			case 0:
				ch[i] = specialValues[rng.IntN(len(specialValues))]
			case 1:
				ch[i] = math.Float64frombits(rng.Uint64()) // any bit pattern, NaNs included
			default:
				ch[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
			}
		}
		d.Chains = append(d.Chains, ch)
	}
	return d
}

// sameBits reports whether a and b are the same float64, treating all NaNs alike.
func sameBits(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

func assertSameDraws(t *testing.T, got, want *draws.Draws) {
	t.Helper()
	if strings.Join(got.Names, "|") != strings.Join(want.Names, "|") {
		t.Fatalf("names = %q, want %q", got.Names, want.Names)
	}
	if len(got.Chains) != len(want.Chains) {
		t.Fatalf("%d chains, want %d", len(got.Chains), len(want.Chains))
	}
	bad := 0
	for c := range want.Chains {
		if len(got.Chains[c]) != len(want.Chains[c]) {
			t.Fatalf("chain %d holds %d values, want %d", c, len(got.Chains[c]), len(want.Chains[c]))
		}
		for i, w := range want.Chains[c] {
			if g := got.Chains[c][i]; !sameBits(g, w) {
				if bad < 5 {
					t.Errorf("chain %d value %d = %v (%#x), want %v (%#x)", c, i, g, math.Float64bits(g), w, math.Float64bits(w))
				}
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d values differ", bad)
	}
}

func TestCSVRoundTripBitExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"alpha", "beta[0]", "beta[1]", "theta[2,1]", `odd "quoted" name`}
	d := randomDraws(rng, names, []int{300, 250, 0, 300})
	// Every special value appears at least once, in a known place.
	copy(d.Chains[0], specialValues)
	var buf bytes.Buffer
	if err := WriteCSV(&buf, d); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCSV(&buf, "rt.csv")
	if err != nil {
		t.Fatal(err)
	}
	assertSameDraws(t, got, d)
	// The sign bit of -0 survives explicitly.
	if v := got.Chains[0][1]; v != 0 || !math.Signbit(v) {
		t.Errorf("-0 came back as %v (signbit %v)", v, math.Signbit(v))
	}
}

func TestCSVFormat(t *testing.T) {
	t.Parallel()
	d := &draws.Draws{Names: []string{"a", "theta[1,0]"}, Chains: [][]float64{
		{math.Inf(1), math.NaN(), math.Copysign(0, -1), 5e-324},
		{math.Inf(-1), 1e-300},
	}}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, d); err != nil {
		t.Fatal(err)
	}
	want := "chain,draw,a,\"theta[1,0]\"\n0,0,+Inf,NaN\n0,1,-0,5e-324\n1,0,-Inf,1e-300\n"
	if buf.String() != want {
		t.Errorf("CSV =\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestReadCSVErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{"empty", "", "frames: in.csv: empty input"},
		{"no chain", "draw,a\n0,1\n", `frames: in.csv:1: header has no "chain" column`},
		{"no draw", "chain,a\n0,1\n", `frames: in.csv:1: header has no "draw" column`},
		{"no params", "chain,draw\n0,0\n", "frames: in.csv:1: header has no parameter columns"},
		{"duplicate", "chain,draw,a,b,a\n", `frames: in.csv:1: column name "a" appears twice (columns 3 and 5)`},
		{"empty name", "chain,draw,,b\n", "frames: in.csv:1: column 3 has an empty name"},
		{"bad value", "chain,draw,a,beta[2]\n0,0,1,2\n0,1,1,abc\n", `frames: in.csv:3: column "beta[2]": cannot parse "abc"`},
		{"empty value", "chain,draw,a\n0,0,\n", `frames: in.csv:2: column "a": cannot parse ""`},
		{"ragged short", "chain,draw,a,b\n0,0,1,2\n0,1,1\n", "frames: in.csv:3: row has 3 fields, header has 4"},
		{"ragged long", "chain,draw,a\n0,0,1,2\n", "frames: in.csv:2: row has 4 fields, header has 3"},
		{"bad chain", "chain,draw,a\nx,0,1\n", `frames: in.csv:2: column "chain": cannot parse "x" as a non-negative integer`},
		{"negative draw", "chain,draw,a\n0,-1,1\n", `frames: in.csv:2: column "draw": cannot parse "-1" as a non-negative integer`},
		{"draw gap", "chain,draw,a\n0,0,1\n0,2,1\n", `frames: in.csv:3: column "draw": chain 0 has draw 2 where draw 1 was expected`},
		{"draw not from 0", "chain,draw,a\n0,0,1\n1,1,1\n", `frames: in.csv:3: column "draw": chain 1 has draw 1 where draw 0 was expected`},
		{"chain order", "chain,draw,a\n1,0,1\n0,0,1\n", `frames: in.csv:3: column "chain": chain 0 follows chain 1`},
		{"bad quote", "chain,draw,a\n0,0,\"1\n", "frames: in.csv:2:"},
	}
	for _, tc := range cases {
		_, err := ReadCSV(strings.NewReader(tc.in), "in.csv")
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want prefix %q", tc.name, err, tc.want)
		}
	}
}

func TestReadCSVColumnOrderAndGaps(t *testing.T) {
	t.Parallel()
	// chain/draw need not come first; chain 1 is skipped, so it holds no draws.
	in := "a,chain,b,draw\n1,0,2,0\n3,0,4,1\n5,2,6,0\n"
	d, err := ReadCSV(strings.NewReader(in), "x")
	if err != nil {
		t.Fatal(err)
	}
	want := &draws.Draws{Names: []string{"a", "b"}, Chains: [][]float64{{1, 2, 3, 4}, {}, {5, 6}}}
	assertSameDraws(t, d, want)
}

func TestWriteCSVRejects(t *testing.T) {
	t.Parallel()
	for _, d := range []*draws.Draws{
		nil,
		{Names: []string{"chain"}, Chains: [][]float64{{1}}},
		{Names: []string{"a", "a"}},
		{Names: []string{"a", "b"}, Chains: [][]float64{{1, 2, 3}}},
	} {
		if err := WriteCSV(&bytes.Buffer{}, d); err == nil {
			t.Errorf("WriteCSV(%+v): no error", d)
		}
	}
}

func TestWriteCSVFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "draws.csv")
	d := randomDraws(rand.New(rand.NewPCG(3, 4)), []string{"x", "y[0]"}, []int{20, 20})
	if err := WriteCSVFile(path, d); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left behind: %v", err)
	}
	got, err := ReadCSVFile(path)
	if err != nil {
		t.Fatal(err)
	}
	assertSameDraws(t, got, d)

	// A failing write (directory missing) leaves neither file.
	bad := filepath.Join(dir, "missing", "draws.csv")
	if err := WriteCSVFile(bad, d); err == nil {
		t.Error("WriteCSVFile into a missing directory: no error")
	}
	// No chains: a header-only file that reads back with no chains.
	p2 := filepath.Join(dir, "header.csv")
	if err := WriteCSVFile(p2, &draws.Draws{Names: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	if h, err := ReadCSVFile(p2); err != nil || len(h.Chains) != 0 || len(h.Names) != 1 {
		t.Errorf("header-only file read back as %+v, %v", h, err)
	}
	// Invalid draws: no file at all.
	if err := WriteCSVFile(filepath.Join(dir, "bad2.csv"), &draws.Draws{Names: []string{"draw"}}); err == nil {
		t.Error("parameter named draw: no error")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") || e.Name() == "bad2.csv" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// failWriter fails after n bytes.
type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, os.ErrClosed
	}
	w.n -= len(p)
	return len(p), nil
}

func TestWriteCSVWriteError(t *testing.T) {
	t.Parallel()
	d := randomDraws(rand.New(rand.NewPCG(5, 6)), []string{"x"}, []int{100000})
	if err := WriteCSV(&failWriter{n: 1000}, d); err == nil {
		t.Error("no error from a failing writer")
	}
}

func BenchmarkWriteCSV_4x1000x300(b *testing.B) {
	d, buf := benchDraws(), &bytes.Buffer{}
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := WriteCSV(buf, d); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len())/1e6, "MB")
}

func BenchmarkReadCSV_4x1000x300(b *testing.B) {
	d, buf := benchDraws(), &bytes.Buffer{}
	if err := WriteCSV(buf, d); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadCSV(bytes.NewReader(data), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

func benchDraws() *draws.Draws {
	rng := rand.New(rand.NewPCG(7, 8))
	names := make([]string, 300)
	for i := range names {
		names[i] = "theta[" + string(rune('0'+i/100)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10)) + "]"
	}
	d := &draws.Draws{Names: names}
	for range 4 {
		ch := make([]float64, 1000*len(names))
		for i := range ch {
			ch[i] = rng.NormFloat64()
		}
		d.Chains = append(d.Chains, ch)
	}
	return d
}

// TestAppendFloatMatchesStrconv: appendFloat writes what strconv 'g', -1 writes
// (+Inf with its sign), byte for byte, on integers around the boundary of its
// integer path (±10⁶, ±999999), ±0, small and large integers, halves, NaN and ±Inf
// and random values.
func TestAppendFloatMatchesStrconv(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 2, 17, 999999, -999999, 1e6, -1e6, 1e6 + 1, 999999.5, -0.5, 0.5,
		1e15, 1e21, 1e22, -1e300, 5e-324, math.MaxFloat64, math.NaN(), math.Inf(1), math.Inf(-1), 123456, 1e5, -1e5}
	rng := rand.New(rand.NewPCG(3, 9))
	for range 20000 {
		vals = append(vals, float64(rng.IntN(4_000_000)-2_000_000), rng.NormFloat64()*math.Pow(10, float64(rng.IntN(20)-10)))
	}
	for _, x := range vals {
		want := strconv.FormatFloat(x, 'g', -1, 64)
		if math.IsInf(x, 1) {
			want = "+Inf"
		}
		if got := string(appendFloat(nil, x)); got != want {
			t.Fatalf("appendFloat(%v) = %q, strconv gives %q", x, got, want)
		}
	}
}
