#!/usr/bin/env bash
# results/gate/instructions/speed/run.sh: how long a two-benchmark instruction-mode run
# (`benchgate run -measure instructions`, issue #35 item 5) takes with the benchgate of
# OLD (default 5dd86e1, "today" in the issue) and with the benchgate of the working tree.
# Both tools measure the same benchmark code (the commit BENCH_REV, default OLD, as base
# and as head: an A/A run), so the only thing that differs is the tool. Runs alternate
# old, new, old, new ... REPS times each; every run is timed by /usr/bin/time (wall,
# user, sys) and its progress lines are time-stamped, so the README splits set-up
# (worktrees, builds, listing) from the callgrind rounds.
#
# Environment: OLD=rev, BENCH_REV=rev, REPS=n (default 3), COUNT=n (rounds, default 5),
# TARGET='PKG:REGEXP[@Nx]' (default the arena and btree rows of BenchmarkPut, 100 B,
# 100K keys, at benchgate's default 1000x), OUT=dir (default this folder).
# Needs valgrind and /usr/bin/time (both tools run valgrind through a wrapper, below). About 2 minutes a run on 2 quiet cores: 12 minutes
# at REPS=3.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
OLD=${OLD:-5dd86e1}
BENCH_REV=${BENCH_REV:-$OLD}
REPS=${REPS:-3}
COUNT=${COUNT:-5}
TARGET=${TARGET:-'./benches:^BenchmarkPut$/^kind=(arena|btree)$/^value=100B$/^keys=100K$'}
OUT=${OUT:-results/gate/instructions/speed}
command -v valgrind >/dev/null || { echo "run.sh: needs valgrind" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "run.sh: needs /usr/bin/time" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/instr-speed.XXXXXX")
cleanup() { git worktree remove --force "$tmp/old" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
git worktree add --detach -q "$tmp/old" "$OLD"
(cd "$tmp/old" && go build -o "$tmp/bg-old" ./cmd/benchgate)
go build -o "$tmp/bg-new" ./cmd/benchgate
export WRITEGC_SKIPLIST_SEED=${WRITEGC_SKIPLIST_SEED:-1} # as scripts/gate sets it
# Both tools find valgrind through a wrapper that adds cpu.rdtscp=off to the GODEBUG
# benchgate gives it: valgrind 3.19 stops on the Go runtime's RDTSCP on some CPUs (an
# AMD EPYC VM here), and tools older than c70aa84 do not set it themselves. The
# wrapper is the same for both, so it does not tilt the ratio.
real_vg=$(command -v valgrind)
mkdir -p "$tmp/bin"
printf '#!/bin/sh\nGODEBUG="${GODEBUG:+$GODEBUG,}cpu.rdtscp=off" exec %s "$@"\n' "$real_vg" >"$tmp/bin/valgrind"
chmod +x "$tmp/bin/valgrind"
export PATH="$tmp/bin:$PATH"
mkdir -p "$OUT/logs"

# one TOOL REP: a timed run; its progress lines prefixed by seconds since start.
one() {
	local tool=$1 rep=$2 log="$OUT/logs/$1-$2.log" start
	start=$(date +%s.%N)
	set +e
	/usr/bin/time -f "TIME %e %U %S" "$tmp/bg-$tool" run -measure instructions -base "$BENCH_REV" \
		-head "$BENCH_REV" -count "$COUNT" -target "$TARGET" -out "$tmp/out-$tool-$rep" 2>&1 |
		while IFS= read -r l; do
			printf '%7.1f %s\n' "$(echo "$(date +%s.%N) - $start" | bc)" "$l"
		done >"$log"
	set -e
	grep -q '^ *[0-9.]* TIME ' "$log" || { echo "run.sh: $log has no TIME line" >&2; exit 2; }
	if grep -q 'benchgate: .*\(error\|failed\)' "$log"; then echo "run.sh: $tool run $rep failed: see $log" >&2; exit 2; fi
}
for rep in $(seq 1 "$REPS"); do
	for tool in old new; do
		echo "run.sh: $tool run $rep/$REPS ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1 /proc/loadavg))" >&2
		one "$tool" "$rep"
	done
done

# row TOOL REP: wall, user+sys, set-up (to the first round's start), rounds.
row() {
	awk -v tool="$1" -v rep="$2" '
		/ round 1\/[0-9]+ done in / { r1 = $1; d = $NF; for (i = 1; i <= NF; i++) if ($i == "in") d = $(i + 1); sub(/s$/, "", d); setup = r1 - d }
		/ round [0-9]+\/[0-9]+ done in / { last = $1 }
		$2 == "TIME" { wall = $3; cpu = $4 + $5 }
		END { printf "| %s | %s | %.1f | %.1f | %.1f | %.1f |\n", tool, rep, wall, cpu, setup, last - setup }' "$OUT/logs/$1-$2.log"
}
med() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
{
	echo "# Instruction-mode run time: $OLD's benchgate against the working tree's"
	echo
	echo "Written by \`results/gate/instructions/speed/run.sh\` (OLD=$OLD BENCH_REV=$BENCH_REV REPS=$REPS COUNT=$COUNT)."
	echo
	echo "- command of each run: \`benchgate run -measure instructions -base $BENCH_REV -head $BENCH_REV -count $COUNT -target '$TARGET'\`"
	echo "- new tool: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- benchgate cmd/benchgate || echo ' (with uncommitted changes)'), $(go version | cut -d' ' -f3-4), $(valgrind --version)"
	echo "- machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load before: see logs/ (printed per run on stderr)"
	echo "- ended $(date -u '+%Y-%m-%d %H:%M') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "| tool | run | wall s | CPU s (user+sys) | set-up s (worktrees, builds, listing) | callgrind rounds s |"
	echo "|---|--:|--:|--:|--:|--:|"
	for rep in $(seq 1 "$REPS"); do for tool in old new; do row "$tool" "$rep"; done; done
	echo
	for col in 4 5; do
		o=$(for rep in $(seq 1 "$REPS"); do row old "$rep"; done | awk -F'|' -v c="$col" '{ print $(c) }' | med)
		n=$(for rep in $(seq 1 "$REPS"); do row new "$rep"; done | awk -F'|' -v c="$col" '{ print $(c) }' | med)
		name=$([ "$col" = 4 ] && echo wall || echo CPU)
		echo "- median $name: old ${o} s, new ${n} s: new/old = $(awk -v o="$o" -v n="$n" 'BEGIN { printf "%.2f", n / o }')"
	done
} >"$OUT/README.md.tmp"
mv "$OUT/README.md.tmp" "$OUT/README.md"
cat "$OUT/README.md"
