package main

import "github.com/nmc-go/nmc/frames"

// summarize prints the summary of d to e.stdout and, if out is not empty, writes
// it to the CSV file out.
func summarize(e *env, d *frames.Draws, out string) error {
	return errNotYet
}
