package frames

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/nmc-go/nmc/draws"
)

// metaColumns are the non-quantity columns of draws frames and the CSV files
// of data-frame tools: ours and pandas/ArviZ's ("chain", "draw"), R
// posterior's draws_df (".chain", ".iteration", ".draw") and "iteration".
var metaColumns = map[string]bool{
	"chain": true, "draw": true, "iteration": true,
	".chain": true, ".draw": true, ".iteration": true,
}

// posteriorChainColumn is the chain column of R posterior's draws_df.
const posteriorChainColumn = ".chain"

// chainColumnOf returns the chain column among names: "chain", else ".chain",
// else "".
func chainColumnOf(names []string) string {
	for _, n := range []string{ChainColumn, posteriorChainColumn} {
		if slices.Contains(names, n) {
			return n
		}
	}
	return ""
}

// drawColumnOf returns the column that orders draws within a chain among
// names: "draw", else ".iteration", else ".draw", else "" (row order).
func drawColumnOf(names []string) string {
	for _, n := range []string{DrawColumn, ".iteration", ".draw"} {
		if slices.Contains(names, n) {
			return n
		}
	}
	return ""
}

// PosteriorToName converts a quantity name of R posterior's draws_df, whose
// indices are 1-based, to this package's 0-based form: "theta[1]" becomes
// "theta[0]" and "Sigma[2,1]" becomes "Sigma[1,0]". Names without brackets, and
// names whose brackets hold anything but positive integers (brms's
// "r_subject[1,Intercept]"), are returned unchanged. Unlike StanToName it
// leaves dots alone, since R names such as "log.sigma" use them as letters.
func PosteriorToName(s string) string {
	i := strings.IndexByte(s, '[')
	if i <= 0 || !strings.HasSuffix(s, "]") {
		return s
	}
	idx := strings.Split(s[i+1:len(s)-1], ",")
	var sb strings.Builder
	sb.WriteString(s[:i])
	sb.WriteByte('[')
	for k, x := range idx {
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil || n < 1 {
			return s
		}
		if k > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Itoa(n - 1))
	}
	sb.WriteByte(']')
	return sb.String()
}

// wholeNumber converts a chain or draw number read as a float to an int,
// reporting false if it is not an integer of at most 2^53 in magnitude.
func wholeNumber(x float64) (int, bool) {
	if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
		return 0, false
	}
	return int(x), true
}

// drawRows holds draws row by row as a data frame or a data-frame tool's CSV
// file has them, before they are grouped into chains. FromDataFrame and the
// readers of R posterior's and pandas/ArviZ CSV files share it, so that they
// follow one set of rules.
type drawRows struct {
	params []string    // quantity names, in column order
	chain  []int       // chain number of every row, as in the input
	draw   []int       // draw number of every row; nil keeps the row order
	cols   [][]float64 // cols[j][i] is quantity j in row i
	// rowPair names rows i and j in errors ("data frame rows 3 and 7",
	// "draws.csv lines 5 and 9").
	rowPair func(i, j int) string
	// source names the whole input in errors ("data frame", "draws.csv").
	source string
}

// toDraws groups the rows into chains: chains are taken in increasing chain
// number and renumbered 0, 1, …; within a chain rows are ordered by draw
// number (gaps allowed), or kept in row order when there is no draw column. It
// returns an error naming both rows for a (chain, draw) pair that appears
// twice and an error for chains with different numbers of draws.
func (t *drawRows) toDraws() (*draws.Draws, error) {
	nrow := len(t.chain)
	draw := t.draw
	if draw == nil {
		draw = make([]int, nrow)
		for i := range draw {
			draw[i] = i
		}
	}
	order := make([]int, nrow)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if t.chain[a] != t.chain[b] {
			return cmpInt(t.chain[a], t.chain[b])
		}
		return cmpInt(draw[a], draw[b])
	})
	d := &draws.Draws{Names: t.params}
	np := len(t.params)
	for k := 0; k < nrow; {
		c := t.chain[order[k]]
		end := k
		for end < nrow && t.chain[order[end]] == c {
			end++
		}
		vals := make([]float64, 0, (end-k)*np)
		for i := k; i < end; i++ {
			r := order[i]
			if i > k && draw[r] == draw[order[i-1]] {
				return nil, fmt.Errorf("frames: %s both hold chain %d draw %d", t.rowPair(order[i-1], r), c, draw[r])
			}
			for j := range t.params {
				vals = append(vals, t.cols[j][r])
			}
		}
		if len(d.Chains) > 0 && len(vals) != len(d.Chains[0]) {
			return nil, fmt.Errorf("frames: ragged chains in %s: chain %d has %d draws, chain %d has %d",
				t.source, t.chain[order[0]], len(d.Chains[0])/np, c, end-k)
		}
		d.Chains = append(d.Chains, vals)
		k = end
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d, nil
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
