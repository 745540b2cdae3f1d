#!/bin/sh
# ratio.sh: Pebble's DB.Set against writegc's buffered in-process write path
# (BenchmarkIngest: 1M keys x 100 B per op, one writer, wal=off and
# wal=file without fsync), run interleaved -count 10 (one round of every
# case per round, so load that drifts hits both engines alike), then
# benchstat with one column per engine.
#
#   benches/peers/ratio.sh [OUT]     # OUT defaults to ./ingest-ratio.txt
#
# Writes OUT (the machine header, the units, every round, the end lines)
# and OUT with .benchstat appended (the table). About 15-25 s per round of 4
# cases on 2 cores (-benchtime 1x: one 1M-key ingest per case and round,
# no calibration run).
# Environment: ROUNDS (default 10), BENCHTIME (default 1x: one 1M-key
# ingest per measurement).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$PWD/ingest-ratio.txt}
case $out in /*) ;; *) out=$PWD/$out ;; esac
rounds=${ROUNDS:-10}
benchtime=${BENCHTIME:-1x}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cd "$here"
go test -c -o "$tmp/peers.test" .
{
	"$root/scripts/machine-header" start "$tmp/state"
	grep -E 'MB/s|gc-cpu|assist-cpu|gc-pause|gc-cycles' "$root/scripts/units.txt"
	i=1
	while [ "$i" -le "$rounds" ]; do
		"$tmp/peers.test" -test.run '^$' -test.bench '^BenchmarkIngest$' -test.benchtime "$benchtime" -test.benchmem |
			grep -E '^Benchmark|^(goos|goarch|pkg|cpu):' | { if [ "$i" = 1 ]; then cat; else grep '^Benchmark'; fi; }
		i=$((i + 1))
	done
	"$root/scripts/machine-header" end "$tmp/state"
} >"$out"
(cd "$root" && go tool benchstat -col /engine "$out") | tee "$out.benchstat"
