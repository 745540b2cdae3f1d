#!/usr/bin/env bash
# Reproduces results/arena: allocate-and-copy vs z.Allocator and make+copy,
# and the GC cost of holding 10M values of 100 B. Run from the repo root:
#   results/arena/run.sh            (ROUNDS=10 by default)
# Every round runs every case once, so drift on a shared machine is spread
# over all contenders instead of landing on whichever case ran at the time.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=results/arena
ROUNDS=${ROUNDS:-10}
go test -c -o /tmp/writegc-arena.test ./arena
state=$(mktemp)
trap 'rm -f "$state"' EXIT
scripts/machine-header start "$state" >$R/alloc.txt
cp $R/alloc.txt $R/hold.txt
for round in $(seq "$ROUNDS"); do
	echo "round $round/$ROUNDS" >&2
	/tmp/writegc-arena.test -test.run '^$' -test.bench '^BenchmarkAlloc$' -test.benchtime 200ms -test.benchmem >>$R/alloc.txt
	/tmp/writegc-arena.test -test.run '^$' -test.bench '^BenchmarkHold$' -test.benchtime 3x >>$R/hold.txt
done
for f in alloc hold; do
	scripts/machine-header end "$state" >>$R/$f.txt
	grep '^Unit' scripts/units.txt >>$R/$f.txt
done
go tool benchstat -col /impl -filter '/mem:warm /goroutines:1' $R/alloc.txt >$R/benchstat-warm.txt
go tool benchstat -col /impl -filter '/mem:cold /goroutines:1' $R/alloc.txt >$R/benchstat-cold.txt
go tool benchstat -col /goroutines -filter '/impl:(arena OR offheap)' $R/alloc.txt >$R/benchstat-parallel.txt
go tool benchstat -col /impl $R/hold.txt >$R/benchstat-hold.txt
