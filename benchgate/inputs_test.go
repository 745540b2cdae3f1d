package benchgate

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/testkit"
)

// injected is a value that, written into a header line, would add a
// package line and a result line to base.txt or head.txt.
const injected = "a\npkg: example.com/work\nBenchmarkW/k=a 1000 100000 ns/op"

// Every value Run writes into a header line or hands to git or the go
// command is checked before anything runs: a control character, an
// environment name that is not an identifier, a package or revision that
// starts with '-', and a preamble line that is not a Unit line or a
// comment are errBadOption. Dir is no repository, so a value let through
// shows as ErrNotGitRepo instead.
func TestRunRefusesInjection(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]RunConfig{
		"HeadEnv newline":     {HeadEnv: []string{"X=" + injected}},
		"BaseEnv CR":          {BaseEnv: []string{"X=a\rb"}},
		"BaseEnv tab":         {BaseEnv: []string{"X=a\tb"}},
		"HeadEnv DEL":         {HeadEnv: []string{"X=a\x7f"}},
		"HeadEnv C1":          {HeadEnv: []string{"X=a\u0085b"}},
		"HeadEnv quote":       {HeadEnv: []string{`X=a"b`}},
		"name digit first":    {HeadEnv: []string{"1X=a"}},
		"name dash":           {BaseEnv: []string{"A-B=a"}},
		"name dot":            {BaseEnv: []string{"A.B=a"}},
		"Tags newline":        {Tags: "x\nBenchmarkW 1 1 ns/op"},
		"HeadTags newline":    {HeadTags: "gateslow\npkg: x"},
		"Bench newline":       {Bench: "W\n"},
		"Pkgs flag":           {Pkgs: []string{"-toolexec=/bin/true"}},
		"Pkgs newline":        {Pkgs: []string{"./a\n./b"}},
		"target Pkg flag":     {Targets: []Target{{Pkg: "-toolexec=/bin/true", Bench: "."}}},
		"target Bench ctl":    {Targets: []Target{{Pkg: ".", Bench: "W\x00"}}},
		"target HeadEnv ctl":  {Targets: []Target{{Pkg: ".", Bench: ".", HeadEnv: []string{"X=" + injected}}}},
		"target HeadEnv name": {Targets: []Target{{Pkg: ".", Bench: ".", HeadEnv: []string{"X Y=1"}}}},
		"Base flag":           {Base: "--output=/tmp/x"},
		"Head flag":           {Head: "-x"},
		"Base newline":        {Base: "HEAD\nx"},
		"Preamble result":     {Preamble: "Unit ns/op better=lower\nBenchmarkW/k=a 1000 100000 ns/op\n"},
		"Preamble config":     {Preamble: "goos: plan9\n"},
		"Preamble control":    {Preamble: "Unit ns/op better=lower\r\n"},
	} {
		c.Dir = dir
		if c.Base == "" {
			c.Base = "HEAD"
		}
		if _, err := Run(t.Context(), c); !errors.Is(err, errBadOption) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: Run = %v; want one line of errBadOption", name, err)
		}
	}
}

// M1 of the hostile review, in a real module: a newline in HeadEnv's value
// made head.txt carry a package and a result line of the caller's choosing.
// It is refused before anything is built or written.
func TestRunEnvNewlineInjectsNothing(t *testing.T) {
	dir := gitModuleDir(t)
	writeWorkModule(t, dir, 1000)
	testkit.CommitAll(t, dir, "one")
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	res, err := Run(ctx, RunConfig{Dir: dir, Base: "HEAD", Count: 1, Benchtime: "1x", OutDir: out,
		HeadEnv: []string{"X=" + injected}})
	if !errors.Is(err, errBadEnv) || !strings.Contains(err.Error(), `\npkg: example.com/work\n`) || res != nil {
		t.Errorf("Run = %v, %v; want errBadEnv quoting the value", res, err)
	}
	if left, _ := filepath.Glob(filepath.Join(out, "*")); len(left) > 0 {
		t.Errorf("written to the output folder: %q", left)
	}
	for _, s := range []string{`X="` + injected + `"`, "X=a\x01", "1X=a", "A.B=1"} {
		if _, err := ParseEnv(s); !errors.Is(err, errBadEnv) {
			t.Errorf("ParseEnv(%q) = %v, want errBadEnv", s, err)
		}
	}
	if _, err := ParseEnv(`GOFLAGS="-tags=x -trimpath" _X1=a=b`); err != nil {
		t.Errorf("an ordinary environment: %v", err)
	}
}

// Every go command Run starts separates its flags from the package pattern
// it was given (`go list ... -- PATTERN`): a go on PATH that logs its
// arguments before running the real one shows it.
func TestRunGoListSeparatesPackages(t *testing.T) {
	realGo, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	dir := gitModuleDir(t)
	writeWorkModule(t, dir, 1000)
	testkit.CommitAll(t, dir, "one")
	bin := t.TempDir()
	log := filepath.Join(bin, "go.log")
	script := "#!/bin/sh\necho \"$*\" >>'" + log + "'\nexec '" + realGo + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if _, err := Run(ctx, RunConfig{Dir: dir, Base: "HEAD", Count: 1, Benchtime: "1x", OutDir: t.TempDir(),
		Targets: []Target{{Pkg: "./...", Bench: "."}}}); err != nil {
		t.Fatal(err)
	}
	lists := 0
	for _, l := range strings.Split(readT(t, log), "\n") {
		if strings.HasPrefix(l, "list ") {
			lists++
			if !strings.HasSuffix(l, " -- ./...") {
				t.Errorf("go %s: want -- before the pattern", l)
			}
		}
	}
	if lists != 2 {
		t.Errorf("%d go list commands logged, want 2 (base, head):\n%s", lists, readT(t, log))
	}
}

// A header value from a tool (go env, uname, valgrind) stays one line.
func TestConfigLineOneLine(t *testing.T) {
	if got := configLine("kernel", "6.1\nBenchmarkW 1 1 ns/op\r\x00"); got != "kernel: 6.1 BenchmarkW 1 1 ns/op  \n" {
		t.Errorf("configLine = %q", got)
	}
}

// The units file the CI gate uses passes CheckPreamble.
func TestCheckPreambleGateUnits(t *testing.T) {
	b, err := os.ReadFile("../scripts/gate-units.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckPreamble(string(b)); err != nil {
		t.Errorf("scripts/gate-units.txt: %v", err)
	}
	if err := CheckPreamble("Unit x\n"); !errors.Is(err, errBadOption) {
		t.Errorf("a Unit line without key=value: %v", err)
	}
}
