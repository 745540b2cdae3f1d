#!/usr/bin/env bash
# results/gcstress/compare/run.sh: the README's commands. Two runs of one
# commit, one after the other (a/ and b/, each with its machine header,
# command and terminal report in a.txt, b.txt, progress in a.progress.txt,
# b.progress.txt), then `gcstress compare a b` into compare.txt.
# Run from anywhere, on a quiet machine (about 3 minutes on 2 cores):
#   results/gcstress/compare/run.sh
# Exit status: 0 done (compare's own exit status is a result, written to
# compare.txt), 2 on an error.
set -euo pipefail
cd "$(dirname "$0")/../../.."
. scripts/lib.sh
R=$PWD/results/gcstress/compare
bin=$(mktemp -d "${TMPDIR:-/tmp}/writegc-compare.XXXXXX")/gcstress
go build -o "$bin" ./cmd/gcstress || exit 2
machine_state
for name in a b; do
	out_run "$name" gcstress "$bin" -scenario matrix -kinds heap,arena -values 100 -count 5 -duration 6s || exit 2
done
rc=0
"$bin" compare "$R/a" "$R/b" >"$R/compare.txt" || rc=$?
echo "exit: $rc" >>"$R/compare.txt"
rm -rf "$(dirname "$bin")"
