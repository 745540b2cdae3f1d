// Command gcstress is writegc's main job (`make stress`): sustained write
// load through memtables and write paths until the Go garbage collector
// degrades or fails, reported like the Hypertable addendum. All the work is
// in package gcstress; this is the thin main: signals, exit codes (0
// completed whatever the scenarios' health, 1 tool failure, 2 usage, 130
// interrupted after writing the report of what finished).
//
//	gcstress [flags]                 run the embedded default (or -kinds, -values, ...)
//	gcstress explain PROFILE|DIR...  explain captured profiles
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/writegc/writegc/gcstress"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return gcstress.Main(ctx, args, stdout, stderr)
}

func exitCode(err error, stderr io.Writer) int {
	code := gcstress.ExitCode(err)
	if err != nil && code != 0 {
		fmt.Fprintf(stderr, "gcstress: %v\n", err)
	}
	return code
}
