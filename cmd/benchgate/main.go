// Command benchgate is writegc's benchmark regression gate; see package
// github.com/writegc/writegc/benchgate for the rules it applies.
//
//	benchgate compare [flags] OLD NEW
//	benchgate run -base REF|auto [-head REF] [flags]
//	benchgate calibrate -out DIR [-rev REV] [flags]
//
// Exit status: 0 no regression, 1 a regression (run: confirmed by a rerun
// of the regressed benchmarks unless -confirm=false), 2 bad usage, unreadable or
// unusable input (no benchmarks, nothing in common, a benchmark missing from
// the head, a benchmark with fewer results than the rounds asked (run's
// -count, compare's -count) on a side, too few samples, a NaN, infinite or
// negative value, a file or line over the size limits, files from different
// machines without -allow-cross-machine, an expired accepted regression, a
// bad thresholds file) or a failed build or benchmark run (a benchmark that
// fails in either side, a confirming rerun that cannot be compared), 3 too
// noisy to judge: no row regressed but a gated row's minimum detectable
// effect exceeds its threshold (see benchgate.Noisy). An error
// wins over a regression, a regression over noise. 130: interrupted (SIGINT
// or SIGTERM: the benchmarks were stopped and the worktrees and temporary
// folders removed), as gcstress.
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
	case errors.Is(err, errNoisy) && !joined(err):
		fmt.Fprintln(stderr, "benchgate:", err)
		return 3
	}
	fmt.Fprintln(stderr, "benchgate:", err)
	return 2
}

// joined reports whether err joins several errors (errors.Join): noise
// joined with another failure (recording with -db) is that failure, exit 2.
func joined(err error) bool {
	_, ok := err.(interface{ Unwrap() []error })
	return ok
}
