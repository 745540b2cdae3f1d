// Command gcstress-peers is gcstress's command (gcstress/cli) with the peer
// engines registered beside every writegc kind: pebble (MemFS, WAL off),
// pebble-wal (WAL on a temporary directory, no fsync per write), badger
// (InMemory), and the caches ristretto, fastcache, otter and shardmap (a
// cache as the write sink). See package
// engines for what each one is and benches/peers/README.md for how they
// differ from production.
//
//	go run ./cmd/gcstress-peers -kinds pebble,badger,ristretto,arena -values 100 -keys 1M -scenario matrix
//
// The engine options (-ristretto-budget, -pebble-memtables,
// -badger-memtables, -fastcache-budget, -otter-budget, -shardmap-budget)
// are taken out of the command line before the rest goes
// to cli.Main, and reach the scenarios' child processes through the
// environment. A bad engine option exits 2 naming the flag.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/writegc/writegc/benches/peers/engines"
	"github.com/writegc/writegc/gcstress"
	"github.com/writegc/writegc/gcstress/cli"
)

func main() {
	engines.Register()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses the engine options, exports them for the children and hands
// the other arguments to cli.Main. A child (gcstress.ChildEnv set) goes to
// cli.Main directly: its options are in its environment.
func run(args []string, stdout, stderr io.Writer) int {
	if os.Getenv(gcstress.ChildEnv) != "" {
		return cli.Main(context.Background(), args, stdout, stderr)
	}
	base, err := engines.OptionsFromEnv()
	if err != nil {
		fmt.Fprintf(stderr, "gcstress-peers: %v\n", err)
		return cli.ExitUsage
	}
	opts, rest, err := engines.SplitArgs(base, args)
	if err != nil {
		fmt.Fprintf(stderr, "gcstress-peers: %v\n", err)
		if errors.Is(err, engines.ErrUsage) {
			return cli.ExitUsage
		}
		return cli.ExitFailure
	}
	if err := opts.Export(); err != nil {
		fmt.Fprintf(stderr, "gcstress-peers: %v\n", err)
		return cli.ExitFailure
	}
	if slices.ContainsFunc(rest, func(a string) bool { return a == "-h" || a == "-help" || a == "--help" || a == "--h" }) {
		fmt.Fprintf(stderr, "gcstress-peers: gcstress with the peer engines (%v) beside writegc's kinds.\n\nengine options (before or among gcstress's flags):\n%s\n",
			engines.Kinds(), engines.Usage())
	} else if len(rest) == 0 || (rest[0] != "explain" && rest[0] != "report") {
		fmt.Fprintf(stderr, "gcstress-peers: engine options %s; Pebble's manual memory: %s\n", opts, engines.ManualAllocator())
	}
	return cli.Main(context.Background(), rest, stdout, stderr)
}
