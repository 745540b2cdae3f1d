#!/usr/bin/env bash
# Reproduces results/writepath/ (about 12 minutes on 2 shared cores). Run from the repo root:
#   ./results/writepath/run.sh
# Cases run interleaved (one round of every case, ten rounds), so load that
# drifts over the run hits every case alike.
set -e
cd "$(dirname "$0")/../.."
. scripts/lib.sh # alternate
# STEPS selects steps (default all): 1 write paths, 2 sorted-apply A/B, 3 multiget, 4 buffered profile,
# 5 multiget profile; the benchstat tables are always redone.
steps=${STEPS:-12345}
out=results/writepath
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
before=${BEFORE:-f9b7344~1} # the commit before the sorted batch apply
grep -E 'p50-ns|p99-ns|gc-cpu|assist-cpu|gc-pause|gc-cycles|MB/s' scripts/units.txt > "$tmp/units.txt"
mh="$PWD/scripts/machine-header"
units() { cat "$tmp/units.txt"; }
# header NAME / footer NAME: the machine header at the start of a step's file
# and its end lines (load, steal and busy cores over the step) after it.
header() { "$mh" start "$tmp/$1.state"; }
footer() { "$mh" end "$tmp/$1.state"; }
go test -c -o "$tmp/new.test" ./benches/
mkdir -p "$tmp/before"
git archive "$(git rev-parse "$before")" | tar -x -C "$tmp/before"
(cd "$tmp/before" && go test -c -o "$tmp/old.test" ./benches/)
cd "$tmp"

# 1. Write paths at 100 B, every path and transport, count 10 (interleaved).
case $steps in *1*)
{ header write; units; for i in 1 2 3 4 5 6 7 8 9 10; do
	./new.test -test.run '^$' -test.bench 'Write/.*/.*/value=100B' -test.benchtime 50000x | grep -E '^Benchmark|^(goos|goarch|pkg|cpu):' | { [ $i = 1 ] && cat || grep ^Benchmark; }
done; footer write; } > "$OLDPWD/$out/write-100B.txt"
esac

# 2. A/B of the sorted batch apply: buffered 100 B, the commit before vs this one, order alternating each round.
case $steps in *2*)
{ header apply; echo "# code: $before (insert in batch order)"; units; } > "$OLDPWD/$out/apply-before.txt"
sed 's/^# code: .*/# code: HEAD (batches of >=64 entries inserted in key order)/' "$OLDPWD/$out/apply-before.txt" > "$OLDPWD/$out/apply-after.txt"
apply_ab() { # BINARY OUT
	"$1" -test.run '^$' -test.bench 'Write/path=buffered/transport=(tcp|inproc)/value=100B' -test.benchtime 200000x | grep ^Benchmark >> "$OLDPWD/$out/$2"
}
apply_before() { apply_ab ./old.test apply-before.txt; }
apply_after() { apply_ab ./new.test apply-after.txt; }
for i in 1 2 3 4 5 6 7 8 9 10; do
	alternate "$i" apply_before apply_after
done
footer apply | tee -a "$OLDPWD/$out/apply-before.txt" >> "$OLDPWD/$out/apply-after.txt"
esac

# 3. Multiget at 8 regions: mode x threads x transport x modelled read latency (0, 1ms, 5ms), count 10 (interleaved).
case $steps in *3*)
{ header multiget; units; for i in 1 2 3 4 5 6 7 8 9 10; do
	./new.test -test.run '^$' -test.bench 'Multiget/.*/regions=8/' -test.benchtime 200x | grep ^Benchmark
done; footer multiget; } > "$OLDPWD/$out/multiget.txt"
esac

# 4. CPU profile of the buffered TCP path (200,000 Puts).
case $steps in *4*)
./new.test -test.run '^$' -test.bench 'Write/path=buffered/transport=tcp/value=100B' -test.benchtime 200000x -test.cpuprofile buffered.pprof | grep ^Benchmark > "$OLDPWD/$out/profile-buffered.txt"
cp buffered.pprof "$OLDPWD/$out/buffered-tcp-100B.cpu.pprof"
go tool pprof -top -nodecount 30 new.test buffered.pprof >> "$OLDPWD/$out/profile-buffered.txt" 2>&1
esac

# 5. CPU profile of parallel multiget, CPU-bound case (latency=0), 1000 multigets.
case $steps in *5*)
./new.test -test.run '^$' -test.bench 'Multiget/mode=parallel/regions=8/keys=100/threads=16/transport=tcp/latency=0' -test.benchtime 1000x -test.cpuprofile mg.pprof | grep ^Benchmark > "$OLDPWD/$out/profile-multiget.txt"
cp mg.pprof "$OLDPWD/$out/multiget-parallel.cpu.pprof"
go tool pprof -top -nodecount 30 new.test mg.pprof >> "$OLDPWD/$out/profile-multiget.txt" 2>&1
esac
cd "$OLDPWD"

# 5. benchstat tables.
go tool benchstat -col /path -filter '/transport:tcp' $out/write-100B.txt > $out/benchstat-paths-tcp.txt
go tool benchstat -col /path -filter '/transport:inproc' $out/write-100B.txt > $out/benchstat-paths-inproc.txt
go tool benchstat $out/apply-before.txt $out/apply-after.txt > $out/benchstat-apply.txt
go tool benchstat -col /mode -filter '/transport:tcp' $out/multiget.txt > $out/benchstat-multiget-tcp.txt
go tool benchstat -col /mode -filter '/transport:inproc' $out/multiget.txt > $out/benchstat-multiget-inproc.txt
