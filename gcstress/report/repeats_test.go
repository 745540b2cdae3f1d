package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// TestRepeatsTable: with -count, each scenario's runs are one row of
// medians and ranges, the rows of the other tables carry the round, and a
// run of one round has no such table; GC CPU resting on too few cycles
// and objects below what a run resolves read as every table writes them.
func TestRepeatsTable(t *testing.T) {
	run := func(rep int, mbps, gc, obj float64, c results.Class) results.Result {
		return results.Result{Scenario: results.Scenario{Name: "matrix/heap/100B", Group: results.SetMatrix, Kind: "heap", Value: 100, Repeat: rep},
			End:     &results.Sample{Type: results.SampleEnd, MBps: mbps, PauseP99us: 120, Footprint: results.Footprint{ObjectsPerEntry: obj, Entries: 1000}, Cost: results.Cost{GCCPUNsPerPut: gc}.WithCycles(5, 1e9)},
			Verdict: results.Health{Class: c}}
	}
	rs := []results.Result{run(1, 50, 300, 3, results.Elevated), run(2, 60, 310, 3.1, results.Healthy), run(3, 40, 290, 2.9, results.Elevated)}
	h, rows := repeatsTable(rs)
	if len(rows) != 1 || len(rows[0]) != len(h) {
		t.Fatalf("rows %v", rows)
	}
	want := []string{"matrix/heap/100B", "3 of 3", "50 [40 to 60]", "300 [290 to 310]", "3 [2.9 to 3.1]", "120 µs [120 µs to 120 µs]", "elevated ×2, healthy ×1"}
	for i, w := range want {
		if rows[0][i] != w {
			t.Errorf("%s: %q, want %q", h[i], rows[0][i], w)
		}
	}
	var b bytes.Buffer
	writeResultTables(&b, rs, nil, tableHeadings{repeats: "REPEATS\n", esc: noEscape})
	if out := b.String(); !strings.Contains(out, "REPEATS") || !strings.Contains(out, "matrix/heap/100B #2") {
		t.Errorf("tables lack the repeats table or the round in rows:\n%s", out)
	}
	few := []results.Result{run(1, 50, 300, 0.004, results.Healthy), run(2, 50, 300, 0.003, results.Healthy)}
	for i := range few {
		few[i].End.Cost = results.Cost{GCCPUNsPerPut: 300}.WithCycles(1, 1e9)
	}
	if _, rows := repeatsTable(few); len(rows) != 1 || rows[0][3] != "n/a (fewer than 2 cycles)" || rows[0][4] != "~0 [~0 to ~0]" {
		t.Errorf("runs of one cycle at ~0 objects: %v", rows)
	}
	one := []results.Result{run(0, 50, 300, 3, results.Healthy)}
	if _, rows := repeatsTable(one); len(rows) != 0 {
		t.Errorf("one round has a repeats table: %v", rows)
	}
	if got := one[0].Scenario.RunLabel(); got != "matrix/heap/100B" {
		t.Errorf("RunLabel with one round: %q", got)
	}
}
