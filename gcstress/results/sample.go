package results

import (
	"math"

	"github.com/writegc/writegc/gcmetrics"
)

import hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

// SampleType is the kind of a line in a child's stream (Sample.Type). The
// values are the JSON strings of samples.jsonl and do not change.
type SampleType string

// The lines of a child's stream, in the order they come: one start line,
// window lines (flight lines among them), one end line. A child that dies
// leaves no end line. After the child exited, the parent appends one exit
// line of its own to samples.jsonl (streams of StreamProto 2 on), so a
// scenario with neither an end nor an exit line is one whose parent stopped
// recording: gcstress itself was killed (replay.go).
const (
	SampleStart  SampleType = "start"  // the scenario and the child's pid
	SampleWindow SampleType = "window" // one sampling window
	SampleFlight SampleType = "flight" // the flight recorder was dumped
	SampleEnd    SampleType = "end"    // the whole run's record
	SampleExit   SampleType = "exit"   // written by the parent: how the child ended (Exit, Reason)
)

// StopReason says why a scenario's load stopped. The child writes one on
// its end line (Sample.Reason); the parent records in Result.Stopped why it
// stopped a child itself. The values are JSON strings and do not change.
type StopReason string

// Why the child's load stopped (end line).
const (
	StopKeys        StopReason = "keys"        // every key was written
	StopDuration    StopReason = "duration"    // the scenario's run-time cap passed
	StopInterrupted StopReason = "interrupted" // told to stop (SIGINT/SIGTERM); also the parent's Ctrl-C
	StopRSSCap      StopReason = "rss-cap"     // resident memory passed the hard cap
	StopError       StopReason = "error"       // a Put or the engine failed
)

// Why the parent stopped a child (Result.Stopped), besides StopInterrupted.
const (
	StopFailed StopReason = "failed" // the stream was classified failed (Runner.StopOnFail)
	StopHung   StopReason = "hung"   // no exit two minutes past the scenario's run-time cap
	// StopStalled: a scenario without a run-time cap streamed no progress
	// (no record, or no key written) for Scenario.StallTimeout.
	StopStalled StopReason = "stalled"
)

// Sample is one JSON line of a child's stream (see SampleType). Window fields
// marked "delta" cover the window only; the others are cumulative since the
// scenario started or are point values read at the window's end. CPU figures
// are cpu-seconds from runtime/metrics (they advance only when a GC cycle
// ends; see health.go). Latencies are nanoseconds from an HdrHistogram of
// the timed Puts (one in LatencyEvery). JSON keys are snake_case. A Sample
// is a plain value.
type Sample struct {
	Type     SampleType `json:"type"`
	Scenario string     `json:"scenario"`
	T        float64    `json:"t"`             // seconds since the load started, at the window's end
	Dur      float64    `json:"dur,omitempty"` // window length, seconds

	Keys      int64   `json:"keys"`  // keys written (cumulative)
	Bytes     int64   `json:"bytes"` // key+value bytes written (cumulative)
	WinKeys   int64   `json:"win_keys,omitempty"`
	WinBytes  int64   `json:"win_bytes,omitempty"`
	MBps      float64 `json:"mbps"`     // key+value MB/s, MB = 10^6 B (bytesPerMB): the window's (end line: the run's)
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

	// Open-loop runs (Scenario.Rate > 0): latency of the same timed Puts
	// measured from each Put's intended start (its slot in the schedule;
	// its actual start when it started early), so a Put that waited behind
	// a GC pause also charges the Puts that should have started meanwhile.
	// Always at least the lat_* figure of the same Puts.
	ILatP50  int64 `json:"ilat_p50_ns,omitempty"`
	ILatP99  int64 `json:"ilat_p99_ns,omitempty"`
	ILatP999 int64 `json:"ilat_p999_ns,omitempty"`
	ILatMax  int64 `json:"ilat_max_ns,omitempty"`
	// TargetMBps is the scheduled rate (key+value MB/s) of an open-loop
	// run; 0 closed loop.
	TargetMBps float64 `json:"target_mbps,omitempty"`
	// SteadyILatP99 (end line only) is the p99 from intended start over
	// the windows that ended after the warm-up: what a capacity step's
	// latency limit is checked against.
	SteadyILatP99 int64 `json:"ilat_steady_p99_ns,omitempty"`
	// SteadyMBps (end line only) is the achieved MB/s over the windows
	// after the warm-up (the whole run when none ended after it).
	SteadyMBps float64 `json:"steady_mbps,omitempty"`

	Flushes        int64 `json:"flushes"`
	FlushedBytes   int64 `json:"flushed_bytes"`
	PendingFlushes int64 `json:"pending_flushes"`
	MemtableBytes  int64 `json:"memtable_bytes"`
	BlockedNanos   int64 `json:"blocked_ns"` // writers' time blocked by backpressure (cumulative)
	// OffHeapBytes is what the engine holds outside the Go heap now
	// (EngineStats.OffHeapBytes: mmap'd chunks, cgo allocations); 0 when
	// it reports none.
	OffHeapBytes int64 `json:"offheap_bytes,omitempty"`

	// Start line only: the scenario, the child's process id and the
	// stream's protocol version (StreamProto; absent before version 2).
	Spec  *Scenario `json:"spec,omitempty"`
	PID   int       `json:"pid,omitempty"`
	Proto int       `json:"proto,omitempty"`
	// Exit (exit line only, written by the parent) is how the child ended;
	// the line's Reason is why the parent stopped it, if it did.
	Exit *Exit `json:"exit,omitempty"`
	// Hist is the whole run's Put latency histogram (end line only), for
	// writepath's PE and YCSB printers.
	Hist *hdrhistogram.Snapshot `json:"hist,omitempty"`
	// End line: why the load stopped, and the error text if any.
	Reason StopReason `json:"reason,omitempty"`
	Err    string     `json:"err,omitempty"`
	// Peaks over the run (end line).
	PeakHeap uint64 `json:"peak_heap,omitempty"`
	PeakRSS  uint64 `json:"peak_rss,omitempty"`
	// Flight is the flight-recorder dump written on the first unhealthy
	// window, if any (a "flight" line).
	Flight string `json:"flight,omitempty"`
	// Class (flight line only) is the class of the window that triggered
	// the dump (Degraded or Failed). Before it, a flight line carried the
	// class as its reason; nothing reads either.
	Class Class `json:"class,omitempty"`
	// Footprint and cost (end line only; see Footprint and Cost in
	// footprint.go): what the engine holds per entry on the Go heap after a
	// forced GC at the end of the load, and what the collector cost per Put
	// and per GB written over the windows after the warm-up.
	Footprint
	Cost

	// Notes (end line only) are the engine's own figures, when it is a
	// NoteEngine (a cache's accepted writes and hit ratio, say).
	Notes map[string]float64 `json:"engine_notes,omitempty"`

	// Mixed workloads (Scenario.Mix other than "w"; readers.go): latency
	// per operation type (windows and end line), keyed by operation name
	// (read, update, insert, scan, rmw); and on the end line the reads in
	// and outside mark, the share of slow reads (over the reads' p99) that
	// overlapped a mark phase, a pause or an assist, how they were
	// attributed, and the preload phase.
	Ops              map[string]OpLatency `json:"ops,omitempty"`
	ReadInMark       *ReadLatency         `json:"read_in_mark,omitempty"`
	ReadOutsideMark  *ReadLatency         `json:"read_outside_mark,omitempty"`
	SlowReadsInGCPct *float64             `json:"slow_reads_in_gc_pct,omitempty"`
	ReadAttribution  *ReadAttribution     `json:"read_attribution,omitempty"`
	Preload          *Preload             `json:"preload,omitempty"`
	// Settle (end line only) is the settle phase (Scenario.Settle).
	Settle *Settle `json:"settle,omitempty"`
	// Shape (end line only) is the heap's shape at the end of the load,
	// before the footprint's forced GC: scannable bytes and objects by
	// size (gcmetrics.HeapShape), what predicts how a collector's cost
	// moves. MarkWallMs (end line only) is gcmetrics.MarkWallPerCycle over
	// the run, in ms.
	Shape      *gcmetrics.HeapShape `json:"heap_shape,omitempty"`
	MarkWallMs float64              `json:"mark_wall_ms,omitempty"`
	// The collector over time, from the runtime trace (end line only;
	// mmu.go): minimum mutator utilization per window size, the worst
	// 10 ms windows, the timed operations' mark assists per kind ("write",
	// "read") and the trace itself. Absent without a trace (n/a).
	MMU      []MMUPoint          `json:"mmu,omitempty"`
	MMUWorst []WorstWindow       `json:"mmu_worst,omitempty"`
	OpAssist map[string]OpAssist `json:"assist,omitempty"`
	GCTrace  *GCTrace            `json:"gc_trace,omitempty"`
}

// SetGC sets w's collector fields from the interval d that ends at the
// reading at: pause percentiles, CPU accounting and shares, heap levels and
// limiter state. It is how the sampler fills each window and the end
// record, and every figure is gcmetrics' (the GC share leaves out
// idle-priority marking; see gcmetrics). It only writes w.
func (w *Sample) SetGC(d gcmetrics.Delta, at gcmetrics.Snapshot) {
	w.Pauses = d.Pauses.Count()
	w.PauseP50us = d.Pauses.Quantile(0.50) * 1e6
	w.PauseP99us = d.PauseP99() * 1e6
	w.PauseMaxus = d.Pauses.Max() * 1e6
	w.CPUUsed, w.GCCPU, w.Assist, w.Dedicated, w.IdleMark = d.CPUUsed, d.GCCPU, d.Assist, d.Dedicated, d.IdleMark
	w.GCPct, w.AssistPct = d.GCCPUPercent(), d.AssistPercent()
	w.HeapLive, w.HeapGoal, w.HeapObjects, w.HeapUnused = at.HeapLive, at.HeapGoal, at.HeapObjects, at.HeapUnused
	if at.MemLimit < math.MaxInt64 {
		w.MemLimit = at.MemLimit
	}
	w.LimiterLast, w.LimiterCycles = at.LimiterLastEnabled, at.Cycles
}
