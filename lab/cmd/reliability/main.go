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
	"flag"
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

// subcommandFlags is the flag set of `reliability NAME`: its errors and
// -h go to stderr, -h after usage (the synopsis and what NAME does).
func subcommandFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseSubcommand parses args into fs and refuses any argument left after
// the flags, saying so on stderr; false means exit 2.
func parseSubcommand(fs *flag.FlagSet, args []string, stderr io.Writer) bool {
	if err := fs.Parse(args); err != nil {
		return false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "reliability %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return false
	}
	return true
}

// emitTable prints the Markdown table of `reliability NAME` on stdout and,
// with -out FILE (out not ""), writes it to FILE too; it returns the exit
// code: 1 when FILE cannot be written.
func emitTable(name, table, out string, stdout, stderr io.Writer) int {
	io.WriteString(stdout, table)
	if out == "" {
		return 0
	}
	if err := os.WriteFile(out, []byte(table), 0o644); err != nil {
		fmt.Fprintf(stderr, "reliability %s: %v\n", name, err)
		return 1
	}
	return 0
}
