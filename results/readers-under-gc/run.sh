#!/usr/bin/env bash
# Reproduces results/readers-under-gc (issue 36): reader latency under the
# collector. `make stress-readers` runs heap, arena, offheap, btree, Pebble,
# Badger and ristretto on YCSB mixes a, b and e (ristretto, a cache, has no
# scan: not in e) at 100 B and 1 KB values, zipfian keys, open loop, after a
# preload, and ties every timed read to GC mark phases, pauses and assists
# from a runtime trace of the measured phase. Then the trace's own cost: mix b
# at 100 B for heap and arena again with -read-trace=false, compared with the
# traced run. Writes README.md here with the tables, the command, the commit,
# the machine, its load and steal. Run from the repo root on a quiet machine:
#   results/readers-under-gc/run.sh        (about 18 minutes on 2 cores)
# Every make variable of stress-readers can be set in the environment
# (READERS_DURATION=2s READERS_KINDS=heap READERS_VALUES=100B for a smoke run;
# R=/tmp/x writes there instead of here). PARTS=trace reruns only the trace's
# cost (about 7 minutes) and writes its section, with the machine header, to
# trace-cost.md instead of README.md (PARTS="mixes trace" is the default).
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${R:-$PWD/results/readers-under-gc}
mkdir -p "$R"
export READERS_DURATION=${READERS_DURATION:-15s} READERS_RATE=${READERS_RATE:-20Kops} READERS_PRELOAD=${READERS_PRELOAD:-200K}
export READERS_MEMSTORE=${READERS_MEMSTORE:-128MB} READERS_MIXES=${READERS_MIXES:-a b e} READERS_GOGC=${READERS_GOGC:-25}
vars=(READERS_KINDS READERS_VALUES READERS_MIXES READERS_DURATION READERS_RATE READERS_SCAN_RATE READERS_PRELOAD READERS_MEMSTORE READERS_GOGC)
args=()
for v in "${vars[@]}"; do
	if [ -n "${!v:-}" ]; then args+=("$v=${!v}"); fi
done
state=$(mktemp)
trap 'rm -f "$state"' EXIT
start=$(scripts/machine-header start "$state")
cmd="make stress-readers READERS_OUT=$R/runs READERS_FLAGS=-replace-out ${args[*]}"
PARTS=${PARTS:-mixes trace}
case " $PARTS " in
*" mixes "*) make stress-readers READERS_OUT="$R/runs" READERS_FLAGS=-replace-out "${args[@]}" >"$R/progress.txt" 2>&1 ;;
*) : >"$R/progress.txt" ;;
esac

# The tracer's cost: mix b, 100 B, heap and arena, READERS_TRACE_COUNT (5) runs each traced
# and untraced (CPU per GB and read latency side by side).
TRACE_COUNT=${READERS_TRACE_COUNT:-5}
costcmd="gcstress-peers -mix b -kinds heap,arena -values 100B -scenario matrix -count $TRACE_COUNT -duration $READERS_DURATION -rate $READERS_RATE -preload $READERS_PRELOAD -memstore $READERS_MEMSTORE -gogc $READERS_GOGC -latency-every 4"
for t in on off; do
	(cd benches/peers && go run ./cmd/gcstress-peers ${costcmd#gcstress-peers } -read-trace=$([ $t = on ] && echo true || echo false) \
		-out "$R/runs/trace-$t" -replace-out >>"$R/progress.txt" 2>&1)
done
end=$(scripts/machine-header end "$state")

# section FILE: the "Readers under GC" sections of a report.md.
section() { awk '/^## /{p = ($0 ~ /^## Readers under GC/)} p' "$1"; }

# machine_block: the run's machine header, fenced, between blank lines.
machine_block() {
	echo
	echo '```'
	echo "$start"
	echo "$end"
	echo '```'
	echo
}

# trace_cost: the trace's own cost section, from runs/trace-on and trace-off.
trace_cost() {
	echo "## The trace's own cost"
	echo
	echo "Mix b at 100 B traced (new) against untraced (old), $TRACE_COUNT runs a side:"
	echo
	echo '```'
	go run ./cmd/gcstress compare "$R/runs/trace-off" "$R/runs/trace-on" 2>&1 || true
	echo '```'
	echo
	for t in off on; do
		echo "CPU per GB with -read-trace=$t:"
		echo
		awk '/^## /{p = ($0 ~ /^## GC cost per entry/)} p && /^\|/' "$R/runs/trace-$t/report.md"
		echo
	done
	echo "Trace size and parse time per scenario are in each mix's table above (column Trace)."
}

if [[ " $PARTS " != *" mixes "* ]]; then
	{
		echo "Command: \`$costcmd -read-trace=true|false\` (results/readers-under-gc/run.sh, PARTS=trace)."
		machine_block
		trace_cost
	} >"$R/trace-cost.md.tmp"
	mv "$R/trace-cost.md.tmp" "$R/trace-cost.md"
	for f in "$R"/runs/trace-*/samples.jsonl; do gzip -f "$f"; done
	echo "wrote $R/trace-cost.md"
	exit 0
fi
{
	echo "# Readers under GC"
	echo
	echo "Reader latency of writegc's memtable kinds and three peers while the collector runs: YCSB mixes a (50% read,"
	echo "50% update), b (95/5) and e (95% scans of 1-100 records, 5% insert), zipfian keys (theta 0.99, scrambled), open"
	echo "loop, each operation timed from its intended start; a read is *in mark* when its interval overlapped a GC mark phase"
	echo "(with the pauses that bracket it) in a runtime trace of the measured phase. Manual: [docs/gcstress.md](../../docs/gcstress.md#readers-under-gc)."
	echo
	echo "Command: \`$cmd\` (results/readers-under-gc/run.sh), then \`$costcmd -read-trace=true|false\` for the trace's cost."
	machine_block
	for d in "$R"/runs/mix-*; do
		section "$d/report.md" | sed 's/^## /## /'
		echo
	done
	trace_cost
} >"$R/README.md.tmp"
mv "$R/README.md.tmp" "$R/README.md"
for f in "$R"/runs/*/samples.jsonl; do gzip -f "$f"; done
echo "wrote $R/README.md"
