#!/usr/bin/env bash
# Reproduces results/mmu (issue 50): minimum mutator utilization and mark-assist
# attribution per store layout. heap (a map of pointerful entries), arena
# (writegc's chunked arena), offheap (mmap'd, pointer-free) and fastcache (a
# third-party cache, mmap'd chunks; benches/peers' gcstress-peers) at 100 B and
# 1 KB values:
#   write     the write-only matrix (mix w), 15 s closed loop per kind and size
#   mix-b     YCSB b (95% reads, 5% updates) at 20K ops/s open loop under GOGC 25,
#             after a 200K-record preload: reads' and writes' assists apart
#   cost      the trace's own cost on the write path: heap and arena at 100 B,
#             -count 10 rounds of 6 s traced and untraced (-trace=false), then
#             gcstress compare untraced traced into cost.md
# Every measured phase is traced (the runtime trace, bounded at 64 MiB or 30 s):
# each run's summary.json has end.mmu, end.mmu_worst and end.assist; report.md
# has the MMU and mark-assist table and the conclusion's sentence; mmu.png the
# curves. NAME.txt holds the machine header (commit, load, steal) and command.
#
# Run from the repository root on a quiet machine (load below 0.5, nothing
# else running); about 11 minutes on 2 cores:
#   results/mmu/run.sh
#   PARTS=mix-b results/mmu/run.sh
#   R=/tmp/mmu results/mmu/run.sh            # elsewhere
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${R:-$PWD/results/mmu}
case $R in /*) ;; *) R=$PWD/$R ;; esac
mkdir -p "$R"
PARTS=${PARTS:-write mix-b cost}
KINDS=heap,arena,offheap,fastcache
bin=$(mktemp -d "${TMPDIR:-/tmp}/mmu.XXXXXX")/gcstress-peers
(cd benches/peers && go build -o "$bin" ./cmd/gcstress-peers)
. scripts/lib.sh # machine_state, wait_quiet, gcstress_run
machine_state
trap 'stop_hogs; rm -f "$state"; rm -rf "$(dirname "$bin")"' EXIT
for part in $PARTS; do
	echo "mmu: $part ($(wait_quiet 300))" >&2
	case $part in
	write) gcstress_run "$bin" "$R" write matrix -kinds "$KINDS" -values 100B,1KB -duration 15s ;;
	mix-b) gcstress_run "$bin" "$R" mix-b matrix -mix b -kinds "$KINDS" -values 100B,1KB -keydist zipfian \
		-duration 15s -rate 20Kops -preload 200K -memstore 128MB -latency-every 4 -gogc 25 ;;
	cost)
		for t in true false; do
			gcstress_run "$bin" "$R" "cost-trace-$t" matrix -kinds heap,arena -values 100B -count 10 -duration 6s -trace=$t
		done
		{
			echo "# The trace's cost on the write path"
			echo
			echo "Traced (new) against untraced (old): \`gcstress-peers matrix -kinds heap,arena -values 100B -count 10 -duration 6s -trace=true|false\`"
			echo "(results/mmu/run.sh, PARTS=cost); machine, commit and load in cost-trace-true.txt and cost-trace-false.txt."
			echo
			echo '```'
			go run ./cmd/gcstress compare "$R/cost-trace-false" "$R/cost-trace-true" 2>&1 || true
			echo '```'
		} >"$R/cost.md.tmp"
		mv "$R/cost.md.tmp" "$R/cost.md"
		;;
	*)
		echo "mmu: unknown part $part (want write, mix-b, cost)" >&2
		exit 2
		;;
	esac
done
echo "wrote $R" >&2
