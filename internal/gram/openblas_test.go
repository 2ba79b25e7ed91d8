//go:build openblas && cgo

package gram

import "testing"

// TestOpenBLASSelected checks that a build with the openblas tag (and cgo) runs the
// OpenBLAS kernel, so that CI's openblas run tests OpenBLAS and not a fallback.
func TestOpenBLASSelected(t *testing.T) {
	if gramBLAS == nil {
		t.Fatal("built with the openblas tag, but addWeightedGram does not call OpenBLAS")
	}
}
