package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// writeOutput writes a file through fill so that a failed write never leaves a
// partial file that looks complete under path: the bytes go to path+".tmp", which
// is renamed to path only after fill, the flush and the close all succeeded, and
// is removed otherwise. An existing path that is not a regular file (a device
// such as /dev/stdout, a named pipe) is written directly, since renaming over it
// would replace it; a directory is an error.
func writeOutput(path string, fill func(w io.Writer) error) (err error) {
	if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return fmt.Errorf("%s is a directory", path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		bw := bufio.NewWriter(f)
		err = fill(bw)
		if err == nil {
			err = bw.Flush()
		}
		return errors.Join(err, f.Close())
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
	bw := bufio.NewWriter(f)
	if err = fill(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
