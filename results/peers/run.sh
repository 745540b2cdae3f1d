#!/usr/bin/env bash
# Reproduces results/peers: writegc's kinds beside Pebble, Badger and
# ristretto under the same harness. Run from the repo root on a quiet machine
# (uptime load below 0.5, nothing else running):
#   results/peers/run.sh          (PARTS="stress hog explain held ingest nocgo")
# Parts:
#   stress   make stress-peers: the addendum matrix (10 B-10 KB) and the failure
#            scenario, six kinds (stress/, stress.txt)
#   hog      the failure scenario again beside two busy loops: the verdicts must
#            not move with the machine's load (failure-hog/, failure-hog.txt)
#   explain  100 B, six kinds, 20 s each (10M keys at most), with CPU,
#            allocation and heap profiles: an explain account per engine
#            (explain-100B/, explain-100B.txt)
#   nocgo    pebble built with CGO_ENABLED=0 (its manual memory on the Go heap):
#            the matrix and the failure scenario (nocgo/, nocgo.txt)
#   held     BenchmarkHeld: live objects and bytes per entry each engine keeps
#            on the Go heap, 5 runs (held.txt)
#   ingest   benches/peers/ratio.sh: Pebble DB.Set vs writegc's buffered path,
#            interleaved, 10 rounds (ingest.txt, ingest.txt.benchstat)
set -euo pipefail
cd "$(dirname "$0")/../.."
R=$PWD/results/peers
PARTS=${PARTS:-stress hog explain held ingest nocgo}
KINDS=heap,arena,offheap,pebble,badger,ristretto
bin=${bin:-/tmp/writegc-gcstress-peers}
(cd benches/peers && go build -o $bin ./cmd/gcstress-peers && go test -c -o /tmp/writegc-peers.test .)
. scripts/lib.sh # start_hogs, stop_hogs, machine_state, out_run
machine_state

# peers ARGS...: gcstress-peers, run in its module's folder.
peers() { (cd benches/peers && "$bin" "$@"); }

# run NAME ARGS...: one gcstress-peers run into $R/NAME (out_run).
run() { out_run "$1" gcstress-peers peers "${@:2}"; }

for part in $PARTS; do
	case $part in
	stress)
		# the flags of `make stress-peers`, read from the Makefile
		flags=$(sed -n '/gcstress-peers -kinds/,/-out/p' Makefile | tr -d '\\\t' | tr '\n' ' ' |
			sed 's/.*gcstress-peers //; s/-out .*//')
		# shellcheck disable=SC2086
		run stress $flags
		;;
	hog)
		start_hogs
		run failure-hog -kinds $KINDS -scenario failure
		stop_hogs
		;;
	explain)
		run explain-100B -kinds $KINDS -scenario matrix -values 100 -keys 10M -duration 20s -profile cpu,allocs,heap
		;;
	nocgo)
		(cd benches/peers && CGO_ENABLED=0 go build -o $bin-nocgo ./cmd/gcstress-peers)
		cgobin=$bin
		bin=$bin-nocgo
		run nocgo -kinds pebble -scenario matrix,failure -values 10B,100B,1KB,10KB -keys 2M,2M,1M,200K -duration 25s
		bin=$cgobin
		;;
	held)
		{
			scripts/machine-header start "$state"
			grep -E 'objects/entry|live-B/entry|fullgc-ns' scripts/units.txt
			/tmp/writegc-peers.test -test.run '^$' -test.bench '^BenchmarkHeld$' -test.benchtime 1x -test.count 5 |
				grep -E '^Benchmark|^(goos|goarch|pkg|cpu):'
			scripts/machine-header end "$state"
		} >"$R/held.txt"
		go tool benchstat -col /kind "$R/held.txt" >"$R/held.txt.benchstat"
		;;
	ingest)
		benches/peers/ratio.sh "$R/ingest.txt"
		;;
	esac
done
