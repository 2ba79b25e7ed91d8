package ports

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/frames"
)

// The data of the ports whose outcome is one of K categories predicted from a
// matrix (ordinal_regr, multi_logit): K, N, the predictor count (named P or D by
// the Stan program), y (1-based there, 0-based here) and the N × predictors
// matrix x.

// categoryStanVars returns the data as the Stan programs declare them.
func categoryStanVars(k int, y []int, x *mat.Dense, preds string) []frames.StanVar {
	y1 := make([]int, len(y))
	for i, v := range y {
		y1[i] = v + 1
	}
	_, p := x.Dims()
	return []frames.StanVar{frames.StanInt("K", k), frames.StanInt("N", len(y)), frames.StanInt(preds, p),
		frames.StanInts("y", y1), frames.StanMatrix("x", x)}
}

// describeCategories returns a line naming the data's sizes.
func describeCategories(k int, y []int, x *mat.Dense) string {
	_, p := x.Dims()
	return fmt.Sprintf("%d rows, %d predictors, %d categories", len(y), p, k)
}

// readCategories reads the data from CmdStan JSON: K ≥ 2, N, the predictor count
// preds ≥ 1, y (1 … K, returned 0-based) and x, N × preds.
func readCategories(sd *frames.StanData, preds string) (k int, y []int, x *mat.Dense, err error) {
	if k, err = stanInt(sd, "K", 2); err != nil {
		return
	}
	n, err := stanInt(sd, "N", 1)
	if err != nil {
		return
	}
	p, err := stanInt(sd, preds, 1)
	if err != nil {
		return
	}
	if y, err = stanInts(sd, "y", n, "N", 1, k); err != nil {
		return
	}
	for i := range y {
		y[i]--
	}
	if x, err = sd.Matrix("x"); err != nil {
		return
	}
	if r, c := x.Dims(); r != n || c != p {
		err = stanErr(sd, "x", "is %d × %d, want N × %s = %d × %d", r, c, preds, n, p)
	}
	return
}

// categoryShape checks the data a categorical port's builder is given (model is
// the port's name, preds the program's name of the predictor count) and returns
// the number of predictors.
func categoryShape(model string, k int, y []int, x *mat.Dense, preds string) (int, error) {
	if x == nil || k < 2 {
		return 0, fmt.Errorf("ports: %s: %d categories and no predictors, want K ≥ 2 and an N × %s matrix", model, k, preds)
	}
	n, p := x.Dims()
	if n != len(y) {
		return 0, fmt.Errorf("ports: %s: %d categories y and %d rows of x, want the same number", model, len(y), n)
	}
	return p, nil
}
