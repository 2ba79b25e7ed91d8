package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// The exit statuses of nmc besides 0 (success).
const (
	// exitFailure: the command line is well formed but the command failed: an
	// input file that cannot be read or holds bad data, an output that cannot be
	// written, a failed or interrupted run, an internal error.
	exitFailure = 1
	// exitUsage: the command line alone is wrong: an unknown command, an unknown,
	// missing or malformed flag, a flag value out of range or not valid for the
	// model, flags that cannot be used together, an unexpected or missing operand.
	exitUsage = 2
)

// usageError is an error in the command line, found before any input is read:
// run reports it with exit status exitUsage. Every other error of a command
// gives exitFailure.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usage marks err, if not nil, as an error in the command line.
func usage(err error) error {
	if err == nil {
		return nil
	}
	return &usageError{err}
}

// usagef returns an error in the command line with the message of fmt.Errorf.
func usagef(format string, a ...any) error {
	return &usageError{fmt.Errorf(format, a...)}
}

// A command is one subcommand of nmc.
type command struct {
	name     string
	args     string // the operands, as shown in the usage line
	synopsis string // one line, shown in the list of commands
	help     string // paragraphs shown by "nmc NAME -h", after the usage line
	// flags declares the command's flags on fs and returns the function that runs
	// the command with the operands left after flag parsing.
	flags func(fs *flag.FlagSet) func(env *env, args []string) error
}

// env is what a running command writes to.
type env struct {
	stdout, stderr io.Writer
}

// commands lists the subcommands in the order "nmc -h" shows them.
var commands = []*command{
	sampleCommand,
	summaryCommand,
	genCommand,
	paperCommand,
	sbcCommand,
	looCommand,
	compareCommand,
}

// run runs nmc with the command-line arguments args (without the program name),
// writing to stdout and stderr, and returns the exit status: 0 on success,
// exitUsage (2) for an error in the command line (a usageError, an unknown
// command, a flag that does not parse), exitFailure (1) for any other failure.
// Errors are one line on stderr, "nmc NAME: …". A panic is reported as
// "nmc: internal error: …", never as a stack trace.
func run(args []string, stdout, stderr io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "nmc: internal error: %v\n", r)
			status = exitFailure
		}
	}()
	if len(args) == 0 {
		fmt.Fprintln(stderr, "nmc: no command given (see nmc -h)")
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		if name == "help" && len(args) > 1 {
			c := lookup(args[1])
			if c == nil {
				fmt.Fprintf(stderr, "nmc help: unknown command %q (see nmc -h)\n", args[1])
				return exitUsage
			}
			fs, _ := newFlagSet(c)
			printCommandUsage(stdout, c, fs)
			return 0
		}
		printUsage(stdout)
		return 0
	}
	c := lookup(name)
	if c == nil {
		if strings.HasPrefix(name, "-") {
			fmt.Fprintf(stderr, "nmc: flag %s given before a command (see nmc -h)\n", name)
		} else {
			fmt.Fprintf(stderr, "nmc: unknown command %q (see nmc -h)\n", name)
		}
		return exitUsage
	}
	fs, exec := newFlagSet(c)
	operands, err := parseInterspersed(fs, args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandUsage(stdout, c, fs)
			return 0
		}
		fmt.Fprintf(stderr, "nmc %s: %v (see nmc %s -h)\n", c.name, err, c.name)
		return exitUsage
	}
	if err := exec(&env{stdout: stdout, stderr: stderr}, operands); err != nil {
		fmt.Fprintf(stderr, "nmc %s: %s\n", c.name, errorLine(err))
		if ue := (*usageError)(nil); errors.As(err, &ue) {
			return exitUsage
		}
		return exitFailure
	}
	return 0
}

// parseInterspersed parses args with fs, allowing flags after operands
// ("nmc summary a.csv -out s.csv"), and returns the operands. Everything after
// "--" is an operand.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var operands []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return operands, nil
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(operands, rest...), nil
		}
		operands = append(operands, rest[0])
		args = rest[1:]
	}
}

// lookup returns the command called name, or nil.
func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// newFlagSet returns c's flag set, with its flags declared and its own error
// output silenced (run reports errors in one line), and the function that runs c.
func newFlagSet(c *command) (*flag.FlagSet, func(*env, []string) error) {
	fs := flag.NewFlagSet("nmc "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs, c.flags(fs)
}

// errorLine returns the message of err as one line, without the package prefixes
// of the library packages ("frames: ", "diagnostics: "), at its start or after
// another message's ": ": after "nmc summary: " they say nothing to a user.
func errorLine(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	for _, p := range []string{"frames: ", "diagnostics: ", "models: ", "nmc: ", "viz: "} {
		for strings.HasPrefix(s, p) {
			s = strings.TrimPrefix(s, p)
		}
		s = strings.ReplaceAll(s, ": "+p, ": ")
	}
	return s
}

// printUsage writes the top-level usage message.
func printUsage(w io.Writer) {
	fmt.Fprint(w, `nmc: Newtonian Monte Carlo from the command line.

Usage:
  nmc COMMAND [flags] [arguments]

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.synopsis)
	}
	fmt.Fprint(w, `
"nmc COMMAND -h" describes a command and its flags.
Exit status: 0 on success, 2 for an error in the command line, 1 for any other
failure (the error is one line on stderr).
`)
}

// printCommandUsage writes the usage message of command c, whose flags are in fs.
func printCommandUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: nmc %s %s\n\n%s\n", c.name, c.args, strings.TrimSpace(c.help))
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprint(w, "\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}
