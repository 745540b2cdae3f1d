package report

import (
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// TestCapacityTableSaysContended: a search the machine's other load
// stopped is marked in the table (a lower bound, "yes") and explained in the
// notes; a confirmed one shows its runs and spread.
func TestCapacityTableSaysContended(t *testing.T) {
	cs := []results.Capacity{
		{Kind: "heap", Value: 100, SustainableMBps: 20, FirstUnhealthyMBps: 22, Limit: results.LimitGCCPU,
			SustainableRuns: 3, SpreadPct: 4.2,
			Steps: []results.CapacityStep{{TargetMBps: 22, Why: "GC CPU 31% >= 25%", Limit: results.LimitGCCPU}}},
		{Kind: "arena", Value: 100, SustainableMBps: 54.8, FirstUnhealthyMBps: 60, Limit: results.LimitLatency,
			Contended: true, ContendedWhy: "at 60 MB/s p99 310 ms > 50 ms while other processes and steal took 1.30 cores (3 runs)",
			Steps: []results.CapacityStep{{TargetMBps: 60, Limit: results.LimitLatency, Contended: true, Why: "p99 310 ms > 50 ms"}}},
	}
	h, rows := capacityTable(cs)
	col := func(name string) int {
		for i, c := range h {
			if c == name {
				return i
			}
		}
		t.Fatalf("no column %q in %v", name, h)
		return -1
	}
	sus, con, runs, spread := col("Sustainable MB/s"), col("Contended"), col("Runs"), col("Spread")
	if rows[0][con] != "no" || rows[0][sus] != "20" || rows[0][runs] != "3" || rows[0][spread] != "4.2%" {
		t.Errorf("heap row %v", rows[0])
	}
	if rows[1][con] != "yes" || rows[1][sus] != "≥ 54.8 (contended)" || rows[1][runs] != "-" {
		t.Errorf("arena row %v: a contended figure must read as a lower bound", rows[1])
	}
	notes := capacityNotes(cs, results.Thresholds{}, noEscape)
	if !strings.Contains(notes, "arena 100B: contended: at 60 MB/s") || !strings.Contains(notes, "a lower bound, not its capacity") {
		t.Errorf("notes do not explain the contended search:\n%s", notes)
	}
	if strings.Contains(notes, "heap 100B: contended") {
		t.Errorf("an uncontended search is called contended:\n%s", notes)
	}
}

// TestCapacityConclusionBounds: a contended figure reads as a bound in
// the conclusions too, with its interval elsewhere; overlapping intervals
// are about the same rate.
func TestCapacityConclusionBounds(t *testing.T) {
	heap := results.Capacity{Kind: "heap", Value: 100, SustainableMBps: 14.7, SustainableLoMBps: 12, SustainableHiMBps: 17, Limit: results.LimitGCCPU}
	off := results.Capacity{Kind: "offheap", Value: 100, SustainableMBps: 20.9, SustainableLoMBps: 20.9, SustainableHiMBps: 20.9, Contended: true}
	got := capacityConclusions([]results.Capacity{heap, off}, noEscape)
	want := "Capacity at 100B values: offheap sustains ≥ 20.9 MB/s (contended) healthy against heap's 14.7 MB/s (12-17) (at least 1.4x more); heap is first limited by gc_cpu."
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	arena := results.Capacity{Kind: "arena", Value: 100, SustainableMBps: 18, SustainableLoMBps: 15, SustainableHiMBps: 24}
	got = capacityConclusions([]results.Capacity{heap, arena}, noEscape)
	if len(got) != 1 || !strings.Contains(got[0], "sustain about the same rate") {
		t.Errorf("overlapping intervals: %q", got)
	}
}
