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
//	gcstress [SUBCOMMAND] [flags]             run scenarios: all (the default), matrix, failure,
//	                                          stall, collapse, capacity or frontier, each with its own flags
//	gcstress explain [flags] PROFILE|DIR...   explain captured profiles
//	gcstress report [-format F] DIR           regenerate DIR's report.md, charts, report.html and bench.txt from its samples.jsonl
//	gcstress compare [flags] OLD NEW          compare two results folders' bench.txt (package compare)
//
// The run subcommands share their common flags (registered once) and each
// has its own, with its own defaults: `gcstress failure -memlimit 150MB`
// is the failure scenario's GOMEMLIMIT. Plain `gcstress [flags]` is `all`
// and still takes the old flat flags (-fail-*, -collapse-*, the
// per-threshold flags, -scenario NAME) as deprecated synonyms, hidden from
// -h, with one deprecation line on stderr.
//
// A run with -count N runs every scenario N times, interleaved (every
// scenario once, then again), and every results folder holds bench.txt,
// each run's figures in the Go benchmark format (package compare), which
// `gcstress compare`, benchstat and benchgate read.
//
// With -http ADDR a run also serves a live page (report.Server) from
// this process while it goes: a port alone (-http :8080) binds 127.0.0.1,
// another interface only when its address is given. The URL goes to stderr;
// the page stops with the run (report.html in the results folder stays).
// It answers 403 to a Host header that is not localhost, a loopback
// address or the address it listens on (DNS rebinding).
//
// Exit codes (the command's contract):
//
//	0    the run completed, whatever the scenarios' health (also -h)
//	1    a tool failure: a child could not start, a results file (samples.jsonl,
//	     summary.json, a report, a chart) or the terminal report could not be
//	     written; the message names the file
//	2    usage: a bad flag or value (the message names the flag), an -out
//	     folder that cannot be used (not empty without -replace-out; with it,
//	     a folder no run's manifest accounts for), or an input file (report's
//	     samples.jsonl and summary.json, explain's profiles) that is not a
//	     regular file (a FIFO is refused without blocking) or is over its
//	     size limit
//	130  interrupted (SIGINT or SIGTERM): the current scenario was stopped and
//	     the reports of what finished were written
//
// `gcstress compare` exits 0 when no gated figure regressed (inconclusive
// rows, too few runs a side for a p-value, included), 1 when one did (the
// message names each: "matrix/heap/100B objects/entry +100% (p=0.008)"),
// with -strict when a gated figure is inconclusive, or when the table could
// not be written, and 2 for bad flags (one line with an example) or bad
// input (a missing folder, no bench.txt, an unparsable one, a NaN,
// infinite or negative figure, more runs a row than gcstress-count says).
//
// Invariants:
//   - Each scenario runs in a child process: the running executable
//     (os.Executable), re-executed with the scenario in the environment
//     variable gcstress.ChildEnv. Main serves that child first thing, before
//     it looks at args, so the binary that registered the engines is the
//     one that runs them: every kind the parent knows, the child knows.
//     With -build-envs the child is the command (-build-pkg, default this
//     one's main package) built in the scenario's environment, so it
//     registers the same engines.
//   - Main installs its own SIGINT/SIGTERM handling on the context it is
//     given (a plain context.Background() is enough) and removes it before
//     returning; a cancelled ctx counts as an interrupt.
//   - Main writes the report to stdout and everything else (progress, notes,
//     the error behind a non-zero exit) to stderr. A run's last line names
//     the report to open, "open: DIR/report.html": on stdout after a table
//     report, on stderr after a json, ycsb or pe one (stdout is then that
//     format alone); an interrupted run's error names it. It never exits
//     the process; the caller passes its code to os.Exit.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/writegc/writegc/explain"
	"github.com/writegc/writegc/gcstress"
	"github.com/writegc/writegc/gcstress/report"
	"github.com/writegc/writegc/internal/escape"
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
// when gcstress.ChildEnv is set, `explain`, `report` or `compare` when
// args start with it, and a stress run otherwise (ParseFlags). Main may be called more than once in a process
// (tests do), but not concurrently: the child processes it starts are the
// running executable.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, args, stdout, stderr)
	code := ExitCode(err)
	if code != ExitOK {
		fmt.Fprintf(stderr, "gcstress: %s\n", escape.TerminalText(err.Error()))
	}
	return code
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if spec := os.Getenv(gcstress.ChildEnv); spec != "" {
		return gcstress.RunChild(ctx, spec, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "explain" {
		err := explainMain(ctx, args[1:], stdout, stderr)
		if errors.Is(err, explain.ErrUsage) || errors.Is(err, explain.ErrNotRegular) || errors.Is(err, explain.ErrTooLarge) {
			return fmt.Errorf("%w: explain: %v", gcstress.ErrUsage, err) // a bad input file is exit 2, as a bad flag
		}
		return err
	}
	if len(args) > 0 && args[0] == "report" {
		return reportMain(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "compare" {
		return compareMain(args[1:], stdout, stderr)
	}
	// A closed stdout (gcstress | head) fails the report's write instead of
	// killing the run with SIGPIPE, so its cleanup (the build folder) runs.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	liveAddr.Store("")
	cfg, err := ParseFlags(args, stderr)
	if err != nil {
		return err
	}
	if !gcstress.ProcSupported {
		fmt.Fprintf(stderr, "gcstress: note: %s: memory caps, RSS and machine load are measured on Linux only; this run reports them as 0\n", runtime.GOOS)
	}
	// The planned work and its estimate, before anything starts.
	fmt.Fprint(stderr, gcstress.PlanRun(cfg).String())
	opts := gcstress.Options{Report: stdout, Progress: stderr}
	if addr := liveAddr.Load().(string); addr != "" {
		ls := report.NewServer(report.Options{})
		url, err := ls.Start(addr)
		if err != nil {
			return err
		}
		defer ls.Close()
		fmt.Fprintf(stderr, "gcstress: live page: %s\n", url)
		opts.Observer = ls
	}
	sum, err := gcstress.Run(ctx, cfg, opts)
	return openLine(cfg.Format, sum, err, stdout, stderr)
}

// openLine ends a run with the report to open, as the user can use it
// (relative when it lies under the working directory): the line
// "open: PATH" after a table report on stdout, and on stderr after a
// machine-read format (json, ycsb, pe), whose stdout stays that format
// alone. An interrupted run's error, which Main prints last, names it
// instead. A run whose reports could not be written names nothing. It
// returns err, wrapped when interrupted, or the open line's write error.
func openLine(format string, sum *gcstress.Summary, err error, stdout, stderr io.Writer) error {
	p := gcstress.ReportPath(sum)
	switch {
	case p == "" || (err != nil && !errors.Is(err, gcstress.ErrInterrupted)):
		return err
	case err != nil:
		return fmt.Errorf("%w; open %s", err, userPath(p))
	}
	w := stderr
	if format == "" || format == gcstress.FormatTable {
		w = stdout
	}
	if _, werr := fmt.Fprintf(w, "open: %s\n", escape.Terminal(userPath(p))); werr != nil && w == stdout {
		return fmt.Errorf("%w: terminal report to %s: %w", gcstress.ErrWrite, writerName(stdout), werr)
	}
	return nil
}

// userPath is p as the user can use it from the working directory: made
// relative when it is an absolute path under it, else as given.
func userPath(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	rel, err := filepath.Rel(wd, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return rel
}

// liveAddr holds -http while ParseFlags runs (liveFlag sets it); run resets
// and reads it around ParseFlags. Main is not called concurrently; the
// atomic keeps concurrent ParseFlags calls from racing.
var liveAddr atomic.Value

// liveFlag is the -http flag: the address is checked here, so a bad one is
// a usage error naming -http before any work.
type liveFlag struct{}

func (liveFlag) String() string {
	if s, ok := liveAddr.Load().(string); ok {
		return s
	}
	return ""
}

func (liveFlag) Set(s string) error {
	if _, err := report.Addr(s); err != nil {
		return err
	}
	liveAddr.Store(s)
	return nil
}

// reportMain is `gcstress report [-format F] DIR`: it regenerates DIR's
// report.md, charts and report.html from DIR/samples.jsonl (and summary.json
// when present) and, with -format, prints the terminal report.
func reportMain(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gcstress report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "", "also print the terminal report: table|ycsb|pe|json (default: none)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: gcstress report [-format F] DIR\n\nregenerates DIR's report.md, charts, report.html and bench.txt from DIR/samples.jsonl (run metadata from DIR/summary.json when present)\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: report: %v", gcstress.ErrUsage, err)
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: report: want one results folder, got %d argument(s)", gcstress.ErrUsage, fs.NArg())
	}
	dir := fs.Arg(0)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("%w: report: %s is not a results folder", gcstress.ErrUsage, dir)
	}
	sum, err := gcstress.RebuildReports(dir)
	if err != nil {
		return err
	}
	if *format != "" {
		if err := gcstress.WriteReport(stdout, *format, sum); err != nil {
			if errors.Is(err, gcstress.ErrUsage) {
				return err
			}
			return fmt.Errorf("%w: terminal report to %s: %w", gcstress.ErrWrite, writerName(stdout), err)
		}
	}
	fmt.Fprintf(stderr, "gcstress: reports of %d scenario(s) written to %s (report.md, report.html, bench.txt, charts)\n", len(sum.Results), escape.Terminal(dir))
	return nil
}

// writerName is w's file name, or "stdout".
func writerName(w io.Writer) string {
	if f, ok := w.(interface{ Name() string }); ok {
		return f.Name()
	}
	return "stdout"
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
