// Package cli is the gcstress command as a library: Main parses the command
// line, runs the scenarios through package gcstress and returns the exit
// code. cmd/gcstress is a few lines around it, and so is a user's own
// gcstress binary: a main that registers its engines (gcstress.RegisterEngine)
// or memtables (memtable.Register) and then calls Main puts them under
// every scenario, next to writegc's kinds:
//
//	func main() {
//		gcstress.RegisterEngine("mystore", newMyStore)
//		os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
//	}
//
// Commands:
//
//	gcstress [flags]                          run the scenarios (default: the embedded matrix)
//	gcstress explain [flags] PROFILE|DIR...   explain captured profiles
//
// Exit codes (the command's contract):
//
//	0    the run completed, whatever the scenarios' health (also -h)
//	1    a tool failure: a child could not start, a report could not be written
//	2    usage: a bad flag or value (the message names the flag), or an -out
//	     folder that cannot be used
//	130  interrupted (SIGINT or SIGTERM): the current scenario was stopped and
//	     the reports of what finished were written
//
// Invariants:
//   - Each scenario runs in a child process: the running executable
//     (os.Executable), re-executed with the scenario in the environment
//     variable gcstress.ChildEnv. Main serves that child first thing, before
//     it looks at args, so the binary that registered the engines is the
//     one that runs them: every kind the parent knows, the child knows.
//   - Main installs its own SIGINT/SIGTERM handling on the context it is
//     given (a plain context.Background() is enough) and removes it before
//     returning; a cancelled ctx counts as an interrupt.
//   - Main writes the report to stdout and everything else (progress, notes,
//     the error behind a non-zero exit) to stderr. It never exits the
//     process; the caller passes its code to os.Exit.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/writegc/writegc/explain"
	"github.com/writegc/writegc/gcstress"
)

// Exit codes Main returns.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitInterrupted = 130
)

// Main runs the gcstress command with args (without the program name) and
// returns its exit code (see the package doc). It is a scenario's child
// when gcstress.ChildEnv is set, `explain` when args start with it, and a
// stress run otherwise. Main may be called more than once in a process
// (tests do), but not concurrently: the child processes it starts are the
// running executable.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, args, stdout, stderr)
	code := ExitCode(err)
	if code != ExitOK {
		fmt.Fprintf(stderr, "gcstress: %v\n", err)
	}
	return code
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if spec := os.Getenv(gcstress.ChildEnv); spec != "" {
		return gcstress.RunChild(ctx, spec, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "explain" {
		err := explain.Main(ctx, args[1:], stdout, stderr)
		if errors.Is(err, explain.ErrUsage) {
			return fmt.Errorf("%w: explain: %v", gcstress.ErrUsage, err)
		}
		return err
	}
	cfg, err := ParseFlags(args, stderr)
	if err != nil {
		return err
	}
	_, err = gcstress.Run(ctx, cfg, gcstress.Options{Report: stdout, Progress: stderr})
	return err
}

// ExitCode maps an error of the command to its exit code: nil and
// flag.ErrHelp are ExitOK, gcstress.ErrUsage ExitUsage,
// gcstress.ErrInterrupted ExitInterrupted, anything else ExitFailure.
func ExitCode(err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return ExitOK
	case errors.Is(err, gcstress.ErrUsage):
		return ExitUsage
	case errors.Is(err, gcstress.ErrInterrupted):
		return ExitInterrupted
	}
	return ExitFailure
}
