//go:build ignore

// make_bushes_json writes bushes.json, the data of the porting-a-stan-model notebook, in
// CmdStan's JSON data format: N = 46 simulated bushes, K = 5 columns of the design matrix X
// (intercept, log diameter, log canopy height, log density, group) and the log leaf weights y.
// Every value is written with strconv's shortest exact form, so the file reads back bit for bit.
//
//	go run notebooks/make_bushes_json.go > notebooks/bushes.json
package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

func main() {
	const n, k = 46, 5
	rng := rand.New(rand.NewPCG(2026, 16))
	x := make([][]float64, n)
	y := make([]float64, n)
	for i := range n {
		diam := 0.5 * rng.NormFloat64()
		height := 0.6*diam + 0.3*rng.NormFloat64()
		dens := 0.4 * rng.NormFloat64()
		group := float64(i % 2)
		x[i] = []float64{1, diam, height, dens, group}
		y[i] = -0.8 + 1.5*diam + 0.9*height + 0.2*dens + 0.4*group + 0.35*rng.NormFloat64()
	}
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(w, "{\n  \"N\": %d,\n  \"K\": %d,\n  \"X\": [\n", n, k)
	for i, row := range x {
		sep := ","
		if i == n-1 {
			sep = ""
		}
		fmt.Fprintf(w, "    [%s]%s\n", floats(row), sep)
	}
	fmt.Fprintf(w, "  ],\n  \"y\": [%s]\n}\n", floats(y))
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func floats(v []float64) string {
	s := make([]string, len(v))
	for i, f := range v {
		s[i] = strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strings.Join(s, ", ")
}
