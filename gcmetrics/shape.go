package gcmetrics

import (
	"math"
	"runtime/metrics"
)

// Heap-shape metric names (all in runtime/metrics.All() since Go 1.21):
// the scannable bytes the last cycle saw, and the allocations and frees by
// object size whose difference is the heap's objects by size.
const (
	mScanHeap    = "/gc/scan/heap:bytes"
	mScanGlobals = "/gc/scan/globals:bytes"
	mScanStack   = "/gc/scan/stack:bytes"
	mAllocsBy    = "/gc/heap/allocs-by-size:bytes"
	mFreesBy     = "/gc/heap/frees-by-size:bytes"
)

// SizeBands are the upper bounds, in bytes, of HeapShape.Mix's bands: tiny
// and small objects (up to 16 B, 128 B, 1 KiB), the rest of the size
// classes (32 KiB) and large objects (MaxInt64: each on spans of its own).
var SizeBands = []int64{16, 128, 1 << 10, 32 << 10, math.MaxInt64}

// HeapShape is what predicts how a heap's collector cost moves between
// collectors: how much of the heap the collector must scan per live byte,
// and the sizes of the objects it holds. Levels of one reading, from the
// last completed cycle (scan and live bytes) and the allocation counters
// (objects by size, which include objects not yet swept). A plain value.
type HeapShape struct {
	ScanHeap    uint64 `json:"scan_heap"`    // /gc/scan/heap:bytes
	ScanGlobals uint64 `json:"scan_globals"` // /gc/scan/globals:bytes
	ScanStack   uint64 `json:"scan_stack"`   // /gc/scan/stack:bytes
	HeapLive    uint64 `json:"heap_live"`    // /gc/heap/live:bytes
	Objects     uint64 `json:"objects"`      // /gc/heap/objects:objects
	// Mix is the heap's objects by size, one entry per SizeBands band.
	Mix []SizeBand `json:"mix,omitempty"`
}

// SizeBand is one band of HeapShape.Mix: the objects of at most UpTo
// bytes (and more than the band before) and the bytes they take (each
// object counted at its bucket's upper bound, a large one at the heap
// objects' bytes the smaller bands leave).
type SizeBand struct {
	UpTo    int64  `json:"up_to"`
	Objects uint64 `json:"objects"`
	Bytes   uint64 `json:"bytes"`
}

// ScanPerLive is the scannable bytes (heap, globals, stacks) per live heap
// byte; 0 when the live heap is unknown (no cycle yet). A heap of pointer-
// free chunks is near 0, one of small pointerful objects near 1.
func (h HeapShape) ScanPerLive() float64 {
	if h.HeapLive == 0 {
		return 0
	}
	return float64(h.ScanHeap+h.ScanGlobals+h.ScanStack) / float64(h.HeapLive)
}

// MeanObject is the live heap's mean object size in bytes (0: unknown).
func (h HeapShape) MeanObject() float64 {
	if h.Objects == 0 {
		return 0
	}
	return float64(h.HeapLive) / float64(h.Objects)
}

// ReadShape reads the heap's shape now. It allocates (two histograms): read
// it once per run, not per window.
func ReadShape() HeapShape {
	s := samplesOf(shapeFields)
	metrics.Read(s)
	var r shapeReading
	setFields(&r, s, shapeFields)
	r.Mix = sizeMix(r.allocs, r.frees, r.heapObjBytes)
	return r.HeapShape
}

// shapeReading is what ReadShape reads: the shape's levels and what its
// Mix is computed from.
type shapeReading struct {
	HeapShape
	heapObjBytes  uint64
	allocs, frees *metrics.Float64Histogram
}

// shapeFields are the metrics ReadShape reads, each with the field of a
// shapeReading it fills.
var shapeFields = []field[shapeReading]{
	u64(mScanHeap, func(r *shapeReading) *uint64 { return &r.ScanHeap }),
	u64(mScanGlobals, func(r *shapeReading) *uint64 { return &r.ScanGlobals }),
	u64(mScanStack, func(r *shapeReading) *uint64 { return &r.ScanStack }),
	u64(mHeapLive, func(r *shapeReading) *uint64 { return &r.HeapLive }),
	u64(mLiveObjs, func(r *shapeReading) *uint64 { return &r.Objects }),
	u64(mHeapObj, func(r *shapeReading) *uint64 { return &r.heapObjBytes }),
	hist(mAllocsBy, func(r *shapeReading, h *metrics.Float64Histogram) { r.allocs = h }),
	hist(mFreesBy, func(r *shapeReading, h *metrics.Float64Histogram) { r.frees = h }),
}

// sizeMix folds allocs minus frees (objects by size bucket) into
// SizeBands; nil when either histogram is missing or their shapes differ.
func sizeMix(allocs, frees *metrics.Float64Histogram, heapObjBytes uint64) []SizeBand {
	if allocs == nil || frees == nil || len(allocs.Counts) != len(frees.Counts) || len(allocs.Buckets) != len(allocs.Counts)+1 {
		return nil
	}
	mix := make([]SizeBand, len(SizeBands))
	for i := range mix {
		mix[i].UpTo = SizeBands[i]
	}
	var small uint64
	for i, a := range allocs.Counts {
		n := a - min(a, frees.Counts[i])
		hi := allocs.Buckets[i+1]
		b := len(SizeBands) - 1
		for j, up := range SizeBands[:len(SizeBands)-1] {
			if hi <= float64(up)+1 { // buckets end at a size class + 1 (upper bounds are exclusive)
				b = j
				break
			}
		}
		mix[b].Objects += n
		if b < len(SizeBands)-1 {
			bytes := n * uint64(min(hi-1, float64(SizeBands[b])))
			mix[b].Bytes += bytes
			small += bytes
		}
	}
	mix[len(mix)-1].Bytes = heapObjBytes - min(small, heapObjBytes)
	return mix
}

// MarkWallPerCycle estimates the wall time of one cycle's concurrent mark
// phase from a to b (b later), in seconds: the background mark workers'
// CPU (GC total minus idle mark, assists and pauses) over the 25% of
// GOMAXPROCS (procs) the pacer gives them while marking, per cycle. 0 when
// no cycle ended. It is an estimate (a trace measures the phase itself);
// it moves with the mark work a cycle needs, which is what a comparison
// of collectors reads.
func MarkWallPerCycle(a, b Snapshot, procs int) float64 {
	cycles := b.Cycles - a.Cycles
	if cycles == 0 || procs < 1 {
		return 0
	}
	bg := (b.GCTotal - b.GCIdle - b.GCAssist - b.GCPause) - (a.GCTotal - a.GCIdle - a.GCAssist - a.GCPause)
	return max(0, bg) / (0.25 * float64(procs)) / float64(cycles)
}
