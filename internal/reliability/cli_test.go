package reliability

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nmc-go/nmc/frames"
)

// The nmc binary is built once per test run, into a temporary directory.
var (
	nmcOnce sync.Once
	nmcPath string
	nmcErr  error
)

// nmcBinary returns the path of a freshly built nmc binary.
func nmcBinary(t *testing.T) string {
	t.Helper()
	nmcOnce.Do(func() {
		dir, err := os.MkdirTemp("", "nmc-reliability-")
		if err != nil {
			nmcErr = err
			return
		}
		nmcPath = filepath.Join(dir, "nmc")
		out, err := exec.Command("go", "build", "-o", nmcPath, "github.com/nmc-go/nmc/cmd/nmc").CombinedOutput()
		if err != nil {
			nmcErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if nmcErr != nil {
		t.Fatal(nmcErr)
	}
	return nmcPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if nmcPath != "" {
		os.RemoveAll(filepath.Dir(nmcPath))
	}
	os.Exit(code)
}

// cliRun is the outcome of one nmc invocation.
type cliRun struct {
	status         int
	stdout, stderr string
}

// runNMC runs the nmc binary with args and extra environment variables, with a
// time limit, and returns its exit status and output.
func runNMC(t *testing.T, env []string, args ...string) cliRun {
	t.Helper()
	return runCmd(t, exec.Command(nmcBinary(t), args...), env)
}

func runCmd(t *testing.T, cmd *exec.Cmd, env []string) cliRun {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v did not finish within 60 s", cmd.Args)
	}
	return cliRun{status: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
}

// The exit statuses of a failed nmc run.
const (
	exitFailure = 1 // the command line is well formed, but its input, output or run failed
	exitUsage   = 2 // the command line alone is wrong
)

// checkOneLineError checks the contract of a failed nmc run: exit status status
// (exitUsage or exitFailure) and exactly one line on stderr, starting with "nmc",
// containing every want.
func checkOneLineError(t *testing.T, r cliRun, status int, want ...string) {
	t.Helper()
	if r.status != status {
		t.Errorf("exit status %d, want %d (stderr %q)", r.status, status, r.stderr)
	}
	msg := strings.TrimSuffix(r.stderr, "\n")
	if msg == "" || strings.Contains(msg, "\n") || !strings.HasSuffix(r.stderr, "\n") {
		t.Errorf("stderr is not one line: %q", r.stderr)
	}
	if !strings.HasPrefix(msg, "nmc") {
		t.Errorf("stderr %q does not start with \"nmc\"", msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("stderr %q does not contain %q", msg, w)
		}
	}
}

// checkNoOutput fails if path or its temporary twin path+".tmp" exists.
func checkNoOutput(t *testing.T, path string) {
	t.Helper()
	for _, p := range []string{path, path + ".tmp"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s exists after a failed run", p)
		}
	}
}

// TestCLIMalformedInputs runs nmc on bad command lines and bad input files. Each
// must exit with status 2 (a bad command line) or 1 (bad input), print one line on
// stderr naming the problem (flag, file:line, column, value) and leave no -out file.
func TestCLIMalformedInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the nmc binary")
	}
	data := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(data, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badCell := file("bad_cell.csv", "y,x1,x2\n1,0.5,0.2\n0,abc,1\n")
	ragged := file("ragged.csv", "y,x1,x2\n1,0.5,0.2\n0,1\n")
	header := file("header.csv", "y,x1,x3\n1,0.5,0.2\n")
	notBinary := file("not_binary.csv", "y,x1\n1,0.5\n0,0.1\n2,0.3\n")
	ann := file("annotation_train.csv", "item,labeler,label\n1,1,1\n2,7,1\n")
	meta := file("annotation_meta.csv", "name,value\nN,4\nN_train,2\nN_test,2\nK,3\nC,3\nJ_loc,2.5\ngamma,10\nrho,0.5\nrows_train,2\nrows_test,0\n")
	draws := file("draws.csv", "chain,draw,a\n0,0,1\n0,1,x\n")
	counts := file("counts.csv", "y\n3\n-1\n")

	cases := []struct {
		name   string
		status int
		args   []string
		want   []string
	}{
		{"no command", exitUsage, nil, []string{"no command"}},
		{"unknown command", exitUsage, []string{"frobnicate"}, []string{`"frobnicate"`}},
		{"unknown model", exitUsage, []string{"sample", "-model", "nope"}, []string{"-model", `"nope"`}},
		{"missing model", exitUsage, []string{"sample", "-draws", "10"}, []string{"-model"}},
		{"unknown flag", exitUsage, []string{"sample", "-model", "blr", "-bogus"}, []string{"-bogus"}},
		{"negative draws", exitUsage, []string{"sample", "-model", "blr", "-draws", "-5"}, []string{"-draws", "-5"}},
		{"zero chains", exitUsage, []string{"sample", "-model", "blr", "-chains", "0"}, []string{"-chains", "0"}},
		{"negative warm-up", exitUsage, []string{"sample", "-model", "blr", "-warmup", "-1"}, []string{"-warmup", "-1"}},
		{"draws not a number", exitUsage, []string{"sample", "-model", "blr", "-draws", "ten"}, []string{"-draws", "ten"}},
		{"seed not a number", exitUsage, []string{"sample", "-model", "blr", "-seed", "-3"}, []string{"-seed"}},
		{"operand", exitUsage, []string{"sample", "-model", "blr", "extra"}, []string{`"extra"`}},
		{"missing train file", exitFailure, []string{"sample", "-model", "blr", "-train", filepath.Join(data, "missing.csv")}, []string{"missing.csv"}},
		{"bad CSV cell", exitFailure, []string{"sample", "-model", "blr", "-train", badCell}, []string{"bad_cell.csv:3", `"x1"`, `"abc"`}},
		{"ragged CSV row", exitFailure, []string{"sample", "-model", "blr", "-train", ragged}, []string{"ragged.csv:3", "2 fields"}},
		{"wrong header", exitFailure, []string{"sample", "-model", "robust", "-train", header}, []string{"header.csv:1", `"x3"`}},
		{"non-binary outcome", exitFailure, []string{"sample", "-model", "blr", "-train", notBinary}, []string{"y", "2"}},
		{"annotation id out of range", exitFailure, []string{"sample", "-model", "annotation", "-train", ann, "-meta", meta}, []string{"annotation_train.csv:3", `"labeler"`, "7"}},
		{"negative count", exitFailure, []string{"sample", "-model", "gamma_poisson", "-train", counts}, []string{"counts.csv:3", "-1"}},
		{"-n with -train", exitUsage, []string{"sample", "-model", "blr", "-train", badCell, "-n", "10"}, []string{"-n"}},
		{"unknown -vars", exitUsage, []string{"sample", "-model", "normal_known_sigma", "-draws", "20", "-vars", "zeta"}, []string{"-vars", `"zeta"`}},
		{"-pll without held-out data", exitUsage, []string{"sample", "-model", "funnel", "-draws", "20", "-pll", filepath.Join(data, "pll.csv")}, []string{"-pll"}},
		{"summary of a missing file", exitFailure, []string{"summary", filepath.Join(data, "nothing.csv")}, []string{"nothing.csv"}},
		{"summary of a bad draws file", exitFailure, []string{"summary", draws}, []string{"draws.csv:3", `"a"`, `"x"`}},
		{"gen unknown model", exitUsage, []string{"gen", "-model", "funnel", "-out", filepath.Join(data, "gen")}, []string{"funnel"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.csv")
			args := c.args
			if len(args) > 0 && args[0] == "sample" {
				args = append(append([]string{}, args...), "-out", out)
			}
			r := runNMC(t, nil, args...)
			checkOneLineError(t, r, c.status, c.want...)
			checkNoOutput(t, out)
		})
	}
}

// TestCLIOutputFailures samples successfully but cannot write -out: status 1, one
// line naming -out, and no file left under the output path that looks complete.
func TestCLIOutputFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the nmc binary")
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	sample := []string{"sample", "-model", "normal_known_sigma", "-draws", "3000", "-seed", "3"}
	for _, c := range []struct {
		name, out string
	}{
		{"parent is a file", filepath.Join(plain, "draws.csv")},
		{"missing directory", filepath.Join(dir, "no", "draws.csv")},
		{"a directory", dir},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runNMC(t, nil, append(sample, "-out", c.out)...)
			checkOneLineError(t, r, exitFailure, "-out", filepath.Base(c.out))
			if c.out != dir {
				checkNoOutput(t, c.out)
			}
		})
	}
	t.Run("/dev/full", func(t *testing.T) {
		if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&os.ModeDevice == 0 {
			t.Skip("no /dev/full")
		}
		r := runNMC(t, nil, append(sample, "-out", "/dev/full")...)
		checkOneLineError(t, r, exitFailure, "-out", "/dev/full")
		if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&os.ModeDevice == 0 {
			t.Fatalf("/dev/full is no longer a device after nmc -out /dev/full")
		}
		checkNoOutput(t, "/dev/full.tmp")
	})
	// A file size limit makes writes fail part way with EFBIG, like a full disk:
	// nothing that looks complete may be left under any output path.
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Log("no prlimit: skipping the file size limit cases")
		return
	}
	for _, flag := range []string{"-out", "-summary"} {
		t.Run("file size limit "+flag, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "file.csv")
			args := append([]string{"--fsize=4096", nmcBinary(t)}, sample...)
			args = append(args, flag, out)
			if flag == "-summary" {
				// A summary of a model with many quantities is larger than 4 kB.
				args = append([]string{"--fsize=4096", nmcBinary(t)}, "sample", "-model", "annotation", "-n", "200", "-k", "5", "-draws", "20", "-warmup", "0", flag, out)
			}
			r := runCmd(t, exec.Command(prlimit, args...), nil)
			checkOneLineError(t, r, exitFailure, flag)
			checkNoOutput(t, out)
		})
	}
	t.Run("file size limit gen", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		r := runCmd(t, exec.Command(prlimit, "--fsize=4096", nmcBinary(t), "gen", "-model", "blr", "-out", dir), nil)
		checkOneLineError(t, r, exitFailure, "blr_train.csv")
		checkNoOutput(t, filepath.Join(dir, "blr_train.csv"))
		checkNoOutput(t, filepath.Join(dir, "blr_test.csv"))
	})
}

// TestCLIInterrupt sends SIGINT to a long nmc sample run after about a second: it
// must exit 1 with one line saying it was interrupted, and -out must hold a valid
// CSV of the draws completed so far.
func TestCLIInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the nmc binary")
	}
	const draws = 500000
	out := filepath.Join(t.TempDir(), "draws.csv")
	cmd := exec.Command(nmcBinary(t), "sample", "-model", "blr", "-draws", fmt.Sprint(draws), "-seed", "3", "-out", out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	time.Sleep(1200 * time.Millisecond)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-ctx.Done():
		cmd.Process.Kill()
		<-done
		t.Fatal("nmc did not stop within 60 s of SIGINT")
	}
	r := cliRun{status: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
	checkOneLineError(t, r, exitFailure, "interrupted", out)
	d, err := frames.ReadCSVFile(out)
	if err != nil {
		t.Fatalf("-out after SIGINT is not a valid draws CSV: %v", err)
	}
	if d.NumChains() != 4 {
		t.Errorf("%d chains in the CSV, want 4", d.NumChains())
	}
	total := 0
	for c := range d.NumChains() {
		n := d.NumDraws(c)
		if n >= draws {
			t.Errorf("chain %d has all %d draws: the interrupt was not seen", c, n)
		}
		for _, v := range d.Chains[c] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("chain %d holds %v", c, v)
			}
		}
		total += n
	}
	if total == 0 {
		t.Error("no draws completed before the interrupt")
	}
	if _, err := os.Stat(out + ".tmp"); err == nil {
		t.Error("temporary file left behind")
	}
}

// TestCLIDeterminism: the same seed gives byte-identical draws CSV files with
// GOMAXPROCS=1 and GOMAXPROCS=2.
func TestCLIDeterminism(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the nmc binary")
	}
	for _, model := range []string{"robust", "annotation"} {
		t.Run(model, func(t *testing.T) {
			dir := t.TempDir()
			var files [][]byte
			for _, procs := range []int{1, 2} {
				out := filepath.Join(dir, fmt.Sprintf("draws_%d.csv", procs))
				r := runNMC(t, []string{fmt.Sprintf("GOMAXPROCS=%d", procs)},
					"sample", "-model", model, "-n", "200", "-draws", "150", "-warmup", "20", "-seed", "7", "-out", out)
				if r.status != 0 {
					t.Fatalf("GOMAXPROCS=%d: exit status %d: %s", procs, r.status, r.stderr)
				}
				b, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, b)
			}
			if len(files[0]) < 1000 {
				t.Fatalf("draws file of %d bytes is too small to mean anything", len(files[0]))
			}
			if !bytes.Equal(files[0], files[1]) {
				t.Fatalf("draws CSV differs between GOMAXPROCS=1 (%d bytes) and GOMAXPROCS=2 (%d bytes)", len(files[0]), len(files[1]))
			}
		})
	}
}
