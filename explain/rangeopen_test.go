package explain

import (
	"testing"

	"golang.org/x/exp/trace"
)

// A range reported again as active at the start of a later generation (a
// flight-recorder trace) must not reopen it from the start of the trace:
// that once made a mark phase cover 115% of the trace.
func TestRangeOpen(t *testing.T) {
	mark := trace.Range{Name: "GC concurrent mark phase"}
	if rangeOpen(mark, 1, -1, nil, nil) {
		t.Error("mark phase reported open with none open")
	}
	if !rangeOpen(mark, 1, 5, nil, nil) {
		t.Error("open mark phase not seen: a later generation would reopen it")
	}
	stw := trace.Range{Name: "stop-the-world (GC mark termination)"}
	if !rangeOpen(stw, 3, -1, nil, map[trace.GoID]trace.Time{3: 7}) || rangeOpen(stw, 4, -1, nil, map[trace.GoID]trace.Time{3: 7}) {
		t.Error("stop-the-world open state is per goroutine")
	}
}
