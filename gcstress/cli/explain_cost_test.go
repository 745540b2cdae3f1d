package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// TestScenarioCostFromSummary: explain -diff finds a scenario's end record
// figures in summary.json next to its profiles' folder, by the folder's
// name, and nothing for a folder no summary names.
func TestScenarioCostFromSummary(t *testing.T) {
	out := t.TempDir()
	mk := func(name, dir string, obj, ns float64) results.Result {
		e := &results.Sample{Type: results.SampleEnd}
		e.ObjectsPerEntry, e.GCCPUNsPerPut = obj, ns
		return results.Result{Scenario: results.Scenario{Name: name, Dir: filepath.Join(out, dir)}, End: e,
			Verdict: results.Health{Class: results.Healthy, GCPct: 5}}
	}
	sum := results.Summary{Results: []results.Result{mk("shardmap/100B", "shard", 2.01, 109), mk("segstore/100B", "seg", 0.004, 21)}}
	b, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "summary.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"shard", "seg", "other"} {
		if err := os.Mkdir(filepath.Join(out, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	a, g := scenarioCost(filepath.Join(out, "shard")), scenarioCost(filepath.Join(out, "seg"))
	if a == nil || g == nil || a.ObjectsPerEntry <= 100*g.ObjectsPerEntry || a.GCCPUNsPerPut <= g.GCCPUNsPerPut || a.GCShare != 0.05 {
		t.Fatalf("costs %+v %+v", a, g)
	}
	if c := scenarioCost(filepath.Join(out, "other")); c != nil {
		t.Fatalf("a folder no summary names: %+v", c)
	}
	if c := scenarioCost(filepath.Join(out, "shard", "cpu.pprof")); c != nil {
		t.Fatalf("a file: %+v", c)
	}
}
