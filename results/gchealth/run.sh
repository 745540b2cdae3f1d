#!/usr/bin/env bash
# The sampler's own cost: gchealth's BenchmarkWindow (one window's runtime/metrics read and
# classification) at 1 s and 100 ms windows, -count 10, and make test-service's wall time.
# Run on a quiet machine from the repository root:
#   results/gchealth/run.sh > results/gchealth/run-$(git rev-parse --short HEAD).txt
# It prints the command, the commit, the load (uptime) and CPU steal before and after.
set -euo pipefail
cd "$(dirname "$0")/../.."
steal() { awk '/^cpu /{print "steal jiffies:", $9}' /proc/stat 2>/dev/null || echo "steal: unknown"; }
echo "command: $0 $*"
echo "commit: $(git rev-parse HEAD) $(git diff --quiet && echo clean || echo dirty)"
echo "go: $(go version)"
echo "before: $(uptime)"; steal; vmstat 1 3 2>/dev/null | tail -n 2 || true
go test -run '^$' -bench 'BenchmarkWindow' -benchmem -count 10 ./gchealth/
start=$(date +%s)
make test-service
echo "make test-service: $(( $(date +%s) - start )) s"
echo "after: $(uptime)"; steal; vmstat 1 3 2>/dev/null | tail -n 2 || true
