package models

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/nmc-go/nmc/frames"
)

// ---- regression -----------------------------------------------------------------

// regressionHeader returns y, x1, …, xk.
func regressionHeader(k int) []string {
	h := make([]string, k+1)
	h[0] = "y"
	for j := 1; j <= k; j++ {
		h[j] = "x" + strconv.Itoa(j)
	}
	return h
}

// ReadRegressionCSV reads a regression data file with columns y, x1, …, xK in that
// order (blr_*.csv, robust_*.csv). A wrong or missing column, a ragged row or a cell that
// is not a finite number is an error naming the file, line and column.
func ReadRegressionCSV(path string) (RegressionData, error) {
	t, err := frames.ReadTableFile(path)
	if err != nil {
		return RegressionData{}, fmt.Errorf("models: %w", err)
	}
	if len(t.Header) < 2 {
		return RegressionData{}, fmt.Errorf("models: %s:1: header %s, want y,x1,…,xK with K ≥ 1", path, strings.Join(t.Header, ","))
	}
	if err := checkHeader(path, t.Header, regressionHeader(len(t.Header)-1)); err != nil {
		return RegressionData{}, err
	}
	x, y, err := t.Design("y")
	if err != nil {
		return RegressionData{}, fmt.Errorf("models: %w", err)
	}
	return RegressionData{X: x, Y: y}, nil
}

// WriteRegressionCSV writes d to path with the header y, x1, …, xK, one row per
// observation, floats in the shortest form that reads back exactly. It returns an error
// for invalid data (see RegressionData.Validate) or a failed write.
func WriteRegressionCSV(path string, d RegressionData) error {
	if err := d.Validate(false); err != nil {
		return err
	}
	n, k := d.X.Dims()
	return writeCSV(path, func(w *bufio.Writer) {
		w.WriteString(strings.Join(regressionHeader(k), ","))
		w.WriteByte('\n')
		buf := make([]byte, 0, 32*(k+1))
		for i := 0; i < n; i++ {
			buf = appendFloat(buf[:0], d.Y[i])
			for _, x := range d.X.RawRowView(i) {
				buf = append(buf, ',')
				buf = appendFloat(buf, x)
			}
			buf = append(buf, '\n')
			w.Write(buf)
		}
	})
}
