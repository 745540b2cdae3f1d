#!/usr/bin/env bash
# Reproduces results/frontier: which GOGC and GOMEMLIMIT for each store.
# For heap, arena, offheap and btree (and one peer, Pebble, through
# benches/peers' gcstress-peers, which knows writegc's kinds too), 100 B
# values in a 512 MiB container: the default grid (GOGC 50,100,200,400,off
# x GOMEMLIMIT none, 50%, 70%, 90% of the container), each point 15 s at one
# open-loop rate every kind sustains at GOGC 100 (the short rate probe), the
# Pareto set, a recommendation per kind with 10% headroom and the default
# 50 ms SLO, and its 45 s confirmation run.
#
# Run from the repository root on a quiet machine (uptime load below 0.5,
# nothing else running); about 31 minutes on 2 cores with the peer (100
# points of about 16 s, the probe, five confirmations), 25 without:
#   results/frontier/run.sh                 # writes results/frontier/{README.md,run.txt,run.progress.txt,run/}
#   PEER= results/frontier/run.sh           # writegc's kinds only
#   OUT=/tmp/fr FLAGS="-gogc 100,200 -memlimit-frac none,0.5 -point-duration 6s -confirm-duration 8s -window 500ms -warmup 1s" \
#     KINDS=heap,arena PEER= results/frontier/run.sh   # a smoke run (about 1 minute), not for figures
set -euo pipefail
cd "$(dirname "$0")/../.."
R=$PWD/results/frontier
KINDS=${KINDS:-heap,arena,offheap,btree}
PEER=${PEER-pebble}
[ -z "$PEER" ] || KINDS=$KINDS,$PEER
OUT=${OUT:-$R/run}
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
FLAGS=${FLAGS:-}
bin=${bin:-/tmp/writegc-gcstress-peers}
(cd benches/peers && go build -o "$bin" ./cmd/gcstress-peers)
. scripts/lib.sh # machine_state, header_start, header_end
machine_state
# Beside the folder: its log (the machine header and the terminal report),
# its progress and the README.
log=$OUT.txt progress=$OUT.progress.txt readme=$OUT.README.md
[ "$OUT" != "$R/run" ] || readme=$R/README.md
# shellcheck disable=SC2206
args=(-scenario frontier -kinds "$KINDS" -values 100 -container 512MiB $FLAGS)
cmd="gcstress-peers ${args[*]}"
{
	header_start "$cmd"
	(cd benches/peers && "$bin" "${args[@]}" -out "$OUT" -replace-out 2>"$progress")
	header_end
} >"$log"
gzip -f "$OUT/samples.jsonl"

# README.md: the command, the machine (commit, CPU, load, steal) and the
# frontier section of report.md (every point, the recommendations with
# their confirmations, the model check), then the charts.
rel=$(basename "$OUT")
{
	echo "# Which GOGC and GOMEMLIMIT for this store"
	echo
	echo "Each kind at 100 B values in a 512 MiB container: GC CPU per GB written against peak memory for every"
	echo "GOGC x GOMEMLIMIT setting of the grid, at one open-loop rate; the Pareto set; the setting recommended"
	echo "(the least GC CPU per GB that is healthy, meets the p99 SLO and keeps peak RSS plus off-heap bytes"
	echo "within the container less 10%); and a longer run at that setting that confirms it (within 15%) or not."
	echo "Reproduce: \`results/frontier/run.sh\` (\`make\`-free; the command it ran is below). Full reports:"
	echo "[\`$rel/report.md\`]($rel/report.md), [\`$rel/report.html\`]($rel/report.html), [\`$rel/summary.json.gz\`]($rel/summary.json.gz)."
	echo
	echo '```'
	echo "command: $cmd"
	grep -E '^(commit|goversion|nproc|cpu|mem|kernel|date|loadavg-start|loadavg-end|interval-s|steal-pct|busy-cores): ' "$log"
	echo '```'
	echo
	echo "## Every point, the recommendations and the model"
	echo
	awk '/^## Frontier/ {p = 1; next} /^## / {p = 0} p' "$OUT/report.md"
	echo
	echo "## Charts"
	echo
	for png in "$OUT"/frontier-*.png; do
		[ -e "$png" ] || continue
		n=$(basename "$png")
		echo "![${n%.png}]($rel/$n)"
		echo
	done
} >"$readme.tmp"
mv "$readme.tmp" "$readme" # atomically: an interrupted run leaves the old README whole
echo "wrote $readme"
