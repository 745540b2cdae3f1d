#!/usr/bin/env bash
# Reproduces results/gcstress/robust: do the verdicts hold under load and at
# capacity? The memory-capped failure
# scenario quiet and beside two busy loops, the collapse scenario the same two
# ways, an open-loop run at 20 MB/s, and the capacity search at 10 B, 100 B,
# 1 KB and 10 KB for heap, arena and offheap. Run from the repo root on a quiet
# machine (uptime load below 0.5, nothing else running):
#   results/gcstress/robust/run.sh            (PARTS="failure collapse openloop capacity")
set -euo pipefail
cd "$(dirname "$0")/../../.."
R=results/gcstress/robust
go build -o /tmp/writegc-gcstress ./cmd/gcstress
PARTS=${PARTS:-failure collapse openloop capacity}
. scripts/lib.sh # start_hogs, stop_hogs, machine_state, out_run
machine_state

# run NAME ARGS...: one gcstress run into $R/NAME (out_run).
run() { out_run "$1" gcstress /tmp/writegc-gcstress "${@:2}"; }

for part in $PARTS; do
	case $part in
	failure | collapse)
		run "$part-quiet" -scenario "$part"
		start_hogs
		run "$part-hog" -scenario "$part"
		stop_hogs
		;;
	openloop)
		run openloop -scenario matrix -kinds arena,heap -values 100 -keys 2M -rate 20MB/s
		;;
	capacity)
		run capacity -scenario capacity -kinds heap,arena,offheap -values 10,100,1KB,10KB
		;;
	esac
done
