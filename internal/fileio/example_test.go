package fileio_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/nmc-go/nmc/internal/fileio"
)

func ExampleWriteFile() {
	dir, err := os.MkdirTemp("", "fileio")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "table.csv")
	err = fileio.WriteFile(path, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "name,value\nn,%d\n", 42)
		return err
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := os.ReadFile(path)
	fmt.Print(string(b))
	// Output:
	// name,value
	// n,42
}
