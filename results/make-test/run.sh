#!/usr/bin/env bash
# results/make-test/run.sh: the README's command, `make test` timed from a
# cleared test cache (the build cache left warm), between the machine
# header's start and end lines (commit, Go, CPU, load average, steal).
# Run from anywhere; it waits for a load below 0.5 (about 5 minutes on 2 cores):
#   results/make-test/run.sh > /tmp/make-test.txt
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib.sh
wait_quiet
machine_state
header_start "go clean -testcache && time make test"
go clean -testcache
rc=0
time make test || rc=$?
if [ "$rc" != 0 ]; then echo "exit: $rc"; fi
header_end
exit "$rc"
