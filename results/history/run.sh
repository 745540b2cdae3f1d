#!/usr/bin/env bash
# Rebuilds results/history's derived files from its committed raw inputs:
# history.db (the SQLite history, `benchgate record -dir raw`) and
# index.html (the trend page), and prints today's change-point table. It
# measures nothing (scripts/history-backfill measures and writes raw/), and
# it leaves the committed changepoints.md, the table as it was first
# written, alone: a later detector may find more (see README.md).
# Run from anywhere:
#   results/history/run.sh
# Environment: OUT=DIR writes the two files under DIR instead (raw/ is
# still read from results/history/raw).
# Exit status: 0 done, 2 on an error.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=$PWD/results/history
OUT=${OUT:-$R}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/writegc-history-run.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/benchgate" ./cmd/benchgate
mkdir -p "$OUT"
rm -f "$OUT/history.db"
"$tmp/benchgate" record -db "$OUT/history.db" -dir "$R/raw" -mode bench
n=$(ls "$R/raw" | grep -c '\.txt$')
"$tmp/benchgate" history -db "$OUT/history.db" -mode bench -format md -html "$OUT" \
	-title "writegc benchmark history (last $n commits of main)" -fail-latest 0
echo "results/history/run.sh: $OUT/history.db, $OUT/index.html" >&2
