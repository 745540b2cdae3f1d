#!/usr/bin/env bash
# Reproduces results/memtable. Run from the repo root: results/memtable/run.sh
# writegc's suite and the peers module (Badger skl, Pebble) run interleaved,
# round by round, so drift on a shared machine hits both sides alike.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=results/memtable
ROUNDS=${ROUNDS:-10}
. scripts/lib.sh # machine_state, bench_binaries, bench_start, bench_end
machine_state
bench_binaries
bench_start $R/put1m.txt $R/put100k.txt $R/parallel.txt $R/put10m.txt $R/memmove.txt
for round in $(seq "$ROUNDS"); do
	echo "round $round/$ROUNDS" >&2
	# 1M keys, 100 B: the layout comparison and the Badger target (one op = one Put; one memtable per run).
	/tmp/writegc-benches.test -test.run '^$' -test.bench '^BenchmarkPut$/kind=.*/value=100B/keys=1M$' -test.benchtime 1000000x >>$R/put1m.txt
	/tmp/writegc-peers.test -test.run '^$' -test.bench '^BenchmarkPut$/kind=.*/value=100B/keys=1M$' -test.benchtime 1000000x >>$R/put1m.txt
	# 100K keys at 100 B and 10 KB, writegc and peers: three memtables per run, so
	# the arena kinds run on warm pooled chunks after the first (steady state).
	/tmp/writegc-benches.test -test.run '^$' -test.bench '^BenchmarkPut$/kind=.*/value=(100B|10KB)/keys=100K$' -test.benchtime 300000x >>$R/put100k.txt
	/tmp/writegc-peers.test -test.run '^$' -test.bench '^BenchmarkPut$/kind=.*/value=(100B|10KB)/keys=100K$' -test.benchtime 300000x >>$R/put100k.txt
	/tmp/writegc-benches.test -test.run '^$' -test.bench '^BenchmarkMemmove$' -test.benchtime 20x >>$R/memmove.txt
	# Scaling from one goroutine to two.
	/tmp/writegc-benches.test -test.run '^$' -test.bench '^BenchmarkPutParallel$/kind=(arena|heap)/' -test.benchtime 1000000x >>$R/parallel.txt
done
# 10M keys, 100 B: heap vs arena end to end (the longest case: fewer rounds unless asked).
for round in $(seq "${ROUNDS10M:-$ROUNDS}"); do
	echo "10M round $round" >&2
	/tmp/writegc-benches.test -test.run '^$' -test.bench '^BenchmarkPut$/kind=(heap|arena|offheap)/value=100B/keys=10M$' -test.benchtime 10000000x >>$R/put10m.txt
done
bench_end $R/put1m.txt $R/put100k.txt $R/parallel.txt $R/put10m.txt $R/memmove.txt
go tool benchstat -ignore pkg -col /kind $R/put1m.txt >$R/benchstat-put1m.txt
go tool benchstat -ignore pkg -col /kind -row /value $R/put100k.txt >$R/benchstat-put100k.txt
go tool benchstat -col /goroutines -row /kind $R/parallel.txt >$R/benchstat-parallel.txt
go tool benchstat -col /kind $R/put10m.txt >$R/benchstat-put10m.txt
go tool benchstat $R/memmove.txt >$R/benchstat-memmove.txt
