#!/bin/sh
# Reproduces results/hbase-18500/ with one command, from the repository root:
#   ./results/hbase-18500/run.sh
# HBASE-18500 in Go: direct, autoflush, buffered and async Put latency, five
# runs (Test1..Test5) of ROWS rows each (default 100,000, as the seed's PE
# --rows=100000), in-process and over loopback TCP. About 3 minutes on 2 cores.
set -e
out=results/hbase-18500
rows=${ROWS:-100000}
bin=$(mktemp -d)/seedrun
go build -o "$bin" ./cmd/seedrun
{
	echo "command: ./$out/run.sh  (seedrun -exp 18500 -rows $rows -runs 5 -transports inproc,tcp)"
	echo "commit: $(git rev-parse --short HEAD)"
	echo "go: $(go version | cut -d' ' -f3-) GOEXPERIMENT=$(go env GOEXPERIMENT | sed "s/^$/default (Green Tea GC)/") GOGC=${GOGC:-100}"
	echo "machine: $(nproc) vCPU $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(awk '/^MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), shared with other engineers' jobs"
	echo "loadavg at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "started: $(date -u +%FT%TZ)"
} > $out/env.txt
rm -rf $out/raw
start=$(date +%s)
"$bin" -exp 18500 -out $out -rows "$rows" -runs 5 -transports inproc,tcp 2> $out/progress.txt
{
	echo "loadavg at end: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "wall: $(( $(date +%s) - start )) s"
} >> $out/env.txt
