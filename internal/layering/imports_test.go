package layering

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/nmc-go/nmc"

// statSources stats every Go file of the module so that go test's result cache
// is invalidated when any of them changes (the go list child process is invisible
// to the cache).
func statSources(t *testing.T) {
	t.Helper()
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "tools" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".go") || d.Name() == "go.mod" {
			_, err = os.Stat(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// goList runs `go list` with args from the module root and returns its output lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	statSources(t)
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.Command(gobin, append([]string{"list"}, args...)...)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list %v: %v\n%s", args, err, msg)
	}
	return strings.Fields(string(out))
}

// TestOnlyFramesImportsGota checks that no package of the module other than
// frames imports gota directly (test files included).
func TestOnlyFramesImportsGota(t *testing.T) {
	lines := goList(t, "-f", `{{.ImportPath}}|{{join .Imports ","}},{{join .TestImports ","}},{{join .XTestImports ","}}`, "./...")
	checked := 0
	for _, l := range lines {
		pkg, imports, ok := strings.Cut(l, "|")
		if !ok {
			t.Fatalf("unexpected go list line %q", l)
		}
		checked++
		if pkg == module+"/frames" {
			continue
		}
		for _, imp := range strings.Split(imports, ",") {
			if strings.HasPrefix(imp, "github.com/go-gota/") {
				t.Errorf("%s imports %s; only frames may import gota", pkg, imp)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("go list saw only %d packages", checked)
	}
}

// TestLeanDependencies checks the transitive dependencies of the packages that
// handle draws without data frames.
func TestLeanDependencies(t *testing.T) {
	for _, c := range []struct {
		pkg       string
		forbidden []string
	}{
		{"draws", []string{"github.com/", "golang.org/", "gonum.org/"}},
		{"diagnostics", []string{"github.com/go-gota/", "golang.org/x/net", module + "/frames", module + "/nmc"}},
		{"viz", []string{"github.com/go-gota/", "golang.org/x/net", module + "/frames", module + "/nmc"}},
		{"nmc/dist", []string{"github.com/go-gota/", module + "/nmc", module + "/frames"}},
	} {
		deps := goList(t, "-deps", "./"+c.pkg)
		if !slices.Contains(deps, module+"/"+c.pkg) {
			t.Fatalf("go list -deps ./%s does not list the package itself", c.pkg)
		}
		for _, d := range deps {
			if d == module+"/"+c.pkg || strings.HasPrefix(d, module+"/draws") || strings.HasPrefix(d, module+"/internal/") {
				continue
			}
			for _, f := range c.forbidden {
				if d == f || strings.HasPrefix(d, f+"/") || (strings.HasSuffix(f, "/") && strings.HasPrefix(d, f)) {
					t.Errorf("%s depends on %s", c.pkg, d)
				}
			}
		}
	}
}
