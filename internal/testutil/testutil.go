// Package testutil holds helpers shared by the module's tests: reading a CSV file
// whole and checking a PNG figure. Only test files import it.
package testutil

import (
	"bytes"
	"encoding/csv"
	"image/png"
	"os"
	"testing"
)

// ReadCSV reads the CSV file at path whole, header included, failing t (naming the
// file) if it cannot be opened or parsed.
func ReadCSV(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

// CheckPNG checks that path is a PNG image of at least minWidth × minHeight pixels.
func CheckPNG(t testing.TB, path string, minWidth, minHeight int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if r := img.Bounds(); r.Dx() < minWidth || r.Dy() < minHeight {
		t.Errorf("%s: %v pixels, want at least %d × %d", path, r.Size(), minWidth, minHeight)
	}
}
