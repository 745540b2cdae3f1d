package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// cli runs the command and returns its exit status, stdout and stderr.
func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), args, &stdout, &stderr)
	code := exitCode(err, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestCompareCLIGolden(t *testing.T) {
	md := filepath.Join(t.TempDir(), "summary.md")
	code, out, errOut := cli(t, "compare", "-accept", "testdata/accepted.txt", "-markdown", md, "testdata/base.txt", "testdata/head.txt")
	if code != 1 {
		t.Errorf("exit %d, want 1 (regression); stderr:\n%s", code, errOut)
	}
	mdOut, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{"compare.out": out, "compare.md": string(mdOut), "compare.err": errOut} {
		path := filepath.Join("testdata", name)
		if *update {
			os.WriteFile(path, []byte(got), 0o644)
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s: got\n%s\nwant\n%s", name, got, want)
		}
	}
}

func TestCLIExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string // substring of stderr
	}{
		{"no subcommand", nil, 2, "missing subcommand"},
		{"unknown subcommand", []string{"frobnicate"}, 2, "unknown subcommand"},
		{"help", []string{"help"}, 0, ""},
		{"compare -h", []string{"compare", "-h"}, 0, "-threshold"},
		{"one file", []string{"compare", "testdata/base.txt"}, 2, "want two files"},
		{"empty input", []string{"compare", "testdata/empty.txt", "testdata/head.txt"}, 2, "empty.txt: empty input"},
		{"missing file", []string{"compare", "testdata/nope.txt", "testdata/head.txt"}, 2, "nope.txt"},
		{"malformed", []string{"compare", "testdata/malformed.txt", "testdata/malformed.txt"}, 2, "malformed.txt:3: parsing iteration count"},
		{"malformed lenient", []string{"compare", "-lenient", "testdata/malformed.txt", "testdata/malformed.txt"}, 2, "too few samples"},
		{"bad threshold", []string{"compare", "-threshold", "ten", "testdata/base.txt", "testdata/head.txt"}, 2, "-threshold"},
		{"bad alpha", []string{"compare", "-alpha", "2", "testdata/base.txt", "testdata/head.txt"}, 2, "-alpha"},
		{"bad flag", []string{"compare", "-bogus", "testdata/base.txt", "testdata/head.txt"}, 2, "-bogus"},
		{"same file passes", []string{"compare", "testdata/base.txt", "testdata/base.txt"}, 0, ""},
		{"no common", []string{"compare", "testdata/base.txt", "testdata/malformed.txt", "-lenient"}, 2, ""},
		{"head lacks base benchmarks", []string{"compare", "testdata/head.txt", "testdata/base.txt"}, 2, "head lacks benchmarks"},
		{"run without -base", []string{"run"}, 2, "-base is required"},
		{"run bad -target", []string{"run", "-base", "HEAD", "-target", "nocolon"}, 2, "-target"},
		{"run bad -count", []string{"run", "-base", "HEAD", "-count", "0"}, 2, "-count"},
		{"run bad -head-env", []string{"run", "-base", "HEAD", "-head-env", "=x"}, 2, "-head-env"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := cli(t, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.stderr) {
				t.Errorf("exit %d, want %d; stderr %q should contain %q", code, tc.code, errOut, tc.stderr)
			}
		})
	}
}
