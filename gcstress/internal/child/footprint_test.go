package child

import (
	"testing"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/memtable"
)

// TestImpossibleFootprint: fewer bytes per entry, Go heap and off-heap
// together, than key+value is flagged, for every kind alike: writegc's
// offheap kind is not exempt by name (it reports its chunks as off-heap
// bytes), and an engine keeping its data in mmap'd chunks whose off-heap
// bytes cover key+value is not flagged, unless its entry count is
// inflated.
func TestImpossibleFootprint(t *testing.T) {
	s := results.Scenario{Kind: "mine", Value: 1000}
	heapOnly := func(b float64) results.Footprint { return results.Footprint{Entries: 10, BytesPerEntry: b} }
	for _, tc := range []struct {
		name string
		kind string
		fp   results.Footprint
		want bool
	}{
		{"871 B per entry of 1 KB values", "mine", heapOnly(871), true},
		{"1,100 B per entry of 1 KB values", "mine", heapOnly(1100), false},
		{"offheap without off-heap bytes", memtable.KindOffHeap, heapOnly(40), true},
		{"offheap whose chunks cover key+value", memtable.KindOffHeap, heapOnly(40).WithOffHeap(10 * 1100), false},
		{"mmap'd cache: 12 B heap + 1,104 B off-heap per entry", "chunked",
			results.Footprint{Entries: 100_000, BytesPerEntry: 12}.WithOffHeap(100_000 * 1104), false},
		{"mmap'd cache with its entry count inflated tenfold", "chunked",
			results.Footprint{Entries: 1_000_000, BytesPerEntry: 1.2}.WithOffHeap(100_000 * 1104), true},
		{"no entries", "mine", results.Footprint{}, false},
	} {
		s.Kind = tc.kind
		if got := impossibleFootprint(tc.fp, s); got != tc.want {
			t.Errorf("%s (%+v): flagged %v, want %v", tc.name, tc.fp, got, tc.want)
		}
	}
}

// offHeapEngine reports fixed entries and off-heap bytes.
type offHeapEngine struct{ st EngineStats }

func (e offHeapEngine) Stats() EngineStats { return e.st }

// TestFootprintOffHeap: the footprint's off-heap bytes per entry are the
// engine's OffHeapBytes over the entries of the same Stats call, over the
// keys written when the engine reports no entries.
func TestFootprintOffHeap(t *testing.T) {
	base := heapAfterGC()
	_, fp := footprint(base, offHeapEngine{EngineStats{Entries: 1000, OffHeapBytes: 1_116_000}}, 5000)
	if fp.Entries != 1000 || fp.OffHeapPerEntry != 1116 || impossibleFootprint(fp, results.Scenario{Value: 1100}) {
		t.Errorf("engine entries: %+v", fp)
	}
	_, fp = footprint(base, offHeapEngine{EngineStats{OffHeapBytes: 1_116_000}}, 4000)
	if fp.Entries != 4000 || fp.OffHeapPerEntry != 279 || !impossibleFootprint(fp, results.Scenario{Value: 1100}) {
		t.Errorf("keys written: %+v", fp)
	}
}
