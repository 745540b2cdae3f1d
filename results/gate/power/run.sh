#!/usr/bin/env bash
# Reproduces results/gate/power (issue 51): the gate's detection power on this
# machine, on a held-out throwaway repository (scripts/gate-power.sh builds it:
# one spin-loop benchmark, an identical commit, a 10% and a 2% slowdown).
#   wall-quiet    wall mode (-threshold 5%) on a quiet machine: 20 A/A trials, 20 at
#                 10%, 20 at 2%
#   wall-busy1    wall mode beside one busy loop (the confirming rerun on, as by
#                 default): 20 A/A trials, 5 at 10%, 5 at 2%
#   instr-busy2   instruction mode (valgrind) beside two busy loops: 5 A/A, 20 at 2%
#                 (no 10% trials: a 50 s trial there)
# Each folder gets trials.tsv, power.md, header.txt (machine, commit, load, steal)
# and reports/. Run from the repository root with nothing else running; about
# 30 minutes on 2 cores. PARTS picks parts (default: all three).
set -euo pipefail
cd "$(dirname "$0")/../../.."
R=${R:-$PWD/results/gate/power}
PARTS=${PARTS:-wall-quiet wall-busy1 instr-busy2}
for part in $PARTS; do
	rm -rf "${R:?}/$part"
	case $part in
	wall-quiet) AA=20 SLOW=20 scripts/gate-power.sh "$R/$part" ;;
	wall-busy1) BUSY=1 AA=20 SLOW=5 scripts/gate-power.sh "$R/$part" ;;
	instr-busy2) BUSY=2 AA=5 SLOW=20 SLOWS=2 MODES=instructions scripts/gate-power.sh -instr "$R/$part" ;;
	*)
		echo "gate power: unknown part $part (want wall-quiet, wall-busy1, instr-busy2)" >&2
		exit 2
		;;
	esac
done
