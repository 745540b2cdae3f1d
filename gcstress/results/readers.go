package results

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
