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
	if knee := col("CPU at the knee"); rows[0][knee] != "-" {
		t.Errorf("heap row %v: no CPU figure, want -", rows[0])
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

// TestKneeCPU: the CPU at the knee is the median CPU-s per GB of the steps
// offered within 0.8-1.2x the sustainable rate (failed ones included, those
// without a CPU figure left out) times the rate, and the table shows both.
func TestKneeCPU(t *testing.T) {
	c := results.Capacity{Kind: "heap", Value: 100, SustainableMBps: 50, Steps: []results.CapacityStep{
		{TargetMBps: 10, CPUSPerGB: 60},                              // below the band
		{TargetMBps: 40, CPUSPerGB: 30},                              // 0.8x: in
		{TargetMBps: 50, CPUSPerGB: 32},                              // in
		{TargetMBps: 55, CPUSPerGB: 0},                               // no CPU figure
		{TargetMBps: 60, CPUSPerGB: 34, Limit: results.LimitLatency}, // 1.2x, failed: in
		{TargetMBps: 80, CPUSPerGB: 20},                              // above
	}}
	c.SetKnee()
	if c.KneeCPUSPerGB != 32 || c.KneeCores != 1.6 {
		t.Fatalf("knee %v CPU-s/GB, %v cores; want 32 and 1.6 (50 MB/s x 32 s/GB)", c.KneeCPUSPerGB, c.KneeCores)
	}
	_, rows := capacityTable([]results.Capacity{c})
	if !strings.Contains(strings.Join(rows[0], "|"), "|1.6 cores, 32 CPU-s/GB|") {
		t.Errorf("row %v lacks the CPU at the knee", rows[0])
	}
	c.Steps = c.Steps[:1]
	c.SetKnee()
	if c.KneeCPUSPerGB != 0 || c.KneeCores != 0 {
		t.Errorf("no step near the knee: %v, %v; want 0", c.KneeCPUSPerGB, c.KneeCores)
	}
}
