#!/usr/bin/env bash
# Does pre-faulting on-heap chunks (arena.prefaultHeap) make Puts faster?
# Interleaved in one run, ROUNDS rounds (order alternating each round):
#   the benches binary of OLD (default HEAD~1, chunks fault on first touch) and of
#   the working tree (pre-faulted), BenchmarkPut kind=arena 100 B at 1M and 5M keys,
#   beside Badger's skl (peers module) in the same rounds.
# Writes prefault-old.txt, prefault-new.txt (arena rows; new with the skl rows for
# the ratio) and benchstat-prefault.txt. Run on a quiet machine from the repo root.
# Any other old-vs-new question of arena Put at 1M and 5M keys runs the same way:
# NAME=node-struct OLD=REV WHAT="the node as a struct of atomics" writes
# NAME-old.txt, NAME-new.txt and benchstat-NAME.txt instead.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib.sh # alternate, bench_start, bench_end
R=results/memtable
ROUNDS=${ROUNDS:-10}
OLD=${OLD:-HEAD~1}
NAME=${NAME:-prefault}
WHAT=${WHAT:-"chunks faulting on first touch (old) vs pre-faulted (new)"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd benches/peers && go test -c -o "$tmp/peers.test" .)
scripts/old-new "$OLD" "$tmp" # builds old.test and new.test, then waits for a quiet machine
state=$tmp/state
bench_start $R/$NAME-new.txt
{ echo "old-commit: $(git rev-parse "$OLD")"; cat $R/$NAME-new.txt; } >$R/$NAME-old.txt
run() { # BINARY KEYS N OUT
	(cd benches && "$1" -test.run '^$' -test.bench "^BenchmarkPut\$/kind=$2/value=100B/keys=$3\$" -test.benchtime "$4x") >>"$5"
}
run_old() { run "$tmp/old.test" arena "$k" "$n" $R/$NAME-old.txt; }
run_new() { run "$tmp/new.test" arena "$k" "$n" $R/$NAME-new.txt; }
for round in $(seq "$ROUNDS"); do
	echo "round $round/$ROUNDS" >&2
	for keys in 1M:1000000 5M:5000000; do
		k=${keys%:*} n=${keys#*:}
		alternate "$round" run_old run_new
		(cd benches/peers && "$tmp/peers.test" -test.run '^$' -test.bench "^BenchmarkPut\$/kind=badger-skl/value=100B/keys=$k\$" -test.benchtime "${n}x") >>$R/$NAME-new.txt
	done
done
bench_end $R/$NAME-old.txt $R/$NAME-new.txt
{
	echo "# arena 100 B, $WHAT"
	go tool benchstat -ignore pkg,old-commit -filter '/kind:arena' old=$R/$NAME-old.txt new=$R/$NAME-new.txt
	echo
	echo "# arena (new) vs Badger skl, same rounds"
	go tool benchstat -ignore pkg -col /kind -row /keys $R/$NAME-new.txt
} >$R/benchstat-$NAME.txt
cat $R/benchstat-$NAME.txt
