// Command seedrun reproduces two of writegc's seed experiments on the
// writepath package and writes their raw outputs and summary tables into a
// directory:
//
//	seedrun -exp 18500 -out DIR [-rows 100000 -runs 5 -transports inproc,tcp]
//	seedrun -exp 3553  -out DIR [-rows 1000000 -runs 3 -requests 10000,20000 -latencies 0,5ms]
//
// HBASE-18500 (hbase18500.go): one client goroutine writes -rows random
// 100 B rows through the direct, autoflush, buffered and async paths (PE
// randomWrite --rows=N with one client), five runs; PE-format latency
// lines per run and Test1..Test5 tables of mean, p50 and p99.
//
// HBASE-3553 (hbase3553.go): 16 and 32 threads issue multigets of 100
// random keys against 8 preloaded regions, sequential and parallel, three
// runs each; YCSB-format blocks per run and the seed's "Total Avg"
// summaries with percentage change, per modelled read latency
// (writepath.ServerOptions.ReadLatency; 0 = CPU-bound memtable lookups).
//
// Runs of different cases are interleaved (run 1 of every case, then run 2,
// ...), so load that drifts on a shared machine hits every case alike.
// It is a driver for results/put-latency-by-client-path and results/multiget-sequential-vs-parallel, not part
// of the library; errors go to stderr with exit status 1 (2: bad usage).
package main

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/writegc/writegc/internal/flagval"
	"github.com/writegc/writegc/writepath"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	fs := flag.NewFlagSet("seedrun", flag.ContinueOnError)
	exp := fs.String("exp", "", "experiment: 18500 or 3553")
	out := fs.String("out", "", "output directory")
	rows := fs.Int("rows", 0, "rows written per run (18500, default 100000) or preloaded (3553, default 1000000)")
	runs := fs.Int("runs", 0, "runs per case (default 5 for 18500, 3 for 3553)")
	transports := fs.String("transports", "", "transports, comma-separated (default inproc,tcp for 18500, tcp for 3553)")
	requests := fs.String("requests", "10000,20000", "3553: multigets per run at 16 and at 32 threads (the seed's counts)")
	latencies := fs.String("latencies", "0,5ms", "3553: modelled read latencies per region request (ServerOptions.ReadLatency)")
	kind := fs.String("kind", "arena", "memtable kind")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" {
		fmt.Fprintln(os.Stderr, "seedrun: -out is required")
		return 2
	}
	var err error
	switch *exp {
	case "18500":
		cfg := cfg18500{out: *out, rows: cmp.Or(*rows, 100_000), runs: cmp.Or(*runs, 5), kind: *kind,
			transports: orList(flagval.List(*transports), writepath.TransportInproc, writepath.TransportTCP)}
		err = run18500(cfg)
	case "3553":
		cfg := cfg3553{out: *out, rows: cmp.Or(*rows, 1_000_000), runs: cmp.Or(*runs, 3), kind: *kind,
			transports: orList(flagval.List(*transports), writepath.TransportTCP)}
		for i, s := range flagval.List(*requests) {
			n, perr := strconv.Atoi(s)
			if perr != nil || n <= 0 || i > 1 {
				fmt.Fprintf(os.Stderr, "seedrun: bad -requests %q\n", *requests)
				return 2
			}
			cfg.requests[i] = n
		}
		for _, s := range flagval.List(*latencies) {
			d, perr := time.ParseDuration(s)
			if s == "0" {
				d, perr = 0, nil
			}
			if perr != nil || d < 0 {
				fmt.Fprintf(os.Stderr, "seedrun: bad -latencies %q\n", *latencies)
				return 2
			}
			cfg.latencies = append(cfg.latencies, d)
		}
		err = run3553(cfg)
	default:
		fmt.Fprintf(os.Stderr, "seedrun: -exp %q (known: 18500, 3553)\n", *exp)
		return 2
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "seedrun:", err)
		return 1
	}
	return 0
}

// orList returns l, or def when l is empty.
func orList(l []string, def ...string) []string {
	if len(l) == 0 {
		return def
	}
	return l
}

func latencyName(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	return d.String()
}
