package results

import "fmt"

// The figures of a mixed workload (Scenario.Mix other than "w"): latency per
// operation type, reads inside and outside the collector's mark phase, and
// the preload phase before the measured one. They are fields of Sample
// (ops in windows and the end line; the rest on the end line only), so
// they reach samples.jsonl and summary.json's results[].end alike.

// OpLatency is one operation type's latency over a window or the run: the
// timed operations (one in Scenario.LatencyEvery), from each one's
// intended start in its open-loop slot (its actual start in a closed
// loop), in nanoseconds. Misses counts reads and read-modify-writes that
// found no value (a flushed record where flushes keep nothing, say): they
// are timed like hits and never left out. A plain value.
type OpLatency struct {
	N int64 `json:"n"` // timed operations (in the histogram)
	// Count is every operation of the type, timed or not; Misses are among
	// them.
	Count    int64 `json:"count"`
	Misses   int64 `json:"misses,omitempty"`
	ILatP50  int64 `json:"ilat_p50_ns"`
	ILatP99  int64 `json:"ilat_p99_ns"`
	ILatP999 int64 `json:"ilat_p999_ns"`
	ILatMax  int64 `json:"ilat_max_ns"`
	// LatP99 is the service time's p99 (from the actual start), for
	// telling queueing from slow operations.
	LatP99 int64 `json:"lat_p99_ns,omitempty"`
}

// ReadLatency is the timed reads (Gets, and the scans of a mix that
// scans) whose interval (intended start to end)
// did, or did not, overlap a GC mark phase (Sample.ReadInMark,
// Sample.ReadOutsideMark). A plain value.
type ReadLatency struct {
	N        int64 `json:"n"`
	ILatP50  int64 `json:"ilat_p50_ns"`
	ILatP99  int64 `json:"ilat_p99_ns"`
	ILatP999 int64 `json:"ilat_p999_ns"`
}

// Attribution sources (ReadAttribution.Source).
const (
	AttributionTrace = "trace" // a runtime execution trace of the measured phase
	AttributionOff   = "off"   // none: -read-trace off, or the trace could not start (Note says why)
)

// ReadAttribution is how the reads were tied to the collector, and what
// that cost (end line only). A plain value.
type ReadAttribution struct {
	Source string `json:"source"`
	Note   string `json:"note,omitempty"`
	// Reads is the timed reads attributed; Dropped those past the
	// recorder's cap (their latency is still in ops.read).
	Reads   int64 `json:"reads"`
	Dropped int64 `json:"dropped,omitempty"`
	// SlowNs is the threshold of a slow read: the p99 of all timed reads.
	SlowNs int64 `json:"slow_ns"`
	// The shares (%) of slow reads whose interval overlapped a mark phase,
	// a stop-the-world pause, or a mark assist on the reader's own
	// goroutine; AllInMarkPct is the share of all reads that overlapped a
	// mark phase, the baseline a slow read's share is read against.
	SlowInMarkPct   float64 `json:"slow_in_mark_pct"`
	SlowInPausePct  float64 `json:"slow_in_pause_pct"`
	SlowInAssistPct float64 `json:"slow_in_assist_pct"`
	AllInMarkPct    float64 `json:"all_in_mark_pct"`
	// MarkPct is the share of the measured phase spent in mark phases;
	// Cycles the mark phases the trace saw.
	MarkPct float64 `json:"mark_pct"`
	Cycles  int     `json:"cycles"`
	// Test is whether the reads in mark differ from the others, at the
	// bulk and in the tail (MarkTest); nil when a side had too few reads
	// to test (MinMarkTestReads), without a trace, or in a run from before
	// it.
	Test *MarkTest `json:"test,omitempty"`
	// The trace's own cost: its bytes, its events and the seconds its
	// parse took (after the load, outside every figure of the run).
	TraceBytes   int64   `json:"trace_bytes"`
	TraceEvents  int64   `json:"trace_events"`
	ParseSeconds float64 `json:"parse_s"`
}

// Preload is the preload phase: the records inserted, closed loop, before
// the measured phase started (its windows, latencies and GC figures are in
// no other field). A plain value.
type Preload struct {
	Records int64   `json:"records"`
	Seconds float64 `json:"seconds"`
	MBps    float64 `json:"mbps"`
	Cycles  uint64  `json:"gc_cycles"`
}

// MarkTest tests the reads that overlapped a mark phase (ReadInMark)
// against the others (ReadOutsideMark), on the same timed reads. A plain
// value.
type MarkTest struct {
	// P50P is the two-sided p-value of a Mann-Whitney U test of the two
	// sides' latencies: a shift of the bulk, read beside the medians.
	P50P float64 `json:"p50_p"`
	// P99P is the two-sided p-value of Fisher's exact test on the reads of
	// each side above the pooled p99 (P99Ns): a difference in the tail.
	P99P        float64 `json:"p99_p"`
	P99Ns       int64   `json:"p99_pooled_ns"`
	AboveP99In  int64   `json:"above_p99_in"`
	AboveP99Out int64   `json:"above_p99_out"`
}

// MixAlpha is the significance level below which a MarkTest p-value says
// the reads in mark differ from the others. Strict, because a run's reads
// are not independent draws (a loaded machine slows neighbours together),
// which makes every p-value somewhat optimistic.
const MixAlpha float64 = 0.01

// MinMarkTestReads is the fewest reads each side (in mark, outside) needs
// for a MarkTest: below it no test could tell a difference at any level
// worth stating, and a p-value would only look like evidence.
const MinMarkTestReads int64 = 20

// MinMixCycles is the fewest GC cycles a mixed workload's measured phase
// (its windows; the preload is not in them) must complete for a health
// verdict and for in-mark figures: with none no read can overlap a
// collection and every in-mark figure is vacuous; with one, one mark
// phase stands for the collector.
const MinMixCycles uint64 = 2

// MeasuredCycles is the GC cycles completed in the windows of samples
// (start and end lines ignored): for a mix, its measured phase's.
func MeasuredCycles(samples []Sample) uint64 {
	var n uint64
	for _, s := range samples {
		if s.Type == SampleWindow {
			n += s.WinCycles
		}
	}
	return n
}

// markFewCycles makes the verdict of mixed scenario s, whose windows w
// completed fewer than MinMixCycles GC cycles, Inconclusive with
// CauseNoCycle (none) or CauseFewCycles: a collector that hardly ran cannot be called healthy,
// and its readers cannot have felt it. A failed or interrupted verdict
// stays.
func (v *Health) markFewCycles(s Scenario, w []Sample) {
	n := MeasuredCycles(w)
	if !s.Mixed() || n >= MinMixCycles || v.Class == Failed || v.Class == Interrupted {
		return
	}
	what, cause := "no GC cycle completed", CauseNoCycle
	if n > 0 {
		what, cause = fmt.Sprintf("%d GC cycle completed", n), CauseFewCycles
	}
	why := fmt.Sprintf("%s in the measured phase, fewer than the %d a verdict on the collector and on reads during mark needs "+
		"(run longer, at a higher rate, or under a lower GOGC)", what, MinMixCycles)
	if v.Why != "" {
		why += "; windows: " + v.Why
	}
	v.Class, v.Cause, v.Why = Inconclusive, cause, why
}

// Label is the verdict's class as the reports print it: a mix's
// inconclusive verdict for too few cycles says so ("inconclusive (no GC
// cycle)", "inconclusive (few GC cycles)"); any other is its class.
func (v Health) Label() string {
	switch {
	case v.Class != Inconclusive:
	case v.Cause == CauseNoCycle:
		return "inconclusive (no GC cycle)"
	case v.Cause == CauseFewCycles:
		return "inconclusive (few GC cycles)"
	}
	return string(v.Class)
}

// FewMixCycles reports whether the verdict says a mix's measured phase
// completed too few GC cycles (markFewCycles): its in-mark figures are
// then n/a.
func (v Health) FewMixCycles() bool {
	return v.Class == Inconclusive && (v.Cause == CauseNoCycle || v.Cause == CauseFewCycles)
}
