#!/usr/bin/env bash
# Reproduces results/reliability: every TCP abuse against a server in its own
# process (peak RSS, a well-behaved client's latency during it) and the WAL
# corruption matrix (damage x recovery mode). Run from the repo root on a quiet
# machine (uptime load below 0.5, nothing else running):
#   results/reliability/run.sh            (PARTS="tcp wal" by default)
set -euo pipefail
cd "$(dirname "$0")/../.."
R=results/reliability
go -C lab build -o /tmp/writegc-reliability ./cmd/reliability
state=$(mktemp)
PARTS=${PARTS:-tcp wal}
if [[ " $PARTS " == *" tcp "* ]]; then
{
	scripts/machine-header start "$state"
	echo "command: reliability tcp"
	echo
	/tmp/writegc-reliability tcp
	echo
	scripts/machine-header end "$state"
} | tee $R/tcp.txt
fi
if [[ " $PARTS " == *" wal "* ]]; then
scripts/machine-header start "$state" >$R/wal.txt
{
	echo "command: reliability wal -keys 20000 -sync batch"
	echo
	/tmp/writegc-reliability wal -keys 20000 -sync batch
	echo
	scripts/machine-header end "$state"
} | tee -a $R/wal.txt
fi
rm -f "$state"
