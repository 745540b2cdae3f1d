#!/usr/bin/env bash
# results/gcstress/profiled/run.sh: the README's command, `make stress`'s run
# with profiles (cpu, allocs, heap, trace) into this folder, for the explain
# accounts. stdout.txt gets the machine header, what gcstress printed and the
# machine at the end; progress.txt its progress lines. The profiles it writes
# in each scenario's folder are not committed (results/README.md, "Derived
# files"): the README cites them by name, `gcstress explain` reads them.
# Run from anywhere, on a quiet machine (about 4 minutes on 2 cores):
#   results/gcstress/profiled/run.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
. scripts/lib.sh
R=results/gcstress/profiled
bin=$(mktemp -d "${TMPDIR:-/tmp}/writegc-profiled.XXXXXX")/gcstress
go build -o "$bin" ./cmd/gcstress
machine_state
rc=0
{
	header_start "gcstress -profile cpu,allocs,heap,trace -out $R -replace-out"
	"$bin" -profile cpu,allocs,heap,trace -out "$R" -replace-out 2>"$R/progress.txt" || rc=$?
	if [ "$rc" != 0 ]; then echo "exit: $rc"; fi
	header_end
} >"$R/stdout.txt"
rm -rf "$(dirname "$bin")"
exit "$rc"
