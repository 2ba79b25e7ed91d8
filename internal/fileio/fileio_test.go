package fileio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// entries returns the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileNewAndReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	// More than the buffer, so that fill's bytes reach the file in several writes.
	big := bytes.Repeat([]byte("0123456789abcdef"), 3*bufferSize/16+7)
	for _, content := range [][]byte{[]byte("first\n"), big} {
		err := WriteFile(path, func(w io.Writer) error {
			_, err := w.Write(content)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, content) {
			t.Fatalf("file holds %d bytes, want the %d written", len(got), len(content))
		}
		if names := entries(t, dir); len(names) != 1 || names[0] != "out.csv" {
			t.Fatalf("directory holds %v, want only out.csv", names)
		}
	}
}

// TestWriteFileFillError: an error of fill leaves the old file as it was, removes
// the temporary file and is returned unchanged.
func TestWriteFileFillError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	errFill := errors.New("fill failed")
	err := WriteFile(path, func(w io.Writer) error {
		w.Write(bytes.Repeat([]byte("x"), 2*bufferSize)) // some bytes reach the temporary file
		return errFill
	})
	if err != errFill {
		t.Fatalf("error %v, want fill's error unchanged", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old\n" {
		t.Fatalf("after a failed write the file holds %q, want the old content", got)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Fatalf("directory holds %v, want only out.csv", names)
	}
	// A new file that fails is not created at all.
	fresh := filepath.Join(dir, "new.csv")
	if err := WriteFile(fresh, func(io.Writer) error { return errFill }); err != errFill {
		t.Fatalf("error %v, want fill's error", err)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Fatalf("a failed write created %s (stat error %v)", fresh, err)
	}
}

func TestWriteFileBadPaths(t *testing.T) {
	dir := t.TempDir()
	fill := func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }
	if err := WriteFile(dir, fill); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("writing a directory: error %v, want one saying it is a directory", err)
	}
	missing := filepath.Join(dir, "no", "such", "out.csv")
	if err := WriteFile(missing, fill); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("writing into a missing directory: error %v, want one naming %s", err, missing)
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("failed writes left %v", names)
	}
}

// TestWriteFileDevice: an existing device is written directly, not replaced by a
// regular file through the rename, and its write errors are returned.
func TestWriteFileDevice(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("uses /dev/null and /dev/full, which only Linux is sure to have")
	}
	n := 0
	err := WriteFile("/dev/null", func(w io.Writer) error {
		n++
		_, err := io.WriteString(w, "discarded\n")
		return err
	})
	if err != nil || n != 1 {
		t.Fatalf("writing /dev/null: error %v, fill called %d times", err, n)
	}
	fi, err := os.Stat("/dev/null")
	if err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Fatalf("/dev/null is no longer a device after the write: %v %v", fi.Mode(), err)
	}
	if _, err := os.Stat("/dev/null.tmp"); !os.IsNotExist(err) {
		t.Errorf("writing /dev/null created /dev/null.tmp")
	}
	err = WriteFile("/dev/full", func(w io.Writer) error {
		_, err := io.WriteString(w, "no room\n")
		return err
	})
	if err == nil {
		t.Errorf("writing /dev/full: no error")
	}
}
