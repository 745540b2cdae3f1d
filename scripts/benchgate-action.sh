#!/usr/bin/env bash
# scripts/benchgate-action.sh: benchgate on the caller's own benchmarks, for CI. The
# composite GitHub Action (action.yml at the repository root) and the GitLab CI template
# (ci/gitlab/benchgate.gitlab-ci.yml) call it; it runs as well by hand in any git
# checkout of a Go module. It runs `benchgate run` (interleaved base/head rounds,
# Mann-Whitney U and a threshold: see package benchgate), writes the Markdown report to
# $GITHUB_STEP_SUMMARY when that is set, optionally comments it on the pull request, and
# exits 0 pass, 1 regression (unless BENCHGATE_FAIL_ON_REGRESSION=false), 2 error (bad
# input, a failed build or run, a benchmark missing from a side or short of rounds), 3
# too noisy to judge (a row's minimum detectable effect exceeds its threshold, none regressed; unless
# BENCHGATE_FAIL_ON_NOISY=false).
#
#   benchgate-action.sh gate      build benchgate, run the gate, write the report; never
#                                 reads or passes on a token (BENCHGATE_GITHUB_TOKEN,
#                                 GH_TOKEN and GITHUB_TOKEN are unset first)
#   benchgate-action.sh comment   post BENCHGATE_OUT's report on the pull request; runs
#                                 no benchmark; a failure to comment is a warning (exit 0)
#   benchgate-action.sh [all]     both, in one process (by hand, GitLab): the token is
#                                 kept unexported while the gate runs, but it is in this
#                                 process's initial environment, which code running as the
#                                 same user can read (/proc/PID/environ); to keep a token
#                                 from the code under test, run the phases as two
#                                 processes, as action.yml does (two steps)
#
# Secrets: benchgate itself starts every benchmark, go and git command without the
# variables of its SecretEnv registry (GITHUB_TOKEN, GH_TOKEN, CI_JOB_TOKEN, the DSNs,
# *_TOKEN, *_SECRET, *PASSWORD*, ...; benchgate run -env-drop names more).
#
# Limits: a job summary (GitHub's limit is 1 MiB a step) and a comment (65536 characters)
# are cut at a line, with a note saying so and where the full report (summary.md in the
# out folder) is, when the report is over BENCHGATE_SUMMARY_MAX_BYTES (default 1000000)
# or BENCHGATE_COMMENT_MAX_BYTES (default 60000).
#
# Environment (all optional; the action sets them from its inputs):
#   BENCHGATE_WORKDIR=dir        the module's checkout to gate (default .)
#   BENCHGATE_PACKAGES=p1,p2     package patterns (default ./...)
#   BENCHGATE_BENCH=re           benchmark regexp for those packages (default .)
#   BENCHGATE_TARGETS_FILE=file  instead of the two above: one benchgate -target per line,
#                                'PKG:REGEXP[@BENCHTIME] [K=V ...]' (# comments, blank lines
#                                skipped); relative to BENCHGATE_WORKDIR
#   BENCHGATE_COUNT=n            rounds (default 10)
#   BENCHGATE_THRESHOLD=t        smallest relative change that counts (default 10%)
#   BENCHGATE_BENCHTIME=t        -benchtime per run (default the testing package's 1s;
#                                a fixed op count such as 20000x compares equal work)
#   BENCHGATE_MODE=wall|instructions  wall (default) measures time. instructions passes
#                                `-measure instructions`: per-op instruction and cache-miss
#                                counts under callgrind (the runner needs valgrind; a
#                                fixed op count BENCHGATE_BENCHTIME=Nx; count 5 suffices).
#   BENCHGATE_BASE=rev           base revision (default auto: the merge base with the
#                                default branch, or HEAD~1 on it; needs the full history)
#   BENCHGATE_UNITS=file         `Unit NAME better=...` lines for custom units (benchgate -units)
#   BENCHGATE_ARGS="..."         more benchgate run flags, split on white space
#   BENCHGATE_OUT=dir            where base.txt, head.txt, profiles/, benchgate.log and
#                                summary.md go (default a new temporary directory, kept)
#   BENCHGATE_BIN=path           a benchgate binary to use as it is
#   BENCHGATE_VERSION=vX.Y.Z     else `go install github.com/writegc/writegc/cmd/benchgate@vX.Y.Z`
#   BENCHGATE_SRC=dir            else build ./cmd/benchgate from this writegc checkout
#                                (default: the one holding this script; no module fetch of
#                                benchgate itself)
#   BENCHGATE_FAIL_ON_REGRESSION=true|false  false: a regression is reported, exit 0
#   BENCHGATE_FAIL_ON_NOISY=true|false  false: a run too noisy to judge is reported
#                                (a warning), exit 0
#   BENCHGATE_GITHUB_TOKEN=tok   comment the report on the pull request with `gh pr comment`
#                                (comment and all phases only)
#   BENCHGATE_PR_NUMBER=n        that pull request, a number (default: from GITHUB_REF
#                                refs/pull/N/...)
#   BENCHGATE_COMMENT_ON=always|regression  when to comment (default always)
#   BENCHGATE_RESULT=r           comment phase: the gate's result (default: BENCHGATE_OUT/result)
#   BENCHGATE_SUMMARY_MAX_BYTES, BENCHGATE_COMMENT_MAX_BYTES  see Limits
#   No input may hold a control character (a newline, a tab, ...; BENCHGATE_ARGS may hold
#   line breaks and tabs, read as blanks): exit 2 naming it. benchgate itself refuses a
#   package or revision that starts with '-' and control characters in its flags.
#   GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, GITHUB_REPOSITORY  as GitHub Actions sets them;
#                                outputs written: result (pass, regression or error),
#                                summary (the report file) and out (BENCHGATE_OUT).
set -uo pipefail

die() {
	echo "benchgate-action: $*" >&2
	exit 2
}

phase=${1:-all}
case $phase in gate | comment | all) ;; *) die "phase $phase: want gate, comment or all" ;; esac
(($# <= 1)) || die "want one argument, the phase (gate, comment or all)"

# The token: read by the comment phase only, never exported to a child of the gate.
token=
[[ $phase != gate ]] && token=${BENCHGATE_GITHUB_TOKEN:-}
unset BENCHGATE_GITHUB_TOKEN GH_TOKEN GITHUB_TOKEN

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=${BENCHGATE_SRC:-$(dirname "$here")}
workdir=${BENCHGATE_WORKDIR:-.}
packages=${BENCHGATE_PACKAGES:-./...}
bench=${BENCHGATE_BENCH:-.}
targets_file=${BENCHGATE_TARGETS_FILE:-}
count=${BENCHGATE_COUNT:-10}
threshold=${BENCHGATE_THRESHOLD:-10%}
benchtime=${BENCHGATE_BENCHTIME:-}
mode=${BENCHGATE_MODE:-wall}
base=${BENCHGATE_BASE:-auto}
units=${BENCHGATE_UNITS:-}
extra=${BENCHGATE_ARGS:-}
out=${BENCHGATE_OUT:-}
version=${BENCHGATE_VERSION:-}
fail_on_regression=${BENCHGATE_FAIL_ON_REGRESSION:-true}
fail_on_noisy=${BENCHGATE_FAIL_ON_NOISY:-true}
comment_on=${BENCHGATE_COMMENT_ON:-always}
summary_max=${BENCHGATE_SUMMARY_MAX_BYTES:-1000000}
comment_max=${BENCHGATE_COMMENT_MAX_BYTES:-60000}

# no_control refuses an input holding a control character: a newline would be a line of
# its own in GITHUB_OUTPUT or in benchgate's base.txt and head.txt. The value is shown
# quoted (printf %q), so the message stays one line.
no_control() {
	[[ $2 != *[[:cntrl:]]* ]] || die "$1=$(printf '%q' "$2"): holds a control character (newline, tab, ...)"
}
# BENCHGATE_ARGS is split on white space, line breaks and tabs included (a YAML block).
extra=${extra//[$'\n\r\t']/ }
no_control BENCHGATE_ARGS "$extra"
for v in BENCHGATE_WORKDIR BENCHGATE_PACKAGES BENCHGATE_BENCH BENCHGATE_TARGETS_FILE BENCHGATE_COUNT \
	BENCHGATE_THRESHOLD BENCHGATE_BENCHTIME BENCHGATE_MODE BENCHGATE_BASE BENCHGATE_UNITS BENCHGATE_OUT \
	BENCHGATE_BIN BENCHGATE_VERSION BENCHGATE_SRC BENCHGATE_FAIL_ON_REGRESSION BENCHGATE_FAIL_ON_NOISY \
	BENCHGATE_COMMENT_ON BENCHGATE_PR_NUMBER BENCHGATE_RESULT BENCHGATE_SUMMARY_MAX_BYTES \
	BENCHGATE_COMMENT_MAX_BYTES; do
	no_control "$v" "${!v:-}"
done
pr=${BENCHGATE_PR_NUMBER:-}
[[ -z $pr || $pr =~ ^[1-9][0-9]*$ ]] || die "BENCHGATE_PR_NUMBER=$(printf '%q' "$pr"): want a pull request number"
case $mode in wall | instructions) ;; *) die "BENCHGATE_MODE=$mode: want wall or instructions" ;; esac
case $fail_on_regression in true | false) ;; *) die "BENCHGATE_FAIL_ON_REGRESSION=$fail_on_regression: want true or false" ;; esac
case $fail_on_noisy in true | false) ;; *) die "BENCHGATE_FAIL_ON_NOISY=$fail_on_noisy: want true or false" ;; esac
case $comment_on in always | regression) ;; *) die "BENCHGATE_COMMENT_ON=$comment_on: want always or regression" ;; esac
[[ $count =~ ^[1-9][0-9]*$ ]] || die "BENCHGATE_COUNT=$count: want a positive whole number"
[[ $summary_max =~ ^[1-9][0-9]{4,}$ ]] || die "BENCHGATE_SUMMARY_MAX_BYTES=$summary_max: want 10000 or more"
[[ $comment_max =~ ^[1-9][0-9]{4,}$ ]] || die "BENCHGATE_COMMENT_MAX_BYTES=$comment_max: want 10000 or more"
if [[ $phase != comment ]]; then
	[[ -d $workdir ]] || die "BENCHGATE_WORKDIR=$workdir: not a directory"
	command -v go >/dev/null || die "go is not on PATH (actions/setup-go, or an image with Go)"
fi

if [[ -z $out ]]; then
	[[ $phase == comment ]] && die "the comment phase needs BENCHGATE_OUT (the gate phase's out folder)"
	out=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/benchgate.XXXXXX") || die "cannot make a temporary directory"
fi
mkdir -p "$out" || die "BENCHGATE_OUT=$out: cannot create it"
out=$(cd "$out" && pwd)
no_control BENCHGATE_OUT "$out"
summary=$out/summary.md

# resolve_bin sets bin: BENCHGATE_BIN, else a go install of BENCHGATE_VERSION, else a
# build from BENCHGATE_SRC. The build ignores the caller's GOFLAGS and go.work, which
# describe the caller's module, not writegc's.
resolve_bin() {
	if [[ -n ${BENCHGATE_BIN:-} ]]; then
		bin=$BENCHGATE_BIN
		[[ $bin == /* ]] || bin=$PWD/$bin
		[[ -x $bin ]] || die "BENCHGATE_BIN=$BENCHGATE_BIN: not an executable file"
		return
	fi
	mkdir -p "$out/bin" || die "cannot create $out/bin"
	bin=$out/bin/benchgate
	if [[ -n $version ]]; then
		echo "benchgate-action: go install github.com/writegc/writegc/cmd/benchgate@$version" >&2
		GOBIN=$out/bin GOFLAGS= GOWORK=off go install "github.com/writegc/writegc/cmd/benchgate@$version" ||
			die "go install of benchgate@$version failed"
	else
		[[ -f $src/cmd/benchgate/main.go ]] || die "BENCHGATE_SRC=$src: not a writegc checkout (no cmd/benchgate)"
		echo "benchgate-action: building benchgate from $src" >&2
		(cd "$src" && GOFLAGS= GOWORK=off go build -o "$bin" ./cmd/benchgate) || die "building benchgate from $src failed"
	fi
}

# gate_args sets args, benchgate run's arguments, from the inputs.
gate_args() {
	args=(run -base "$base" -count "$count" -threshold "$threshold" -out "$out" -markdown "$md")
	if [[ -n $targets_file ]]; then
		[[ -f $targets_file ]] || die "BENCHGATE_TARGETS_FILE=$targets_file: no such file"
		local n=0 line
		while IFS= read -r line || [[ -n $line ]]; do
			line=${line%$'\r'}
			line=${line%%#*}
			[[ $line =~ [^[:space:]] ]] || continue
			args+=(-target "$line")
			n=$((n + 1))
		done <"$targets_file"
		((n > 0)) || die "BENCHGATE_TARGETS_FILE=$targets_file: no targets in it"
	else
		args+=(-pkgs "$packages" -bench "$bench")
	fi
	[[ -n $benchtime ]] && args+=(-benchtime "$benchtime")
	[[ $mode == instructions ]] && args+=(-measure instructions)
	[[ -n $units ]] && args+=(-units "$units")
	if [[ -n $extra ]]; then
		local more
		read -r -a more <<<"$extra"
		args+=("${more[@]}")
	fi
}

# fence prints a Markdown code fence longer than any run of backticks in file (at
# least three), so that nothing in the file can close it.
fence() {
	local longest
	longest=$(LC_ALL=C grep -o '``*' "$1" 2>/dev/null | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
	local n=$((longest >= 3 ? longest + 1 : 3))
	printf '%*s' "$n" '' | tr ' ' '`'
}

# cut_report prints file as it is when it holds at most limit bytes; else its first
# whole lines that leave room for a note (a code fence they leave open is closed),
# then the note: that it was cut, where, and where the full report is.
cut_report() {
	local file=$1 limit=$2 where=$3 size total
	size=$(wc -c <"$file")
	if ((size <= limit)); then
		cat "$file"
		return
	fi
	total=$(wc -l <"$file")
	LC_ALL=C awk -v max=$((limit - 2048)) -v size="$size" -v limit="$limit" -v total="$total" -v where="$where" '
		!done && used + length($0) + 1 > max { done = 1 }
		!done {
			print
			used += length($0) + 1
			kept++
			if (match($0, /^```+/)) {
				run = substr($0, 1, RLENGTH)
				if (open == "") open = run
				else if (length(run) >= length(open) && substr($0, RLENGTH + 1) ~ /^[ \t]*$/) open = ""
			}
		}
		END {
			if (open != "") print open
			printf "\n**Report truncated** after line %d of %d (%d bytes; the limit here is %d): the full report is %s.\n", kept, total, size, limit, where
		}' "$file"
}

# gate runs benchgate and writes the report: summary.md, result, the job summary and
# the step outputs. It sets result.
gate() {
	resolve_bin
	cd "$workdir" || die "cannot enter $workdir"
	md=$out/report.md
	rm -f "$md" "$out/result"
	gate_args
	echo "benchgate-action: benchgate ${args[*]}" >&2
	"$bin" "${args[@]}" 2>&1 | tee "$out/benchgate.log"
	local rc=${PIPESTATUS[0]} title
	case $rc in
	0) result=pass title="benchgate: no regression" ;;
	1) result=regression title="benchgate: regression" ;;
	3) result=noisy title="benchgate: too noisy to judge" ;;
	*) result=error title="benchgate: error (exit $rc)" ;;
	esac
	# The summary: the Markdown report, or, when benchgate wrote none (an error before
	# the comparison), the end of its output in a fence nothing in it can close.
	{
		echo "## $title"
		echo
		if [[ -s $md ]]; then
			cat "$md"
		else
			tail -n 40 "$out/benchgate.log" >"$out/log-tail.txt"
			local f
			f=$(fence "$out/log-tail.txt")
			echo "$f"
			cat "$out/log-tail.txt"
			echo "$f"
			rm -f "$out/log-tail.txt"
		fi
	} >"$summary" || die "cannot write $summary"
	echo "$result" >"$out/result" || die "cannot write $out/result"
	if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
		cut_report "$summary" "$summary_max" "summary.md in the out folder ($out; keep it with actions/upload-artifact)" \
			>>"$GITHUB_STEP_SUMMARY" || die "cannot append to GITHUB_STEP_SUMMARY ($GITHUB_STEP_SUMMARY)"
	fi
	if [[ -n ${GITHUB_OUTPUT:-} ]]; then
		printf 'result=%s\nsummary=%s\nout=%s\n' "$result" "$summary" "$out" >>"$GITHUB_OUTPUT" ||
			die "cannot append to GITHUB_OUTPUT ($GITHUB_OUTPUT)"
	fi
}

# comment posts the summary on the pull request when a token was given and
# BENCHGATE_COMMENT_ON says so; a failure to comment is a warning, never the gate's
# verdict.
comment() {
	[[ -n $token ]] || return 0
	[[ $comment_on == always || $result == regression || $result == noisy ]] || return 0
	if [[ -z $pr && ${GITHUB_REF:-} =~ ^refs/pull/([0-9]+)/ ]]; then
		pr=${BASH_REMATCH[1]}
	fi
	if [[ -z $pr ]]; then
		echo "benchgate-action: not a pull request: no comment" >&2
		return 0
	fi
	if ! command -v gh >/dev/null; then
		echo "benchgate-action: warning: gh is not on PATH: no comment" >&2
		return 0
	fi
	if [[ ! -f $summary ]]; then
		echo "benchgate-action: warning: no report at $summary: no comment" >&2
		return 0
	fi
	local where="in the job summary and in summary.md of the run's benchgate artifact"
	if [[ -n ${GITHUB_SERVER_URL:-} && -n ${GITHUB_REPOSITORY:-} && -n ${GITHUB_RUN_ID:-} ]]; then
		where="in the job summary of $GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID (and summary.md of its artifact)"
	fi
	local body=$out/comment.md
	cut_report "$summary" "$comment_max" "$where" >"$body" || return 0
	local repo=()
	[[ -n ${GITHUB_REPOSITORY:-} ]] && repo=(--repo "$GITHUB_REPOSITORY")
	GH_TOKEN=$token gh pr comment "$pr" "${repo[@]}" --body-file "$body" ||
		echo "benchgate-action: warning: gh pr comment $pr failed (the token needs pull-requests: write)" >&2
	return 0
}

# verdict prints the outcome and exits with the gate's status.
verdict() {
	echo "benchgate-action: $result; report $summary" >&2
	case $result in
	pass) exit 0 ;;
	regression)
		[[ ${GITHUB_ACTIONS:-} == true ]] && echo "::error title=benchgate::a benchmark regressed (see the job summary)"
		[[ $fail_on_regression == true ]] && exit 1
		echo "benchgate-action: fail-on-regression is false: exit 0" >&2
		exit 0
		;;
	noisy)
		[[ ${GITHUB_ACTIONS:-} == true ]] && echo "::warning title=benchgate::too noisy to judge (see the mde column in the job summary)"
		[[ $fail_on_noisy == true ]] && exit 3
		echo "benchgate-action: fail-on-noisy is false: exit 0" >&2
		exit 0
		;;
	*) exit 2 ;;
	esac
}

case $phase in
gate)
	gate
	verdict
	;;
comment)
	result=${BENCHGATE_RESULT:-}
	[[ -z $result && -f $out/result ]] && result=$(head -c 20 "$out/result")
	case $result in pass | regression | noisy | error) ;; *) result=error ;; esac
	comment
	exit 0
	;;
all)
	gate
	comment
	verdict
	;;
esac
