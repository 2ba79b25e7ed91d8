package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs nmc with args and returns the exit status, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// checkOneLineError checks that a run failed with status 2 and exactly one line on
// stderr that starts with prefix and contains every string in want.
func checkOneLineError(t *testing.T, code int, stdout, stderr, prefix string, want ...string) {
	t.Helper()
	if code != 2 {
		t.Errorf("exit status %d, want 2 (stderr %q)", code, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout %q, want nothing", stdout)
	}
	if !strings.HasSuffix(stderr, "\n") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr %q, want exactly one line", stderr)
	}
	if !strings.HasPrefix(stderr, prefix) {
		t.Errorf("stderr %q, want prefix %q", stderr, prefix)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr %q does not contain %q", stderr, w)
		}
	}
	if strings.Contains(stderr, "goroutine ") {
		t.Errorf("stderr holds a stack trace: %q", stderr)
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		code, out, errOut := runCLI(t, args...)
		if code != 0 || errOut != "" {
			t.Errorf("nmc %v: exit status %d, stderr %q; want 0 and nothing", args, code, errOut)
		}
		for _, c := range commands {
			if !strings.Contains(out, "\n  "+c.name+" ") {
				t.Errorf("nmc %v: usage does not list command %q:\n%s", args, c.name, out)
			}
		}
	}
	for _, c := range commands {
		for _, args := range [][]string{{c.name, "-h"}, {c.name, "-help"}, {"help", c.name}} {
			code, out, errOut := runCLI(t, args...)
			if code != 0 || errOut != "" {
				t.Errorf("nmc %v: exit status %d, stderr %q; want 0 and nothing", args, code, errOut)
			}
			if !strings.HasPrefix(out, "Usage: nmc "+c.name+" ") {
				t.Errorf("nmc %v: stdout %q, want a usage message", args, out)
			}
		}
	}
	code, out, _ := runCLI(t, "summary", "-h")
	if code != 0 || !strings.Contains(out, "-out file") {
		t.Errorf("nmc summary -h does not describe -out:\n%s", out)
	}
}

func TestBadCommandLine(t *testing.T) {
	cases := []struct {
		args   []string
		prefix string
		want   []string
	}{
		{nil, "nmc: ", []string{"no command"}},
		{[]string{"bogus"}, "nmc: ", []string{`unknown command "bogus"`}},
		{[]string{"-v"}, "nmc: ", []string{"-v"}},
		{[]string{"help", "bogus"}, "nmc help: ", []string{`"bogus"`}},
		{[]string{"summary", "-bogus"}, "nmc summary: ", []string{"-bogus"}},
		{[]string{"summary", "a.csv", "-bogus"}, "nmc summary: ", []string{"-bogus"}},
		{[]string{"summary", "-out"}, "nmc summary: ", []string{"-out"}},
		{[]string{"sample", "-bogus"}, "nmc sample: ", []string{"-bogus"}},
		{[]string{"gen", "-bogus"}, "nmc gen: ", []string{"-bogus"}},
		{[]string{"paper", "-bogus"}, "nmc paper: ", []string{"-bogus"}},
		{[]string{"summary"}, "nmc summary: ", []string{"no input files"}},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, c.args...)
		checkOneLineError(t, code, out, errOut, c.prefix, c.want...)
	}
}

func TestNotImplemented(t *testing.T) {
	for _, name := range []string{"sample", "gen", "paper"} {
		code, out, errOut := runCLI(t, name)
		checkOneLineError(t, code, out, errOut, "nmc "+name+": not implemented yet")
	}
}

func TestInternalError(t *testing.T) {
	saved := commands
	t.Cleanup(func() { commands = saved })
	commands = append(commands[:len(commands):len(commands)], &command{
		name: "crash",
		flags: func(*flag.FlagSet) func(*env, []string) error {
			return func(*env, []string) error {
				var m map[string]int
				m["x"] = 1 // a nil-map write panics
				return nil
			}
		},
	})
	code, out, errOut := runCLI(t, "crash")
	checkOneLineError(t, code, out, errOut, "nmc: internal error: ", "nil map")
}

func TestSummaryMissingFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-draws.csv")
	code, out, errOut := runCLI(t, "summary", missing)
	checkOneLineError(t, code, out, errOut, "nmc summary: ", missing)
}

func TestSummaryBadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ours := write("ours.csv", "chain,draw,mu\n0,0,1\n0,1,2\n")
	other := write("other.csv", "chain,draw,sigma\n0,0,1\n0,1,2\n")
	stan := write("stan.csv", "# model = m\nlp__,accept_stat__,mu\n-1,0.9,1\n-2,0.8,2\n")
	empty := write("empty.csv", "\n\n")
	noKind := write("nokind.csv", "x,y\n1,2\n")
	badValue := write("badvalue.csv", "chain,draw,mu\n0,0,1\n0,1,oops\n")
	cases := []struct {
		files []string
		want  []string
	}{
		{[]string{empty}, []string{empty, "empty"}},
		{[]string{noKind}, []string{noKind + ":1", "lp__", "chain"}},
		{[]string{ours, stan}, []string{stan, ours, "CmdStan"}},
		{[]string{ours, other}, []string{ours, other, `"mu"`, `"sigma"`}},
		{[]string{badValue}, []string{badValue + ":3", `"mu"`, `"oops"`}},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, append([]string{"summary"}, c.files...)...)
		checkOneLineError(t, code, out, errOut, "nmc summary: ", c.want...)
	}
}

func TestDetectKind(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		text string
		want fileKind
	}{
		{"chain,draw,mu\n0,0,1\n", kindDraws},
		{"\n\"theta[0,1]\",draw,chain\n", kindDraws},
		{"# stan_version_major = 2\nlp__,mu\n", kindCmdStan},
		{"lp__,accept_stat__,mu\n-1,0.5,2\n", kindCmdStan},
	}
	for i, c := range cases {
		p := filepath.Join(dir, "f.csv")
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := detectKind(p)
		if err != nil || got != c.want {
			t.Errorf("case %d: detectKind = %v, %v; want %v", i, got, err, c.want)
		}
	}
}
