//go:build race

package graph

// raceDetector: the race detector is on. sync.Pool then drops items at random, so
// a pooled evaluator is sometimes made anew and allocation counts are not zero.
const raceDetector = true
