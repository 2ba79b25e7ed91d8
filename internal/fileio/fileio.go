// Package fileio writes output files so that a failed write never leaves a partial
// file that looks complete: the one place where the module's packages (frames,
// models, viz, paper) and the nmc command create the files they write.
package fileio

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// bufferSize is the size of the buffer between fill and the file.
const bufferSize = 1 << 16

// WriteFile writes the file path with the bytes fill writes to w, which is
// buffered.
//
// The bytes go to path+".tmp", which is flushed, synced to disk, closed and only
// then renamed to path, so that path holds either its old content or the complete
// new file, never a truncated one (a full disk, an error of fill, a crash). On any
// error the temporary file is removed. The file is created with mode 0666 before
// the umask, as os.Create does.
//
// An existing path that is not a regular file (a device such as /dev/stdout, a
// named pipe) is written directly, since renaming over it would replace it; an
// existing directory is an error.
//
// An error returned by fill is returned unchanged; other errors are those of the
// os package, which name the file.
func WriteFile(path string, fill func(w io.Writer) error) (err error) {
	if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return fmt.Errorf("%s is a directory", path)
		}
		return writeDirect(path, fill)
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	w := bufio.NewWriterSize(f, bufferSize)
	if err = fill(w); err != nil {
		return err
	}
	if err = w.Flush(); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// writeDirect writes the existing non-regular file path through fill.
func writeDirect(path string, fill func(w io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, bufferSize)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
