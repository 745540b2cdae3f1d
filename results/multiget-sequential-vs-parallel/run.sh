#!/bin/sh
# Reproduces results/multiget-sequential-vs-parallel/ with one command, from the repository root:
#   ./results/multiget-sequential-vs-parallel/run.sh
# HBASE-3553 in Go: multiget sequential vs parallel, 16 and 32 threads, 100
# keys a request, 8 regions preloaded with ROWS rows, three runs each, over
# loopback TCP, for modelled read latencies LATENCIES per region request
# (0 = CPU-bound memtable lookups). REQUESTS are the multigets per run at 16
# and 32 threads; OUT the output directory. About 10 minutes on 2 shared cores
# with the defaults (10M rows; the preload alone is about 1 minute per latency).
# The smaller run in rows=1M/: ROWS=1000000 OUT=results/multiget-sequential-vs-parallel/rows=1M ./results/multiget-sequential-vs-parallel/run.sh
set -e
cd "$(dirname "$0")/../.."
. scripts/lib.sh # env_header
out=${OUT:-results/multiget-sequential-vs-parallel}
mkdir -p "$out"
rows=${ROWS:-10000000}
requests=${REQUESTS:-2000,4000}
latencies=${LATENCIES:-0,1ms,5ms}
bin=$(mktemp -d)/seedrun
go -C lab build -o "$bin" ./cmd/seedrun
state=$(mktemp)
env_header "ROWS=$rows REQUESTS=$requests LATENCIES=$latencies OUT=$out ./results/multiget-sequential-vs-parallel/run.sh  (seedrun -exp 3553 -rows $rows -runs 3 -requests $requests -latencies $latencies -transports tcp)" > $out/env.txt
rm -f $out/ycsb-*.txt
"$bin" -exp 3553 -out $out -rows "$rows" -runs 3 -requests "$requests" -latencies "$latencies" -transports tcp 2> $out/progress.txt
scripts/machine-header end "$state" >> $out/env.txt
rm -f "$state"
