package graph

import (
	"flag"
	"os"
	"testing"
)

// TestMain runs the package's tests with memoVerify on (every memoised element
// found in a scorer's table is evaluated again and compared bit for bit, so that a
// context not advanced where the state, the active site or a fixed value changed
// fails the test that reaches it), and its benchmarks with it off.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		memoVerify = true
	}
	os.Exit(m.Run())
}
