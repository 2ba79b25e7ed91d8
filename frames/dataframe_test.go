package frames

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"

	"github.com/nmc-go/nmc/draws"
)

func TestDataFrameWide(t *testing.T) {
	t.Parallel()
	d := randomDraws(rand.New(rand.NewPCG(11, 1)), []string{"mu", "beta[0]", "beta[1]"}, []int{7, 7})
	df, err := DataFrame(d)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := df.Dims(); r != 14 || c != 5 {
		t.Fatalf("dims %dx%d, want 14x5", r, c)
	}
	if got := strings.Join(df.Names(), ","); got != "chain,draw,mu,beta[0],beta[1]" {
		t.Errorf("names %s", got)
	}
	types := df.Types()
	if types[0] != series.Int || types[1] != series.Int || types[2] != series.Float {
		t.Errorf("types %v", types)
	}
	chain, _ := df.Col("chain").Int()
	draw, _ := df.Col("draw").Int()
	for r := range 14 {
		c, i := 0, r
		if r >= 7 {
			c, i = 1, r-7
		}
		if chain[r] != c || draw[r] != i {
			t.Fatalf("row %d: chain %d draw %d, want %d %d", r, chain[r], draw[r], c, i)
		}
		for p, name := range d.Names {
			got := df.Col(name).Float()[r]
			if want := d.Chains[c][i*3+p]; !sameBits(got, want) {
				t.Errorf("row %d %s = %v, want %v", r, name, got, want)
			}
		}
	}
	// And back, exactly.
	back, err := FromDataFrame(df)
	if err != nil {
		t.Fatal(err)
	}
	assertSameDraws(t, back, d)
}

func TestLongDataFrame(t *testing.T) {
	t.Parallel()
	d := &draws.Draws{Names: []string{"a", "b"}, Chains: [][]float64{{1, 2, 3, 4}, {5, 6}}}
	df, err := LongDataFrame(d)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := df.Dims(); r != 6 || c != 4 {
		t.Fatalf("dims %dx%d", r, c)
	}
	chain, _ := df.Col("chain").Int()
	draw, _ := df.Col("draw").Int()
	vars := df.Col("variable").Records()
	vals := df.Col("value").Float()
	want := []struct {
		c, d int
		v    string
		x    float64
	}{{0, 0, "a", 1}, {0, 0, "b", 2}, {0, 1, "a", 3}, {0, 1, "b", 4}, {1, 0, "a", 5}, {1, 0, "b", 6}}
	for i, w := range want {
		if chain[i] != w.c || draw[i] != w.d || vars[i] != w.v || vals[i] != w.x {
			t.Errorf("row %d = %d %d %s %v, want %+v", i, chain[i], draw[i], vars[i], vals[i], w)
		}
	}
}

func TestDataFrameRejects(t *testing.T) {
	t.Parallel()
	if _, err := DataFrame(nil); err == nil {
		t.Error("nil draws: no error")
	}
	if _, err := DataFrame(&draws.Draws{Names: []string{"draw"}, Chains: [][]float64{{1}}}); err == nil {
		t.Error("parameter named draw: no error")
	}
	if _, err := LongDataFrame(&draws.Draws{}); err == nil {
		t.Error("no names: no error")
	}
}

func TestFromDataFrameShuffledAndFiltered(t *testing.T) {
	t.Parallel()
	// Rows out of order, chain numbers 3 and 5, draws starting at 10 with a gap.
	df := dataframe.New(
		series.New([]float64{1.5, 2.5, 3.5, 4.5}, series.Float, "x"),
		series.New([]int{5, 3, 5, 3}, series.Int, "chain"),
		series.New([]int{12, 12, 10, 10}, series.Int, "draw"),
		series.New([]string{"1", "NaN", "-Inf", "4"}, series.String, "y"),
	)
	d, err := FromDataFrame(df)
	if err != nil {
		t.Fatal(err)
	}
	want := &draws.Draws{Names: []string{"x", "y"}, Chains: [][]float64{{4.5, 4, 2.5, math.NaN()}, {3.5, math.Inf(-1), 1.5, 1}}}
	assertSameDraws(t, d, want)
}

func TestFromDataFrameErrors(t *testing.T) {
	t.Parallel()
	ints := func(v ...int) []int { return v }
	cases := []struct {
		name string
		df   dataframe.DataFrame
		want string
	}{
		{"no chain", dataframe.New(series.New(ints(0), series.Int, "draw"), series.Floats([]float64{1})), `frames: data frame has no "chain"`},
		{"no params", dataframe.New(series.New(ints(0), series.Int, "chain"), series.New(ints(0), series.Int, "draw")), "frames: data frame has no parameter columns"},
		{"bad cell", dataframe.New(
			series.New(ints(0, 0), series.Int, "chain"), series.New(ints(0, 1), series.Int, "draw"),
			series.New([]string{"1", "abc"}, series.String, "beta[2]")),
			`frames: data frame row 1, column "beta[2]": cannot parse "abc" as a number`},
		{"bool column", dataframe.New(
			series.New(ints(0), series.Int, "chain"), series.New(ints(0), series.Int, "draw"),
			series.New([]bool{true}, series.Bool, "flag")),
			`frames: column "flag" has type bool, not a number`},
		{"non-integer draw", dataframe.New(
			series.New(ints(0), series.Int, "chain"), series.New([]float64{0.5}, series.Float, "draw"),
			series.Floats([]float64{1})),
			`frames: data frame row 0, column "draw": 0.5 is not an integer`},
		{"missing chain", dataframe.New(
			series.New([]float64{math.NaN()}, series.Float, "chain"), series.New(ints(0), series.Int, "draw"),
			series.Floats([]float64{1})),
			`frames: data frame row 0, column "chain": missing value`},
		{"duplicate draw", dataframe.New(
			series.New(ints(0, 0), series.Int, "chain"), series.New(ints(1, 1), series.Int, "draw"),
			series.Floats([]float64{1, 2})),
			"frames: data frame rows 0 and 1 both hold chain 0 draw 1"},
		{"ragged", dataframe.New(
			series.New(ints(0, 0, 1), series.Int, "chain"), series.New(ints(0, 1, 0), series.Int, "draw"),
			series.Floats([]float64{1, 2, 3})),
			"frames: ragged chains in data frame: chain 0 has 2 draws, chain 1 has 1"},
		{"gota error", dataframe.New(series.Floats([]float64{1}), series.Floats([]float64{1, 2})), "frames: data frame carries an error"},
	}
	for _, tc := range cases {
		_, err := FromDataFrame(tc.df)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want prefix %q", tc.name, err, tc.want)
		}
	}
}
