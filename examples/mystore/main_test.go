package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegc/writegc/internal/testkit"
)

// buildExample builds this program into a temporary folder, as a user
// would, and returns the folder and the binary; it skips the test under
// -short.
func buildExample(t *testing.T) (dir, exe string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the example")
	}
	return t.TempDir(), testkit.Build(t, ".", "mystore")
}

// TestMyStoreUnderGcstress builds this program as a user would and runs it:
// the user's engine and one of writegc's kinds each run a scenario in a
// child process of the user's own binary (which knows "mystore" only
// because its main registered it), and both rows are in summary.json,
// classified. An unknown kind is a usage error (exit 2) listing mystore.
func TestMyStoreUnderGcstress(t *testing.T) {
	dir, exe := buildExample(t)

	cmd := exec.Command(exe, "-kinds", "nosuch")
	b, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(b), "mystore") {
		t.Fatalf("-kinds nosuch: exit %d, want 2 listing mystore:\n%s", code, b)
	}

	out := filepath.Join(dir, "out")
	cmd = exec.Command(exe, "-kinds", "mystore,arena", "-values", "100", "-keys", "20K", "-scenario", "matrix",
		"-memstore", "1MB", "-regions", "1", "-window", "250ms", "-out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	var sum struct {
		Results []struct {
			Scenario struct{ Name string }
			Verdict  struct{ Class string }
			End      *struct{ Keys int64 }
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, r := range sum.Results {
		if r.End == nil || r.End.Keys != 20_000 {
			t.Errorf("%s: end %+v", r.Scenario.Name, r.End)
		}
		rows[r.Scenario.Name] = r.Verdict.Class
	}
	// 20K keys of 100 B take a fraction of a second, inside the 2 s warm-up:
	// the user's key count is written exactly, and too short a run to
	// judge is inconclusive, never a verdict from no data.
	for _, name := range []string{"mystore/100B", "arena/100B"} {
		if rows[name] != "inconclusive" {
			t.Errorf("%s: class %q, want inconclusive (rows %v)", name, rows[name], rows)
		}
	}
	if md, _ := os.ReadFile(filepath.Join(out, "report.md")); !strings.Contains(string(md), "mystore") {
		t.Errorf("report.md does not show mystore")
	}
}
