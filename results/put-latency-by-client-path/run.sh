#!/bin/sh
# Reproduces results/put-latency-by-client-path/ with one command, from the repository root:
#   ./results/put-latency-by-client-path/run.sh
# HBASE-18500 in Go: direct, autoflush, buffered and async Put latency, five
# runs (Test1..Test5) of ROWS rows each (default 100,000, as the seed's PE
# --rows=100000), in-process and over loopback TCP. About 3 minutes on 2 cores.
set -e
cd "$(dirname "$0")/../.."
. scripts/lib.sh # env_header
out=results/put-latency-by-client-path
rows=${ROWS:-100000}
bin=$(mktemp -d)/seedrun
go -C lab build -o "$bin" ./cmd/seedrun
state=$(mktemp)
env_header "./$out/run.sh  (seedrun -exp 18500 -rows $rows -runs 5 -transports inproc,tcp)" > $out/env.txt
rm -rf $out/raw
"$bin" -exp 18500 -out $out -rows "$rows" -runs 5 -transports inproc,tcp 2> $out/progress.txt
scripts/machine-header end "$state" >> $out/env.txt
rm -f "$state"
