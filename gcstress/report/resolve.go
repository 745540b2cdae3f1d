package report

import (
	"fmt"

	"github.com/writegc/writegc/gcstress/compare"
	"github.com/writegc/writegc/gcstress/results"
)

// What a run can resolve, and how every table and sentence writes a figure
// below it: the one place the reports decide it.
//   - Heap objects per entry below gcstress compare's floor for the unit
//     (0.01, compare.ObjectsPerEntry.Floor) read "~0": a kind that holds a
//     few objects per chunk reads 0.0007 at 55K entries and 0.16 at 283,
//     its entry count's figure rather than its layout's.
//   - GC CPU per Put and per GB, assist and GC cycles per GB of a run whose
//     cost windows completed fewer than results.MinCostCycles GC cycles
//     read "n/a (fewer than N cycles)" (fewCycles): the runtime's CPU
//     counters advance only when a cycle ends.
//   - No ratio of two figures unless both are resolved: two kinds at ~0
//     read "both ~0", and a ratio against ~0 is not given.
//   - Bytes per entry count what the engine holds off the Go heap too
//     (results.Footprint.OffHeapPerEntry); a kind whose heap plus
//     off-heap bytes per entry are below one entry's key and value is
//     flagged, naming its entry count (inflatedText).

// approxZero is how a figure below what the run resolves reads.
const approxZero = "~0"

// objectsResolved says whether v heap objects per entry is above what a
// run resolves.
func objectsResolved(v float64) bool { return v >= compare.ObjectsPerEntry.Floor() }

// objectsText is v heap objects per entry in a sentence: "~0" or its
// figure.
func objectsText(v float64) string {
	if !objectsResolved(v) {
		return approxZero
	}
	return figure(v)
}

// objectsCell is v heap objects per entry in a table: "-" without
// entries, "~0" or three significant digits.
func objectsCell(v float64, entries int64) string {
	if entries > 0 && !objectsResolved(v) {
		return approxZero
	}
	return perEntry(v, entries)
}

// fewCycles is how a GC CPU figure of a run with too few cycles reads.
func fewCycles() string {
	return fmt.Sprintf("n/a (fewer than %d cycles)", results.MinCostCycles)
}

// gcCell is a GC CPU figure v of end record e in format f, or fewCycles
// when e's cost rests on too few cycles.
func gcCell(e *results.Sample, v float64, f string) string {
	if !e.CostResolved() {
		return fewCycles()
	}
	return fmt.Sprintf(f, v)
}

// flaggedFootprint says whether e's footprint, at value bytes per value,
// is flagged: the run flagged it and, judged again with what the engine
// holds off the Go heap (a record from before off-heap bytes counted
// flagged engines that keep their data there), it still holds fewer bytes
// per entry than key+value.
func flaggedFootprint(e *results.Sample, value int64) bool {
	return e != nil && e.Impossible && results.Inflated(e.EntryFootprint(), value)
}

// inflatedText names the figure a flagged footprint doubts: "entries
// 1,200,000 (engine) looks inflated: heap+off-heap bytes per entry 12 B is
// below key+value 116 B".
func inflatedText(e *results.Sample, value int64) string {
	fp := e.EntryFootprint()
	from := "reported by the engine"
	if fp.EntriesFrom == results.EntriesKeys {
		from = "the keys written: the engine reports none"
	}
	return fmt.Sprintf("entries %s (%s) looks inflated: heap+off-heap bytes per entry %s B is below key+value %d B",
		commas(fp.Entries), from, figure(fp.BytesPerEntry+fp.OffHeapPerEntry), int64(results.KeySize)+value)
}

// bytesCell is the cost table's bytes per entry: the Go heap's, plus the
// off-heap bytes when the engine reports any ("12 + 1,104 off-heap"), and
// the flag when they are below key+value.
func bytesCell(e *results.Sample, value int64) string {
	fp := e.EntryFootprint()
	s := perEntry(fp.BytesPerEntry, fp.Entries)
	if fp.Entries > 0 && fp.OffHeapPerEntry > 0 {
		s += " + " + perEntry(fp.OffHeapPerEntry, fp.Entries) + " off-heap"
	}
	if flaggedFootprint(e, value) {
		s += fmt.Sprintf(" (below key+value %d B: entries inflated?)", int64(results.KeySize)+value)
	}
	return s
}
