#!/usr/bin/env bash
# Reproduces the speed figures of results/memtable (how fast are the arena
# kinds beside Badger's skl, at 100 B and 10 KB, with 1 and 2 writers?), interleaved
# round by round (writegc's suite, then the peers module):
#   - arena and offheap vs Badger's skl at 1M, 5M and 10M keys of 100 B, one goroutine
#     (speed-ratios.txt: 1M and 5M every round, 10M in ROUNDS10M rounds);
#   - arena vs offheap at 10 KB (100K keys, pooled chunks) with minflt/op,
#     and BenchmarkMemmove's copy limits (speed-10kb.txt); BenchmarkPutRecycled
#     (the 10 KB Put on chunks the pool recycled, the first fill untimed) in
#     the same rounds, against BenchmarkMemmove/size=10KB;
#   - 1 vs 2 goroutines on one arena memtable (speed-parallel.txt).
# Run from the repo root on a quiet machine: results/memtable/speed.sh   (ROUNDS=10; OUT=folder)
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${OUT:-results/memtable} # OUT: another folder for the files
ROUNDS=${ROUNDS:-10}
. scripts/lib.sh # machine_state, bench_binaries, bench_start, bench_end
machine_state
bench_binaries
bench_start $R/speed-ratios.txt $R/speed-10kb.txt $R/speed-parallel.txt
B=/tmp/writegc-benches.test
P=/tmp/writegc-peers.test
for round in $(seq "$ROUNDS"); do
	echo "round $round/$ROUNDS" >&2
	$B -test.run '^$' -test.bench '^BenchmarkPut$/kind=(arena|offheap)/value=100B/keys=1M$' -test.benchtime 1000000x >>$R/speed-ratios.txt
	$P -test.run '^$' -test.bench '^BenchmarkPut$/kind=badger-skl/value=100B/keys=1M$' -test.benchtime 1000000x >>$R/speed-ratios.txt
	$B -test.run '^$' -test.bench '^BenchmarkPut$/kind=(arena|offheap)/value=100B/keys=5M$' -test.benchtime 5000000x >>$R/speed-ratios.txt
	$P -test.run '^$' -test.bench '^BenchmarkPut$/kind=badger-skl/value=100B/keys=5M$' -test.benchtime 5000000x >>$R/speed-ratios.txt
	if [ "$round" -le "${ROUNDS10M:-3}" ]; then
		$B -test.run '^$' -test.bench '^BenchmarkPut$/kind=arena/value=100B/keys=10M$' -test.benchtime 10000000x >>$R/speed-ratios.txt
		$P -test.run '^$' -test.bench '^BenchmarkPut$/kind=badger-skl/value=100B/keys=10M$' -test.benchtime 10000000x >>$R/speed-ratios.txt
	fi
	$B -test.run '^$' -test.bench '^BenchmarkPut$/kind=(arena|offheap)/value=10KB/keys=100K$' -test.benchtime 300000x >>$R/speed-10kb.txt
	$B -test.run '^$' -test.bench '^BenchmarkPutRecycled$/kind=(arena|offheap)/value=10KB/keys=100K$' -test.benchtime 300000x >>$R/speed-10kb.txt
	$B -test.run '^$' -test.bench '^BenchmarkMemmove$' -test.benchtime 200ms >>$R/speed-10kb.txt
	$B -test.run '^$' -test.bench '^BenchmarkPutParallel$/kind=arena/' -test.benchtime 1000000x >>$R/speed-parallel.txt
done
bench_end $R/speed-ratios.txt $R/speed-10kb.txt $R/speed-parallel.txt
go tool benchstat -ignore pkg -col /kind -row /keys $R/speed-ratios.txt >$R/benchstat-speed-ratios.txt
go tool benchstat -col /kind -filter '.name:Put' $R/speed-10kb.txt >$R/benchstat-speed-10kb.txt
go tool benchstat -col /kind -filter '.name:PutRecycled' $R/speed-10kb.txt >>$R/benchstat-speed-10kb.txt
go tool benchstat -filter '.name:Memmove' $R/speed-10kb.txt >>$R/benchstat-speed-10kb.txt
go tool benchstat -col /goroutines $R/speed-parallel.txt >$R/benchstat-speed-parallel.txt
