#!/usr/bin/env bash
# scripts/gate-power.sh: the gate's detection power on this machine, measured on a
# held-out throwaway repository (not writegc's own benchmarks), in trials of benchgate run.
#
#   scripts/gate-power.sh [-instr] OUT
#
# It builds a module in a temporary folder with one benchmark, BenchmarkWork (a spin
# loop of SPINS multiply-adds, a constant), and four commits: base, an identical
# commit (a comment: A/A), a 10% slowdown and a 2% slowdown (the constant scaled by
# 1.10 and 1.02). Then, with this checkout's benchgate, AA trials of base against the
# identical commit and SLOW trials each against the 10% and the 2% commit, in wall mode
# (COUNT rounds at BENCHTIME, the confirming rerun on as by default) and, with -instr
# and valgrind installed, in instruction mode too (its default 5 rounds). Trials of
# the three kinds interleave, so that drift falls on all alike.
#
# OUT gets: trials.tsv (one line a trial: mode, kind, trial, exit, verdict, confirmed,
# change_pct, p, mde_pct, load1 before the trial, steal % during it, seconds),
# power.md (per mode: the A/A false alarm rate, the detection rate at 10% and at 2%,
# the median MDE, with the machine header, load and steal around it), reports/ (each
# trial's JSON report and stderr) and header.txt.
#
# Environment: AA (20), SLOW (10), COUNT (10), BENCHTIME (20000x: a fixed op count of
# about 1 µs ops), SPINS (1000), BUSY (0; 1: one busy loop `while :; do :; done` runs
# during the trials and is stopped after; N: N loops, 2 for the instruction-mode check), QUIET_MAX (300: seconds wait_quiet may wait
# for a 1-minute load below 0.5 before the trials), SEC_WALL and SEC_INSTR (the
# seconds one trial is estimated at, for the estimate printed first), THRESHOLD (5%: wall
# mode's -threshold; a gate must sit below the change it is to catch by the noise, and at
# the default 10% a true 10% slowdown lands on either side of it; instruction mode keeps
# its units' thresholds), SLOWS ("10 2": the slowdowns each of the SLOW rounds runs; "2"
# leaves out the 10% trials), MODES (with -instr:
# "instructions" alone leaves out the wall-mode trials). Needs git, go,
# jq; valgrind for -instr.
#
# This script writes only under OUT and a temporary folder it removes; it is the
# lead's to run for results (results/gate/power/), on a quiet machine, and with BUSY=1 (and BUSY=2 with -instr).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

instr=0
if [ "${1:-}" = -instr ]; then
	instr=1
	shift
fi
if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: scripts/gate-power.sh [-instr] OUT" >&2
	exit 2
fi
out=$1
AA=${AA:-20} SLOW=${SLOW:-10} COUNT=${COUNT:-10} BENCHTIME=${BENCHTIME:-20000x}
SPINS=${SPINS:-1000} BUSY=${BUSY:-0} QUIET_MAX=${QUIET_MAX:-300}
SEC_WALL=${SEC_WALL:-9} SEC_INSTR=${SEC_INSTR:-30} THRESHOLD=${THRESHOLD:-5%} SLOWS=${SLOWS:-10 2}
for v in AA SLOW COUNT SPINS BUSY QUIET_MAX SEC_WALL SEC_INSTR; do
	if ! [[ ${!v} =~ ^[0-9]+$ ]]; then
		echo "gate-power: $v=${!v}: want a whole number" >&2
		exit 2
	fi
done
for k in $SLOWS; do
	case $k in 10 | 2) ;; *)
		echo "gate-power: SLOWS=$SLOWS: want 10, 2 or both" >&2
		exit 2
		;;
	esac
done
if ! [[ $THRESHOLD =~ ^[0-9]+(\.[0-9]+)?%$ ]]; then
	echo "gate-power: THRESHOLD=$THRESHOLD: want a percentage such as 5%" >&2
	exit 2
fi
if ! [[ $BENCHTIME =~ ^[1-9][0-9]*x$ ]]; then
	echo "gate-power: BENCHTIME=$BENCHTIME: want a fixed op count Nx (instruction mode needs one)" >&2
	exit 2
fi
if [ "$COUNT" -lt 2 ]; then
	echo "gate-power: COUNT=$COUNT: want 2 or more" >&2
	exit 2
fi
for tool in git go jq; do
	command -v "$tool" >/dev/null || {
		echo "gate-power: $tool not found" >&2
		exit 2
	}
done
modes=(wall)
if [ "$instr" = 1 ]; then
	if command -v valgrind >/dev/null; then
		modes+=(instructions)
	else
		echo "gate-power: -instr: valgrind not found, instruction mode skipped" >&2
	fi
fi
case ${MODES:-} in
"") ;;
instructions)
	if [ "$instr" != 1 ] || [ "${#modes[@]}" != 2 ]; then
		echo "gate-power: MODES=instructions needs -instr and valgrind" >&2
		exit 2
	fi
	modes=(instructions)
	;;
*)
	echo "gate-power: MODES=$MODES: want instructions (or unset: every mode)" >&2
	exit 2
	;;
esac

# shellcheck source=scripts/lib.sh
. scripts/lib.sh

nslows=$(wc -w <<<"$SLOWS")
trials=$((AA + nslows * SLOW))
est=0
for m in "${modes[@]}"; do
	if [ "$m" = wall ]; then est=$((est + trials * SEC_WALL)); else est=$((est + trials * SEC_INSTR)); fi
done
echo "gate-power: ${#modes[@]} mode(s) (${modes[*]}) x $trials trials ($AA A/A, $SLOW at each of SLOWS=$SLOWS %), COUNT=$COUNT BENCHTIME=$BENCHTIME BUSY=$BUSY:" \
	"about $(((est + 59) / 60)) min (SEC_WALL=${SEC_WALL}s, SEC_INSTR=${SEC_INSTR}s a trial), plus up to ${QUIET_MAX}s waiting for a quiet machine" >&2

mkdir -p "$out/reports"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
machine_state
trap 'stop_hogs; rm -f "$state"; rm -rf "$work"' EXIT

go build -o "$work/benchgate" ./cmd/benchgate

# The throwaway repository: its commits differ only in spins (and a comment).
repo=$work/repo
mkdir -p "$repo"
export GIT_AUTHOR_NAME="gate power" GIT_AUTHOR_EMAIL=gate@example.com GIT_COMMITTER_NAME="gate power" \
	GIT_COMMITTER_EMAIL=gate@example.com GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
g() { git -C "$repo" "$@"; }
work_go() { # SPINS COMMENT
	cat <<EOF
// Package work is gate-power's throwaway benchmark.$2
package work

// spins is the work of one op: a chain of dependent multiply-adds.
const spins = $1

// Work runs spins multiply-adds on x.
func Work(x uint64) uint64 {
	for range spins {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}
EOF
}
commit() {
	g add -A
	g commit -q -m "$1"
	g rev-parse HEAD
}
g init -q -b main
printf 'module example.com/gatepower\n\ngo 1.24\n' >"$repo/go.mod"
cat >"$repo/work_test.go" <<'EOF'
package work

import "testing"

var sink uint64

func BenchmarkWork(b *testing.B) {
	x := uint64(88172645463325252)
	for range b.N {
		x = Work(x)
	}
	sink = x
}
EOF
work_go "$SPINS" "" >"$repo/work.go"
base=$(commit base)
work_go "$SPINS" " A comment: no change." >"$repo/work.go"
same=$(commit "a comment, no change")
work_go "$((SPINS * 110 / 100))" "" >"$repo/work.go"
slow10=$(commit "10% more work")
work_go "$((SPINS * 102 / 100))" "" >"$repo/work.go"
slow2=$(commit "2% more work")

{
	header_start "scripts/gate-power.sh $([ "$instr" = 1 ] && echo "-instr ")OUT (AA=$AA SLOW=$SLOW COUNT=$COUNT BENCHTIME=$BENCHTIME SPINS=$SPINS BUSY=$BUSY THRESHOLD=$THRESHOLD SLOWS=$SLOWS)"
	wait_quiet "$QUIET_MAX"
	echo "busy loops: $BUSY"
} >"$out/header.txt"
if [ "$BUSY" -gt 0 ]; then start_hogs "$BUSY"; fi

# steal_ticks prints the total and steal ticks of /proc/stat's cpu line.
steal_ticks() { awk '/^cpu / {t = 0; for (i = 2; i <= NF; i++) t += $i; print t, $9; exit}' /proc/stat; }

# trial MODE KIND N HEAD: one benchgate run of base against HEAD, one TSV line.
trial() {
	local mode=$1 kind=$2 n=$3 head=$4 rc=0 name load t0 s0 t1 s1 start=$SECONDS unit=ns/op
	name=$mode-$kind-$n
	load=$(cut -d' ' -f1 /proc/loadavg)
	read -r t0 s0 <<<"$(steal_ticks)"
	local args=(run -base "$base" -head "$head" -pkgs . -bench '^BenchmarkWork$' -benchtime "$BENCHTIME"
		-measure "$mode" -profiles=false -q -json "$out/reports/$name.json")
	if [ "$mode" = wall ]; then
		args+=(-count "$COUNT" -threshold "$THRESHOLD")
	else
		unit=instructions/op
	fi
	(cd "$repo" && "$work/benchgate" "${args[@]}") >"$out/reports/$name.txt" 2>"$out/reports/$name.stderr" || rc=$?
	read -r t1 s1 <<<"$(steal_ticks)"
	local row='-	-	-	-	-'
	if [ -s "$out/reports/$name.json" ]; then
		row=$(jq -r --arg u "$unit" '[.rows[] | select(.benchmark | startswith("BenchmarkWork")) | select(.unit == $u)][0] // {} |
			[.verdict // "-", (if has("confirmed") and .confirmed != null then .confirmed else "-" end),
			 .change_pct // "-", .p // "-", .mde_pct // "-"] | map(tostring) | join("\t")' "$out/reports/$name.json")
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$kind" "$n" "$rc" "$row" "$load" \
		"$(awk -v d="$((t1 - t0))" -v s="$((s1 - s0))" 'BEGIN { printf "%.2f", (d > 0 ? 100 * s / d : 0) }')" \
		"$((SECONDS - start))" >>"$out/trials.tsv"
}

printf 'mode\tkind\ttrial\texit\tverdict\tconfirmed\tchange_pct\tp\tmde_pct\tload1\tsteal_pct\tseconds\n' >"$out/trials.tsv"
for mode in "${modes[@]}"; do
	for ((i = 1; i <= AA || i <= SLOW; i++)); do
		if [ "$i" -le "$AA" ]; then trial "$mode" aa "$i" "$same"; fi
		if [ "$i" -le "$SLOW" ]; then
			for k in $SLOWS; do
				if [ "$k" = 10 ]; then trial "$mode" slow10 "$i" "$slow10"; else trial "$mode" slow2 "$i" "$slow2"; fi
			done
		fi
		echo "gate-power: $mode: round $i done" >&2
	done
done
stop_hogs
header_end >>"$out/header.txt"

# The power table: exit 1 is a failed gate (a confirmed regression), 3 noisy, 2 an error.
{
	echo "# Gate power: a held-out benchmark, A/A, 10% and 2% slowdowns"
	echo
	echo '```'
	cat "$out/header.txt"
	echo '```'
	echo
	echo "| mode | A/A false alarms (exit 1) | A/A noisy (exit 3) | detected at 10% | detected at 2% | errors (exit 2) | median MDE | load1 (median) | steal % (median) |"
	echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|"
	awk -F'\t' 'NR > 1 {
		m = $1; modes[m] = 1; n[m, $2]++
		if ($4 == 1) fail[m, $2]++
		if ($4 == 3 && $2 == "aa") noisy[m]++
		if ($4 == 2) err[m]++
		if ($9 != "-" && $9 != "null") mde[m, ++nm[m]] = $9
		load[m, ++nl[m]] = $10; steal[m, nl[m]] = $11
	}
	function med(a, m, k,    i, j, v, t) {
		if (k == 0) return "-"
		for (i = 1; i <= k; i++) v[i] = a[m, i] + 0
		for (i = 2; i <= k; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
		return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
	}
	function rate(m, k) { return sprintf("%d/%d", fail[m, k] + 0, n[m, k] + 0) }
	END {
		for (m in modes) {
			md = med(mde, m, nm[m])
			printf "| %s | %s | %d/%d | %s | %s | %d | %s | %s | %s |\n", m, rate(m, "aa"), noisy[m] + 0, n[m, "aa"] + 0,
				rate(m, "slow10"), rate(m, "slow2"), err[m] + 0, md == "-" ? md : sprintf("%.2f%%", md), med(load, m, nl[m]), med(steal, m, nl[m])
		}
	}' "$out/trials.tsv"
	echo
	echo "A trial is \`benchgate run -base BASE -head HEAD -pkgs . -bench '^BenchmarkWork\$' -benchtime $BENCHTIME\`"
	echo "(wall: -count $COUNT -threshold $THRESHOLD; instructions: -measure instructions, its default rounds and units' thresholds), with the confirming"
	echo "rerun on. The MDE is the slowed row's (ns/op or instructions/op): the smallest change the run could catch."
	echo "Per trial: trials.tsv; reports/ holds each report."
} >"$out/power.md"
echo "gate-power: wrote $out/power.md and $out/trials.tsv" >&2
