package main

import (
	"io"
	"strings"
	"testing"
)

// BenchmarkSampleAnnotation times the whole default Dawid-Skene command, as the CLI
// runs it: `nmc sample -model annotation -n 10000 -k 100 -draws 1000 -chains 4
// -seed 1` (data generation, warm-up, sampling, the held-out log-likelihood, the
// summary and the PLL), so that a CPU profile shows every part's share:
//
//	go test -run '^$' -bench SampleAnnotation -benchtime 1x -cpuprofile cpu.out ./cmd/nmc/
func BenchmarkSampleAnnotation(b *testing.B) {
	args := strings.Fields("sample -model annotation -n 10000 -k 100 -draws 1000 -chains 4 -seed 1")
	for range b.N {
		var stderr strings.Builder
		if status := run(args, io.Discard, &stderr); status != 0 {
			b.Fatalf("exit status %d: %s", status, stderr.String())
		}
	}
}
