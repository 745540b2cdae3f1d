package adopt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegc/writegc/internal/testkit"
)

// Hostile inputs through the action's script: no token reaches the code under test or any output, and the
// reports it writes stay well-formed whatever the benchmark prints.

// probeTest is a benchmark that dumps its environment three ways: on
// stdout, on stderr, and as the names of sub-benchmarks (which land in
// base.txt, head.txt, the report, the summary and the comment).
const probeTest = `package work

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func BenchmarkProbe(b *testing.B) {
	for _, kv := range os.Environ() {
		fmt.Println("env:", kv)
		fmt.Fprintln(os.Stderr, "env:", kv)
		b.Run(strings.NewReplacer(" ", "_", "/", "_").Replace(kv), func(b *testing.B) {
			for b.Loop() {
				sink++
			}
		})
	}
}
`

// fakeSecrets are what the probe must never see: the action's token, the
// names GitHub and GitLab use, one only the registry's glob catches
// (MY_SERVICE_TOKEN) and one only -env-drop names (CUSTOM_CRED).
var fakeSecrets = map[string]string{
	"BENCHGATE_GITHUB_TOKEN": "fake_action_token_a1",
	"GITHUB_TOKEN":           "fake_github_token_b2",
	"GH_TOKEN":               "fake_gh_token_c3",
	"CI_JOB_TOKEN":           "fake_ci_job_token_d4",
	"MY_SERVICE_TOKEN":       "fake_service_token_e5",
	"CUSTOM_CRED":            "fake_custom_cred_f6",
	"HISTORY_DSN":            "postgres://u:fake_dsn_g7@h/db",
}

// noSecrets fails t if any fake secret's value is in text; the gh stand-in's
// own record of the token it was given is left out by the caller.
func noSecrets(t *testing.T, where, text string) {
	t.Helper()
	for k, v := range fakeSecrets {
		if strings.Contains(text, v) {
			t.Errorf("%s holds %s's value", where, k)
		}
	}
}

// TestActionKeepsTokensFromTheBenchmarks runs a benchmark that dumps its
// environment through the action's script with fake secrets in the
// script's environment, twice: as action.yml does (a gate step, then a
// comment step that alone has the token) and as one process (by hand,
// GitLab). The probe ran (an ordinary variable is in head.txt), the
// comment was posted with the token, and no secret is in any file under
// the out folder, the script's output, the job summary, the step outputs or
// the body gh was given.
func TestActionKeepsTokensFromTheBenchmarks(t *testing.T) {
	needTools(t)
	if testing.Short() {
		t.Skip("builds benchgate and runs two gates")
	}
	dir := t.TempDir()
	g := func(args ...string) string { return run(t, dir, gitEnv, "git", args...) }
	for name, text := range map[string]string{"go.mod": goMod, "work.go": mixBase, "work_test.go": benchFile, "probe_test.go": probeTest} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g("init", "-q", "-b", "main")
	g("add", "-A")
	g("commit", "-q", "-m", "probe")
	bin := buildBenchgate(t)
	path, record := fakeGH(t)
	common := []string{"BENCHGATE_BIN=" + bin, "BENCHGATE_COUNT=1", "BENCHGATE_BENCHTIME=1x", "BENCHGATE_BASE=HEAD",
		"BENCHGATE_BENCH=^BenchmarkProbe$", "BENCHGATE_ARGS=-env-drop CUSTOM_CRED -profiles=false",
		"GITHUB_REF=refs/pull/7/merge", "GITHUB_REPOSITORY=o/r", "PROBE_VISIBLE=probe_ran_here", path}
	for k, v := range fakeSecrets {
		if k != "BENCHGATE_GITHUB_TOKEN" {
			common = append(common, k+"="+v)
		}
	}
	token := "BENCHGATE_GITHUB_TOKEN=" + fakeSecrets["BENCHGATE_GITHUB_TOKEN"]
	for _, mode := range []string{"two steps", "one process"} {
		t.Run(mode, func(t *testing.T) {
			os.Remove(record)
			out := filepath.Join(t.TempDir(), "out")
			env := append(append([]string{}, common...), "BENCHGATE_OUT="+out)
			var runs []outcome
			if mode == "two steps" {
				// The gate step gets no token in action.yml; given one anyway, it
				// must not pass it on.
				runs = append(runs, actionPhase(t, dir, []string{"gate"}, append(env, token)...))
				runs = append(runs, actionPhase(t, dir, []string{"comment"}, append(env, token, "BENCHGATE_RESULT=pass")...))
			} else {
				runs = append(runs, action(t, dir, append(env, token)...))
			}
			// One round is underpowered (exit 2, "too few samples"): what
			// matters is that the report was written and where the token went.
			if !strings.Contains(runs[0].summary, "BenchmarkProbe") {
				t.Fatalf("gate: exit %d and no report\n%s", runs[0].code, runs[0].log)
			}
			for i, o := range runs {
				noSecrets(t, mode+" run "+string(rune('1'+i))+" output", o.log)
				noSecrets(t, "job summary", o.summary)
				noSecrets(t, "step outputs", o.outputs)
			}
			files := testkit.Tree(t, out)
			for p, text := range files {
				if filepath.Base(filepath.Dir(p)) == "bin" {
					continue // the built benchgate, not a file the gate wrote
				}
				noSecrets(t, filepath.Join(out, p), text)
			}
			if head := files["head.txt"]; !strings.Contains(head, "PROBE_VISIBLE=probe_ran_here") {
				t.Errorf("head.txt lacks the probe's ordinary variable: the probe did not run\n%s", head)
			}
			gh, err := os.ReadFile(record)
			if err != nil {
				t.Fatalf("gh was not called: %v\n%s", err, runs[len(runs)-1].log)
			}
			first, body, _ := strings.Cut(string(gh), "\n")
			if !strings.HasPrefix(first, "token="+fakeSecrets["BENCHGATE_GITHUB_TOKEN"]+" args=pr comment 7") {
				t.Errorf("gh was not given the token: %s", first)
			}
			noSecrets(t, "the comment body", body)
			if !strings.Contains(body, "BenchmarkProbe") {
				t.Errorf("comment body lacks the report:\n%s", body)
			}
		})
	}
}

// fakeBenchgate writes a stand-in benchgate that runs body (with $md the
// -markdown file it was given) and exits code.
func fakeBenchgate(t *testing.T, body string, code int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "benchgate")
	script := "#!/bin/sh\nmd=\nwhile [ $# -gt 0 ]; do [ \"$1\" = -markdown ] && md=$2; shift; done\n" + body +
		"\nexit " + string(rune('0'+code)) + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// The script itself passes no token to benchgate (whatever benchgate then
// does): a stand-in that prints its environment shows none, in either
// phase that runs it.
func TestActionScriptExportsNoToken(t *testing.T) {
	needTools(t)
	fake := fakeBenchgate(t, "env", 0)
	for _, args := range [][]string{nil, {"gate"}, {"all"}} {
		env := []string{"BENCHGATE_BIN=" + fake, "BENCHGATE_OUT=" + filepath.Join(t.TempDir(), "out")}
		for k, v := range fakeSecrets {
			if strings.Contains(k, "GITHUB_TOKEN") || k == "GH_TOKEN" {
				env = append(env, k+"="+v)
			}
		}
		o := actionPhase(t, t.TempDir(), args, env...)
		if o.code != 0 || !strings.Contains(o.log, "BENCHGATE_BIN=") {
			t.Fatalf("%v: exit %d, want 0 with the environment printed\n%s", args, o.code, o.log)
		}
		noSecrets(t, strings.Join(args, " ")+" output", o.log)
	}
	for _, args := range [][]string{{"comment"}, {"deploy"}, {"gate", "extra"}} {
		if o := actionPhase(t, t.TempDir(), args, "BENCHGATE_BIN="+fake, "BENCHGATE_OUT="); o.code != 2 || !strings.Contains(o.log, "benchgate-action:") {
			t.Errorf("%v (comment without BENCHGATE_OUT, unknown phase, two arguments): exit %d, want 2\n%s", args, o.code, o.log)
		}
	}
}

// An error's log in the summary is fenced with more backticks than any
// run in it, so a benchmark printing ``` cannot end the code block.
func TestActionErrorFenceHoldsBackticks(t *testing.T) {
	needTools(t)
	fake := fakeBenchgate(t, "echo 'before'; echo '```'; echo '# not a heading'; echo 'x `````` y'; echo after", 2)
	o := action(t, t.TempDir(), "BENCHGATE_BIN="+fake)
	if o.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", o.code, o.log)
	}
	lines := strings.Split(o.summary, "\n")
	var fences []int
	for i, l := range lines {
		if strings.HasPrefix(l, "```") && strings.Trim(l, "`") == "" && len(l) > 3 {
			fences = append(fences, i)
		}
	}
	if len(fences) != 2 || lines[fences[0]] != "```````" || lines[fences[1]] != lines[fences[0]] {
		t.Fatalf("want the log between two fences of 7 backticks:\n%s", o.summary)
	}
	inside := strings.Join(lines[fences[0]:fences[1]], "\n")
	for _, want := range []string{"before", "# not a heading", "x `````` y", "after"} {
		if !strings.Contains(inside, want) {
			t.Errorf("%q is not inside the fence:\n%s", want, o.summary)
		}
	}
}

// A report past GitHub's limits is cut at a row, not inside one, with a
// note saying so and where the full report is: the job summary under
// 1 MiB, the comment under 65536 characters; summary.md stays whole.
func TestActionCutsLongReportsAtARow(t *testing.T) {
	needTools(t)
	rows := "awk 'BEGIN { print \"| benchmark | unit | base | head | change | verdict |\"; print \"|---|---|---|---|---|---|\";" +
		" for (i = 0; i < 20000; i++) printf \"| `BenchmarkRow%05d-2` | ns/op | 100 | 130 | +30%% | REGRESSED |\\n\", i }' >\"$md\""
	fake := fakeBenchgate(t, rows, 1)
	path, record := fakeGH(t)
	out := filepath.Join(t.TempDir(), "out")
	o := action(t, t.TempDir(), "BENCHGATE_BIN="+fake, "BENCHGATE_OUT="+out, "BENCHGATE_GITHUB_TOKEN=tok",
		"GITHUB_REF=refs/pull/3/merge", "GITHUB_SERVER_URL=https://github.com", "GITHUB_REPOSITORY=o/r", "GITHUB_RUN_ID=42", path)
	if o.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", o.code, o.log)
	}
	full, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil || len(full) < 1<<20 || !strings.Contains(string(full), "BenchmarkRow19999") {
		t.Fatalf("summary.md is not the whole report (%d bytes, %v)", len(full), err)
	}
	gh, err := os.ReadFile(record)
	if err != nil {
		t.Fatalf("no comment: %v", err)
	}
	_, body, _ := strings.Cut(string(gh), "\n")
	for _, c := range []struct {
		what, text, where string
		limit             int
	}{
		{"job summary", o.summary, "summary.md in the out folder", 1 << 20},
		{"comment", body, "https://github.com/o/r/actions/runs/42", 65536},
	} {
		if len(c.text) > c.limit {
			t.Errorf("%s: %d bytes, over %d", c.what, len(c.text), c.limit)
		}
		report, note, ok := strings.Cut(c.text, "\n**Report truncated** after line ")
		if !ok || !strings.Contains(note, c.where) || !strings.Contains(note, "of 20004") {
			t.Errorf("%s: no note naming the lines and %q:\n%.300s", c.what, c.where, note)
			continue
		}
		last := report[strings.LastIndexByte(strings.TrimRight(report, "\n"), '\n')+1:]
		if !strings.HasPrefix(last, "| `BenchmarkRow") || !strings.HasSuffix(strings.TrimRight(last, "\n"), "| REGRESSED |") {
			t.Errorf("%s: cut inside a row: last line %q", c.what, last)
		}
	}
}

// A report cut inside a code block gets the block closed before the note.
func TestActionCutClosesAnOpenFence(t *testing.T) {
	needTools(t)
	fake := fakeBenchgate(t, "{ echo '````text'; awk 'BEGIN { for (i = 0; i < 5000; i++) print \"line\", i }'; echo '````'; } >\"$md\"", 0)
	o := action(t, t.TempDir(), "BENCHGATE_BIN="+fake, "BENCHGATE_SUMMARY_MAX_BYTES=20000")
	report, _, ok := strings.Cut(o.summary, "\n**Report truncated**")
	if o.code != 0 || !ok {
		t.Fatalf("exit %d, truncated %v:\n%.500s", o.code, ok, o.log)
	}
	if lines := strings.Split(strings.TrimRight(report, "\n"), "\n"); lines[len(lines)-1] != "````" {
		t.Errorf("the open fence was not closed: ends %q", lines[len(lines)-1])
	}
	if o := action(t, t.TempDir(), "BENCHGATE_BIN="+fake, "BENCHGATE_SUMMARY_MAX_BYTES=999"); o.code != 2 {
		t.Errorf("BENCHGATE_SUMMARY_MAX_BYTES=999: exit %d, want 2", o.code)
	}
}
