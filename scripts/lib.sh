# shellcheck shell=bash
# lib.sh: shell helpers the results scripts share. Source it from bash, after
# cd to the repository root:
#
#   . scripts/lib.sh
#
# Busy loops (machine load on purpose, for "does the verdict move with the
# load" runs):
#   start_hogs [N]   starts N busy loops (default 2), then waits a second for
#                    them to spin up; their pids go to the array hogs
#   stop_hogs        kills the loops start_hogs started and empties hogs
# A script that starts hogs must stop them on every exit:
#   trap 'stop_hogs' EXIT
#
# Old/new interleave (the same measurement of two builds, round by round, so
# that drift over a run falls on both sides alike):
#   alternate ROUND OLD NEW   runs the command OLD then NEW in odd rounds and
#                             NEW then OLD in even ones (OLD and NEW are
#                             command names, usually small functions)
# scripts/old-new builds the two benches binaries such a loop runs.
#
# Machine headers (scripts/machine-header, which keeps its start in a state
# file for the end to compare against):
#   machine_state        sets state to a new state file, removed on exit
#                        (when hogs are stopped too)
#   header_start LINE    the header's start lines, "command: LINE" and a
#                        blank line
#   header_end           a blank line and the header's end lines
#   env_header LINE      "command: LINE", the header's start lines, the go
#                        experiment and GOGC: a seedrun folder's env.txt
#
# Benchmark output files (go test -bench output for benchstat, after state
# is set: by machine_state or by the script):
#   bench_binaries       builds the benches suite's and the peers module's test
#                        binaries: /tmp/writegc-benches.test, /tmp/writegc-peers.test
#   bench_start FILE...  writes the header's start lines to the first FILE
#                        and copies them to the others
#   bench_end FILE...    appends the header's end lines and scripts/units.txt's
#                        Unit lines (benchstat's better-direction metadata) to
#                        each FILE
#
# A quiet start (the measuring rule: a run that goes into results/ starts at a
# load below 0.5):
#   wait_quiet [MAX]     waits until the 1-minute load average is below 0.5,
#                        at most MAX seconds (default 300), and prints one line
#                        "quiet wait: Ns, load L" (or "... still L after MAXs")
#                        for the run's header; a series' later runs would
#                        otherwise start on the load the earlier ones left
#
# One results-folder run (gcstress or gcstress-peers, after machine_state):
#   out_run NAME LABEL CMD ARGS...
#                        runs CMD ARGS -out $R/NAME -replace-out, its progress
#                        in $R/NAME.progress.txt, and writes $R/NAME.txt: the
#                        header's start lines, $run_note if set (one line),
#                        "command: LABEL ARGS -out R/NAME -replace-out" (R
#                        relative to the working folder), what CMD printed,
#                        "exit: N" if it failed, the header's end lines; then
#                        gzips $R/NAME/samples.jsonl and summary.json, as
#                        results/ keeps them (read a summary with
#                        summary_json DIR). EXTRA_HEADER (a command)
#                        adds header lines. Returns CMD's status.

# gcstress runs (a results script's run of a gcstress binary into a folder,
# beside one busy loop when the run's name ends in -busy):
#   gcstress_run BIN DIR NAME ARGS...   runs BIN ARGS... -out DIR/NAME
#                    -replace-out; DIR/NAME.txt gets the machine header (state
#                    from machine_state), the busy loop if any, the command,
#                    what gcstress printed and the header's end;
#                    DIR/NAME.progress.txt its stderr; samples.jsonl is
#                    gzipped (out_run with R=DIR); a failed run is recorded
#                    in DIR/NAME.txt and the caller goes on.

hogs=()

start_hogs() {
	local i
	for ((i = 0; i < ${1:-2}; i++)); do
		(while :; do :; done) &
		hogs+=($!)
	done
	sleep 1
}

stop_hogs() {
	local p
	for p in "${hogs[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	hogs=()
}

alternate() {
	if [ $(($1 % 2)) = 1 ]; then
		"$2"
		"$3"
	else
		"$3"
		"$2"
	fi
}

machine_state() {
	state=$(mktemp)
	trap 'stop_hogs; rm -f "$state"' EXIT
}

header_start() {
	scripts/machine-header start "$state"
	echo "command: $1"
	echo
}

header_end() {
	echo
	scripts/machine-header end "$state"
}

env_header() {
	echo "command: $1"
	scripts/machine-header start "$state"
	echo "goexperiment: $(go env GOEXPERIMENT | sed "s/^$/default (Green Tea GC)/")"
	echo "gogc: ${GOGC:-100}"
}

out_run() {
	local name=$1 label=$2 cmd=$3 rc=0
	shift 3
	{
		scripts/machine-header start "$state"
		if [ -n "${EXTRA_HEADER:-}" ]; then $EXTRA_HEADER; fi
		if [ -n "${run_note:-}" ]; then echo "$run_note"; fi
		echo "command: $label $* -out ${R#"$PWD"/}/$name -replace-out"
		echo
		"$cmd" "$@" -out "$R/$name" -replace-out 2>"$R/$name.progress.txt" || rc=$?
		if [ "$rc" != 0 ]; then echo "exit: $rc"; fi
		header_end
	} >"$R/$name.txt"
	local f
	for f in samples.jsonl summary.json; do
		if [ -f "$R/$name/$f" ]; then gzip -f "$R/$name/$f"; fi
	done
	return "$rc"
}

# summary_json DIR prints DIR's summary, plain or gzipped (out_run keeps it gzipped).
summary_json() {
	if [ -f "$1/summary.json" ]; then cat "$1/summary.json"; else gzip -dc "$1/summary.json.gz"; fi
}

wait_quiet() {
	local max=${1:-300} start=$SECONDS load
	while :; do
		load=$(cut -d' ' -f1 /proc/loadavg)
		if awk -v l="$load" 'BEGIN { exit !(l < 0.5) }'; then
			echo "quiet wait: $((SECONDS - start))s, load $load"
			return 0
		fi
		if [ $((SECONDS - start)) -ge "$max" ]; then
			echo "quiet wait: load still $load after ${max}s"
			return 0
		fi
		sleep 5
	done
}

bench_binaries() {
	go test -c -o /tmp/writegc-benches.test ./benches
	(cd benches/peers && go test -c -o /tmp/writegc-peers.test .)
}

bench_start() {
	scripts/machine-header start "$state" >"$1"
	local f
	for f in "${@:2}"; do
		cp "$1" "$f"
	done
}

bench_end() {
	local f
	for f; do
		scripts/machine-header end "$state" >>"$f"
		grep "^Unit" scripts/units.txt >>"$f"
	done
}

gcstress_run() {
	local bin=$1 R=$2 name=$3 run_note="busy: none"
	shift 3
	case $name in *-busy)
		start_hogs 1
		run_note="busy: 1 loop (while :; do :; done) started before the run"
		;;
	esac
	out_run "$name" gcstress "$bin" "$@" || true
	stop_hogs
}
