package results

// The collector's cost over time from the runtime trace of the measured
// phase (issue 50): minimum mutator utilization and the mark assists each
// timed operation did. Fields of Sample's end line (Sample.MMU,
// Sample.MMUWorst, Sample.OpAssist, Sample.GCTrace); a run without a trace
// has none of them (absent in JSON: n/a, never a zero).

// Operation kinds of Sample.Assist.
const (
	AssistWrite = "write" // Puts: the write-only loop's, a mix's inserts, updates and read-modify-writes
	AssistRead  = "read"  // a mix's Gets and scans
)

// MMUPoint is the minimum mutator utilization at one window size: the
// smallest share (0..1) of the CPU the program's goroutines had in any
// window of WindowNs within the traced span, the collector's
// stop-the-world pauses, background mark workers and mark assists taken
// out (go tool trace's default selection). A plain value.
type MMUPoint struct {
	WindowNs int64   `json:"window_ns"`
	Util     float64 `json:"util"`
}

// WorstWindow is one of the windows with the lowest utilization: its start
// on the child's clock (nanoseconds since the load's start), its size and
// its utilization (0..1). A plain value.
type WorstWindow struct {
	StartNs  int64   `json:"start_ns"`
	WindowNs int64   `json:"window_ns"`
	Util     float64 `json:"util"`
}

// MMUWorstWindow is the window size of Sample.MMUWorst: 10 ms.
const MMUWorstWindow = 10_000_000

// MMUAt is the MMU at window ns in pts, and whether pts has that window.
func MMUAt(pts []MMUPoint, ns int64) (float64, bool) {
	for _, p := range pts {
		if p.WindowNs == ns {
			return p.Util, true
		}
	}
	return 0, false
}

// OpAssist is one operation kind's timed operations against their own
// goroutine's mark assists (traced ones only: those that ended inside the
// traced span). Ops with an assist are those whose goroutine assisted at
// any time during them; the slowest 1% are those at or above the p99 of
// all of them (none when every op took the median's time: then
// SlowestPctWithAssistPct is absent). AssistNsPerOp is the assist time
// inside the ops divided by all of them. Latencies are from each op's
// intended start, in nanoseconds; a side with no op has no p99 (absent).
// A plain value.
type OpAssist struct {
	Ops                     int64    `json:"ops"`
	Slowest                 int64    `json:"slowest"`
	OpsWithAssistPct        float64  `json:"ops_with_assist_pct"`
	SlowestPctWithAssistPct *float64 `json:"slowest_1pct_with_assist_pct,omitempty"`
	AssistNsPerOp           float64  `json:"assist_ns_per_op"`
	P99WithAssistNs         *int64   `json:"p99_with_assist_ns,omitempty"`
	P99WithoutAssistNs      *int64   `json:"p99_without_assist_ns,omitempty"`
}

// GCTrace is the runtime trace the end line's MMU and assist figures come
// from (end line only): whether there was one (Note says why not), the
// span it covered on the child's clock (it stops early at a size or time
// bound, so a long run is traced from its start only), the GC cycles it
// saw, and its own cost (bytes, events, parse seconds after the load).
// A plain value.
type GCTrace struct {
	Traced       bool    `json:"traced"`
	Note         string  `json:"note,omitempty"`
	SpanNs       int64   `json:"span_ns,omitempty"`
	Cycles       int     `json:"cycles"`
	Bytes        int64   `json:"bytes,omitempty"`
	Events       int64   `json:"events,omitempty"`
	ParseSeconds float64 `json:"parse_s,omitempty"`
	// Dropped is the timed operations in the traced span not in the
	// sample the child keeps (a uniform sample per worker)
	// (their latency is still in the run's histograms).
	Dropped int64 `json:"dropped,omitempty"`
}
