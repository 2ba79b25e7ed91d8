//go:build !race

package graph

// raceDetector: the race detector is on (see race_on_test.go).
const raceDetector = false
