#!/usr/bin/env bash
# Do the results hold at scale (16 writers and regions; 10M keys; 1 to 16
# writers on one memtable)? The larger run for a session that is lent the
# 16-core, 128 GiB device machine: the same commands as
# results/, with more writers and keys. One script, bounded to fit a
# 10-minute call; everything it measures goes under $OUT (default
# results/device/out) as it goes.
#
#   OUT=$OUT results/device/run.sh
#
# Not run yet: the task that prepared it was not lent a device machine.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-results/device/out}
mkdir -p "$OUT"
state=$(mktemp)
scripts/machine-header start "$state" | tee "$OUT/machine.txt"
go build -o /tmp/gcstress ./cmd/gcstress || exit 1
go test -c -o /tmp/benches.test ./benches || exit 1
# 1. Hypertable addendum at scale: 16 writers and regions, 64 MiB memstores (about 4 min).
timeout 250 /tmp/gcstress -scenario matrix,failure -kinds heap,arena,offheap -values 10,100,1KB,10KB \
	-keys 200M,50M,10M,2M -writers 16 -regions 16 -memstore 64MB -out "$OUT/hypertable" \
	>"$OUT/hypertable.txt" 2>"$OUT/hypertable.progress"
# 2. Memtables at 10M keys, 100 B (about 3 min).
timeout 180 /tmp/benches.test -test.run '^$' -test.count 3 \
	-test.bench '^BenchmarkPut$/kind=(heap|arena|offheap)/value=100B/keys=10M$' \
	-test.benchtime 10000000x >"$OUT/memtable-10m.txt" 2>&1
grep '^Unit' scripts/units.txt >>"$OUT/memtable-10m.txt"
# 3. How do Puts scale with writers? 1, 2, 4, 8 and 16 on one arena memtable, 1M keys of
#    100 B (BenchmarkPutParallel's goroutines are the powers of two up to
#    GOMAXPROCS), interleaved over 3 counts (about 1 min).
timeout 90 /tmp/benches.test -test.run '^$' -test.count 3 \
	-test.bench '^BenchmarkPutParallel$/kind=arena/' \
	-test.benchtime 2000000x >"$OUT/writers.txt" 2>&1
grep '^Unit' scripts/units.txt >>"$OUT/writers.txt"
scripts/machine-header end "$state" | tee -a "$OUT/machine.txt"
rm -f "$state"
ls -l "$OUT"
