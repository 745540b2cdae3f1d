#!/usr/bin/env bash
# results/gcstress/keys-1e9/run.sh: the README's command, a matrix run of the
# arena kind at 10 B values and 1e9 keys into this folder (closed loop, no
# duration cap). stdout.txt gets the machine header, the report and the
# machine at the end; progress.txt its progress lines; samples.jsonl is
# gzipped after the run.
# Run from anywhere, on a quiet machine:
#   results/gcstress/keys-1e9/run.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
. scripts/lib.sh
R=results/gcstress/keys-1e9
bin=$(mktemp -d "${TMPDIR:-/tmp}/writegc-keys.XXXXXX")/gcstress
go build -o "$bin" ./cmd/gcstress
machine_state
rc=0
{
	header_start "gcstress -kinds arena -values 10 -keys 1e9 -scenario matrix -out $R -replace-out"
	"$bin" -kinds arena -values 10 -keys 1e9 -scenario matrix -out "$R" -replace-out 2>"$R/progress.txt" || rc=$?
	if [ "$rc" != 0 ]; then echo "exit: $rc"; fi
	header_end
} >"$R/stdout.txt"
if [ -f "$R/samples.jsonl" ]; then gzip -f "$R/samples.jsonl"; fi
rm -rf "$(dirname "$bin")"
exit "$rc"
