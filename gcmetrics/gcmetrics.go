// Package gcmetrics is writegc's one definition of what the garbage
// collector cost: it reads the runtime/metrics counters, takes the
// difference between two readings, and computes from that difference the
// figures every writegc report uses — GC CPU share, assist share, pause
// percentiles, cycles — plus the heap sizes of a reading. The gcstress
// sampler, explain's runtime/metrics figure and the benchmarks (through
// gcmetrics/gcbench) all call the methods here; none recomputes them.
//
// Definitions:
//   - The denominator of every CPU share is the CPU the process used:
//     /cpu/classes/total minus /cpu/classes/idle ([CPU.CPUUsed]). That is
//     the base a CPU profile and the OS account for, so shares here can be
//     held against a profile's.
//   - GC CPU ([CPU.GCCPU]) is /cpu/classes/gc/total minus
//     /cpu/classes/gc/mark/idle. Idle-priority mark work runs only on a P
//     that would otherwise sit idle and yields it the moment a goroutine is
//     runnable, so it takes no CPU from the program; counting it would make
//     the GC share grow with the number of spare cores rather than with
//     the write path's cost. It stays in the denominator because the
//     process did use that CPU, and it is kept apart ([CPU.IdleMark]) for
//     readers who want it. Assists, dedicated and fractional workers and
//     stop-the-world pauses count.
//   - Shares are percentages, 0 when the interval used no CPU.
//   - The /cpu/classes counters advance only when a GC cycle ends (measured
//     on Go 1.26), so an interval in which no cycle completed shows 0% GC
//     CPU whatever was marked in it; read [CPU.Cycles] beside a share, and
//     compare intervals that span cycles.
//   - Pause figures come from the interval's part of
//     /sched/pauses/total/gc:seconds, a histogram; percentiles are bucket
//     upper bounds ([Histogram.Quantile]).
//   - Heap figures (live, goal, objects, unused) are levels of one
//     [Snapshot], not differences.
//   - The heap's shape ([HeapShape], [ReadShape]: scannable bytes per live
//     byte from /gc/scan/*, objects by size from /gc/heap/allocs-by-size
//     minus frees-by-size) is read once per run, not per window: it
//     allocates. The mark phase's wall time per cycle ([MarkWallPerCycle])
//     is an estimate from the background mark workers' CPU.
//
// Snapshot, Delta, CPU and Histogram are plain values, safe to copy and
// to share once built. CPU is JSON-encodable for files that outlive the
// process (explain's metrics.json). A Reader is not safe for concurrent
// use; [Read] is. The package imports neither testing nor flag, prints
// nothing and never exits.
package gcmetrics

import (
	"runtime/metrics"
	"slices"
)

// Metric names.
const (
	mCPUTotal   = "/cpu/classes/total:cpu-seconds"
	mCPUIdle    = "/cpu/classes/idle:cpu-seconds"
	mGCTotal    = "/cpu/classes/gc/total:cpu-seconds"
	mGCIdle     = "/cpu/classes/gc/mark/idle:cpu-seconds"
	mGCAssist   = "/cpu/classes/gc/mark/assist:cpu-seconds"
	mGCDedic    = "/cpu/classes/gc/mark/dedicated:cpu-seconds"
	mGCPause    = "/cpu/classes/gc/pause:cpu-seconds"
	mCycles     = "/gc/cycles/total:gc-cycles"
	mPauses     = "/sched/pauses/total/gc:seconds"
	mHeapLive   = "/gc/heap/live:bytes"
	mHeapGoal   = "/gc/heap/goal:bytes"
	mMemLimit   = "/gc/gomemlimit:bytes"
	mLimiter    = "/gc/limiter/last-enabled:gc-cycle"
	mHeapUnused = "/memory/classes/heap/unused:bytes"
	mHeapObj    = "/memory/classes/heap/objects:bytes"
	mTotalMem   = "/memory/classes/total:bytes"
	mAllocBytes = "/gc/heap/allocs:bytes"
	mAllocObjs  = "/gc/heap/allocs:objects"
	mLiveObjs   = "/gc/heap/objects:objects"
)

// Snapshot is one reading of the collector's counters: cumulative counters
// (CPU, cycles, allocations, pauses) to subtract with [Sub], and levels
// (heap sizes, memory limit) to read as they are.
type Snapshot struct {
	CPUTotal, CPUIdle                  float64 // cpu-seconds
	GCTotal, GCIdle, GCAssist, GCDedic float64 // cpu-seconds
	GCPause                            float64 // cpu-seconds spent in STW pauses
	Cycles                             uint64
	HeapLive, HeapGoal, MemLimit       uint64 // bytes
	LimiterLastEnabled                 uint64 // GC cycle in which the limiter was last on
	HeapUnused, HeapObjects, TotalMem  uint64 // bytes (heap unused = fragmentation)
	AllocBytes, AllocObjects           uint64 // cumulative
	// LiveObjects is the heap's object count: those marked live by the
	// last GC plus those allocated since (runtime/metrics'
	// /gc/heap/objects:objects). Right after runtime.GC() it is the live
	// count, the figure behind objects/entry.
	LiveObjects uint64
	Pauses      Histogram
}

// Reader reads Snapshots, reusing its buffers. It is not safe for
// concurrent use; make one per goroutine. Reading costs a few microseconds
// and allocates nothing but the pause histogram's copy after the first Read.
type Reader struct {
	samples []metrics.Sample
	last    Snapshot // Read's reading, before its Pauses copy
}

// snapshotFields are the metrics a Reader reads, in the order of its
// samples, each with the Snapshot field it fills.
var snapshotFields = []field[Snapshot]{
	f64(mCPUTotal, func(s *Snapshot) *float64 { return &s.CPUTotal }),
	f64(mCPUIdle, func(s *Snapshot) *float64 { return &s.CPUIdle }),
	f64(mGCTotal, func(s *Snapshot) *float64 { return &s.GCTotal }),
	f64(mGCIdle, func(s *Snapshot) *float64 { return &s.GCIdle }),
	f64(mGCAssist, func(s *Snapshot) *float64 { return &s.GCAssist }),
	f64(mGCDedic, func(s *Snapshot) *float64 { return &s.GCDedic }),
	f64(mGCPause, func(s *Snapshot) *float64 { return &s.GCPause }),
	u64(mCycles, func(s *Snapshot) *uint64 { return &s.Cycles }),
	hist(mPauses, func(s *Snapshot, h *metrics.Float64Histogram) {
		s.Pauses = Histogram{Counts: append(s.Pauses.Counts[:0], h.Counts...), Buckets: append(s.Pauses.Buckets[:0], h.Buckets...)}
	}),
	u64(mHeapLive, func(s *Snapshot) *uint64 { return &s.HeapLive }),
	u64(mHeapGoal, func(s *Snapshot) *uint64 { return &s.HeapGoal }),
	u64(mMemLimit, func(s *Snapshot) *uint64 { return &s.MemLimit }),
	u64(mLimiter, func(s *Snapshot) *uint64 { return &s.LimiterLastEnabled }),
	u64(mHeapUnused, func(s *Snapshot) *uint64 { return &s.HeapUnused }),
	u64(mHeapObj, func(s *Snapshot) *uint64 { return &s.HeapObjects }),
	u64(mTotalMem, func(s *Snapshot) *uint64 { return &s.TotalMem }),
	u64(mAllocBytes, func(s *Snapshot) *uint64 { return &s.AllocBytes }),
	u64(mAllocObjs, func(s *Snapshot) *uint64 { return &s.AllocObjects }),
	u64(mLiveObjs, func(s *Snapshot) *uint64 { return &s.LiveObjects }),
}

// NewReader returns a Reader.
func NewReader() *Reader {
	return &Reader{samples: samplesOf(snapshotFields)}
}

// Read takes a snapshot. The Pauses histogram is a fresh copy.
func (r *Reader) Read() Snapshot {
	r.ReadInto(&r.last)
	s := r.last
	s.Pauses = Histogram{Counts: slices.Clone(s.Pauses.Counts), Buckets: slices.Clone(s.Pauses.Buckets)}
	return s
}

// ReadInto takes a snapshot into dst, overwriting every field; the Pauses
// histogram is copied into dst.Pauses' own slices, grown only when they are
// too short, so once dst has held a reading ReadInto allocates nothing (a
// sampler that reads every window keeps two Snapshots and alternates).
func (r *Reader) ReadInto(dst *Snapshot) {
	metrics.Read(r.samples)
	*dst = Snapshot{Pauses: dst.Pauses}
	setFields(dst, r.samples, snapshotFields)
}

// Read takes a snapshot with a Reader of its own. Unlike Reader.Read it
// is safe for concurrent use, and it allocates.
func Read() Snapshot { return NewReader().Read() }
