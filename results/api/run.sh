#!/usr/bin/env bash
# Reproduces results/api: a program outside the module (lab/cmd/ext, in the lab module,
# written from the README's "Your write path under gcstress") registers its
# own engine and runs it beside writegc's arena under gcstress, and a
# benchmark outside the module reports GC figures through gcbench.
# Run from the repo root on a quiet machine:  results/api/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
R=results/api
state=$(mktemp)
(cd lab/cmd/ext && go build -o /tmp/writegc-ext . && go test -c -o /tmp/writegc-ext.test .)
rm -rf /tmp/writegc-ext-out
{
	scripts/machine-header start "$state"
	echo "command: ext -kinds mystore,arena -values 100 -keys 1M -scenario matrix"
	echo
	/tmp/writegc-ext -kinds mystore,arena -values 100 -keys 1M -scenario matrix -out /tmp/writegc-ext-out 2>/dev/null
	echo
	scripts/machine-header end "$state"
} | tee $R/gcstress.txt
gzip -c /tmp/writegc-ext-out/summary.json >$R/summary.json.gz
{
	scripts/machine-header start "$state"
	echo "command: ext.test -test.bench . -test.count 10 -test.benchtime 1s"
	/tmp/writegc-ext.test -test.run '^$' -test.bench . -test.count 10 -test.benchtime 1s
	scripts/machine-header end "$state"
} | tee $R/gcbench.txt
rm -f "$state"
