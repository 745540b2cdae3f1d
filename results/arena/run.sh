#!/usr/bin/env bash
# Reproduces results/arena: allocate-and-copy vs z.Allocator and make+copy,
# and the GC cost of holding 10M values of 100 B. Run from the repo root:
#   results/arena/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=results/arena/alloc.txt PKGS=./arena COUNT=10 BENCHTIME=200ms \
	BENCH='^BenchmarkAlloc$' scripts/bench
OUT=results/arena/hold.txt PKGS=./arena COUNT=10 BENCHTIME=3x BENCH='^BenchmarkHold$' scripts/bench
go tool benchstat -col /impl -filter '/mem:warm /goroutines:1' results/arena/alloc.txt >results/arena/benchstat-warm.txt
go tool benchstat -col /impl -filter '/mem:cold /goroutines:1' results/arena/alloc.txt >results/arena/benchstat-cold.txt
go tool benchstat -col /goroutines -filter '/impl:(arena OR offheap)' results/arena/alloc.txt >results/arena/benchstat-parallel.txt
go tool benchstat -col /impl results/arena/hold.txt >results/arena/benchstat-hold.txt
