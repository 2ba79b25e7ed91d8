package viz

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/diagnostics"
)

// sbcRanks returns n ranks in 0 … 99: uniform, or with a third of them piled at
// the ends (draws too narrow) when narrow is set.
func sbcRanks(n int, narrow bool) []int {
	rng := rand.New(rand.NewPCG(5, 5))
	ranks := make([]int, n)
	for i := range ranks {
		ranks[i] = rng.IntN(100)
		if narrow && i%3 == 0 {
			ranks[i] = 99 * rng.IntN(2)
		}
	}
	return ranks
}

func TestRankHistogram(t *testing.T) {
	t.Parallel()
	p, err := RankHistogram("mu", sbcRanks(200, false), 99, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Title.Text, "SBC ranks of mu (χ² p = ") || p.X.Max != 100 {
		t.Errorf("title %q, x max %v", p.Title.Text, p.X.Max)
	}
	// Every bar's height is its bin's count; the band holds the expected count.
	u, err := diagnostics.RankChiSquare(sbcRanks(200, false), 99, 10)
	if err != nil {
		t.Fatal(err)
	}
	band, bars, expected, _ := rankBars(u, 200)
	if len(bars.R) != 10 || len(band.R) != 10 || len(expected) != 20 {
		t.Fatalf("%d bars, %d band rectangles, %d points of the expected line; want 10, 10, 20", len(bars.R), len(band.R), len(expected))
	}
	for b, r := range band.R {
		if !(r.Y0 < 20 && 20 < r.Y1) || expected[2*b].Y != 20 {
			t.Errorf("bin %d: band [%v, %v], expected %v; want 20 inside", b, r.Y0, r.Y1, expected[2*b].Y)
		}
	}
	total := 0.0
	for b, r := range bars.R {
		total += r.Y1
		if r.X0 != float64(10*b) || r.X1 != float64(10*b+10) {
			t.Errorf("bar %d spans [%v, %v), want [%d, %d)", b, r.X0, r.X1, 10*b, 10*b+10)
		}
	}
	if total != 200 {
		t.Errorf("bars add up to %v, want 200", total)
	}
	checkPNG(t, p, "sbc_rank_histogram", w, h)
	// Uneven bins (7 bins of 100 rank values) and the errors.
	if _, err := RankHistogram("mu", sbcRanks(50, true), 99, 7); err != nil {
		t.Error(err)
	}
	_, err = RankHistogram("mu", []int{100}, 99, 10)
	wantErr(t, "rank out of range", err, "outside 0 … 99")
	_, err = RankHistogram("mu", nil, 99, 10)
	wantErr(t, "no ranks", err, "no ranks")
}

func TestECDFDiff(t *testing.T) {
	t.Parallel()
	p, err := ECDFDiff("mu", sbcRanks(200, false), 99, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Title.Text, "95% band; inside the band") {
		t.Errorf("uniform ranks: title %q", p.Title.Text)
	}
	checkPNG(t, p, "sbc_ecdf_diff", w, h)
	p, err = ECDFDiff("mu", sbcRanks(200, true), 99, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Title.Text, "points outside") {
		t.Errorf("ranks piled at the ends: title %q", p.Title.Text)
	}
	checkPNG(t, p, "sbc_ecdf_diff_narrow", w, h)
	_, err = ECDFDiff("mu", sbcRanks(20, false), 99, &diagnostics.RankECDFOptions{Points: 7})
	wantErr(t, "bad grid", err, "points")
}
