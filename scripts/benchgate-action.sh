#!/usr/bin/env bash
# scripts/benchgate-action.sh: benchgate on the caller's own benchmarks, for CI. The
# composite GitHub Action (action.yml at the repository root) and the GitLab CI template
# (ci/gitlab/benchgate.gitlab-ci.yml) call it; it runs as well by hand in any git
# checkout of a Go module. It runs `benchgate run` (interleaved base/head rounds,
# Mann-Whitney U and a threshold: see package benchgate), writes the Markdown report to
# $GITHUB_STEP_SUMMARY when that is set, optionally comments it on the pull request, and
# exits 0 pass, 1 regression (unless BENCHGATE_FAIL_ON_REGRESSION=false), 2 error (bad
# input, a failed build or run, a benchmark missing from the head).
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
#   BENCHGATE_GITHUB_TOKEN=tok   comment the report on the pull request with `gh pr comment`
#   BENCHGATE_PR_NUMBER=n        that pull request (default: from GITHUB_REF refs/pull/N/...)
#   BENCHGATE_COMMENT_ON=always|regression  when to comment (default always)
#   GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, GITHUB_REPOSITORY  as GitHub Actions sets them;
#                                outputs written: result (pass, regression or error),
#                                summary (the report file) and out (BENCHGATE_OUT).
set -uo pipefail

die() {
	echo "benchgate-action: $*" >&2
	exit 2
}

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
token=${BENCHGATE_GITHUB_TOKEN:-}
comment_on=${BENCHGATE_COMMENT_ON:-always}

case $mode in wall | instructions) ;; *) die "BENCHGATE_MODE=$mode: want wall or instructions" ;; esac
case $fail_on_regression in true | false) ;; *) die "BENCHGATE_FAIL_ON_REGRESSION=$fail_on_regression: want true or false" ;; esac
case $comment_on in always | regression) ;; *) die "BENCHGATE_COMMENT_ON=$comment_on: want always or regression" ;; esac
[[ $count =~ ^[1-9][0-9]*$ ]] || die "BENCHGATE_COUNT=$count: want a positive whole number"
[[ -d $workdir ]] || die "BENCHGATE_WORKDIR=$workdir: not a directory"
command -v go >/dev/null || die "go is not on PATH (actions/setup-go, or an image with Go)"

if [[ -z $out ]]; then
	out=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/benchgate.XXXXXX") || die "cannot make a temporary directory"
fi
mkdir -p "$out" || die "BENCHGATE_OUT=$out: cannot create it"
out=$(cd "$out" && pwd)

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
resolve_bin
cd "$workdir" || die "cannot enter $workdir"

md=$out/report.md
rm -f "$md"
args=(run -base "$base" -count "$count" -threshold "$threshold" -out "$out" -markdown "$md")
if [[ -n $targets_file ]]; then
	[[ -f $targets_file ]] || die "BENCHGATE_TARGETS_FILE=$targets_file: no such file"
	n=0
	while IFS= read -r line || [[ -n $line ]]; do
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
	read -r -a more <<<"$extra"
	args+=("${more[@]}")
fi

echo "benchgate-action: benchgate ${args[*]}" >&2
"$bin" "${args[@]}" 2>&1 | tee "$out/benchgate.log"
rc=${PIPESTATUS[0]}

case $rc in
0) result=pass title="benchgate: no regression" ;;
1) result=regression title="benchgate: regression" ;;
*) result=error title="benchgate: error (exit $rc)" ;;
esac

# The summary: the Markdown report, or, when benchgate wrote none (an error before the
# comparison), the end of its output.
summary=$out/summary.md
{
	echo "## $title"
	echo
	if [[ -s $md ]]; then
		cat "$md"
	else
		echo '```'
		tail -n 40 "$out/benchgate.log"
		echo '```'
	fi
} >"$summary" || die "cannot write $summary"
if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
	cat "$summary" >>"$GITHUB_STEP_SUMMARY" || die "cannot append to GITHUB_STEP_SUMMARY ($GITHUB_STEP_SUMMARY)"
fi
if [[ -n ${GITHUB_OUTPUT:-} ]]; then
	printf 'result=%s\nsummary=%s\nout=%s\n' "$result" "$summary" "$out" >>"$GITHUB_OUTPUT" ||
		die "cannot append to GITHUB_OUTPUT ($GITHUB_OUTPUT)"
fi

# comment posts the summary on the pull request; a failure to comment is a warning,
# never the gate's verdict.
comment() {
	local pr=${BENCHGATE_PR_NUMBER:-}
	if [[ -z $pr && ${GITHUB_REF:-} =~ ^refs/pull/([0-9]+)/ ]]; then
		pr=${BASH_REMATCH[1]}
	fi
	if [[ -z $pr ]]; then
		echo "benchgate-action: not a pull request: no comment" >&2
		return
	fi
	if ! command -v gh >/dev/null; then
		echo "benchgate-action: warning: gh is not on PATH: no comment" >&2
		return
	fi
	local body=$out/comment.md
	head -c 60000 "$summary" >"$body" || return
	local repo=()
	[[ -n ${GITHUB_REPOSITORY:-} ]] && repo=(--repo "$GITHUB_REPOSITORY")
	GH_TOKEN=$token gh pr comment "$pr" "${repo[@]}" --body-file "$body" ||
		echo "benchgate-action: warning: gh pr comment $pr failed (the token needs pull-requests: write)" >&2
}
if [[ -n $token ]] && [[ $comment_on == always || $result == regression ]]; then
	comment
fi

echo "benchgate-action: $result; report $summary" >&2
case $result in
pass) exit 0 ;;
regression)
	[[ ${GITHUB_ACTIONS:-} == true ]] && echo "::error title=benchgate::a benchmark regressed (see the job summary)"
	[[ $fail_on_regression == true ]] && exit 1
	echo "benchgate-action: fail-on-regression is false: exit 0" >&2
	exit 0
	;;
*) exit 2 ;;
esac
