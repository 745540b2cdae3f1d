package load

import (
	"testing"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/memtable"
)

// TestImpossibleFootprint: fewer heap bytes per entry than key+value is
// flagged, except for the kind that keeps values off the Go heap.
func TestImpossibleFootprint(t *testing.T) {
	s := results.Scenario{Kind: "mine", Value: 1000}
	if !impossibleFootprint(results.Footprint{Entries: 10, BytesPerEntry: 871}, s) {
		t.Error("871 B per entry of 1 KB values not flagged")
	}
	if impossibleFootprint(results.Footprint{Entries: 10, BytesPerEntry: 1100}, s) {
		t.Error("1,100 B per entry of 1 KB values flagged")
	}
	s.Kind = memtable.KindOffHeap
	if impossibleFootprint(results.Footprint{Entries: 10, BytesPerEntry: 40}, s) {
		t.Error("offheap flagged")
	}
}
