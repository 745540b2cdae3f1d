package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/testkit"
)

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
		testkit.CheckGolden(t, filepath.Join("testdata", name), []byte(got))
	}
}

// exitCase is one run of the command: its arguments, the exit status it
// must give, and a substring its stderr must hold.
type exitCase struct {
	name   string
	args   []string
	code   int
	stderr string
}

func (tc exitCase) check(t *testing.T) {
	t.Run(tc.name, func(t *testing.T) {
		code, _, errOut := cli(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.stderr) {
			t.Errorf("exit %d, want %d; stderr %q should contain %q", code, tc.code, errOut, tc.stderr)
		}
	})
}

func TestCLIExitCodes(t *testing.T) {
	for _, tc := range []exitCase{
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
		tc.check(t)
	}
}

// writeSides writes a base of ten ~100 ns/op lines and a head of ten ~130
// ns/op lines (a clear 30% regression), with extra appended to the head.
func writeSides(t *testing.T, extra string) (base, head string) {
	t.Helper()
	dir := t.TempDir()
	var b, h strings.Builder
	for i := range 10 {
		fmt.Fprintf(&b, "BenchmarkA-2 \t 100\t%d ns/op\n", 100+i%3)
		fmt.Fprintf(&h, "BenchmarkA-2 \t 100\t%d ns/op\n", 130+i%3)
	}
	return writeBaseHead(t, dir, b.String(), h.String()+extra)
}

// writeBaseHead writes dir/base.txt and dir/head.txt and returns their
// paths.
func writeBaseHead(t *testing.T, dir, baseBody, headBody string) (base, head string) {
	t.Helper()
	base, head = filepath.Join(dir, "base.txt"), filepath.Join(dir, "head.txt")
	testkit.Write(t, dir, map[string]string{"base.txt": baseBody, "head.txt": headBody})
	return base, head
}

// Hostile values and flags exit 2 naming file:line or the flag, never reach
// the statistics, and never pass a regression.
func TestCLIHostileInput(t *testing.T) {
	base, head := writeSides(t, "")
	_, nan := writeSides(t, "BenchmarkA-2 \t 100\tNaN ns/op\n")
	_, inf := writeSides(t, "BenchmarkA-2 \t 100\t5 ns/op\t+Inf MB/s\n")
	negBase, neg := writeSides(t, "")
	if err := os.WriteFile(neg, []byte(strings.Repeat("BenchmarkA-2 \t 100\t-130 ns/op\n", 10)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []exitCase{
		{"30% regression", []string{"compare", base, head}, 1, ""},
		{"NaN value", []string{"compare", base, nan}, 2, "head.txt:11: ns/op value NaN: want a finite number"},
		{"Inf value", []string{"compare", base, inf}, 2, "head.txt:11: MB/s value +Inf"},
		{"negative ns/op", []string{"compare", negBase, neg}, 2, "head.txt:1: ns/op value -130: want a non-negative number"},
		{"NaN lenient", []string{"compare", "-lenient", base, nan}, 1, "warning"},
		{"threshold NaN", []string{"compare", "-threshold", "NaN", base, head}, 2, "-threshold"},
		{"threshold Inf", []string{"compare", "-threshold", "Inf", base, head}, 2, "-threshold"},
		{"threshold NaN%", []string{"compare", "-threshold", "NaN%", base, head}, 2, "-threshold"},
		{"threshold bare 10", []string{"compare", "-threshold", "10", base, head}, 2, "-threshold"},
		{"threshold 150%", []string{"compare", "-threshold", "150%", base, head}, 2, "-threshold"},
		{"threshold 100% passes", []string{"compare", "-threshold", "100%", base, head}, 0, ""},
		{"alpha NaN", []string{"compare", "-alpha", "NaN", base, head}, 2, "-alpha"},
		{"alpha Inf", []string{"compare", "-alpha", "Inf", base, head}, 2, "-alpha"},
		{"alpha 0", []string{"compare", "-alpha", "0", base, head}, 2, "-alpha"},
		{"run -count too big", []string{"run", "-base", "HEAD", "-count", "1001"}, 2, "-count"},
		{"run -nice", []string{"run", "-base", "HEAD", "-nice", "20"}, 2, "-nice"},
		{"run -timeout 0", []string{"run", "-base", "HEAD", "-timeout", "0"}, 2, "-timeout"},
		{"run -timeout negative", []string{"run", "-base", "HEAD", "-timeout", "-1s"}, 2, "-timeout"},
		{"run -benchtime junk", []string{"run", "-base", "HEAD", "-benchtime", "fast"}, 2, "-benchtime"},
		{"run -benchtime 0x", []string{"run", "-base", "HEAD", "-benchtime", "0x"}, 2, "-benchtime"},
		{"run -benchtime negative", []string{"run", "-base", "HEAD", "-benchtime", "-1s"}, 2, "-benchtime"},
		{"run -threshold NaN", []string{"run", "-base", "HEAD", "-threshold", "NaN"}, 2, "-threshold"},
	} {
		tc.check(t)
	}
}

// Oversized inputs and devices are refused quickly, naming the file (and line).
func TestCLIOversizedInput(t *testing.T) {
	base, head := writeSides(t, "")
	long := filepath.Join(t.TempDir(), "long.txt")
	body := "BenchmarkA-2 \t 100\t100 ns/op\nBenchmarkA-2 \t 100\t" + strings.Repeat("1", 70<<10) + " ns/op\n"
	if err := os.WriteFile(long, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	type tcase struct {
		name, stderr string
		args         []string
	}
	cases := []tcase{{"long line", "long.txt:2: line longer than the limit", []string{"compare", base, long}}}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases = append(cases,
			// A device is not a file: refused before a byte is read.
			tcase{"/dev/zero OLD", "/dev/zero: a character device, not a regular file", []string{"compare", "/dev/zero", head}},
			tcase{"/dev/zero NEW", "/dev/zero: a character device, not a regular file", []string{"compare", base, "/dev/zero"}},
			tcase{"/dev/zero -accept", "/dev/zero: a character device, not a regular file", []string{"compare", "-accept", "/dev/zero", base, head}},
			tcase{"/dev/zero -units", "-units: /dev/zero: a character device, not a regular file", []string{"run", "-base", "HEAD", "-units", "/dev/zero"}},
		)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			code, _, errOut := cli(t, tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.stderr) {
				t.Errorf("exit %d, want 2; stderr %q should contain %q", code, errOut, tc.stderr)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// -env-drop takes names and globs, comma-separated and repeatable; a
// malformed one is a usage error (exit 2) naming the flag.
func TestCLIEnvDrop(t *testing.T) {
	for _, bad := range []string{"A=B", "[", "X,Y=1"} {
		code, _, errOut := cli(t, "run", "-base", "HEAD", "-env-drop", bad)
		if code != 2 || !strings.Contains(errOut, "-env-drop") {
			t.Errorf("-env-drop %q: exit %d, stderr %q; want 2 naming the flag", bad, code, errOut)
		}
	}
}

// A signal turns a failure into 130; a verdict reached before it stands.
func TestInterruptedCode(t *testing.T) {
	for _, c := range []struct {
		code        int
		interrupted bool
		want        int
	}{{2, true, exitInterrupted}, {2, false, 2}, {1, true, 1}, {0, true, 0}} {
		if got := interruptedCode(c.code, c.interrupted); got != c.want {
			t.Errorf("interruptedCode(%d, %v) = %d, want %d", c.code, c.interrupted, got, c.want)
		}
	}
}
