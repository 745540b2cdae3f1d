#!/usr/bin/env bash
# results/offheap-bimodality/run.sh: the measurement of
# docs/offheap-bimodality.md into this folder, with the command the doc
# names: scripts/offheap-probe (machine.txt, huge=P.jsonl and huge=P.txt per
# huge page policy P, and huge=advise,free-os). PROCS, ROUNDS, KEYS and
# POLICIES pass through to it.
# Run from anywhere, on a quiet machine (about 3 minutes on 2 cores):
#   results/offheap-bimodality/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib.sh
wait_quiet
exec scripts/offheap-probe results/offheap-bimodality
