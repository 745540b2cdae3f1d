#!/usr/bin/env bash
# results/gate/run.sh: repeats one calibration this folder holds, with the
# command its summary.md records (REV is the commit it measured; the
# scripts are today's, so a calibration repeats exactly only from a worktree
# at the commit whose script ran it).
# Usage, from anywhere, on a quiet machine (tens of minutes each; real took
# 47 minutes here):
#   results/gate/run.sh NAME
# NAME: synth, synth-nice0, real, instructions/synth, instructions/synth-slow,
# instructions/synth-2pct; instructions/speed has its own run.sh.
# Exit status: the calibration script's; 2 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/../.."
case ${1:-} in
synth)
	REV=1c440f6b9a5c0979e60ad4280a7e61335f04ebbe RUNS=20 PCT=15 SWEEP="5 10 20" SWEEP_RUNS=5 COUNT=20 \
		BENCHTIME=50ms NICE=-10 exec scripts/calibrate-gate synth ;;
synth-nice0)
	# At 3d8ccf1 the script ran without nice (COUNT=20, BENCHTIME=50ms); it was stopped after 13 of 20
	# slowdown runs.
	REV=3d8ccf1 COUNT=20 BENCHTIME=50ms NICE=0 OUT=results/gate/synth-nice0 exec scripts/calibrate-gate synth ;;
real)
	REV=a0e73f0a6a333ca9c60de84b8ab41f5a13e74b88 AA_RUNS=20 SLOW_RUNS=20 PCT=15 SWEEP="" SWEEP_RUNS=5 COUNT=20 \
		BENCHTIME=100ms NICE=-10 CAL_ROUNDS=3 CAL_VERIFY=7 CAL_PASSES=5 CAL_TOL=1.5 exec scripts/calibrate-gate real ;;
instructions/synth)
	RUNS=20 PAR=4 BUSY=2 SYNTH_KINDS=arena SYNTH_OPS=100000x OUT=results/gate/instructions/synth \
		exec scripts/calibrate-instructions synth ;;
instructions/synth-slow)
	REV=85a5c10a03404e6abf4289b75c1d8b99f1653e86 AA_RUNS=1 SLOW_RUNS=20 MISS_RUNS=0 PCT=2 COUNT=5 BUSY=2 CAL_SPINS=256 \
		SYNTH_OPS=100000x SYNTH_KINDS='arena' PAR=4 OUT=results/gate/instructions/synth-slow \
		exec scripts/calibrate-instructions synth ;;
instructions/synth-2pct)
	REV=0181a92b3e97958eafe995554a429c2b00307b91 AA_RUNS=20 SLOW_RUNS=20 MISS_RUNS=20 PCT=2 COUNT=5 BUSY=2 CAL_SPINS=256 \
		TOL=0.25 SYNTH_OPS=20000x SYNTH_VALUES='1KB' SYNTH_KINDS='arena' PAR=4 OUT=results/gate/instructions/synth-2pct \
		exec scripts/calibrate-instructions synth ;;
instructions/speed) exec results/gate/instructions/speed/run.sh ;;
*)
	echo "results/gate/run.sh: NAME ${1:-(none)} is not one of synth, synth-nice0, real, instructions/synth, instructions/synth-slow, instructions/synth-2pct, instructions/speed" >&2
	exit 2 ;;
esac
