#!/usr/bin/env bash
# Reproduces results/capacity-repeats (issue 35 items 1, 2b and 5): does the
# capacity search's fitted rate repeat, and does cost per GB hold beside a
# busy loop?
#
#   cap-1-quiet, cap-2-quiet, cap-3-quiet   gcstress -scenario capacity
#                  -kinds heap,arena -values 100, back to back on a quiet machine
#   cap-4-busy     the same beside one busy loop (while :; do :; done), which
#                  this script starts before the run and kills after it
#   matrix-1-quiet, matrix-2-busy   -scenario matrix -kinds heap,arena
#                  -values 100 -rate 10MB/s -duration 20s, quiet, then beside
#                  one busy loop
#
# Run from the repo root on a quiet machine (uptime load below 0.5, nothing
# else running): results/capacity-repeats/run.sh  (RUNS="cap matrix")
# About 12 minutes on 2 cores: a capacity search of two kinds takes 2-3
# minutes (probe, about 10 steps of 6 s, 3 confirmations each), four of them
# 8-12; the matrix pair about 1.5. CAP_ARGS and MATRIX_ARGS add flags (a
# smoke test: R=/tmp/cr QUIET_RUNS=1 NO_BUSY=1 CAP_ARGS="-kinds arena
# -step-duration 3s" MATRIX_ARGS="-kinds arena -duration 2s").
# Writes R/<run>/ (reports, summary.json), R/<run>.txt (machine header:
# commit, CPU, load and steal at start and end; the command; what gcstress
# printed) and R/README.md, the tables (lab/cmd/capacitytable reads the runs).
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${R:-results/capacity-repeats}
mkdir -p "$R"
bin=$(mktemp -d)/gcstress
go build -o "$bin" ./cmd/gcstress
RUNS=${RUNS:-cap matrix}
. scripts/lib.sh # gcstress_run, machine_state
machine_state

# run NAME ARGS...: one gcstress run into $R/NAME (scripts/lib.sh's
# gcstress_run), with uptime and vmstat in its header. A quiet run first
# waits (wait_quiet, up to QUIET_WAIT seconds, default 300; 0: no wait) for
# the load the earlier runs left to fall below 0.5, and its header says how
# long that took.
machine_extra() {
	if [ -n "${quiet_wait:-}" ]; then echo "$quiet_wait"; fi
	echo "uptime: $(uptime)"
	echo "vmstat: $(vmstat 1 2 2>/dev/null | tail -1 || echo unavailable)"
}
run() {
	quiet_wait=
	case $1 in *-busy) ;; *) if [ "${QUIET_WAIT:-300}" != 0 ]; then quiet_wait=$(wait_quiet "${QUIET_WAIT:-300}"); fi ;; esac
	EXTRA_HEADER=machine_extra gcstress_run "$bin" "$R" "$@"
}

# shellcheck disable=SC2086 # CAP_ARGS and MATRIX_ARGS are word lists
for part in $RUNS; do
	case $part in
	cap)
		for n in ${QUIET_RUNS:-1 2 3}; do
			run "cap-$n-quiet" -scenario capacity -kinds heap,arena -values 100 ${CAP_ARGS:-}
		done
		if [ -z "${NO_BUSY:-}" ]; then run cap-4-busy -scenario capacity -kinds heap,arena -values 100 ${CAP_ARGS:-}; fi
		;;
	matrix)
		run matrix-1-quiet -scenario matrix -kinds heap,arena -values 100 -rate 10MB/s -duration 20s ${MATRIX_ARGS:-}
		run matrix-2-busy -scenario matrix -kinds heap,arena -values 100 -rate 10MB/s -duration 20s ${MATRIX_ARGS:-}
		;;
	esac
done
go -C lab build -o "$bin-table" ./cmd/capacitytable
"$bin-table" "$R" >"$R/README.md.tmp"
mv "$R/README.md.tmp" "$R/README.md"
echo "wrote $R/README.md"
