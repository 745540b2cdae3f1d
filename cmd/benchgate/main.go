// Command benchgate is writegc's benchmark regression gate; see package
// github.com/writegc/writegc/benchgate for the rules it applies.
//
//	benchgate compare [flags] OLD NEW
//	benchgate run -base REF|auto [-head REF] [flags]
//	benchgate calibrate -o FILE [-rev REV] [flags]
//
// Exit status: 0 no regression, 1 a regression, 2 bad usage, unreadable or
// unusable input (no benchmarks, nothing in common, a benchmark missing from
// the head, too few samples, a NaN, infinite or negative value, a file or line
// over the size limits, files from different machines without
// -allow-cross-machine, an expired accepted regression, a bad thresholds file)
// or a failed build or benchmark run, 130 interrupted (SIGINT or SIGTERM: the
// benchmarks were stopped and the worktrees and temporary folders removed),
// as gcstress.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	interrupted := ctx.Err() != nil
	stop()
	os.Exit(interruptedCode(exitCode(err, os.Stderr), interrupted))
}

// exitInterrupted is the status of a run a signal stopped (128 + SIGINT),
// gcstress's too.
const exitInterrupted = 130

// interruptedCode turns the failure (2) of a command a signal stopped into
// exitInterrupted; a verdict the command reached (0, 1) stands.
func interruptedCode(code int, interrupted bool) int {
	if interrupted && code == 2 {
		return exitInterrupted
	}
	return code
}

func exitCode(err error, stderr interface{ Write([]byte) (int, error) }) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errRegression):
		return 1
	}
	fmt.Fprintln(stderr, "benchgate:", err)
	return 2
}
