#!/usr/bin/env bash
# results/collectors/run.sh: does the new collector change the case for arenas?
# Measures, on this machine, and writes results/collectors/:
#   matrix/          gcstress matrix at 100 B and 1 KB values for heap, btree, arena and
#                    offheap, each scenario under Green Tea (Go 1.26's default) and the
#                    classic collector (GOEXPERIMENT=nogreenteagc), interleaved
#                    (gcstress -build-envs); duration first, $DURATION a scenario
#   failure-100/     the failure scenario (a 208 MiB container, flush at 256 KB/s, open
#   failure-1024/    loop at 2 MB/s) at 100 B and 1 KB values, each writing the default
#                    failure's key+value bytes (2M keys of 16+10 B: about 52 MB, 26 s), under
#                    both collectors, interleaved
#   capacity/        with CAPACITY=1 only: the capacity search at $CAP_VALUES for $CAP_KINDS
#                    under both collectors, interleaved by kind (each kind's search in
#                    one environment, then the other); the README shows its capacity table
#                    and the conclusions comparing the environments' sustainable rates
#   gate/            the benchgate gate set (scripts/gate's settings), base HEAD in the
#                    current toolchain against the working tree under GOTOOLCHAIN=go1.27.3
#                    (benchgate run -base HEAD -base-env '' -head-env GOTOOLCHAIN=go1.27.3)
#   README.md        generated from those outputs: the tables and conclusion sentences,
#                    the commands, commit, machine, load and steal; the prose answer is
#                    left for a person to write from the figures
# Run from anywhere, on a quiet machine, with go1.26.8 as `go`:
#   results/collectors/run.sh
# Budget on 2 cores: builds about 2 min (the classic build recompiles the standard library
# once; the go1.27.3 toolchain is fetched once by the go command), matrix 16 scenarios x
# about 10 s (3 min), failure 16 x about 28 s (8 min), gate 2 x GATE_COUNT rounds (about
# 6 min at 15): about 19 minutes.
# Environment (all optional):
#   OUT=DIR        write there instead of results/collectors
#   ENVS=...       the build environments (default 'greentea=;classic=GOEXPERIMENT=nogreenteagc')
#   KINDS=...      default heap,btree,arena,offheap
#   VALUES=...     default 100,1KB (gcstress -values; 100, 1KB or bytes)
#   DURATION=t     each matrix scenario's run time (default 8s)
#   FAIL_BYTES=n   key+value bytes each failure run writes (default 52000000)
#   TOOLCHAIN=v    the gate's head toolchain (default go1.27.3)
#   GATE_COUNT=n   gate rounds (default 15; scripts/gate's own default is 30)
#   SKIP_GATE=1    gcstress only
#   CAPACITY=1     add the capacity search (about 90 s per kind and environment at the
#                  default 6 s steps: 4 searches, about 6 minutes, for the defaults)
#   CAP_KINDS=...  its kinds (default heap,arena); CAP_VALUES=... its values (default 100)
#   SMOKE=1        a tiny run to check the script (2 s scenarios, one kind, one value,
#                  1.5 s capacity steps, gate skipped): its figures mean nothing
# Exit status: 0 done (the gate's regression exit 1 or noise exit 3 is a result, recorded
# in the README), 2 on an error.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=$PWD/results/collectors
OUT=${OUT:-$R}
ENVS=${ENVS:-'greentea=;classic=GOEXPERIMENT=nogreenteagc'}
KINDS=${KINDS:-heap,btree,arena,offheap}
VALUES=${VALUES:-100,1KB}
DURATION=${DURATION:-8s}
FAIL_BYTES=${FAIL_BYTES:-52000000}
TOOLCHAIN=${TOOLCHAIN:-go1.27.3}
GATE_COUNT=${GATE_COUNT:-15}
extra=()
cap_extra=()
if [ -n "${SMOKE:-}" ]; then
	KINDS=${SMOKE_KINDS:-arena} VALUES=100 DURATION=2s FAIL_BYTES=2000000 SKIP_GATE=1
	extra=(-warmup 500ms -window 250ms)
	cap_extra=(-step-duration 1500ms)
	CAP_KINDS=${CAP_KINDS:-$KINDS}
fi
CAP_KINDS=${CAP_KINDS:-heap,arena}
CAP_VALUES=${CAP_VALUES:-100}
say() { echo "results/collectors/run.sh: $*" >&2; }
die() {
	say "$*"
	exit 2
}

[ "$(go env GOVERSION)" = go1.26.8 ] || say "note: go is $(go env GOVERSION), not go1.26.8: the README says which ran"
if [ -z "${SKIP_GATE:-}" ]; then
	GOTOOLCHAIN=$TOOLCHAIN go version >/dev/null || die "GOTOOLCHAIN=$TOOLCHAIN: the go command cannot fetch it"
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/writegc-collectors.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/gcstress" ./cmd/gcstress
mkdir -p "$OUT"
commands=()

# stress NAME FLAGS...: one gcstress run under every environment into $OUT/NAME.
stress() {
	local name=$1
	shift
	rm -rf "${OUT:?}/$name" "$OUT/$name.txt" "$OUT/$name.progress.txt"
	local cmd=(gcstress -build-envs "$ENVS" -build-pkg ./cmd/gcstress -kinds "$KINDS" "$@" "${extra[@]}" -out "${OUT#"$PWD"/}/$name")
	commands+=("$(printf '%q ' "${cmd[@]}")")
	say "$name: $(printf '%q ' "${cmd[@]}")"
	"$tmp/gcstress" "${cmd[@]:1}" >"$OUT/$name.txt" 2>"$OUT/$name.progress.txt" || die "$name failed: see $OUT/$name.progress.txt"
	gzip -9f "$OUT/$name/samples.jsonl"
}

stress matrix -values "$VALUES" -scenario matrix -duration "$DURATION"
failures=()
for v in ${VALUES//,/ }; do
	case $v in
	*KB) b=$((${v%KB} * 1024)) ;;
	*B) b=${v%B} ;;
	*) b=$v ;;
	esac
	stress "failure-$b" -scenario failure -fail-value "$b" -fail-keys $((FAIL_BYTES / (16 + b)))
	failures+=("failure-$b")
done

if [ -n "${CAPACITY:-}" ]; then
	KINDS=$CAP_KINDS stress capacity -values "$CAP_VALUES" -scenario capacity "${cap_extra[@]}"
	failures+=(capacity)
fi

gate_status=skipped
if [ -z "${SKIP_GATE:-}" ]; then
	rm -rf "$OUT/gate"
	gate_status=0
	say "gate: base HEAD ($(go env GOVERSION)) against the working tree under GOTOOLCHAIN=$TOOLCHAIN, $GATE_COUNT rounds"
	GATE_BASE=HEAD GATE_OUT="$OUT/gate" GATE_COUNT=$GATE_COUNT GATE_ARGS="-base-env= -head-env=GOTOOLCHAIN=$TOOLCHAIN" \
		scripts/gate >"$OUT/gate.txt" 2>"$OUT/gate.progress.txt" || gate_status=$?
	rm -f "$OUT/gate/benchgate"
	case $gate_status in 0 | 1 | 3) ;; *) die "gate: exit $gate_status: see $OUT/gate.progress.txt" ;; esac
fi

printf '%s\n' "${commands[@]}" >"$tmp/commands"
OUT=$OUT GATE_STATUS=$gate_status TOOLCHAIN=$TOOLCHAIN RUNS="matrix ${failures[*]}" COMMANDS=$tmp/commands GATE_COUNT=$GATE_COUNT \
	"$R/readme.sh" >"$OUT/README.md.tmp"
mv "$OUT/README.md.tmp" "$OUT/README.md"
say "done: $OUT/README.md"
