package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegc/writegc/internal/testkit"
)

// TestFlagConvention: -threshold takes a percentage or a thresholds FILE
// (and both), -thresholds FILE still works as its deprecated synonym, and
// -out DIR -format md,json writes the reports there; -markdown FILE still
// appends.
func TestFlagConvention(t *testing.T) {
	dir := t.TempDir()
	base, head := writeMachineSides(t, "cpu: X\n", "cpu: X\n")
	th := filepath.Join(dir, "th.txt")
	os.WriteFile(th, []byte("benchgate-thresholds: v1\ncpu: X\nBenchmarkA-2 ns/op 15% 7%\n"), 0o644)
	for _, args := range [][]string{{"-threshold", th}, {"-thresholds", th}, {"-threshold", "20%", "-threshold", th}} {
		code, out, errOut := cli(t, append(append([]string{"compare"}, args...), base, head)...)
		if code != 0 || !strings.Contains(out, "15% (calibrated "+th+")") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want the calibrated threshold", args, code, out, errOut)
		}
	}
	if code, out, _ := cli(t, "compare", "-threshold", "20%", base, head); code != 0 || !strings.Contains(out, "threshold 20%") {
		t.Errorf("-threshold 20%%: exit %d, stdout %q", code, out)
	}
	if code, _, errOut := cli(t, "compare", "-threshold", filepath.Join(dir, "missing.txt"), base, head); code != 2 || !strings.Contains(errOut, "-threshold "+filepath.Join(dir, "missing.txt")) {
		t.Errorf("-threshold MISSING: exit %d, stderr %q; want 2 naming the flag and the file", code, errOut)
	}
	if code, _, errOut := cli(t, "compare", "-threshold", "250%", base, head); code != 2 || !strings.Contains(errOut, "-threshold") {
		t.Errorf("-threshold 250%%: exit %d, stderr %q; want 2", code, errOut)
	}

	out := filepath.Join(dir, "out")
	md := filepath.Join(dir, "old.md")
	if code, _, errOut := cli(t, "compare", "-out", out, "-format", "md,json", "-markdown", md, base, head); code != 0 {
		t.Fatalf("-out -format md,json: exit %d, stderr %q", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.Contains(string(b), "### benchgate: PASS") {
		t.Errorf("report.md (%v): %q", err, b)
	}
	if old, err := os.ReadFile(md); err != nil || string(old) != string(b) {
		t.Errorf("-markdown FILE (deprecated) no longer writes the same report (%v): %q", err, old)
	}
	var j struct{ Status string }
	if b, err := os.ReadFile(filepath.Join(out, "report.json")); err != nil || json.Unmarshal(b, &j) != nil || j.Status != "pass" {
		t.Errorf("report.json (%v): %q", err, b)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-format", "md"}, "-format md: needs -out DIR"},
		{[]string{"-out", out, "-format", "xml"}, `-format "xml": want md, json`},
		{[]string{"-out", out, "-format", "md,md"}, `-format "md,md"`},
	} {
		if code, _, errOut := cli(t, append(append([]string{"compare"}, tc.args...), base, head)...); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestFlagConventionCalibrateHistory: calibrate's -count (and its deprecated
// -rounds) and -out, and history's -out (and its deprecated -html).
func TestFlagConventionCalibrateHistory(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"calibrate", "-out", "x", "-count", "100", "-chunks", "20"}, "-count 100 x -chunks 20"},
		{[]string{"calibrate", "-o", "x", "-rounds", "100", "-chunks", "20"}, "-rounds 100 x -chunks 20"},
		{[]string{"calibrate", "-out", "x", "-count", "0"}, "-count 0: want at least 1"},
	} {
		if code, _, errOut := cli(t, tc.args...); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	if code, out, errOut := cli(t, append([]string{"record", "-db", db}, historyFiles(t, dir, "CPU A", 8, 4)...)...); code != 0 {
		t.Fatalf("record: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, flagName := range []string{"-out", "-html"} {
		page := filepath.Join(dir, "page"+flagName)
		if code, _, errOut := cli(t, "history", "-db", db, "-fail-latest", "0", flagName, page); code != 0 {
			t.Errorf("history %s: exit %d, stderr %q", flagName, code, errOut)
		}
		if _, err := os.Stat(filepath.Join(page, "index.html")); err != nil {
			t.Errorf("history %s DIR: %v", flagName, err)
		}
	}
}

// TestFlagConventionRun: run -out DIR -format md,json writes both reports
// beside base.txt and head.txt; -format without -out is a usage error.
func TestFlagConventionRun(t *testing.T) {
	if code, _, errOut := cli(t, "run", "-base", "HEAD", "-format", "md"); code != 2 || !strings.Contains(errOut, "-format md: needs -out DIR") {
		t.Errorf("run -format md: exit %d, stderr %q", code, errOut)
	}
	testkit.NeedGoGit(t)
	dir := t.TempDir()
	commitModule(t, dir, map[string]string{
		"go.mod":      "module example.com/fmt\n\ngo 1.26\n",
		"fmt_test.go": "package fmt\n\nimport \"testing\"\n\nvar sink int\n\nfunc BenchmarkTiny(b *testing.B) {\n\tfor b.Loop() {\n\t\tsink++\n\t}\n}\n",
	})
	t.Chdir(dir)
	out := t.TempDir()
	code, stdout, errOut := cli(t, "run", "-q", "-base", "HEAD", "-count", "3", "-benchtime", "10x", "-target", ".:^BenchmarkTiny$",
		"-profiles=false", "-confirm=false", "-out", out, "-format", "md,json")
	for _, f := range []string{"base.txt", "head.txt", "report.md", "report.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("run -out -format md,json (exit %d): %v\n%s\n%s", code, err, stdout, errOut)
		}
	}
}
