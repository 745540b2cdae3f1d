package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// injected is a value that, written into a header line of head.txt, would
// add a package and a result line there.
const injected = "a\npkg: example.com/envs\nBenchmarkSteady-2 1000 100000 ns/op"

// M1 of the hostile review: a newline in -head-env's value injected a
// result line into head.txt and one commit against itself regressed
// (exit 1). It is a usage error: exit 2, one line naming the flag and the
// value, quoted.
func TestCLIHeadEnvNewline(t *testing.T) {
	envRepo(t)
	out := t.TempDir()
	v := `X="` + injected + `"`
	code, stdout, errOut := cli(t, "run", "-q", "-base", "HEAD", "-count", "6", "-profiles=false",
		"-target", ".:^BenchmarkSteady$@100x", "-head-env", v, "-out", out)
	if want := "-head-env " + strconv.Quote(v); code != 2 || !strings.Contains(errOut, want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Errorf("exit %d, want 2 with one line holding %s\nstdout:\n%s\nstderr:\n%s", code, want, stdout, errOut)
	}
	if left, _ := filepath.Glob(filepath.Join(out, "*")); len(left) > 0 {
		t.Errorf("written to -out: %q", left)
	}
}

// Every flag whose value reaches a header line, git or the go command
// refuses a control character, a package or revision that git or go would
// read as a flag, and an environment name that is not an identifier: exit
// 2, one line naming the flag and the value (quoted), before anything
// runs. The working directory is no repository, so a value let through
// shows as "not a git repository" instead.
func TestCLIRefusesInjection(t *testing.T) {
	dir := t.TempDir()
	units := filepath.Join(dir, "units.txt")
	if err := os.WriteFile(units, []byte("Unit ns/op better=lower\nBenchmarkX-2 1 100000 ns/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	run := []string{"run", "-q", "-base", "HEAD"}
	for _, c := range []struct {
		args []string
		want string // the flag and its value, as the message names them
	}{
		{[]string{"-base-env", "1X=a"}, `-base-env "1X=a"`},
		{[]string{"-head-env", "A.B=a"}, `-head-env "A.B=a"`},
		{[]string{"-head-env", "X=a\x01"}, `-head-env "X=a\x01"`},
		{[]string{"-tags", "x\n" + injected}, "-tags " + strconv.Quote("x\n"+injected)},
		{[]string{"-head-tags", "gateslow\rx"}, `-head-tags "gateslow\rx"`},
		{[]string{"-bench", "Steady\n"}, `-bench "Steady\n"`},
		{[]string{"-pkgs", "-toolexec=/bin/true"}, `-pkgs "-toolexec=/bin/true"`},
		{[]string{"-pkgs", "./a,-x"}, `-pkgs "./a,-x"`},
		{[]string{"-pkgs", "./a\n./b"}, `-pkgs "./a\n./b"`},
		{[]string{"-target", "-toolexec=/bin/true:."}, `-target "-toolexec=/bin/true:."`},
		{[]string{"-target", ".:Steady\n"}, `-target ".:Steady\n"`},
		{[]string{"-target", ".:. X=a\x01"}, `-target ".:. X=a\x01"`},
		{[]string{"-target", ".:. 1X=a"}, `-target ".:. 1X=a"`},
		{[]string{"-base", "--output=/tmp/x"}, `-base "--output=/tmp/x"`},
		{[]string{"-head", "-x"}, `-head "-x"`},
		{[]string{"-head", "HEAD\nx"}, `-head "HEAD\nx"`},
		{[]string{"-units", units}, `-units ` + strconv.Quote(units) + `: option out of range: line 2 "BenchmarkX-2 1 100000 ns/op"`},
	} {
		args := append(slices.Clone(run), c.args...)
		code, _, errOut := cli(t, args...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("run %q: exit %d, stderr:\n%s\nwant 2 with one line holding %s", c.args, code, errOut, c.want)
		}
	}
	code, _, errOut := cli(t, "calibrate", "-o", filepath.Join(dir, "th.txt"), "-rev", "--output=/tmp/x")
	if want := `-rev "--output=/tmp/x"`; code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("calibrate -rev: exit %d, stderr %q; want 2 naming %s", code, errOut, want)
	}
}
