#!/usr/bin/env bash
# Sampling cost of gcstress: the same scenario (arena, 100 B values, 3M
# keys, the default memstore/regions/writers) with
#   every1   -window 1s -latency-every 1   (windows + every Put timed)
#   every16  -window 1s -latency-every 16  (windows + one Put in 16 timed)
#   windows  -window 1s -latency-every 0   (runtime/metrics windows only)
#   off      -window 0  -latency-every 0   (no sampling; only the end record)
# interleaved, ROUNDS rounds, one child per run. Prints, per run, MB/s and
# MB per CPU-second of the child (less sensitive to a shared machine),
# between the machine header's start and end lines.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROUNDS=${ROUNDS:-3}
BIN=$(mktemp -d)/gcstress
go build -o "$BIN" ./cmd/gcstress
OUT=$(mktemp -d)
scripts/machine-header start "$OUT/state"
for r in $(seq 1 "$ROUNDS"); do
  for cfg in every1 every16 windows off; do
    case $cfg in
      every1) f="-window 1s -latency-every 1";;
      every16) f="-window 1s -latency-every 16";;
      windows) f="-window 1s -latency-every 0";;
      off) f="-window 0 -latency-every 0";;
    esac
    "$BIN" -kinds arena -values 100 -keys ${KEYS:-3M} -scenario matrix $f -format json -out "$OUT/$cfg-$r" 2>/dev/null |
      python3 -c "import json,sys; d=json.load(sys.stdin); e=d['results'][0]['end']; print('$cfg', $r, 'MB/s', round(e['mbps'],2), 'cores', round(e['proc_cpu']/e['t'],2), 'MB/cpu-s', round(e['bytes']/1048576/e['proc_cpu'],2))"
  done
done
scripts/machine-header end "$OUT/state"
