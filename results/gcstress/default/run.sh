#!/usr/bin/env bash
# results/gcstress/default/run.sh: the README's command, `make stress` (gcstress
# on its embedded default) into this folder. stdout.txt gets the machine
# header, what it printed and the machine at the end; progress.txt its
# progress lines; samples.jsonl is gzipped after the run.
# Run from anywhere, on a quiet machine (about 5 minutes on 2 cores):
#   results/gcstress/default/run.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
. scripts/lib.sh
R=results/gcstress/default
machine_state
rc=0
{
	header_start "time make stress STRESS_FLAGS='-out $R -replace-out'"
	time make stress STRESS_FLAGS="-out $R -replace-out" 2>"$R/progress.txt" || rc=$?
	if [ "$rc" != 0 ]; then echo "exit: $rc"; fi
	header_end
} >"$R/stdout.txt" 2>&1
if [ -f "$R/samples.jsonl" ]; then gzip -f "$R/samples.jsonl"; fi
exit "$rc"
