// Package gcmetrics reads the garbage collector's runtime/metrics counters
// and turns two readings into the figures writegc reports everywhere:
// GC CPU share, assist share, pause percentiles, cycles and heap sizes.
//
// Definitions (used by benchmarks, gcstress and reports alike):
//   - CPU shares are fractions of the CPU the process actually used
//     (/cpu/classes/total minus /cpu/classes/idle), so an idle core does not
//     dilute them. GC CPU excludes idle-priority mark work
//     (/cpu/classes/gc/mark/idle), which only runs on otherwise idle cores.
//   - The /cpu/classes counters advance only when a GC cycle ends (measured
//     on Go 1.26), so a delta over an interval with no completed cycle shows
//     no GC CPU; compare intervals that span cycles.
//   - Pause figures come from the delta of /sched/pauses/total/gc:seconds, a
//     histogram; percentiles are bucket upper bounds.
//
// A Reader is not safe for concurrent use; make one per goroutine. Reading
// costs a few microseconds and allocates nothing after the first Read.
package gcmetrics

import (
	"math"
	"runtime/metrics"
)

// Metric names, in the order of Reader's sample slice.
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
)

var names = []string{mCPUTotal, mCPUIdle, mGCTotal, mGCIdle, mGCAssist, mGCDedic, mGCPause,
	mCycles, mPauses, mHeapLive, mHeapGoal, mMemLimit, mLimiter, mHeapUnused, mHeapObj, mTotalMem,
	mAllocBytes, mAllocObjs}

// Snapshot is one reading of the collector's counters.
type Snapshot struct {
	CPUTotal, CPUIdle                  float64 // cpu-seconds
	GCTotal, GCIdle, GCAssist, GCDedic float64 // cpu-seconds
	GCPause                            float64 // cpu-seconds spent in STW pauses
	Cycles                             uint64
	HeapLive, HeapGoal, MemLimit       uint64 // bytes
	LimiterLastEnabled                 uint64 // GC cycle in which the limiter was last on
	HeapUnused, HeapObjects, TotalMem  uint64 // bytes (heap unused = fragmentation)
	AllocBytes, AllocObjects           uint64 // cumulative
	Pauses                             Histogram
}

// Histogram is a copy of a runtime/metrics Float64Histogram.
type Histogram struct {
	Counts  []uint64
	Buckets []float64 // len(Counts)+1 boundaries
}

// Reader reads Snapshots, reusing its buffers.
type Reader struct {
	samples []metrics.Sample
}

// NewReader returns a Reader.
func NewReader() *Reader {
	r := &Reader{samples: make([]metrics.Sample, len(names))}
	for i, n := range names {
		r.samples[i].Name = n
	}
	return r
}

// Read takes a snapshot. The Pauses histogram is a fresh copy.
func (r *Reader) Read() Snapshot {
	metrics.Read(r.samples)
	var s Snapshot
	for _, m := range r.samples {
		switch m.Value.Kind() {
		case metrics.KindFloat64:
			v := m.Value.Float64()
			switch m.Name {
			case mCPUTotal:
				s.CPUTotal = v
			case mCPUIdle:
				s.CPUIdle = v
			case mGCTotal:
				s.GCTotal = v
			case mGCIdle:
				s.GCIdle = v
			case mGCAssist:
				s.GCAssist = v
			case mGCDedic:
				s.GCDedic = v
			case mGCPause:
				s.GCPause = v
			}
		case metrics.KindUint64:
			v := m.Value.Uint64()
			switch m.Name {
			case mCycles:
				s.Cycles = v
			case mHeapLive:
				s.HeapLive = v
			case mHeapGoal:
				s.HeapGoal = v
			case mMemLimit:
				s.MemLimit = v
			case mLimiter:
				s.LimiterLastEnabled = v
			case mHeapUnused:
				s.HeapUnused = v
			case mHeapObj:
				s.HeapObjects = v
			case mTotalMem:
				s.TotalMem = v
			case mAllocBytes:
				s.AllocBytes = v
			case mAllocObjs:
				s.AllocObjects = v
			}
		case metrics.KindFloat64Histogram:
			h := m.Value.Float64Histogram()
			s.Pauses = Histogram{Counts: append([]uint64(nil), h.Counts...), Buckets: append([]float64(nil), h.Buckets...)}
		}
	}
	return s
}

// Delta is what happened between two snapshots.
type Delta struct {
	CPUUsed   float64 // cpu-seconds used by the process (total - idle)
	GCCPU     float64 // cpu-seconds of GC work, idle mark excluded
	Assist    float64 // cpu-seconds of mark assists (charged to allocating goroutines)
	Dedicated float64
	IdleMark  float64
	Cycles    uint64
	Pauses    Histogram // pauses that happened in the interval
	AllocB    uint64
	AllocObjs uint64
}

// Sub returns the delta from a to b (b later).
func Sub(a, b Snapshot) Delta {
	d := Delta{
		CPUUsed:   (b.CPUTotal - b.CPUIdle) - (a.CPUTotal - a.CPUIdle),
		GCCPU:     (b.GCTotal - b.GCIdle) - (a.GCTotal - a.GCIdle),
		Assist:    b.GCAssist - a.GCAssist,
		Dedicated: b.GCDedic - a.GCDedic,
		IdleMark:  b.GCIdle - a.GCIdle,
		Cycles:    b.Cycles - a.Cycles,
		AllocB:    b.AllocBytes - a.AllocBytes,
		AllocObjs: b.AllocObjects - a.AllocObjects,
	}
	if len(a.Pauses.Counts) == len(b.Pauses.Counts) {
		d.Pauses = Histogram{Buckets: b.Pauses.Buckets, Counts: make([]uint64, len(b.Pauses.Counts))}
		for i := range b.Pauses.Counts {
			d.Pauses.Counts[i] = b.Pauses.Counts[i] - a.Pauses.Counts[i]
		}
	} else {
		d.Pauses = b.Pauses
	}
	return d
}

// GCCPUPercent is GC CPU as a percentage of the CPU the process used.
func (d Delta) GCCPUPercent() float64 { return pct(d.GCCPU, d.CPUUsed) }

// AssistPercent is mark-assist CPU as a percentage of the CPU the process used.
func (d Delta) AssistPercent() float64 { return pct(d.Assist, d.CPUUsed) }

func pct(x, total float64) float64 {
	if total <= 0 {
		return 0
	}
	return 100 * x / total
}

// Count returns the number of observations in h.
func (h Histogram) Count() uint64 {
	var n uint64
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Quantile returns the upper bound of the bucket holding quantile q (0..1),
// in the histogram's unit; 0 for an empty histogram. An infinite upper bound
// is replaced by the bucket's lower bound.
func (h Histogram) Quantile(q float64) float64 {
	n := h.Count()
	if n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(n)))
	if rank == 0 {
		rank = 1
	}
	var seen uint64
	for i, c := range h.Counts {
		seen += c
		if seen >= rank {
			hi := h.Buckets[i+1]
			if math.IsInf(hi, 1) {
				return h.Buckets[i]
			}
			return hi
		}
	}
	return h.Buckets[len(h.Buckets)-1]
}

// Max returns the upper bound of the highest non-empty bucket (0 if empty).
func (h Histogram) Max() float64 {
	for i := len(h.Counts) - 1; i >= 0; i-- {
		if h.Counts[i] > 0 {
			hi := h.Buckets[i+1]
			if math.IsInf(hi, 1) {
				return h.Buckets[i]
			}
			return hi
		}
	}
	return 0
}
