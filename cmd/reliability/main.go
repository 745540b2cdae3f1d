// Command reliability measures how writegc's servers hold up against
// hostile and careless input, and prints a Markdown table per subcommand.
//
//	reliability tcp [-out FILE] [-quick]   abusive TCP clients against a server in a child process
//	reliability wal [-keys N] [-sync M]    the WAL corruption matrix (damage x recovery mode), the WAL directory lock
//
// Exit codes: 0 the run completed (whatever it measured), 1 the harness
// itself failed, 2 usage (unknown subcommand or bad flag).
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// subcommands maps each public subcommand to its entry point; files of this
// package add theirs from init functions.
var subcommands = map[string]func(args []string, stdout, stderr io.Writer) int{"tcp": runTCP}

// hidden are subcommands the harness runs in its child processes; they are
// not listed in the usage.
var hidden = map[string]func(args []string, stdout, stderr io.Writer) int{childServeTCP: runChildServer}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	}
	if f, ok := hidden[args[0]]; ok {
		return f(args[1:], stdout, stderr)
	}
	f, ok := subcommands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "reliability: unknown subcommand %q\n", args[0])
		usage(stderr)
		return 2
	}
	return f(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	names := make([]string, 0, len(subcommands))
	for n := range subcommands {
		names = append(names, n)
	}
	slices.Sort(names)
	fmt.Fprintf(w, "usage: reliability {%s} [flags]   (reliability SUBCOMMAND -h lists its flags)\n", strings.Join(names, "|"))
}
