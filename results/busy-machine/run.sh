#!/usr/bin/env bash
# Reproduces results/busy-machine (issue 27 items 4 and 5): do gcstress's CPU
# cost per GB and its capacity search hold when another process takes a core?
#
#   cost      the 100 B matrix scenario of heap, arena and offheap for DURATION
#             (default 20s, duration first), quiet, beside one busy loop, quiet,
#             beside one busy loop (interleaved, so drift falls on both): each
#             kind's end.cpu_s_per_gb and end.gc_cpu_s_per_gb, busy over quiet
#   capacity  the capacity search at 100 B for heap and arena: quiet, beside one
#             busy loop, quiet again: the two quiet figures of each kind, their
#             ratio, arena over heap each time, and what the busy run said
#             (contended or a figure)
#
# Run from the repo root on a quiet machine (uptime load below 0.5, nothing else
# running): results/busy-machine/run.sh   (PARTS="cost capacity")
# Writes results/busy-machine/<part>-<n>-<quiet|busy>/ (reports, summary.json),
# <name>.txt (machine header, command, what gcstress printed, load and steal at
# the end) and summary.md (the tables, from the summary.json files).
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${R:-results/busy-machine}
bin=$(mktemp -d)/gcstress
go build -o "$bin" ./cmd/gcstress
PARTS=${PARTS:-cost capacity}
DURATION=${DURATION:-20s}
. scripts/lib.sh # gcstress_run, machine_state
machine_state

# run NAME ARGS...: one gcstress run into $R/NAME, beside one busy loop when
# NAME ends in -busy (scripts/lib.sh's gcstress_run).
run() { gcstress_run "$bin" "$R" "$@"; }

cost_table() {
	echo "| run | kind | MB/s | CPU s/GB | GC CPU s/GB | assist CPU s/GB | on_cpu | class |"
	echo "|---|---|--:|--:|--:|--:|--:|---|"
	for d in "$R"/cost-*/; do
		jq -r --arg run "$(basename "$d")" '.results[] | select(.end != null) |
			"| \($run) | \(.scenario.kind) | \((.end.mbps // 0)*10|round/10) | \((.end.cpu_s_per_gb // 0)*1000|round/1000) | \((.end.gc_cpu_s_per_gb // 0)*1000|round/1000) | \((.end.assist_cpu_s_per_gb // 0)*1000|round/1000) | \((.end.on_cpu // 0)*1000|round/1000) | \(.verdict.class) |"' <(summary_json "$d")
	done
	echo
	echo "Busy over quiet (mean of the busy runs over mean of the quiet runs), per kind:"
	echo
	echo "| kind | CPU s/GB busy/quiet | GC CPU s/GB busy/quiet | MB/s busy/quiet |"
	echo "|---|--:|--:|--:|"
	jq -rs '[.[] as $s | $s.results[] | select(.end != null) | {kind: .scenario.kind, busy: ($s.busy), cpu: (.end.cpu_s_per_gb // 0), gc: (.end.gc_cpu_s_per_gb // 0), mbps: .end.mbps}]
		| group_by(.kind)[] | . as $g
		| def m(f; b): ([$g[] | select(.busy == b) | f] | add / length);
		"| \($g[0].kind) | \((m(.cpu; true)/m(.cpu; false))*1000|round/1000) | \((m(.gc; true)/m(.gc; false))*1000|round/1000) | \((m(.mbps; true)/m(.mbps; false))*1000|round/1000) |"' \
		< <(for d in "$R"/cost-*/; do jq --argjson busy "$(case $d in *-busy/) echo true ;; *) echo false ;; esac)" '. + {busy: $busy}' <(summary_json "$d"); done)
}

capacity_table() {
	echo "| run | kind | sustainable MB/s | first unhealthy MB/s | limit | contended | runs | spread % | why contended |"
	echo "|---|---|--:|--:|---|---|--:|--:|---|"
	for d in "$R"/capacity-*/; do
		jq -r --arg run "$(basename "$d")" '.capacity[] |
			"| \($run) | \(.kind) | \(.sustainable_mbps*10|round/10) | \(.first_unhealthy_mbps*10|round/10) | \(.limit) | \(.contended) | \(.sustainable_runs) | \(.spread_pct*10|round/10) | \(.contended_why // "") |"' <(summary_json "$d")
	done
}

for part in $PARTS; do
	case $part in
	cost)
		for n in 1 2; do
			run "cost-$n-quiet" -scenario matrix -kinds heap,arena,offheap -values 100 -duration "$DURATION"
			run "cost-$n-busy" -scenario matrix -kinds heap,arena,offheap -values 100 -duration "$DURATION"
		done
		;;
	capacity)
		run capacity-1-quiet -scenario capacity -kinds heap,arena -values 100
		run capacity-2-busy -scenario capacity -kinds heap,arena -values 100
		run capacity-3-quiet -scenario capacity -kinds heap,arena -values 100
		;;
	esac
done
{
	echo "# Busy-machine check: $(git rev-parse --short HEAD), $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
	echo "Made by \`results/busy-machine/run.sh\` (PARTS=\"$PARTS\", DURATION=$DURATION); each run's machine, load and steal are in its <name>.txt."
	echo
	if ls -d "$R"/cost-*/ >/dev/null 2>&1; then echo "## CPU cost per GB at 100 B"; echo; cost_table; echo; fi
	if ls -d "$R"/capacity-*/ >/dev/null 2>&1; then echo "## Capacity at 100 B"; echo; capacity_table; echo; fi
} >"$R/summary.md"
