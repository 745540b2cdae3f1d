package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/internal/testkit"
)

// TestCLICalibrate runs `benchgate calibrate` end to end on a tiny module:
// 10 A/A chunks of one round each, written to a thresholds file that
// compare then reads.
func TestCLICalibrate(t *testing.T) {
	testkit.NeedGoGit(t)
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/cal\n\ngo 1.26\n",
		"cal_test.go": `package cal

import "testing"

var sink uint64

func BenchmarkSpin(b *testing.B) {
	for b.Loop() {
		for i := 0; i < 500; i++ {
			sink = sink*6364136223846793005 + 1442695040888963407
		}
	}
}
`,
	}
	commitModule(t, dir, files)
	t.Chdir(dir)

	th := filepath.Join(t.TempDir(), "th.txt")
	out := t.TempDir()
	code, stdout, stderr := cli(t, "calibrate", "-q", "-o", th, "-rounds", "1", "-chunks", "10",
		"-benchtime", "300x", "-target", ".:^BenchmarkSpin$", "-out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "BenchmarkSpin") || !strings.Contains(stdout, "10 chunks of 1 A/A rounds") || !strings.Contains(stdout, "MDE at 1 rounds") {
		t.Errorf("summary:\n%s", stdout)
	}
	got, err := benchgate.ReadThresholds(th)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got.Get(benchgate.Key{Name: got.Rows[0].Name, Unit: "ns/op"}); !ok || got.K != benchgate.DefaultK || got.Rounds != 1 || got.Chunks != 10 || got.Machine["cpu"] == "" || len(got.Commit) != 40 {
		t.Errorf("thresholds %+v", got)
	}
	code, stdout, stderr = cli(t, "compare", "-thresholds", th, filepath.Join(out, "base.txt"), filepath.Join(out, "head.txt"))
	if code == 2 || !strings.Contains(stdout, "(calibrated "+th+")") {
		t.Errorf("compare with the calibration's own runs: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// The flag convention: -count and -out DIR (thresholds.txt there), and
	// compare's -threshold FILE.
	out2 := t.TempDir()
	if code, stdout, stderr := cli(t, "calibrate", "-q", "-count", "1", "-chunks", "10",
		"-benchtime", "300x", "-target", ".:^BenchmarkSpin$", "-out", out2); code != 0 {
		t.Fatalf("calibrate -count -out: exit %d\n%s\n%s", code, stdout, stderr)
	}
	th2 := filepath.Join(out2, thresholdsFile)
	if got, err := benchgate.ReadThresholds(th2); err != nil || got.Rounds != 1 || got.Chunks != 10 {
		t.Fatalf("-out DIR's %s: %+v, %v", thresholdsFile, got, err)
	}
	code, stdout, stderr = cli(t, "compare", "-threshold", th2, filepath.Join(out2, "base.txt"), filepath.Join(out2, "head.txt"))
	if code == 2 || !strings.Contains(stdout, "(calibrated "+th2+")") {
		t.Errorf("compare -threshold FILE: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// The calibration summary gives each row's MDE at the chunk's rounds and,
// for a row the gate would call noisy, the rounds that resolve it.
func TestPrintThresholdsMDE(t *testing.T) {
	th := &benchgate.Thresholds{K: 2, Default: 0.1, Rounds: 10, Chunks: 20, Rows: []benchgate.Threshold{
		{Key: benchgate.Key{Name: "BenchmarkQuiet-2", Unit: "ns/op"}, Threshold: 0.1, Spread: 0.01, MDE: 0.02, RoundsNeeded: 4},
		{Key: benchgate.Key{Name: "BenchmarkNoisy-2", Unit: "ns/op"}, Threshold: 0.3, Spread: 0.15, MDE: 0.45, RoundsNeeded: 23},
		{Key: benchgate.Key{Name: "BenchmarkWild-2", Unit: "ns/op"}, Threshold: 1, Spread: 0.9, MDE: 3, RoundsNeeded: 0},
	}}
	var b strings.Builder
	if err := printThresholds(th, "th.txt", 0.01, 0.8, &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"MDE at 10 rounds (alpha 0.01, power 0.8)", "2.00%\n",
		"45.00% > threshold: noisy; 23 rounds a side would resolve it", "more than 1000 rounds a side needed",
		"note: 2 row(s) would be noisy at 10 rounds"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}
