package adopt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Inputs that would inject lines through the action's script: into
// GITHUB_OUTPUT, into benchgate's flags, or into gh's command line.

// argsBenchgate is a stand-in benchgate that prints its arguments, one a
// line between brackets, and exits 0.
func argsBenchgate(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "benchgate")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nfor a; do printf '[%s]\\n' \"$a\"; done\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// An input holding a control character is a usage error (exit 2) naming
// the variable, its value quoted on one line, before benchgate runs; a
// BENCHGATE_OUT with a newline no longer adds a line to GITHUB_OUTPUT.
func TestActionScriptRefusesControlCharacters(t *testing.T) {
	needTools(t)
	fake := argsBenchgate(t)
	dir := t.TempDir()
	for _, kv := range []string{
		"BENCHGATE_PACKAGES=./...\n-head-env\nX=1",
		"BENCHGATE_BENCH=.\x01",
		"BENCHGATE_BASE=HEAD~1\nx",
		"BENCHGATE_THRESHOLD=10%\r",
		"BENCHGATE_BENCHTIME=1x\tx",
		"BENCHGATE_UNITS=u.txt\n",
		"BENCHGATE_VERSION=v0.1.0\nx",
		"BENCHGATE_ARGS=-alpha\x1b0.001",
		"BENCHGATE_OUT=" + filepath.Join(dir, "out\ninjected=1"),
	} {
		name, _, _ := strings.Cut(kv, "=")
		o := action(t, dir, "BENCHGATE_BIN="+fake, kv)
		line := "benchgate-action: " + name + "=$'"
		if o.code != 2 || !strings.Contains(o.log, line) || strings.Contains(o.log, "[run]") {
			t.Errorf("%q: exit %d, want 2 naming %s before benchgate runs\n%s", kv, o.code, name, o.log)
		}
		if strings.Contains(o.outputs, "injected") {
			t.Errorf("%q: GITHUB_OUTPUT holds an injected line:\n%s", kv, o.outputs)
		}
	}
}

// BENCHGATE_ARGS written over several lines (a YAML block) passes every
// flag, not the first line's only; a targets file with CRLF line ends
// passes its targets without the carriage return.
func TestActionScriptArgsLinesAndCRLF(t *testing.T) {
	needTools(t)
	fake := argsBenchgate(t)
	dir := t.TempDir()
	targets := filepath.Join(dir, "targets.txt")
	if err := os.WriteFile(targets, []byte("./a:.\r\n./b:. GOGC=50\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := action(t, dir, "BENCHGATE_BIN="+fake, "BENCHGATE_ARGS=-alpha 0.001\n\t-profiles=false\r\n",
		"BENCHGATE_TARGETS_FILE="+targets)
	if o.code != 0 {
		t.Fatalf("exit %d\n%s", o.code, o.log)
	}
	for _, want := range []string{"[-alpha]\n[0.001]\n[-profiles=false]\n", "[-target]\n[./a:.]\n", "[-target]\n[./b:. GOGC=50]\n"} {
		if !strings.Contains(o.log, want) {
			t.Errorf("benchgate's arguments lack %q:\n%s", want, o.log)
		}
	}
	if strings.Contains(o.log, "\r") {
		t.Errorf("a carriage return reached benchgate:\n%q", o.log)
	}
}

// BENCHGATE_PR_NUMBER must be a number: one that gh would read as a flag
// (--repo=...) is refused before gh runs, with the token never used.
func TestActionScriptPRNumberIsANumber(t *testing.T) {
	needTools(t)
	pathEnv, record := fakeGH(t)
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "summary.md"), []byte("## benchgate: no regression\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, pr := range []string{"--repo=evil/repo", "12 --repo=evil/repo", "0x10"} {
		o := actionPhase(t, t.TempDir(), []string{"comment"}, pathEnv, "BENCHGATE_OUT="+out,
			"BENCHGATE_RESULT=pass", "BENCHGATE_GITHUB_TOKEN=tok", "BENCHGATE_PR_NUMBER="+pr)
		if o.code != 2 || !strings.Contains(o.log, "BENCHGATE_PR_NUMBER=") {
			t.Errorf("%q: exit %d, want 2 naming BENCHGATE_PR_NUMBER\n%s", pr, o.code, o.log)
		}
		if b, err := os.ReadFile(record); err == nil {
			t.Errorf("%q: gh ran: %s", pr, b)
		}
	}
}

// The GitLab template clones writegc with `--` before BENCHGATE_REPO, so
// a repository value starting with '-' is not read as a git option.
func TestGitLabCloneSeparatesRepo(t *testing.T) {
	b, err := os.ReadFile("../../ci/gitlab/benchgate.gitlab-ci.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "git clone") && !strings.Contains(l, `-- "$BENCHGATE_REPO"`) {
			t.Errorf("clone line without -- before the repository: %s", l)
		}
	}
}
