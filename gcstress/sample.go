package gcstress

import hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

// Sample is one JSON line of a child's stream: a window ("window"), the
// first line ("start") or the last ("end"). Window fields marked "delta"
// cover the window only; the others are cumulative since the scenario
// started or are point values read at the window's end. CPU figures are
// cpu-seconds from runtime/metrics (they advance only when a GC cycle ends;
// see health.go). Latencies are nanoseconds from an HdrHistogram of the
// timed Puts (one in LatencyEvery). A Sample is a plain value.
type Sample struct {
	Type     string  `json:"type"`
	Scenario string  `json:"scenario"`
	T        float64 `json:"t"`             // seconds since the load started, at the window's end
	Dur      float64 `json:"dur,omitempty"` // window length, seconds

	Keys      int64   `json:"keys"`  // keys written (cumulative)
	Bytes     int64   `json:"bytes"` // key+value bytes written (cumulative)
	WinKeys   int64   `json:"win_keys,omitempty"`
	WinBytes  int64   `json:"win_bytes,omitempty"`
	MBps      float64 `json:"mbps"`     // window (end line: whole run), MiB/s of key+value bytes
	Progress  float64 `json:"progress"` // keys / target keys, 0..1
	Target    int64   `json:"target,omitempty"`
	Cycles    uint64  `json:"cycles"`               // GC cycles since the scenario started
	WinCycles uint64  `json:"win_cycles,omitempty"` // delta

	PauseP50us float64 `json:"pause_p50_us"` // delta histogram, bucket upper bounds
	PauseP99us float64 `json:"pause_p99_us"`
	PauseMaxus float64 `json:"pause_max_us"`
	Pauses     uint64  `json:"pauses,omitempty"`

	CPUUsed   float64 `json:"cpu_used"` // delta cpu-seconds: total - idle
	GCCPU     float64 `json:"gc_cpu"`   // delta: GC total minus idle mark
	Assist    float64 `json:"gc_assist"`
	Dedicated float64 `json:"gc_dedicated"`
	IdleMark  float64 `json:"gc_idle"`
	GCPct     float64 `json:"gc_pct"`     // GCCPU / CPUUsed (0 when no cycle ended)
	AssistPct float64 `json:"assist_pct"` // Assist / CPUUsed

	HeapLive      uint64 `json:"heap_live"`
	HeapGoal      uint64 `json:"heap_goal"`
	HeapObjects   uint64 `json:"heap_objects"`
	MemLimit      uint64 `json:"memlimit,omitempty"` // 0 when GOMEMLIMIT is off
	LimiterLast   uint64 `json:"limiter_last"`       // /gc/limiter/last-enabled:gc-cycle
	LimiterCycles uint64 `json:"limiter_cycles"`     // /gc/cycles/total at the same reading
	HeapUnused    uint64 `json:"heap_unused"`
	RSS           uint64 `json:"rss"`
	// ProcCPU is the process's CPU time (user+sys, getrusage) in the window
	// (end line: the run), seconds: on a shared machine it shows how much
	// CPU the child actually got.
	ProcCPU float64 `json:"proc_cpu"`

	LatN    int64   `json:"lat_n,omitempty"`
	LatP50  int64   `json:"lat_p50_ns"`
	LatP99  int64   `json:"lat_p99_ns"`
	LatP999 int64   `json:"lat_p999_ns"`
	LatMax  int64   `json:"lat_max_ns"`
	LatMean float64 `json:"lat_mean_ns,omitempty"`
	LatMin  int64   `json:"lat_min_ns,omitempty"`
	LatP95  int64   `json:"lat_p95_ns,omitempty"`

	Flushes        int64 `json:"flushes"`
	FlushedBytes   int64 `json:"flushed_bytes"`
	PendingFlushes int64 `json:"pending_flushes"`
	MemtableBytes  int64 `json:"memtable_bytes"`
	BlockedNanos   int64 `json:"blocked_ns"` // writers' time blocked by backpressure (cumulative)

	// Start line only: the scenario and the child's process id.
	Spec *Scenario `json:"spec,omitempty"`
	PID  int       `json:"pid,omitempty"`
	// Hist is the whole run's Put latency histogram (end line only), for
	// writepath's PE and YCSB printers.
	Hist *hdrhistogram.Snapshot `json:"hist,omitempty"`
	// End line only: why the load stopped ("keys", "duration", "interrupted",
	// "stopped", "rss-cap", "error") and the error text if any.
	Reason string `json:"reason,omitempty"`
	Err    string `json:"err,omitempty"`
	// Peaks over the run (end line).
	PeakHeap uint64 `json:"peak_heap,omitempty"`
	PeakRSS  uint64 `json:"peak_rss,omitempty"`
	// Flight is the flight-recorder dump written on the first unhealthy
	// window, if any (a "flight" line).
	Flight string `json:"flight,omitempty"`
}
