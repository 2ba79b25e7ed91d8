package sbc

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
)

// CSVHeader is the header of the file WriteCSV writes: the columns of the SBC R
// package's ranks.
const CSVHeader = "sim_id,variable,simulated_value,rank,max_rank"

// WriteCSV writes the ranks to w as CSV with the columns of CSVHeader, one row per
// simulation and parameter, simulation by simulation and, within one, in the order
// of Variables. sim_id is 1-based, as in the SBC R package (simulation i of Ranks is
// sim_id i+1); rank is in 0 … max_rank; values are written with full precision. It
// returns the first write error.
func (r *Result) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(strings.Split(CSVHeader, ",")); err != nil {
		return err
	}
	maxRank := strconv.Itoa(r.MaxRank)
	row := make([]string, 5)
	for i := range r.Ranks {
		row[0] = strconv.Itoa(i + 1)
		for v, name := range r.Variables {
			row[1] = name
			row[2] = strconv.FormatFloat(r.Simulated[i][v], 'g', -1, 64)
			row[3] = strconv.Itoa(r.Ranks[i][v])
			row[4] = maxRank
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
