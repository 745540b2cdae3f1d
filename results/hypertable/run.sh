#!/usr/bin/env bash
# results/hypertable/run.sh: the README's commands. The matrix (one child per
# scenario, 15-minute cap each) into matrix/, its terminal report in
# matrix/stdout.txt and progress in matrix/progress.txt; then the failure
# scenario at three memory limits into failure-LIMIT/, what it printed in
# failure-LIMIT.stdout.
# Run from anywhere, on a quiet machine (about 45 minutes for the matrix,
# 2 minutes per limit on 2 cores):
#   results/hypertable/run.sh            (both)
#   PARTS=failure results/hypertable/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib.sh
R=results/hypertable
PARTS=${PARTS:-matrix failure}
bin=$(mktemp -d "${TMPDIR:-/tmp}/writegc-hypertable.XXXXXX")/gcstress
go build -o "$bin" ./cmd/gcstress
machine_state
for part in $PARTS; do
	case $part in
	matrix)
		mkdir -p "$R/matrix"
		{
			header_start "gcstress -scenario matrix -kinds heap,arena,offheap -values 10,100,1KB,10KB -keys 100M,20M,5M,1M -duration 15m -profile cpu,allocs,heap -out $R/matrix -replace-out"
			"$bin" -scenario matrix -kinds heap,arena,offheap -values 10,100,1KB,10KB -keys 100M,20M,5M,1M \
				-duration 15m -profile cpu,allocs,heap -out "$R/matrix" -replace-out 2>"$R/matrix/progress.txt"
			header_end
		} >"$R/matrix/stdout.txt"
		;;
	failure)
		for limit in 128MB 256MB 384MB; do
			{
				header_start "gcstress -scenario failure -fail-memlimit $limit -out $R/failure-$limit -replace-out"
				"$bin" -scenario failure -fail-memlimit "$limit" -out "$R/failure-$limit" -replace-out
				header_end
			} >"$R/failure-$limit.stdout"
		done
		;;
	*)
		echo "results/hypertable/run.sh: PARTS: $part is not matrix or failure" >&2
		exit 2
		;;
	esac
done
rm -rf "$(dirname "$bin")"
