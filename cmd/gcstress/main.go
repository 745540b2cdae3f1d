// Command gcstress is writegc's main job (`make stress`): sustained write
// load through memtables and write paths until the Go garbage collector
// degrades or fails, reported like the Hypertable addendum. The command is
// package gcstress/cli (flags, exit codes, the child processes) and the
// work is package gcstress; this main only hands them the process.
//
//	gcstress [flags]                 run the embedded default, every scenario set (gcstress all)
//	gcstress matrix|failure|stall|collapse|capacity|frontier [flags]
//	                                 run one scenario set, with its own flags (gcstress failure -h)
//	gcstress explain PROFILE|DIR...  explain captured profiles
//
// Exit codes: 0 completed whatever the scenarios' health, 1 tool failure,
// 2 usage, 130 interrupted after writing the report of what finished.
package main

import (
	"context"
	"os"

	"github.com/writegc/writegc/gcstress/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
