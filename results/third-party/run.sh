#!/usr/bin/env bash
# Reproduces results/third-party (issue 48): writegc's production answers on
# stores that are not its own. Three caches from the Go ecosystem, each
# bounded to 128 MiB (benches/peers' gcstress-peers: fastcache, mmap'd and
# pointer-free; otter, a pointerful concurrent cache; shardmap, a sharded
# map[string][]byte):
#   frontier   which GOGC and GOMEMLIMIT in a 512 MiB container at a given
#              production rate (RATE, default 20MB), model-guided, each
#              recommendation confirmed or withdrawn
#   mix-b      readers under GC, YCSB b (95% reads) at default GOGC, where
#              the caches' collectors barely run (inconclusive is the answer)
#   mix-a      YCSB a (50% updates) under GOGC 25 at 50K ops/s, where cycles run and reads in mark are
#              compared with the others at p50 and p99 with a test
# heap and arena run beside the caches in the mixes as writegc's reference.
# Each run's folder NAME holds summary.json, report.md, report.html and
# samples.jsonl.gz; NAME.txt the machine header, command and terminal report;
# NAME.progress.txt what it printed to stderr (the plan and its estimate first).
#
# Run from the repository root on a quiet machine (load below 0.5, nothing
# else running); about 20 minutes on 2 cores:
#   results/third-party/run.sh             # every part
#   PARTS="mix-a" results/third-party/run.sh
#   R=/tmp/tp RATE=5MB results/third-party/run.sh   # elsewhere, another rate
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${R:-$PWD/results/third-party}
case $R in /*) ;; *) R=$PWD/$R ;; esac
mkdir -p "$R"
RATE=${RATE:-20MB}
PARTS=${PARTS:-frontier mix-b mix-a}
CACHES=fastcache,otter,shardmap
bin=$(mktemp -d "${TMPDIR:-/tmp}/third-party.XXXXXX")/gcstress-peers
(cd benches/peers && go build -o "$bin" ./cmd/gcstress-peers)
. scripts/lib.sh # machine_state, wait_quiet, gcstress_run
machine_state
trap 'stop_hogs; rm -f "$state"; rm -rf "$(dirname "$bin")"' EXIT
mix=(-keydist zipfian -scenario matrix -values 100B -duration 15s -rate 20Kops -preload 200K -memstore 128MB -latency-every 4)
# mix a under GOGC 25 at 50K ops/s: at GOGC 100 and 20K ops/s no kind completed a cycle in 15 s
mixa=(-keydist zipfian -scenario matrix -values 100B -duration 15s -rate 50Kops -preload 200K -memstore 128MB -latency-every 4 -gogc 25)
for part in $PARTS; do
	echo "third-party: $part ($(wait_quiet 300))" >&2
	case $part in
	frontier) gcstress_run "$bin" "$R" frontier frontier -kinds "$CACHES" -values 100 -container 512MiB -rate "$RATE" ;;
	mix-b) gcstress_run "$bin" "$R" mix-b -mix b -kinds "$CACHES,heap,arena" "${mix[@]}" ;;
	mix-a) gcstress_run "$bin" "$R" mix-a -mix a -kinds "$CACHES,heap,arena" "${mixa[@]}" ;;
	*)
		echo "third-party: unknown part $part (want frontier, mix-b, mix-a)" >&2
		exit 2
		;;
	esac
done
echo "wrote $R" >&2
