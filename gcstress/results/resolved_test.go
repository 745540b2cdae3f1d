package results

import "testing"

// TestCostResolved: a cost counts from MinCostCycles cycles in its
// windows; a record from before SteadyCycles falls back on its whole
// run's cycles when its cost shows one ended, and a record whose windows
// ended none is unresolved whatever its warm-up completed.
func TestCostResolved(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    Sample
		want uint64
	}{
		{"two cycles in the windows", Sample{Cycles: 5, Cost: Cost{GCCPUSPerGB: 0.2}.WithCycles(2, 1e9)}, 2},
		{"one cycle in the windows, four in the warm-up", Sample{Cycles: 5, Cost: Cost{GCCPUSPerGB: 0.2}.WithCycles(1, 1e9)}, 1},
		{"none in the windows", Sample{Cycles: 5, Cost: Cost{CPUSPerGB: 3}.WithCycles(0, 1e9)}, 0},
		{"older record: GC CPU, no steady cycles", Sample{Cycles: 7, Cost: Cost{GCCPUSPerGB: 0.2}}, 7},
	} {
		if got := tc.e.CostCycles(); got != tc.want || tc.e.CostResolved() != (tc.want >= MinCostCycles) {
			t.Errorf("%s: %d cycles (resolved %v), want %d", tc.name, got, tc.e.CostResolved(), tc.want)
		}
	}
	if (&Sample{Cycles: 9}).CostResolved() {
		t.Error("a record without a cost is resolved")
	}
}

// TestEntryFootprintOffHeap: an older end record's off-heap bytes per
// entry come from its offheap_bytes, and count in Inflated.
func TestEntryFootprintOffHeap(t *testing.T) {
	e := Sample{Footprint: Footprint{Entries: 1000, BytesPerEntry: 20, Impossible: true}, OffHeapBytes: 1000 * 200}
	if fp := e.EntryFootprint(); fp.OffHeapPerEntry != 200 || Inflated(fp, 100) || !Inflated(fp, 500) {
		t.Errorf("%+v", fp)
	}
}
