#!/usr/bin/env bash
# How close does a 10 KB Put come to the copy limit? And OLD against the
# working tree. Interleaved in one run, ROUNDS rounds (order alternating each
# round): BenchmarkPutRecycled at 10 KB (arena and offheap, 100K keys, chunks
# the pool recycled) from the benches binary of OLD (default HEAD~1) and of the
# working tree, then BenchmarkMemmove's 10 KB rows from the working tree.
# Writes copy10k-old.txt, copy10k-new.txt and benchstat-copy10k.txt, whose last
# table is each round's Put bandwidth as a share of that round's
# Memmove/size=10KB/dst=pool. Run on a quiet machine from the repo root.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib.sh # alternate, bench_start, bench_end
R=results/memtable
ROUNDS=${ROUNDS:-12}
OLD=${OLD:-HEAD~1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scripts/old-new "$OLD" "$tmp" # builds old.test and new.test, then waits for a quiet machine
state=$tmp/state
bench_start $R/copy10k-new.txt
{ echo "old-commit: $(git rev-parse "$OLD")"; cat $R/copy10k-new.txt; } >$R/copy10k-old.txt
put() { # BINARY OUT
	(cd benches && "$1" -test.run '^$' -test.bench '^BenchmarkPutRecycled$/kind=(arena|offheap)/value=10KB/keys=100K$' -test.benchtime 300000x) >>"$2"
}
put_old() { put "$tmp/old.test" $R/copy10k-old.txt; }
put_new() { put "$tmp/new.test" $R/copy10k-new.txt; }
for round in $(seq "$ROUNDS"); do
	echo "round $round/$ROUNDS" >&2
	alternate "$round" put_old put_new
	(cd benches && "$tmp/new.test" -test.run '^$' -test.bench '^BenchmarkMemmove$/size=10KB' -test.benchtime 200ms) >>$R/copy10k-new.txt
done
bench_end $R/copy10k-old.txt $R/copy10k-new.txt
{
	echo "# 10 KB recycled Put, OLD vs the working tree"
	go tool benchstat -ignore pkg,old-commit -filter '.name:PutRecycled' old=$R/copy10k-old.txt new=$R/copy10k-new.txt
	echo
	echo "# the copy limits, same rounds"
	go tool benchstat -ignore pkg -filter '.name:Memmove' $R/copy10k-new.txt
	echo
	echo "# share of the copy limit (Put MB/s / Memmove size=10KB/dst=pool MB/s), per round, working tree"
	awk '
		function median(x, n,   i, j, t) {
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && x[j-1] > x[j]; j--) { t = x[j]; x[j] = x[j-1]; x[j-1] = t }
			return (x[int((n+1)/2)] + x[int(n/2)+1]) / 2
		}
		/^BenchmarkPutRecycled\/kind=arena\// { a[++na] = $5 }
		/^BenchmarkPutRecycled\/kind=offheap\// { o[++no] = $5 }
		/^BenchmarkMemmove\/size=10KB\/dst=pool/ { m[++nm] = $5 }
		END {
			printf "%-6s %10s %10s %10s %8s %8s\n", "round", "arena", "offheap", "limit", "arena%", "offheap%"
			for (i = 1; i <= nm; i++) {
				printf "%-6d %10.0f %10.0f %10.0f %7.1f%% %7.1f%%\n", i, a[i], o[i], m[i], 100*a[i]/m[i], 100*o[i]/m[i]
				ra[i] = 100*a[i]/m[i]; ro[i] = 100*o[i]/m[i]
			}
			printf "median %32s %7.1f%% %7.1f%%\n", "", median(ra, nm), median(ro, nm)
		}' $R/copy10k-new.txt
} >$R/benchstat-copy10k.txt
cat $R/benchstat-copy10k.txt
