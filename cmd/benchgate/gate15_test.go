package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeMachineSides writes a base and a head of ten ~100 ns/op samples each
// (no regression) under the given configuration lines.
func writeMachineSides(t *testing.T, baseConfig, headConfig string) (base, head string) {
	t.Helper()
	dir := t.TempDir()
	var b, h strings.Builder
	b.WriteString(baseConfig)
	h.WriteString(headConfig)
	for i := range 10 {
		line := "BenchmarkA-2 \t 100\t" + []string{"100", "101", "102"}[i%3] + " ns/op\n"
		b.WriteString(line)
		h.WriteString(line)
	}
	return writeBaseHead(t, dir, b.String(), h.String())
}

func TestCLICrossMachine(t *testing.T) {
	base, head := writeMachineSides(t, "cpu: AMD EPYC\ngoversion: go1.26.0\n", "cpu: Intel Xeon\n")
	code, _, errOut := cli(t, "compare", base, head)
	if code != 2 || !strings.Contains(errOut, `cpu: base "AMD EPYC" vs head "Intel Xeon"`) || !strings.Contains(errOut, "-allow-cross-machine") {
		t.Errorf("exit %d, stderr %q; want 2 naming the cpus and the flag", code, errOut)
	}
	code, out, errOut := cli(t, "compare", "-allow-cross-machine", base, head)
	if code != 0 || !strings.Contains(out, "note: WARNING: comparing across machines: cpu:") ||
		!strings.Contains(out, "note: machine goversion: unknown in head") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0 with the warning and the unknown key", code, out, errOut)
	}
}

func TestCLIThresholdsAndExpiry(t *testing.T) {
	dir := t.TempDir()
	base, head := writeMachineSides(t, "cpu: X\n", "cpu: X\n")
	th := filepath.Join(dir, "th.txt")
	os.WriteFile(th, []byte("benchgate-thresholds: v1\ncpu: X\nBenchmarkA-2 ns/op 15% 7%\n"), 0o644)
	code, out, errOut := cli(t, "compare", "-thresholds", th, base, head)
	if code != 0 || !strings.Contains(out, "15% (calibrated "+th+")") {
		t.Errorf("exit %d, stdout %q, stderr %q; want the calibrated threshold in the report", code, out, errOut)
	}
	os.WriteFile(th, []byte("benchgate-thresholds: v1\ncpu: Y\nBenchmarkA-2 ns/op 15% 7%\n"), 0o644)
	if code, _, errOut := cli(t, "compare", "-thresholds", th, base, head); code != 2 || !strings.Contains(errOut, `cpu: `+th+` "Y" vs head "X"`) {
		t.Errorf("thresholds from another machine: exit %d, stderr %q; want 2", code, errOut)
	}
	os.WriteFile(th, []byte("not a thresholds file\n"), 0o644)
	if code, _, errOut := cli(t, "compare", "-thresholds", th, base, head); code != 2 || !strings.Contains(errOut, ": bad thresholds file") {
		t.Errorf("bad thresholds file: exit %d, stderr %q; want 2", code, errOut)
	}

	acc := filepath.Join(dir, "acc.txt")
	os.WriteFile(acc, []byte("# c\n^BenchmarkA  until=2020-01-01  old trade-off\n"), 0o644)
	if code, _, errOut := cli(t, "compare", "-accept", acc, base, head); code != 2 ||
		!strings.Contains(errOut, acc+`:2: "^BenchmarkA" (until=2020-01-01) expired on 2020-01-01`) {
		t.Errorf("expired entry: exit %d, stderr %q; want 2 naming it", code, errOut)
	}
	os.WriteFile(acc, []byte("^BenchmarkA  old trade-off\n"), 0o644)
	if code, _, errOut := cli(t, "compare", "-accept", acc, base, head); code != 2 || !strings.Contains(errOut, "has no expiry") {
		t.Errorf("entry without expiry: exit %d, stderr %q; want 2", code, errOut)
	}
}

func TestCLICalibrateAndRunFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"calibrate"}, "-out DIR (or -o FILE) is required"},
		{[]string{"calibrate", "-o", "x", "-chunks", "3"}, "-chunks 3"},
		{[]string{"calibrate", "-o", "x", "-rounds", "100", "-chunks", "20"}, "-rounds 100 x -chunks 20"},
		{[]string{"calibrate", "-o", "x", "-k", "0"}, "-k 0"},
		{[]string{"calibrate", "-o", "x", "-threshold", "0%"}, "-threshold 0%"},
		{[]string{"calibrate", "-o", "x", "-target", "./a:^B$ =x"}, "-target"},
		{[]string{"run", "-base", "auto", "-profile-benchtime", "soon"}, "-profile-benchtime"},
		{[]string{"run", "-base", "auto", "-target", "./a:^B$ NOVALUE"}, `"NOVALUE": want K=V`},
		{[]string{"run", "-base", "auto", "-target", "./a:@100x"}, "empty regexp"},
	} {
		code, _, errOut := cli(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 containing %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestParseTargetBenchtime(t *testing.T) {
	for _, tc := range []struct {
		in, re, bt string
		env        int
	}{
		{"./a:^B$", "^B$", "", 0},
		{"./a:^B$@200000x", "^B$", "200000x", 0},
		{"./a:^B$/^k=v$@50ms K=V", "^B$/^k=v$", "50ms", 1},
		{"./a:^B@x$", "^B@x$", "", 0},   // not a benchtime: the '@' is the regexp's
		{"./a:^B$@0x", "^B$@0x", "", 0}, // 0x is no benchtime either
	} {
		tg, err := parseTarget(tc.in)
		if err != nil || tg.Bench != tc.re || tg.Benchtime != tc.bt || len(tg.HeadEnv) != tc.env || tg.Pkg != "./a" {
			t.Errorf("parseTarget(%q) = %+v, %v; want regexp %q benchtime %q", tc.in, tg, err, tc.re, tc.bt)
		}
	}
}
