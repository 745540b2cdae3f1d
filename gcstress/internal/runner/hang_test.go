package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/results"
)

// fakeChildEnv makes this test binary a fake child (TestMain): "hang"
// writes a temporary file, reports its path in the file fakeReportEnv
// names, and never exits.
const (
	fakeChildEnv  = "RUNNER_TEST_FAKE_CHILD"
	fakeReportEnv = "RUNNER_TEST_FAKE_REPORT"
)

func TestMain(m *testing.M) {
	holdFolderChild()
	if os.Getenv(ChildEnv) != "" && os.Getenv(fakeChildEnv) == "hang" {
		f, err := os.CreateTemp("", "reads-*.trace") // as the read trace is made
		if err != nil {
			os.Exit(3)
		}
		f.Write(make([]byte, 1<<20))
		f.Close()
		if err := os.WriteFile(os.Getenv(fakeReportEnv), []byte(f.Name()), 0o644); err != nil {
			os.Exit(4)
		}
		time.Sleep(time.Hour) // a Put that never returns (the parent kills it HangAfter past its cap, generous for a slow start)
		os.Exit(5)
	}
	os.Exit(m.Run())
}

// TestHungChildKilledAndCleanedUp: a child still running past its
// run-time cap is killed by the parent and reported as hung (not "the
// child died (signal: killed)"), and the temporary file it left (a read
// trace) is gone with its private TMPDIR.
func TestHungChildKilledAndCleanedUp(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	parentTmp := t.TempDir()
	report := filepath.Join(t.TempDir(), "child-tmp")
	t.Setenv("TMPDIR", parentTmp)
	t.Setenv(fakeChildEnv, "hang")
	t.Setenv(fakeReportEnv, report)
	r := &Runner{Exe: exe, HangAfter: 3 * time.Second, Grace: time.Second}
	s := results.Scenario{Name: "hang", Kind: "heap", Value: 100, Keys: 1000, Duration: 100 * time.Millisecond,
		Dir: t.TempDir(), Thresholds: results.DefaultThresholds()}
	res, err := r.Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	why := res.Verdict.Why
	if res.Stopped != results.StopHung || res.Verdict.Class != results.Failed || !strings.Contains(why, "killed by gcstress: no exit 3s past its 100ms run-time cap (a Put or Get hung)") ||
		strings.Contains(why, "died") {
		t.Errorf("stopped %q, verdict %s: %q", res.Stopped, res.Verdict.Class, why)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("the child reported no temporary file: %v (stderr %q)", err, res.Stderr)
	}
	if dir := filepath.Dir(string(b)); filepath.Dir(dir) != parentTmp || !strings.HasPrefix(filepath.Base(dir), TempPrefix) {
		t.Errorf("the child's temporary file %s is not in a private folder under %s", b, parentTmp)
	}
	if left, _ := os.ReadDir(parentTmp); len(left) != 0 {
		t.Errorf("left in TMPDIR after the child was killed: %v", left)
	}
}
