#!/bin/sh
# Reproduces results/writepath/ (about 12 minutes on 2 cores). Run from the repo root.
set -e
out=results/writepath
units() {
	printf 'Unit p50-ns better=lower\nUnit p99-ns better=lower\nUnit gc-cpu-%% better=lower\nUnit assist-cpu-%% better=lower\nUnit gc-pause-p99-ns better=lower\nUnit gc-cycles/op better=lower\n'
}
{ units; go test -run '^$' -bench 'Write/.*/.*/value=100B' -benchtime 50000x -count 10 ./benches/; } > $out/write-100B.txt
{ units; go test -run '^$' -bench 'Multiget' -benchtime 300x -count 10 ./benches/; } > $out/multiget.txt
{ units; go test -run '^$' -bench 'Write' -benchtime 20000x -count 1 ./benches/; } > $out/write-all-sizes.txt
( units; cd benches/peers && go test -run '^$' -bench 'PebbleWrite|ServerPut' -benchtime 50000x -count 5 ./ ) > $out/peers-write.txt
WRITEGC_REPORT_SEEDS=$PWD/$out/seeds go test -count=1 -run '^TestReportSeeds$' -timeout 20m ./writepath/
go test -run '^$' -bench 'Write/path=buffered/transport=tcp/value=100B' -benchtime 200000x -cpuprofile $out/buffered-tcp-100B.cpu.pprof -o /tmp/writepath-benches.test ./benches/ > $out/profile-buffered.txt
go tool pprof -top -nodecount 25 /tmp/writepath-benches.test $out/buffered-tcp-100B.cpu.pprof >> $out/profile-buffered.txt 2>&1
go test -run '^$' -bench 'Multiget/mode=parallel/regions=8/keys=100/threads=16' -benchtime 1000x -cpuprofile $out/multiget-parallel.cpu.pprof -o /tmp/writepath-benches.test ./benches/ > $out/profile-multiget.txt
go tool pprof -top -nodecount 25 /tmp/writepath-benches.test $out/multiget-parallel.cpu.pprof >> $out/profile-multiget.txt 2>&1
go tool benchstat -col /path -filter '/transport:tcp' $out/write-100B.txt > $out/benchstat-paths-tcp.txt
go tool benchstat -col /path -filter '/transport:inproc' $out/write-100B.txt > $out/benchstat-paths-inproc.txt
go tool benchstat -col /mode $out/multiget.txt > $out/benchstat-multiget.txt
go tool benchstat $out/peers-write.txt > $out/benchstat-peers.txt
